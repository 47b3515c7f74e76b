"""``bedrock-harness run`` (the main job) and ``list``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from harness.suite import report
from harness.cassettes.cassette import write_atomic
from harness.cli.common import adapter_option, every_id, load, root_option, scenarios, selection_options
from harness.suite.runner import run as run_scenarios

__all__ = ["list_scenarios", "run"]


def _progress(enabled: bool):
    """A progress printer for stderr (one line per scenario), or None."""
    if not enabled:
        return None
    return lambda done, total, result: click.echo(f"[{done}/{total}] {result.scenario} {result.status}", err=True)


def _write(text: str, output: Path | None) -> None:
    if output is None:
        click.echo(text.rstrip("\n"))
        return
    write_atomic(output, text if text.endswith("\n") else text + "\n")


@click.command()
@adapter_option
@selection_options
@click.option("--format", "fmt", type=click.Choice(report.FORMATS), default="text", show_default=True)
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here.")
@click.option("--baseline", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Known failures (YAML: scenario id -> reason).")
@click.option("--progress/--no-progress", default=None, help="Progress on stderr (default: when stderr is a TTY).")
@root_option
def run(spec, suites, ids, fmt, output, baseline, progress, root):
    """Replay every scenario against an adapter and print the conformance table."""
    root, selected = scenarios(root, suites, ids)
    adapter = load(spec)
    try:
        known = report.load_baseline(baseline) if baseline else {}
    except report.BaselineError as exc:
        raise click.UsageError(str(exc)) from None
    results = run_scenarios(selected, adapter, root, _progress(sys.stderr.isatty() if progress is None else progress))
    if baseline:
        results = report.apply_baseline(results, known, every_id(root))
    _write(report.render(results, adapter, fmt), output)
    sys.exit(report.exit_code(results))


@click.command("list")
@selection_options
@root_option
def list_scenarios(suites, ids, root):
    """The scenarios, their tags and required capabilities."""
    _, selected = scenarios(root, suites, ids)
    width = max((len(s.id) for s in selected), default=0)
    for s in selected:
        click.echo(f"{s.id:<{width}}  tags: {', '.join(s.tags) or '-'}  requires: {', '.join(sorted(s.requires)) or '-'}")
