"""``bedrock-harness drift``: has Bedrock's wire changed? Fresh recordings through the recording proxy, their shape
compared with the shipped cassettes'."""

from __future__ import annotations

import sys

import click

from harness.cli.common import BadUsage, default_region, load, one_root_option, scenarios
from harness.cli.output import choose_format, output_option, write_output
from harness.cli.serve import recording_upstream
from harness.studies import drift as drifting

__all__ = ["drift"]

FORMATS = {"text": drifting.render_text, "json": drifting.render_json}


def _progress(done: int, total: int, result: drifting.DriftResult) -> None:
    click.echo(f"[{done}/{total}] {result.scenario} {result.status}", err=True)


@click.command()
@click.argument("ids", nargs=-1, metavar="[SCENARIO]...")
@click.option("--live", is_flag=True, help="Record afresh from real Bedrock (default credential chain).")
@click.option("--endpoint-url", metavar="URL", help="Record afresh from this Bedrock endpoint instead.")
@click.option("--region", default=default_region, show_default="AWS_REGION or us-east-1")
@click.option("--profile", help="AWS profile (same as AWS_PROFILE).")
@click.option("--model", help="Record with this model id instead of each scenario's.")
@click.option("--include-emulator-only", is_flag=True, help="Also compare scenarios tagged emulator_only.")
@click.option("--format", "fmt", type=click.Choice(sorted(FORMATS)), default=None,
              help="Report format [default: from --output's suffix, else text].")
@output_option(FORMATS)
@click.option("--progress/--no-progress", default=None, help="Progress on stderr (default: when stderr is a TTY).")
@one_root_option
def drift(ids, live, endpoint_url, region, profile, model, include_emulator_only, fmt, output, progress, root):
    """Record these scenarios afresh (all when none named) and report how the wire shape differs from the shipped
    cassettes: event order, fields per event and block type, stop reasons, header names. Exit 1 on a change."""
    if live == bool(endpoint_url):
        raise BadUsage("give exactly one of --live or --endpoint-url URL")
    fmt = choose_format(fmt, output, "text", tuple(FORMATS))
    upstream = recording_upstream(endpoint_url, region, profile, "drift --live" if live else "drift",
                                  option="--endpoint-url")
    root, chosen = scenarios(root, (), ids)
    show = progress if progress is not None else sys.stderr.isatty()
    results = drifting.drift(chosen, load("reference"), upstream, root, model_id=model,
                             include_emulator_only=include_emulator_only, progress=_progress if show else None)
    write_output(FORMATS[fmt](results, upstream.url), output)
    sys.exit(drifting.exit_code(results))
