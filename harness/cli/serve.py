"""``bedrock-harness serve``: run the loopback Bedrock endpoint until interrupted."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from pathlib import Path

import click

from harness.cli.common import BadUsage, check_input, Finite, default_region, live_credentials, named_folder, root_option
from harness.endpoint.emulator.render import EmulatorScriptError
from harness.endpoint.faults import FaultError, Faults, parse_fault
from harness.endpoint.rules.input_shape import load_model
from harness.suite import roots
from harness.suite.scenario import Scenario, ScenarioError, load_scenario
from harness.endpoint.responders import CassetteResponder
from harness.endpoint.server import IDLE_TIMEOUT, BedrockServer

__all__ = ["SERVE_KEEPS", "recording_upstream", "resolve_scenario", "serve"]

log = logging.getLogger("harness.endpoint.server")
SERVE_KEEPS = 0  # captured requests kept: nothing reads them after the log line, and serve may run for days


def resolve_scenario(name: str, root: Path) -> Scenario:
    """A scenario from a YAML path (``<dir>/<suite>/<name>.yaml``) or an id under ``root``."""
    path = Path(name)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return load_scenario(path, path.resolve().parent.parent)
    candidate = root / f"{name}.yaml"
    if not candidate.is_file():
        raise ScenarioError(f"unknown scenario {name!r}: neither a YAML file nor {candidate}")
    return load_scenario(candidate, root)


def _emulated(name: str, given: tuple) -> Scenario:
    """The scenario ``--emulate`` names: a YAML path, or an id under the one ``--root`` (or the layered ones)."""
    found = roots.resolve(given)
    if len(found) == 1 or Path(name).suffix in (".yaml", ".yml"):
        return resolve_scenario(name, found[0] / "suites")
    return roots.load(found, ids=[name])[0]


def _faults(texts: tuple[str, ...], scenario_faults, chunking: str, delay: float, scale: float) -> Faults:
    faults = Faults.from_scenario(scenario_faults).faults + tuple(parse_fault(t) for t in texts)
    return Faults(faults, chunking=chunking, delay=delay, scale=scale)


def _build(cassette, scenario_name, root, options) -> BedrockServer:
    """The server for the chosen mode; every configuration error becomes one usage line."""
    texts, chunking, delay, scale, validate, port, loop, idle, paired = options
    settings = {"validate": validate, "port": port, "keep_requests": SERVE_KEEPS, "loop": loop, "idle_timeout": idle,
                "pairs": paired}
    try:
        if cassette:
            faults = _faults(texts, (), chunking, delay, scale)
            return BedrockServer(CassetteResponder(_checked_cassette(cassette), faults=faults), faults=faults,
                                 **settings)
        scenario = _emulated(scenario_name, root)
        faults = _faults(texts, scenario.faults, chunking, delay, scale)
        return BedrockServer.from_scenario(scenario, faults=faults, **settings)
    except (ScenarioError, EmulatorScriptError, FaultError) as error:
        raise BadUsage(str(error)) from None


def _checked_cassette(path: str):
    """The cassette at ``path``; a stream that breaks Bedrock's event grammar is refused, as `run` refuses it."""
    from harness.cassettes.cassette import CassetteError, load_checked  # the cassette reader, for --cassette only

    check_input(path, "--cassette")  # a socket, FIFO, device, folder, or a link that loops or dangles: one line
    try:
        return load_checked(path)
    except CassetteError as error:
        raise BadUsage(str(error)) from None


def recording_upstream(url: str | None, region: str, profile: str | None, command: str,
                       offline: str | None = None, option: str = "--upstream"):
    """The upstream of a recording proxy (an ``Upstream``): ``url`` (given as ``option``), or real Bedrock in
    ``region`` when None, signed with the default credential chain (none found: the one-line refusal of every live
    command)."""
    from harness.endpoint.upstream import Upstream, checked_url, live_url  # botocore's signer: live commands only

    try:
        checked_url(url or live_url(region))  # the URL's form first: a typo needs no credentials
    except ValueError as error:
        raise BadUsage(f"{option}: {error}") from None
    return Upstream(url or live_url(region), region, live_credentials(profile, command, offline))


class _Recording:
    """What ``serve --record`` runs: the proxy's server, its recorder, and the proxy to finish on a signal (the
    proxy's modules load here: botocore's signer is for --record only)."""

    def __init__(self, directory: Path, upstream, port: int, idle_timeout: float):
        from harness.endpoint.proxy import Conversations, RecordingProxy, source_of

        self.recorder = Conversations(directory, source=source_of(upstream.url))
        self.proxy = RecordingProxy(upstream, self.recorder)
        # Bedrock's rules are reported, never enforced (Bedrock answers for itself).
        self.server = BedrockServer(self.proxy, validate=False, port=port, keep_requests=SERVE_KEEPS,
                                    idle_timeout=idle_timeout)

    def claim(self) -> None:
        """Take the folder (one recorder at a time) and remove the temp files a killed recorder left in it."""
        from harness.endpoint.tapes import FolderBusy

        try:
            removed = self.recorder.claim()
        except (FolderBusy, OSError) as error:
            raise BadUsage(f"serve --record: {error}") from None
        if removed:
            log.info("removed %d temp file(s) a recorder killed mid-write left: %s", len(removed),
                     ", ".join(p.name for p in removed))

    def stop(self, signame: str) -> None:
        """Exchanges still streaming are written as far as they got, marked incomplete; then the server closes."""
        self.proxy.finish(f"serve --record stopped ({signame}) while this exchange was in flight")
        for tape in self.recorder.tapes:  # a write another thread began finishes before the process ends
            tape.wait(10.0)
        self.server.close()


