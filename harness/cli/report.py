"""``bedrock-harness report merge``: the JSON reports of a split run (``--shard K/N``) joined into one report."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from harness.cli.common import BadUsage, InputFile
from harness.cli.output import choose_format, output_option, write_output
from harness.studies import merge as merging
from harness import report

__all__ = ["report_group"]

FORMATS = ("text", "json", "junit", "markdown", "html")


@click.group("report")
def report_group() -> None:
    """Work with JSON reports: merge shards into one report."""


@report_group.command()
@click.argument("paths", nargs=-1, required=True, metavar="REPORT.json...",
                type=InputFile())
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Report format [default: from --output's suffix, else markdown for a certification, text for a "
                   "run].")
@output_option(FORMATS)
@click.option("-v", "--verbose", is_flag=True, help="Text: whole reasons, and the findings of skips and xfails too.")
def merge(paths: tuple[Path, ...], fmt: str | None, output: Path | None, verbose: bool) -> None:
    """Join the JSON reports of a split run (run or certify --shard K/N --format json) into one report; exit 1 when
    a scenario failed, as the unsplit run would."""
    try:
        documents = [merging.load_report(path) for path in paths]
        merged = merging.merge(documents, [str(p) for p in paths])
    except merging.MergeError as error:
        raise BadUsage(str(error)) from None
    fmt = choose_format(fmt, output, "markdown" if merging.is_certification(merged) else "text", FORMATS)
    try:
        text = merging.render(merged, fmt, verbose)
    except (KeyError, TypeError, ValueError) as error:  # a result the renderers cannot read
        raise BadUsage(f"{', '.join(map(str, paths))}: a result cannot be read back ({type(error).__name__}: "
                       f"{error})") from None
    write_output(text, output)
    if output is not None and str(output) != "-":
        click.echo(f"wrote {output}: {len(merged['results'])} scenarios from {len(paths)} reports", err=True)
    sys.exit(report.exit_code(merging.results_of(merged)))
