"""``bedrock-harness repro``: one self-contained reproduction folder of a finding (harness/studies/repro.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from harness.cli.common import (BadUsage, named_folder, no_release_for_command, one_root_option, release_options, scenarios,
                                timeout_option)

__all__ = ["repro"]


def _from_report(path: Path, sid: str) -> tuple[dict, object]:
    """(the report's adapter, the scenario's result) of a certification JSON report."""
    from harness.report import results_from_json

    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        results, _ = results_from_json(document)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BadUsage(f"--report {path}: not a certification JSON report ({type(exc).__name__}: {exc})") from None
    result = next((r for r in results if r.scenario == sid), None)
    if result is None:
        raise BadUsage(f"--report {path}: no result for {sid}")
    return document["adapter"], result


def _run(scenario, root, spec, command, timeout, release) -> tuple[dict, object]:
    """(the adapter's identity, the scenario's result) of running it once, as certify runs it."""
    from harness.cli.certify import _adapter
    from harness.report import adapter_info
    from harness.studies import certify as certification

    with _adapter(spec, command, timeout, release) as adapter:
        result = certification.run([scenario], adapter, root)[0]
        return adapter_info(adapter), result


@click.command()
@click.argument("scenario_id", metavar="SCENARIO")
@click.option("--adapter", "spec", metavar="SPEC", help="In-process adapter: a registered name or module:attribute.")
@click.option("--command", metavar="CMD", help="Subprocess adapter: a command line (any language).")
@release_options
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="The folder to write (created; its files are replaced).")
@click.option("--report", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="REPORT.json",
              help="Read the finding from this certification report (certification/NAME.json) instead of running "
                   "the adapter; the adapter is then the report's unless --adapter or --command says otherwise.")
@timeout_option
@one_root_option
def repro(scenario_id, spec, command, version, cache_dir, pins, out, report, timeout, root):
    """A self-contained reproduction of SCENARIO's finding for the library's maintainers.

    The folder is the scenario root (scenario, golden, cassette), repro.py (exit 1 while it reproduces), app.py or app.mjs
    (the library's own calls, where a template exists) and a README with expected against actual and the evidence."""
    from harness.adapters.apps import app_for
    from harness.report.links import SUFFIX, beside, library_file
    from harness.report.pointers import pointers
    from harness.studies import repro as reproduction

    if spec is not None and command is not None:
        raise click.UsageError("give --adapter SPEC or --command CMD, not both")
    if report is None and spec is None and command is None:
        raise click.UsageError("give --adapter SPEC or --command CMD (or --report REPORT.json)")
    no_release_for_command(command, version, cache_dir, pins)
    named_folder(out, "--out")
    root, found = scenarios(root, (), (scenario_id,))
    scenario = found[0]
    if report is not None:
        adapter, result = _from_report(report, scenario_id)
        if spec is None and command is None:
            js = bool(adapter.get("packages"))
            spec = adapter.get("name") if js else adapter.get("spec") or None
            command = None if js else adapter.get("command")
            version = version or (adapter.get("version") if js else None)
    else:
        adapter, result = _run(scenario, root, spec, command, timeout, (version, cache_dir, pins))
    finding = reproduction.finding(result)
    if finding is None:
        click.echo(f"{scenario_id} is {result.status} on {adapter.get('name')} {adapter.get('version')}: "
                   "no failure to reproduce", err=True)
        sys.exit(1)
    pointer = None
    if report is not None:
        page = library_file(report, ".md")
        found_links = beside(report) if library_file(report, SUFFIX) else ()
        shown = f"{report.parent.name}/{page.name}" if page is not None else None  # as the committed path reads
        pointer = pointers([result], str(adapter.get("version") or ""), found_links, shown,
                           page.read_text(encoding="utf-8") if page is not None else None).get(scenario_id)
    written = reproduction.write(out, scenario, root, finding, {"name": adapter.get("name"),
                                                                "version": adapter.get("version")},
                                 spec=spec if command is None else None, command=command, version=version, pins=pins,
                                 pointer=pointer,
                                 app=app_for(spec, scenario, adapter.get("packages")) if command is None else None)
    click.echo(f"wrote {out}: {len(written)} files; {scenario_id} {finding.status}: {finding.headline}")
