"""``bedrock-harness serve``: run the loopback Bedrock endpoint until interrupted."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from pathlib import Path

import click

from harness.cassettes.cassette import CassetteError
from harness.cli.common import root_option
from harness.endpoint.emulator.render import EmulatorScriptError
from harness.endpoint.faults import FaultError, Faults, parse_fault
from harness.suite.runner import project_root
from harness.suite.scenario import Scenario, ScenarioError, load_scenario
from harness.endpoint.server import BedrockServer

__all__ = ["resolve_scenario", "serve"]


class BadUsage(click.ClickException):
    """Bad options or configuration: one ``Error:`` line on stderr, exit code 2."""

    exit_code = 2


def resolve_scenario(name: str, root: Path) -> Scenario:
    """A scenario from a YAML path (``<dir>/<suite>/<name>.yaml``) or an id under ``root``."""
    path = Path(name)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return load_scenario(path, path.resolve().parent.parent)
    candidate = root / f"{name}.yaml"
    if not candidate.is_file():
        raise ScenarioError(f"unknown scenario {name!r}: neither a YAML file nor {candidate}")
    return load_scenario(candidate, root)


def _faults(texts: tuple[str, ...], scenario_faults, chunking: str, delay: float, scale: float) -> Faults:
    faults = Faults.from_scenario(scenario_faults).faults + tuple(parse_fault(t) for t in texts)
    return Faults(faults, chunking=chunking, delay=delay, scale=scale)


def _build(cassette, scenario_name, root, options) -> BedrockServer:
    """The server for the chosen mode; every configuration error becomes one usage line."""
    texts, chunking, delay, scale, validate, port = options
    try:
        if cassette:
            return BedrockServer.from_cassette(cassette, faults=_faults(texts, (), chunking, delay, scale),
                                               validate=validate, port=port)
        scenario = resolve_scenario(scenario_name, (root or project_root()) / "suites")
        faults = _faults(texts, scenario.faults, chunking, delay, scale)
        return BedrockServer.from_scenario(scenario, faults=faults, validate=validate, port=port)
    except (CassetteError, ScenarioError, EmulatorScriptError, FaultError) as error:
        raise BadUsage(str(error)) from None


def _serve_until_signalled(server: BedrockServer) -> None:
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        server.start()
    except OSError as error:  # e.g. the port is taken
        raise BadUsage(f"cannot listen on 127.0.0.1: {error}") from None
    click.echo(server.endpoint_url)
    sys.stdout.flush()
    while not stop.wait(0.2):
        pass
    server.close()
    logging.getLogger("harness.endpoint.server").info("stopped after %d requests", len(server.requests))


@click.command()
@click.option("--cassette", type=click.Path(dir_okay=False), help="Replay this cassette, interactions in order.")
@click.option("--emulate", "scenario", metavar="SCENARIO", help="Emulate a scenario: an id (e.g. core/single-call) or a YAML path.")
@root_option
@click.option("--port", default=0, show_default=True, type=click.IntRange(0, 65535), help="0 picks a free port.")
@click.option("--host", default="127.0.0.1", show_default=True, type=click.Choice(["127.0.0.1"]),
              help="Loopback only.")
@click.option("--chunking", default="frame", show_default=True, help="whole | frame | N bytes per HTTP chunk.")
@click.option("--fault", "fault_texts", multiple=True, metavar="FAULT",
              help="exception:TYPE[:after=N], truncate:N, drop:N, http:STATUS[:times=K]; add :turn=T for one turn.")
@click.option("--delay", default=0.0, show_default=True, type=click.FloatRange(min=0), help="Seconds before each frame.")
@click.option("--scale", default=1.0, show_default=True, type=click.FloatRange(min=0), help="Multiply every delay.")
@click.option("--no-validate", is_flag=True, help="Serve requests that break Bedrock's rules.")
def serve(cassette, scenario, root, port, host, chunking, fault_texts, delay, scale, no_validate):
    """Serve Bedrock on 127.0.0.1 until interrupted; the first stdout line is the endpoint URL."""
    if bool(cassette) == bool(scenario):
        raise BadUsage("give exactly one of --cassette PATH or --emulate SCENARIO")
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    options = (fault_texts, chunking, delay, scale, not no_validate, port)
    _serve_until_signalled(_build(cassette, scenario, root, options))
