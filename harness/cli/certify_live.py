"""``bedrock-harness certify --live``: the adapter against real Bedrock (or ``--upstream``) through the recording
proxy, judged by each scenario's checks, the stream laws and Bedrock's rules, with pass@1 and pass@K."""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

import click

from harness.cli.output import write_output
from harness.cli.serve import recording_upstream
from harness.endpoint.upstream import Upstream
from harness.studies import live

__all__ = ["LIVE_FORMATS", "certify_live", "live_upstream"]

LIVE_FORMATS = {"text": live.render_text, "json": live.render_json}


def _keep_dir(given: Path | None) -> Path:
    """Where failed attempts' recordings go: ``--keep-failures`` or a new ``live-failures/<UTC time>`` folder."""
    if given is not None:
        return given
    return Path("live-failures") / datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def live_upstream(url: str | None, region: str, profile: str | None) -> Upstream:
    """The upstream, checked before any adapter starts (no credentials: the one-line refusal)."""
    return recording_upstream(url, region, profile, "certify --live", "certify")


def certify_live(selected, adapter, upstream: Upstream, *, model, attempts, keep_failures, fmt, output,
                 progress) -> None:
    """Run the live certification, print or write its report, exit 1 when a scenario failed every attempt."""
    results = live.certify_live(selected, adapter, upstream, attempts=attempts, keep_dir=_keep_dir(keep_failures),
                                model_id=model, progress=progress)
    write_output(LIVE_FORMATS[fmt](results, adapter, upstream.url, attempts), output)
    if output is not None and str(output) != "-":
        click.echo(f"wrote {output}", err=True)
    sys.exit(live.exit_code(results))
