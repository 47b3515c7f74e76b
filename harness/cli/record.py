"""``bedrock-harness record``: capture cassettes through the real record path."""

from __future__ import annotations

import ipaddress
import os
import sys
from urllib.parse import urlsplit

import click

from harness.cli.common import live_credentials, load, one_root_option, scenarios
from harness.endpoint.upstream import checked_url
from harness.suite.record import MODES, Target, record_scenario
from harness.suite.runner import DUMMY_KEYS

__all__ = ["is_loopback", "record"]


def _target(live: bool, emulate: bool, endpoint_url: str | None, region: str, model: str | None,
            profile: str | None) -> Target:
    """The recording target; exactly one of --live, --emulate, --endpoint-url (usage error otherwise)."""
    if sum(map(bool, (live, emulate, endpoint_url))) != 1:
        raise click.UsageError("choose exactly one of --live, --emulate, --endpoint-url URL")
    if emulate:
        return Target("emulator")
    if endpoint_url:
        try:
            checked_url(endpoint_url)
        except ValueError as error:
            raise click.UsageError(f"--endpoint-url: {error}") from None
    if endpoint_url and is_loopback(endpoint_url):
        click.echo(f"record --endpoint-url {endpoint_url}: a loopback endpoint, signed with dummy credentials", err=True)
        return Target("emulator", {"region": region, "endpoint_url": endpoint_url, **DUMMY_KEYS}, model)
    option = f"record --endpoint-url {endpoint_url}" if endpoint_url else "record --live"
    live_credentials(profile, option, "record --emulate")
    click.echo(f"{option}: credentials from the default chain" + (f" (profile {profile})" if profile else ""), err=True)
    endpoint = {"region": region, **({"endpoint_url": endpoint_url} if endpoint_url else {})}
    return Target("live", endpoint, model)


def is_loopback(url: str) -> bool:
    """True for an http(s) URL whose host is localhost or a loopback address (127.0.0.0/8, ::1)."""
    try:
        host = urlsplit(url).hostname or ""
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@click.command()
@click.argument("ids", nargs=-1, metavar="[SCENARIO]...")
@click.option("--live", is_flag=True, help="Record against real Bedrock (default credential chain).")
@click.option("--emulate", is_flag=True, help="Record against the local emulator (no credentials, no network).")
@click.option("--endpoint-url", metavar="URL", help="Record against this Bedrock endpoint, e.g. `serve` (loopback: "
                                                  "dummy credentials; any other host: the default chain).")
@click.option("--record-mode", type=click.Choice(MODES), default="once", show_default=True,
              help="once: only missing cassettes; rewrite/all: record again; none: record nothing.")
@click.option("--attempts", type=click.IntRange(1, 20), default=3, show_default=True,
              help="Tries per scenario while its checks fail.")
@click.option("--region", default=lambda: os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
              or "us-east-1", show_default="AWS_REGION or us-east-1")
@click.option("--model", help="Record with this model id instead of the scenario's.")
@click.option("--profile", help="AWS profile (same as AWS_PROFILE).")
@click.option("--include-emulator-only", is_flag=True, help="Also record scenarios tagged emulator_only live.")
@click.option("--allow-secret", "allowed", multiple=True, metavar="VALUE",
              help="Record this exact secret-shaped value anyway (repeatable): a fixture, never a real credential.")
@one_root_option
def record(ids, live, emulate, endpoint_url, record_mode, attempts, region, model, profile, include_emulator_only,
           allowed, root):
    """Record cassettes for these scenarios (all when none named)."""
    target = _target(live, emulate, endpoint_url, region, model, profile)
    root, chosen = scenarios(root, (), ids)
    if target.source == "live" and not include_emulator_only:
        chosen = [s for s in chosen if "emulator_only" not in s.tags]
    adapter, failed = load("reference"), 0
    for scenario in chosen:
        outcome = record_scenario(scenario, adapter, root, target, record_mode, attempts,
                                  say=lambda line: click.echo(f"warning: {line}", err=True), allowed=allowed)
        failed += outcome.status in ("failed", "missing", "refused")
        click.echo(f"{outcome.status:<8} {scenario.id} -> {outcome.path}"
                   + (f" ({outcome.attempts} attempt(s))" if outcome.attempts else "")
                   + (f": {outcome.reason}" if outcome.reason else ""))
    sys.exit(1 if failed else 0)
