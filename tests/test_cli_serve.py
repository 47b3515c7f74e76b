"""``bedrock-harness serve`` the way a user runs it: a subprocess, its first stdout line, boto3, a signal."""

from __future__ import annotations

import select
import socket
import signal
import subprocess
import sys
import threading
from pathlib import Path

import boto3
import botocore.retries.standard
import pytest
import yaml
from botocore.config import Config
from botocore.credentials import Credentials
from click.testing import CliRunner

from harness.cassettes import cassette

from harness.endpoint.emulator import render as emulator

from harness.cassettes import vcr as recording
from harness.cli import main
from harness.wire.eventstream import decode_events
from harness.endpoint.exchange import Reply
from harness.endpoint.responders import turn_seed
from harness.endpoint.server import BedrockServer
from harness.suite.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
TOOLS = {"tools": [{"toolSpec": {"name": "read_file", "inputSchema": {"json": {"type": "object"}}}}]}
USER = [{"role": "user", "content": [{"text": "What is in /tmp/a.txt?"}]}]
SCRIPT = {"content": [{"tool_use": {"name": "read_file", "input": {"path": "/tmp/a.txt"}}}],
          "stop_reason": "tool_use", "usage": {"input_tokens": 20, "output_tokens": 9}}
SCENARIO = {
    "title": "One call", "description": "serve test", "tags": [], "requires": ["tool_use"], "model_id": MODEL,
    "tools": [{"name": "read_file", "description": "Read a file",
               "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}],
    "turns": [{"messages": [{"role": "user", "content": "What is in /tmp/a.txt?"}], "script": SCRIPT}],
}


@pytest.fixture
def scenario_path(tmp_path):
    path = tmp_path / "suites" / "demo" / "one-call.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump(SCENARIO), encoding="utf-8")
    return path


class Serving:
    """A ``serve`` subprocess: its endpoint URL (the first stdout line) and a way to stop it."""

    def __init__(self, *args: str):
        command = [sys.executable, "-m", "harness.cli", "serve", *args]
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ready, _, _ = select.select([self.process.stdout], [], [], 60)
        self.url = self.process.stdout.readline().strip() if ready else ""

    def stop(self, signum=signal.SIGINT) -> tuple[int, str, str]:
        self.process.send_signal(signum)
        out, err = self.process.communicate(timeout=30)
        return self.process.returncode, out, err

    def client(self, retries: int = 0):
        config = Config(retries={"mode": "standard", "total_max_attempts": retries + 1})
        return boto3.client("bedrock-runtime", endpoint_url=self.url, region_name="us-east-1", config=config)


def expected_events(seed: str) -> list:
    return list(decode_events(b"".join(emulator.render_stream(SCRIPT, style="claude", seed=turn_seed(seed, 0)))))


@pytest.mark.parametrize("how", ["path", "id"])
def test_serve_emulate_prints_the_url_first_and_exits_0_on_sigint(scenario_path, how):
    target = ["--emulate", str(scenario_path)] if how == "path" else ["--emulate", "demo/one-call",
                                                                       "--root", str(scenario_path.parents[2])]
    serving = Serving(*target, "--chunking", "1")
    try:
        assert serving.url.startswith("http://127.0.0.1:")
        events = list(serving.client().converse_stream(modelId=MODEL, messages=USER, toolConfig=TOOLS)["stream"])
    finally:
        code, out, err = serving.stop()
    assert events == expected_events("demo/one-call")
    assert code == 0 and out == ""
    requests = [line for line in err.splitlines() if "converse-stream" in line]
    assert len(requests) == 1 and "-> 200" in requests[0]


@pytest.fixture
def no_backoff(monkeypatch):
    monkeypatch.setattr(botocore.retries.standard.ExponentialBackoff, "delay_amount", lambda self, context: 0)


def test_serve_cassette_with_faults_and_sigterm(tmp_path, no_backoff):
    frames = emulator.render_stream(SCRIPT, style="claude", seed="rec")
    uri = f"https://bedrock-runtime.us-east-1.amazonaws.com/model/{MODEL.replace(':', '%3A')}/converse-stream"
    recorded = cassette.Interaction("POST", uri, {}, b"{}", 200, "OK",
                                    {"Content-Type": "application/vnd.amazon.eventstream"},
                                    cassette.frames_from_body(b"".join(frames)))
    path = tmp_path / "one.yaml"
    cassette.save(path, cassette.Cassette(None, cassette.metadata_for([recorded], source="emulator"), (recorded,)))
    serving = Serving("--cassette", str(path), "--fault", "http:429:times=1", "--fault", "exception:throttlingException:after=3")
    try:
        response = serving.client(retries=1).converse_stream(modelId=MODEL, messages=USER, toolConfig=TOOLS)
        events = []
        with pytest.raises(botocore.exceptions.EventStreamError) as caught:
            for event in response["stream"]:
                events.append(event)  # noqa: PERF402 -- keep the events seen before the error
    finally:
        code, _, err = serving.stop(signal.SIGTERM)
    assert response["ResponseMetadata"]["RetryAttempts"] == 1
    assert events == list(decode_events(b"".join(frames)))[:3]
    assert caught.value.response["Error"]["Code"] == "throttlingException"
    assert code == 0 and ["-> 429" in line for line in err.splitlines() if "converse-stream" in line] == [True, False]


@pytest.mark.parametrize(
    "args, fragment",
    [
        ([], "exactly one of --cassette PATH, --emulate SCENARIO or --record DIR"),
        (["--record", "out", "--emulate", "core/x"], "exactly one of"),
        (["--record", "out"], "give exactly one of --upstream URL or --live"),
        (["--record", "out", "--live", "--upstream", "http://127.0.0.1:9"], "exactly one of --upstream URL or --live"),
        (["--record", "out", "--upstream", "ftp://x"], "--upstream: upstream must be an http:// or https:// URL"),
        (["--record", "out", "--live", "--fault", "http:429"], "--record forwards what the upstream sends"),
        (["--emulate", "{scenario}", "--upstream", "http://127.0.0.1:9"], "--upstream and --live go with --record"),
        (["--cassette", "x.yaml", "--emulate", "core/x"], "exactly one of"),
        (["--cassette", "/nonexistent/c.yaml"], "/nonexistent/c.yaml"),
        (["--emulate", "nosuch/scenario"], "unknown scenario 'nosuch/scenario'"),
        (["--emulate", "{scenario}", "--fault", "explode:3"], "--fault 'explode:3'"),
        (["--emulate", "{scenario}", "--fault", "exception:bogus"], "'bogus' is not one of"),
        (["--emulate", "{scenario}", "--chunking", "zero"], "chunking must be"),
    ],
)
def test_bad_options_exit_2_with_one_line(scenario_path, args, fragment):
    args = [a.replace("{scenario}", str(scenario_path)) for a in args]
    result = CliRunner().invoke(main, ["serve", *args])
    assert result.exit_code == 2
    assert fragment in result.output and len(result.output.strip().splitlines()) == 1


def test_a_port_in_use_is_one_line_naming_the_port(scenario_path):
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            result = CliRunner().invoke(main, ["serve", "--emulate", str(scenario_path), "--port", str(port)])
    finally:
        for signum, handler in handlers.items():  # serve sets its own before it binds
            signal.signal(signum, handler)
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use; pick another --port" in result.output


@pytest.mark.parametrize("args", [["--host", "0.0.0.0"], ["--port", "70000"], ["--delay", "-1"]])
def test_click_checked_options_exit_2(scenario_path, args):
    result = CliRunner().invoke(main, ["serve", "--emulate", str(scenario_path), *args])
    assert result.exit_code == 2 and "Error:" in result.output


def test_a_broken_scenario_script_is_refused_before_serving(tmp_path):
    broken = dict(SCENARIO, turns=[{"messages": [{"role": "user", "content": "hi"}],
                                    "script": {"content": [{"tool_use": {"input": {}}}], "stop_reason": "tool_use"}}])
    path = tmp_path / "s" / "broken.yaml"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump(broken), encoding="utf-8")
    result = CliRunner().invoke(main, ["serve", "--emulate", str(path)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1


def test_a_vcrpy_recording_of_the_emulator_replays_through_serve_cassette(tmp_path):
    path = tmp_path / "recorded.yaml"
    recorder = recording.use_cassette(path, record_mode="once", source="emulator")
    with BedrockServer.emulate([SCRIPT], seed="demo/one-call") as server, recorder:
        bedrock = boto3.client("bedrock-runtime", endpoint_url=server.endpoint_url, region_name="us-east-1")
        live = list(bedrock.converse_stream(modelId=MODEL, messages=USER, toolConfig=TOOLS)["stream"])
    serving = Serving("--cassette", str(path), "--chunking", "5")
    try:
        replayed = list(serving.client().converse_stream(modelId=MODEL, messages=USER, toolConfig=TOOLS)["stream"])
    finally:
        code, _, _ = serving.stop()
    assert replayed == live == expected_events("demo/one-call") and code == 0


def test_serve_record_forwards_signed_and_writes_one_cassette_per_conversation(tmp_path):
    from botocore.credentials import Credentials
    from live_upstream import HistoryEmulator
    from harness.suite.scenario import load_scenario

    scenario = load_scenario(ROOT / "suites" / "core" / "single-call.yaml", ROOT / "suites")
    emulator = HistoryEmulator(scenario, credentials=Credentials("testing", "testing"))  # conftest's dummy chain
    with BedrockServer(emulator) as upstream:
        serving = Serving("--record", str(tmp_path / "out"), "--upstream", upstream.endpoint_url)
        try:
            for _ in range(2):
                events = list(serving.client().converse_stream(modelId=MODEL, messages=USER)["stream"])
        finally:
            code, out, err = serving.stop()
    assert serving.url.startswith("http://127.0.0.1:")  # loopback only
    assert code == 0 and out == "" and emulator.signature_problems == ["", ""]
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == ["conversation-0001.yaml", "conversation-0002.yaml"]
    assert f"{tmp_path / 'out' / 'conversation-0002.yaml'}: 1 interaction(s)" in err
    replayed = cassette.load(tmp_path / "out" / "conversation-0001.yaml").interactions[0]
    assert list(decode_events(replayed.response_body())) == events


@pytest.mark.parametrize("how", [["--live"], ["--upstream", "http://127.0.0.1:9"]])
def test_serve_record_without_credentials_is_the_one_line_refusal(tmp_path, monkeypatch, how):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    result = CliRunner().invoke(main, ["serve", "--record", str(tmp_path / "out"), *how])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "no AWS credentials found" in result.output and "`serve --record" in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args, needs", [
    (["serve", "--record", "{out}", "--upstream", "http://127.0.0.1:9"], "serve --record"),
    (["record", "--live", "core/single-call"], "record --live"),
    (["drift", "core/single-call", "--endpoint-url", "http://127.0.0.1:9"], "drift"),
    (["certify", "--live", "--adapter", "reference", "--upstream", "http://127.0.0.1:9"], "certify --live")])
@pytest.mark.parametrize("how", ["--profile", "AWS_PROFILE"])
def test_an_unknown_profile_is_a_one_line_refusal_naming_it(tmp_path, monkeypatch, args, needs, how):
    monkeypatch.setenv("AWS_PROFILE", "no-such-profile")  # --profile sets it too: undone after the test either way
    if how == "--profile":
        monkeypatch.delenv("AWS_PROFILE")
    given = [a.replace("{out}", str(tmp_path / "out")) for a in args] + (
        ["--profile", "no-such-profile"] if how == "--profile" else [])
    result = CliRunner().invoke(main, given)
    assert result.exit_code == 2 and result.output.strip().splitlines() == [
        f"Error: cannot read AWS credentials: The config profile (no-such-profile) could not be found; `{needs}` "
        "needs them"]
    assert not (tmp_path / "out").exists()


def test_serve_answers_200_clients_at_once_ten_requests_each_without_a_reset(monkeypatch, tmp_path):
    """The bounded load test (benchmarks/bench_load.py prints its timings and memory; here: resets and answers)."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import bench_load

    process, url = bench_load.start_serve("--emulate", "core/smoke-text", "--loop", log=tmp_path / "serve.log")
    try:
        load = bench_load.run_load(url, MODEL, connections=200, requests=10)
    finally:
        process.terminate()
        process.wait(30)
    assert (load.resets, load.broken, dict(load.statuses)) == (0, [], {200: 2000})
    (body,) = load.bodies  # every answer is the same whole stream
    events = [next(iter(event)) for event in decode_events(body)]
    assert events[0] == "messageStart" and events[-2:] == ["messageStop", "metadata"]


def test_loop_starts_the_conversation_again_after_the_last_turn(scenario_path):
    scenario = load_scenario(scenario_path, scenario_path.parent.parent)
    with BedrockServer.from_scenario(scenario, loop=True) as server:
        bedrock = boto3.client("bedrock-runtime", endpoint_url=server.endpoint_url, region_name="us-east-1",
                               aws_access_key_id="x", aws_secret_access_key="x")
        for _ in range(3):
            events = list(bedrock.converse_stream(modelId=MODEL, messages=USER, toolConfig=TOOLS)["stream"])
            assert events[-2]["messageStop"]["stopReason"] == "tool_use"
        assert [r.turn for r in server.requests] == [0, 0, 0]


def test_serve_record_writes_no_planted_secret_and_logs_none(tmp_path):
    import http.client
    import json
    from urllib.parse import quote

    from planted import EXCHANGES, EXCHANGE_PLACES, PlantedUpstream

    by_place = [[e for e in EXCHANGES if e.name.startswith(f"{place}/")] for place in EXCHANGE_PLACES]
    chosen = [found[n % len(found)] for n, found in enumerate(by_place)]  # each place once, the token kinds in turn
    with BedrockServer(PlantedUpstream(), validate=False) as upstream:
        serving = Serving("--record", str(tmp_path / "out"), "--upstream", upstream.endpoint_url)
        try:
            for exchange in chosen:
                connection = http.client.HTTPConnection("127.0.0.1", int(serving.url.rsplit(":", 1)[1]), timeout=30)
                connection.request("POST", exchange.path, json.dumps(exchange.body))
                connection.getresponse().read()
                connection.close()
        finally:
            code, _, err = serving.stop()
    assert code == 0 and not any((tmp_path / "out").glob("*"))
    assert err.count("refused (") == len(chosen) and len({e.token for e in chosen}) > 10
    assert [e.name for e in chosen if e.token in err or quote(e.token, safe="") in err] == []


class Holding:
    """An upstream that streams the first two frames of single-call, then holds the rest until released."""

    def __init__(self):
        from live_upstream import HistoryEmulator

        self.released = threading.Event()
        scenario = load_scenario(ROOT / "suites" / "core" / "single-call.yaml", ROOT / "suites")
        self.emulator = HistoryEmulator(scenario, credentials=Credentials("testing", "testing"))

    def respond(self, request):
        frames = self.emulator.respond(request).frames
        return Reply(200, {"Content-Type": "application/vnd.amazon.eventstream"}, stream=self._body(frames))

    def _body(self, frames):
        yield from frames[:2]
        self.released.wait(20)
        yield from frames[2:]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_mid_stream_writes_the_exchange_as_far_as_it_got_marked_incomplete(tmp_path, signum):
    out = tmp_path / "out"
    out.mkdir()
    (out / ".conversation-0001.yaml.q1w2e3.tmp").write_text("metadata:\n  form")  # a kill -9 left it, truncated
    holding = Holding()
    with BedrockServer(holding, validate=False) as upstream:
        serving = Serving("--record", str(out), "--upstream", upstream.endpoint_url)
        try:
            assert not (out / ".conversation-0001.yaml.q1w2e3.tmp").exists()  # cleared before serving
            stream = iter(serving.client().converse_stream(modelId=MODEL, messages=USER)["stream"])
            seen = [next(stream), next(stream)]  # the client already has two events
        finally:
            code, _, err = serving.stop(signum)
            holding.released.set()
    name = signal.Signals(signum).name
    assert code == 0 and [next(iter(e)) for e in seen] == ["messageStart", "contentBlockStart"]
    assert sorted(p.name for p in out.iterdir()) == ["conversation-0001.yaml"]
    written = cassette.load(out / "conversation-0001.yaml")
    assert [f.type for f in written.interactions[0].frames] == ["messageStart", "contentBlockStart"]
    assert written.metadata["incomplete"] == [
        {"interaction": 0, "why": f"serve --record stopped ({name}) while this exchange was in flight"}]
    assert "conversation-0001.yaml: 1 interaction(s), 1 incomplete" in err
    assert "removed 1 temp file(s) a recorder killed mid-write left: .conversation-0001.yaml.q1w2e3.tmp" in err


def test_a_second_recorder_on_the_same_folder_is_one_line_and_exit_2(tmp_path):
    from harness.endpoint.tapes import Conversations

    holder = Conversations(tmp_path / "out")
    holder.claim()
    result = CliRunner().invoke(main, ["serve", "--record", str(tmp_path / "out"), "--upstream", "http://127.0.0.1:9"])
    assert result.exit_code == 2 and result.output.strip().splitlines() == [
        f"Error: serve --record: {tmp_path / 'out'}: another `serve --record` is recording into this folder"]


# The child stops at serve's first line (the URL: it listens) and lists what it has imported by then.
_LISTENING = r'''
import os, sys
import harness.cli.serve as serve
def echo(message=None, *args, **kwargs):
    heavy = sorted(m for m in sys.modules if m in ("boto3", "botocore.session", "botocore.client", "botocore.parsers",
                                                   "botocore.validate", "vcr", "urllib3", "deepdiff")
                   or m.startswith(("harness.adapters", "harness.suite.runner", "harness.cassettes.cassette",
                                    "harness.converse")))
    sys.stdout.write(f"{message} HEAVY {heavy}\n")
    sys.stdout.flush()
    os._exit(0)
serve.click.echo = echo
from harness.cli import main
main(["serve", "--emulate", "core/smoke-text", "--port", "0"])
'''


def test_serve_listens_before_loading_botocore_the_suite_or_vcrpy():
    """What makes start-up slow is left for later: botocore's service model loads once serve listens."""
    done = subprocess.run([sys.executable, "-c", _LISTENING], capture_output=True, text=True, timeout=120)
    assert done.stdout.startswith("http://127.0.0.1:") and done.stdout.rstrip().endswith("HEAVY []"), \
        done.stdout + done.stderr