def _serve_until_signalled(server: BedrockServer, recording: _Recording | None = None, *, port: int = 0) -> None:
    stop, received = threading.Event(), []
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda number, _: (received.append(signal.Signals(number).name), stop.set()))
    try:
        server.start()
    except OSError as error:  # e.g. the port is taken
        raise BadUsage(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}"
                       + ("; pick another --port, or --port 0 for a free one" if port else "")) from None
    click.echo(server.endpoint_url)
    sys.stdout.flush()
    # botocore's service model (the input-shape check) loads now, while nothing waits, not in the first request.
    threading.Thread(target=load_model, name="bedrock-harness model", daemon=True).start()
    while not stop.wait(0.2):
        pass
    if recording is not None:
        recording.stop(received[0])
    else:
        server.close()
    log.info("stopped after %d requests", server.request_count)
    if recording is not None:
        from harness.endpoint.proxy import describe

        click.echo(describe(recording.recorder.tapes) or "recorded nothing", err=True)


@click.command()
@click.option("--cassette", help="Replay this cassette, interactions in order.")
@click.option("--emulate", "scenario", metavar="SCENARIO", help="Emulate a scenario: an id (e.g. core/single-call) or a YAML path.")
@root_option
@click.option("--port", default=0, show_default=True, type=click.IntRange(0, 65535), help="0 picks a free port.")
@click.option("--host", default="127.0.0.1", show_default=True, type=click.Choice(["127.0.0.1"]),
              help="Loopback only.")
@click.option("--chunking", default="frame", show_default=True, help="whole | frame | N bytes per HTTP chunk.")
@click.option("--fault", "fault_texts", multiple=True, metavar="FAULT",
              help="exception:TYPE[:after=N], truncate:N, drop:N, http:STATUS[:times=K]; add :turn=T for one turn.")
@click.option("--delay", default=0.0, show_default=True, type=Finite(inclusive=True), metavar="SECONDS",
              help="Seconds before each frame.")
@click.option("--scale", default=1.0, show_default=True, type=Finite(inclusive=True), metavar="FACTOR",
              help="Multiply every delay.")
@click.option("--no-validate", is_flag=True, help="Serve requests that break Bedrock's rules.")
@click.option("--loop", is_flag=True, help="After the last turn, start the conversation again at turn 0.")
@click.option("--paired", is_flag=True, help="Answer each turn twice, once streamed (ConverseStream) and once not "
                                              "(Converse), for a library's streamed and non-streamed call on it.")
@click.option("--idle-timeout", default=IDLE_TIMEOUT, show_default=True, type=Finite(),
              metavar="SECONDS", help="Close a connection that waits this long for a request, or for its head and "
                                      "body.")
@click.option("--record", "record_dir", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="Recording proxy: forward to --upstream or --live, write one cassette per conversation in DIR.")
@click.option("--upstream", metavar="URL", help="With --record: forward to this Bedrock endpoint.")
@click.option("--live", is_flag=True, help="With --record: forward to real Bedrock (default credential chain).")
@click.option("--region", default=default_region, show_default="AWS_REGION or us-east-1",
              help="With --record: the region to sign for (and of real Bedrock with --live).")
@click.option("--profile", help="With --record: AWS profile (same as AWS_PROFILE).")
def serve(cassette, scenario, root, port, host, chunking, fault_texts, delay, scale, no_validate, loop, paired,
          idle_timeout, record_dir, upstream, live, region, profile):
    """Serve Bedrock on 127.0.0.1 until interrupted; the first stdout line is the endpoint URL."""
    if sum(map(bool, (cassette, scenario, record_dir))) != 1:
        raise BadUsage("give exactly one of --cassette PATH, --emulate SCENARIO or --record DIR")
    if record_dir:
        if fault_texts or chunking != "frame" or delay or scale != 1.0 or no_validate or loop or paired:
            raise BadUsage("--record forwards what the upstream sends: no --fault, --chunking, --delay, --scale, "
                           "--no-validate, --loop or --paired")
        if bool(upstream) == live:
            raise BadUsage("serve --record: give exactly one of --upstream URL or --live")
        named_folder(record_dir, "--record", create=False)
        command = "serve --record --live" if live else "serve --record"
        forward = recording_upstream(upstream, region, profile, command, "serve --emulate")
        named_folder(record_dir, "--record")
        logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
        recording = _Recording(record_dir, forward, port, idle_timeout)
        recording.claim()
        _serve_until_signalled(recording.server, recording, port=port)
        return
    if upstream or live:
        raise BadUsage("--upstream and --live go with --record DIR")
    options = (fault_texts, chunking, delay, scale, not no_validate, port, loop, idle_timeout, paired)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    _serve_until_signalled(_build(cassette, scenario, root, options), port=port)
