"""``bedrock-harness run``: the main job."""

from __future__ import annotations

import gc
import sys

import click

from harness import report
from harness.cli.common import (InputFile, BadUsage, adapter_option, child_options, every_id, load, loopback_option, release_args,
                                release_options, root_option, scenarios, selection, selection_options, shard_option,
                                strict_option, timeout_option)
from harness.cli.jobs import jobs_option, run_in_children
from harness.cli.output import choose_format, output_option, write_output

__all__ = ["run"]


def _progress(enabled: bool):
    """A progress printer for stderr (one line per scenario), or None."""
    if not enabled:
        return None
    return lambda done, total, result: click.echo(f"[{done}/{total}] {result.scenario} {result.status}", err=True)


@click.command()
@adapter_option
@selection_options
@click.option("--format", "fmt", type=click.Choice(report.FORMATS), default=None,
              help="Report format [default: from --output's suffix, else text].")
@output_option(report.FORMATS)
@click.option("--baseline", type=InputFile(),
              help="Known failures (YAML: scenario id -> reason).")
@timeout_option
@release_options
@click.option("--progress/--no-progress", default=None, help="Progress on stderr (default: when stderr is a TTY).")
@click.option("-v", "--verbose", is_flag=True, help="Text: whole reasons, and the findings of skips and xfails too.")
@strict_option
@shard_option
@jobs_option
@loopback_option
@root_option
def run(spec, suites, ids, fmt, output, baseline, timeout, version, cache_dir, pins, progress, verbose, strict, shard, jobs,
        loopback, root):
    """Replay every scenario against an adapter and print the conformance table."""
    fmt = choose_format(fmt, output, "text", report.FORMATS)
    given, show = root, sys.stderr.isatty() if progress is None else progress
    if jobs > 1:  # the children read the scenarios, each its own shard's
        _in_children(spec, suites, ids, baseline, timeout, shard, given, jobs, len(selection(given, suites, ids)),
                     show, fmt, verbose, output, release_args(version, cache_dir, pins), loopback)
    from harness.suite.runner import run as run_scenarios  # not in a --jobs parent, whose children run

    root, selected = scenarios(given, suites, ids, shard)
    adapter = load(spec, timeout, version, cache_dir, pins)
    try:
        known = report.load_baseline(baseline) if baseline else {}
    except report.BaselineError as exc:
        raise click.UsageError(str(exc)) from None
    gc.freeze()  # what start-up built (boto3's, the scenarios', the adapter's) lives to the end: no collection walks it
    results = run_scenarios(selected, adapter, root, _progress(show), loopback == "in-process")
    if baseline:
        results = report.apply_baseline(results, known, every_id(root, given), strict)
    write_output(report.render(results, adapter, fmt, cassettes=report.cassette_files(selected, root),
                               verbose=verbose, shard=shard), output)
    sys.exit(report.exit_code(results, strict))


def _in_children(spec, suites, ids, baseline, timeout, shard, roots, jobs, total, show, fmt, verbose, output, release,
                 loopback):
    """The run as ``jobs`` child processes, one shard each, the reports joined; exits as the run would."""
    if shard is not None:
        raise BadUsage("--jobs splits the run into shards itself: give --jobs or --shard, not both")
    options = child_options(("--adapter", spec), suites, ids, baseline, timeout, roots, loopback) + release
    merged = run_in_children("run", options, jobs, total, show)
    from harness.studies import merge as merging  # the shards' reports joined: --jobs only

    write_output(merging.render(merged, fmt, verbose), output)
    sys.exit(report.exit_code(merging.results_of(merged)))

