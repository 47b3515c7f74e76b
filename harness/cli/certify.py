"""``bedrock-harness certify``: the run engine on an in-process or subprocess adapter, and its certification."""

from __future__ import annotations

import difflib
import sys
from contextlib import contextmanager
from pathlib import Path

import click

from harness.studies import certify as certification
from harness.studies import certification_table as certification_tables
from harness.studies import merge as merging
from harness import report
from harness.adapters import AdapterLoadError
from harness.adapters.subprocess import SubprocessAdapter
from harness.cli.certify_live import LIVE_FORMATS, certify_live, live_upstream
from harness.cli.common import (InputFile, BadUsage, child_options, default_region, every_id, load, loopback_option, named_folder,
                                one_root_option, no_release_for_command, release_args, release_options, root_option, scenarios,
                                selection, selection_options, shard_option, strict_option, timeout_option)
from harness.cli.jobs import jobs_option, run_in_children
from harness.cli.output import choose_format, output_option, write_output
from harness.cassettes.files import write_atomic
from harness.suite.results import LEVELS, RECOMMENDED
from harness.suite.runner import project_root

__all__ = ["certification_table", "certify"]


def _baseline(path: Path | None) -> dict[str, str]:
    try:
        return report.load_baseline(path) if path else {}
    except report.BaselineError as exc:
        raise click.UsageError(str(exc)) from None


def _linked(cert: certification.Certification, links: Path | None, known: list[str]) -> certification.Certification:
    """``cert`` with its cells' pointers from ``links`` (None: as it is); each stale or missing link said in one line."""
    if links is None:
        return cert
    from harness.report.links import LinksError

    try:
        cert, said = certification.linked(cert, links, known)
    except LinksError as exc:
        raise BadUsage(str(exc)) from None
    for line in said:
        click.echo(f"warning: {line}", err=True)
    return cert


def _start(command: str, timeout: float) -> SubprocessAdapter:
    """The subprocess adapter, handshake done; a command that cannot start is a usage error (exit 2)."""
    try:
        return SubprocessAdapter(command, timeout=timeout)
    except (AdapterLoadError, ValueError) as exc:  # ValueError: shlex cannot split the command
        raise BadUsage(f"--command: {exc}") from None


@contextmanager
def _adapter(spec: str | None, command: str | None, timeout: float, release: tuple = (None, None)):
    """The adapter for ``spec`` (``release``: a JavaScript shim's version and cache folder) or the started
    ``command``, closed (a subprocess) at the end."""
    adapter = load(spec, timeout, *release) if spec is not None else _start(command, timeout)
    try:
        yield adapter
    finally:
        if isinstance(adapter, SubprocessAdapter):
            adapter.close()


def _progress(enabled: bool | None):
    """One line per scenario on stderr (default: when stderr is a terminal), or None."""
    if not (sys.stderr.isatty() if enabled is None else enabled):
        return None
    return lambda done, total, result: click.echo(f"[{done}/{total}] {result.scenario} {result.status}", err=True)


def _emit(cert: certification.Certification, fmt: str, output: Path | None, output_dir: Path | None,
          verbose: bool = False) -> None:
    """Print the report, write it to ``output``, or write all three formats into ``output_dir``."""
    if output_dir is not None:
        written = certification.write_reports(cert, output_dir)
        click.echo(certification.render_text(cert, verbose).rstrip("\n"))
        click.echo(f"wrote {', '.join(str(p) for p in written)}", err=True)
        return
    write_output(certification.render(cert, fmt, verbose), output)
    if output is not None and str(output) != "-":
        click.echo(f"wrote {output}", err=True)


@click.command()
@click.option("--adapter", "spec", metavar="SPEC", help="In-process adapter: reference, a registered name, or module:attribute.")
@click.option("--command", metavar="CMD", help='Subprocess adapter: a command line, split like a shell (no shell), e.g. "node adapter.mjs".')
@selection_options
@click.option("--baseline", type=InputFile(),
              help="Known failures (YAML: scenario id -> reason).")
