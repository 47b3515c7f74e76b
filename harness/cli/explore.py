"""``bedrock-harness explore``: draw random valid Bedrock conversations, judge an adapter without goldens, and write
each shrunk failure as a scenario (harness.studies.explore)."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import click

from harness.cli.common import (BadUsage, load, loopback_option, named_folder, no_release_for_command, release_options,
                                timeout_option)
from harness.studies.explore.families import FAMILIES  # data only: no Hypothesis, no botocore

__all__ = ["explore"]

FAMILY_NAMES = tuple(f.name for f in FAMILIES)


def default_db(adapter_name: str) -> Path:
    """``$XDG_CACHE_HOME/bedrock-harness/explore/<adapter>`` (``~/.cache/...`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in adapter_name) or "adapter"
    return Path(base) / "bedrock-harness" / "explore" / safe


def _command_line(spec, command, profile, seed, families, max_turns) -> str:
    """The command that re-runs this search (written into each scenario's description)."""
    parts = ["bedrock-harness", "explore", *(["--adapter", spec] if spec else ["--command", command])]
    parts += (["--profile", profile] if profile != "default" else []) + (["--seed", str(seed)] if seed is not None
                                                                          else [])
    parts += [p for f in families for p in ("--family", f)] + (["--max-turns", str(max_turns)] if max_turns else [])
    return shlex.join(parts)


@click.command()
@click.option("--adapter", "spec", metavar="SPEC", help="In-process adapter: reference, a registered name, or module:attribute.")
@click.option("--command", metavar="CMD", help='Subprocess adapter: a command line, split like a shell (no shell).')
@release_options
@timeout_option
@click.option("--profile", type=click.Choice(("default", "ci", "deep")), default="default", show_default=True,
              help="ci: derandomized, 500 examples, at most 300 s of new examples; deep: 5000 examples, random seed, "
                   "4 turns; default: 100 examples, random seed.")
@click.option("--examples", type=click.IntRange(1, 10**7), default=None, metavar="N",
              help="Examples to draw [default: the profile's].")
@click.option("--seed", type=click.IntRange(0, 2**64), default=None, metavar="S",
              help="Draw from this seed (overrides the ci profile's fixed one); the summary prints it.")
@click.option("--family", "families", multiple=True, type=click.Choice(FAMILY_NAMES),
              help="Only this model family (repeatable) [default: all].")
@click.option("--max-turns", type=click.IntRange(1, 8), default=None, metavar="N",
              help="Turns per conversation at most [default: the profile's].")
@click.option("--time-budget", type=click.FloatRange(0, min_open=True), default=None, metavar="SECONDS",
              help="Seconds of new examples (shrinking and the final replays still run) [default: the profile's].")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Write each shrunk failure here as a scenario root (suites/, cassettes/, goldens) that "
                   "`run --root DIR` replays.")
@click.option("--db", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Example database: failing examples kept and re-run first "
                   "[default: $XDG_CACHE_HOME/bedrock-harness/explore/<adapter>].")
@click.option("--no-db", is_flag=True, help="Keep no example database.")
@click.option("--compare", "compare_spec", metavar="SPEC",
              help="Also run each example on this in-process adapter: differing chunks are warnings.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@loopback_option
def explore(spec, command, version, cache_dir, pins, timeout, profile, examples, seed, families, max_turns, time_budget, out,
            db, no_db, compare_spec, fmt, loopback):
    """Draw random valid conversations, judge an adapter by laws, conservation, parity and Bedrock's rules, and write
    each shrunk failure as a scenario."""
    from harness.studies.explore.needs import hypothesis_missing

    missing = hypothesis_missing()
    if missing:
        raise BadUsage(missing)
    if (spec is None) == (command is None):
        raise click.UsageError("give exactly one of --adapter SPEC or --command CMD")
    no_release_for_command(command, version, cache_dir, pins)
    if db is not None and no_db:
        raise click.UsageError("give --db DIR or --no-db, not both")
    if out is not None:
        named_folder(out, "--out")
    from harness.cli.certify import _adapter
    from harness.studies.explore.search import explore as search
    from harness.studies.explore.summary import render_json, render_text

    with _adapter(spec, command, timeout, (version, cache_dir, pins)) as adapter:
        other = load(compare_spec, timeout) if compare_spec else None
        folder = None if no_db else db or default_db(getattr(adapter, "name", spec or "command"))
        report = search(adapter, profile=profile, examples=examples, seed=seed, families=families,
                        max_turns=max_turns, time_budget=time_budget, db=folder, compare=other,
                        in_process=loopback == "in-process")
        written = _write(report, out, adapter, _command_line(spec, command, profile, seed, families, max_turns))
    if fmt == "json":
        click.echo(json.dumps(render_json(report, written), indent=2, default=str))
    else:
        click.echo(render_text(report, written), nl=False)
    sys.exit(1 if report.failures else 0)


def _write(report, out, adapter, command: str) -> list:
    if out is None or not report.failures:
        return []
    from harness.studies.explore.write import write_failure

    return [write_failure(failure, out, command, adapter) for failure in report.failures]