@click.option("--links", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Upstream bugs of failing cells (certification/NAME.links.yaml): shown beside each cell with its "
                   "section of NAME.md beside the file; a stale link and a failing cell without one are each said "
                   "in one line on stderr.")
@click.option("--format", "fmt", type=click.Choice(certification.FORMATS), default=None,
              help="Report format [default: from --output's suffix, else markdown; --live: text or json].")
@output_option(certification.FORMATS)
@click.option("--output-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write certification.md, certification.json and certification.xml (JUnit) here.")
@timeout_option
@release_options
@click.option("--progress/--no-progress", default=None, help="Progress on stderr (default: when stderr is a TTY).")
@click.option("--live", is_flag=True, help="Against real Bedrock through the recording proxy (needs credentials): "
                                           "checks, laws and rules instead of goldens, with retries.")
@click.option("--attempts", type=click.IntRange(1, 20), default=3, show_default=True,
              help="With --live: tries per scenario (pass@1 and pass@K).")
@click.option("--upstream", metavar="URL", help="With --live: forward to this endpoint instead of real Bedrock.")
@click.option("--region", default=default_region, show_default="AWS_REGION or us-east-1", help="With --live.")
@click.option("--profile", help="With --live: AWS profile (same as AWS_PROFILE).")
@click.option("--model", help="With --live: use this model id instead of each scenario's.")
@click.option("--keep-failures", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="With --live: keep failed attempts' recordings here [default: live-failures/<UTC time>].")
@click.option("-v", "--verbose", is_flag=True, help="Text: whole reasons, and the findings of skips and xfails too.")
@strict_option
@click.option("--level", type=click.Choice(LEVELS), default=RECOMMENDED, show_default=True,
              help="What fails the run: required (only the required scenarios: evidence about Bedrock, the laws, "
                   "the founding checks) or recommended (every scenario). The report states both levels either way.")
@shard_option
@jobs_option
@loopback_option
@root_option
def certify(spec, command, suites, ids, baseline, links, fmt, output, output_dir, timeout, version, cache_dir, pins,
            progress, live, attempts, upstream, region, profile, model, keep_failures, verbose, strict, level, shard, jobs, loopback,
            root):
    """Certify an adapter (in-process, or any language over the subprocess protocol) and write its report."""
    if (spec is None) == (command is None):
        raise click.UsageError("give exactly one of --adapter SPEC or --command CMD")
    no_release_for_command(command, version, cache_dir, pins)
    if output is not None and output_dir is not None:
        raise click.UsageError("give --output or --output-dir, not both")
    if output_dir is not None and fmt is not None:
        raise click.UsageError("--output-dir writes certification.md, .json and .xml; --format goes with --output")
    if live and (baseline or links or output_dir or shard or jobs > 1):
        raise BadUsage("--live writes one report (--output or stdout) and takes no --baseline, --links, --shard or "
                       "--jobs")
    if shard is not None and jobs > 1:
        raise BadUsage("--jobs splits the run into shards itself: give --jobs or --shard, not both")
    if not live and (upstream or profile or model or keep_failures):
        raise BadUsage("--upstream, --profile, --model and --keep-failures go with --live")
    fmt = choose_format(fmt, output, "text" if live else "markdown", tuple(LIVE_FORMATS) if live else
                        certification.FORMATS)
    if output_dir is not None:
        named_folder(output_dir, "--output-dir")
    if keep_failures is not None:
        named_folder(keep_failures, "--keep-failures", create=False)  # made on the first failed attempt
    given = root
    if links is not None:  # a links file that cannot be used stops the run before it starts
        _linked(certification.Certification({}, (), {}, {}, ""), links, every_id(None, given))
    if jobs > 1:  # the children read the scenarios, each its own shard's
        adapter = ("--adapter", spec) if spec is not None else ("--command", command)
        options = (child_options(adapter, suites, ids, baseline, timeout, given, loopback)
                   + release_args(version, cache_dir, pins))
        merged = run_in_children("certify", options, jobs, len(selection(given, suites, ids)),
                                 sys.stderr.isatty() if progress is None else progress)
        _emit(_linked(certification.from_json(merged), links, every_id(None, given)), fmt, output, output_dir, verbose)
        sys.exit(report.exit_code(merging.results_of(merged), strict, level))
    root, selected = scenarios(given, suites, ids, shard)
    if live:
        forward = live_upstream(upstream, region, profile)  # no credentials: refused before any adapter starts
        with _adapter(spec, command, timeout, (version, cache_dir, pins)) as adapter:
            certify_live(selected, adapter, forward, model=model, attempts=attempts, keep_failures=keep_failures,
                         fmt=fmt, output=output, progress=_progress(progress))
    known = _baseline(baseline)
    with _adapter(spec, command, timeout, (version, cache_dir, pins)) as adapter:
        results = certification.run(selected, adapter, root, _progress(progress), loopback == "in-process")
    if baseline:
        results = report.apply_baseline(results, known, every_id(root, given), strict)
    cert = _linked(certification.build(results, adapter, selected, root, spec, shard), links, every_id(root, given))
    _emit(cert, fmt, output, output_dir, verbose)
    sys.exit(report.exit_code(results, strict, level))


def _tables(reports: list[Path]) -> list[tuple[tuple[str, str], str]]:
    """(markers, table) of the certification table and, when floor reports are among ``reports``, the floor table."""
    floors = [p for p in reports if p.name.endswith(certification_tables.FLOOR_SUFFIX)]
    newest = [p for p in reports if p not in floors]
    if not newest:
        raise certification_tables.TableError(f"{floors[0]}: floor reports need the newest releases' reports too")
    blocks = [((certification_tables.BEGIN, certification_tables.END),
               certification_tables.render(certification_tables.load_reports(newest)))]
    if floors:
        blocks.append(((certification_tables.FLOOR_BEGIN, certification_tables.FLOOR_END),
                       certification_tables.render_floors(certification_tables.load_floors(floors))))
    return blocks


def _reports(root: Path, paths: tuple[Path, ...]) -> list[Path]:
    """The reports given, or ``certification/*.json`` under the root: the reference adapters first."""
    if paths:
        return list(paths)
    found = sorted((root / "certification").glob("*.json"))
    return sorted(found, key=lambda p: (not p.stem.startswith("reference"), p.stem))


@click.command("certification-table")
@click.argument("paths", nargs=-1, type=InputFile(), metavar="[REPORT.json]...")
@click.option("--readme", type=InputFile(),
              help="The markdown file holding the tables between their markers (the project's: "
                   "docs/certification/third-party.md).")
@click.option("--check", is_flag=True, help="Exit 1 when the file's tables differ from the reports.")
@click.option("--write", is_flag=True, help="Rewrite the file's tables from the reports.")
@one_root_option
def certification_table(paths, readme, check, write, root):
    """The certification table from JSON reports [default: certification/*.json], printed, checked or written."""
    if (check or write) and readme is None:
        raise click.UsageError("--check and --write need --readme")
    reports = _reports(root or project_root(), paths)
    if not reports:
        raise click.UsageError("no certification reports: give REPORT.json files or keep them in certification/")
    try:
        blocks = _tables(reports)
        if readme is None:
            click.echo("\n".join(table for _, table in blocks).rstrip("\n"))
            return
        text = readme.read_text()
        stale = [(markers, table) for markers, table in blocks
                 if certification_tables.table_block(text, str(readme), markers) != table]
        if write:
            for markers, table in stale:
                text = certification_tables.replace_block(text, table, str(readme), markers)
            write_atomic(readme, text)
        elif check and stale:
            for markers, table in stale:
                current = certification_tables.table_block(text, str(readme), markers)
                click.echo("\n".join(difflib.unified_diff(current.splitlines(), table.splitlines(),
                                                          f"{readme} (table)", "reports", lineterm="")))
            click.echo(f"{readme}: the certification table differs from the reports; "
                       f"run `bedrock-harness certification-table --readme {readme} --write`", err=True)
            sys.exit(1)
    except certification_tables.TableError as exc:
        raise click.UsageError(str(exc)) from None
