"""The subprocess adapter (harness/adapters/subprocess.py): handshake, turn messages, environment, and every way
an adapter process can break (crash, hang, garbage, protocol violation), each an error verdict with its stderr."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from harness.adapters import AdapterFailure, AdapterLoadError, AdapterSkip
from harness.adapters import subprocess as subprocess_module
from harness.adapters.subprocess import (
    TAIL_LINES,
    AdapterStartError,
    SubprocessAdapter,
    child_env,
)
from harness.studies.certify import run
from harness.suite.runner import ADAPTER_EXCEPTION, run_scenario
from harness.suite.scenario import discover, first_turn

ROOT = Path(__file__).resolve().parents[1]
ENDPOINT = {"endpoint_url": "http://127.0.0.1:9", "region": "us-east-1", "aws_access_key_id": "AKIAFAKETURN",
            "aws_secret_access_key": "fake"}

# A stdlib-only adapter whose turn says what to do (``turn["action"]``); FAKE_HELLO breaks the handshake.
FAKE = textwrap.dedent(r'''
    import json, os, sys, time

    def send(message):
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def chunk(text):
        send({"type": "chunk", "chunk": {"type": "text", "text": text}})

    hello = os.environ.get("FAKE_HELLO", "ok")
    caps = json.loads(os.environ.get("FAKE_CAPS", '["text", "stop_reason"]'))
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print("starting up", file=sys.stderr, flush=True)
            if hello == "garbage":
                print("Welcome to fake adapter!", flush=True)
            elif hello == "exit":
                print("fatal: no config", file=sys.stderr, flush=True)
                sys.exit(4)
            elif hello == "hang":
                time.sleep(3600)
            elif hello == "too-deep":
                print("[" * 100000 + "]" * 100000, flush=True)
            elif hello == "unterminated":  # 2 MiB and more without a newline, in pieces
                for _ in range(64):
                    sys.stdout.write("x" * 65536)
                sys.stdout.flush()
                time.sleep(3600)
            elif hello == "echo-protocol":
                send({"type": "hello", "name": f"fake-protocol-{message.get('protocol')}", "version": "0.0.1",
                      "capabilities": caps})
            else:
                send({"type": "hello", "name": "fake", "version": "0.0.1",
                      "capabilities": caps + (["telepathy"] if hello == "unknown-caps" else [])})
            continue
        action = message["turn"].get("action", "echo")
        if action == "echo":
            chunk(json.dumps(message))
            chunk(json.dumps({k: v for k, v in os.environ.items() if k.startswith("AWS_")}))
        elif action == "pid":
            chunk(str(os.getpid()))
        elif action == "error":
            chunk("partial")
            send({"type": "error", "message": "ValueError: boom"})
            continue
        elif action == "error-with-trace":
            send({"type": "error", "message": "TypeError: bad", "traceback": "  at parse (adapter.mjs:12:5)"})
            continue
        elif action == "skip":
            send({"type": "skip", "reason": "images are not supported"})
            continue
        elif action == "crash":
            for i in range(30):
                print(f"traceback line {i}", file=sys.stderr)
            sys.stderr.flush()
            os._exit(3)
        elif action == "hang":
            print("about to wait forever", file=sys.stderr, flush=True)
            time.sleep(3600)
        elif action == "garbage":
            print("DEBUG: calling Bedrock now", flush=True)
            time.sleep(3600)
        elif action == "too-deep":
            print('{"type": "chunk", "chunk": ' + "[" * 100000 + "]" * 100000 + "}", flush=True)
            time.sleep(3600)
        elif action == "not-an-object":
            send({"type": "chunk", "chunk": "hello"})
        elif action == "stray":
            send({"type": "hello", "name": "fake", "version": "0.0.1", "capabilities": []})
        elif action == "unterminated":
            for _ in range(160):  # 10 MiB without a newline
                sys.stdout.write("y" * 65536)
            sys.stdout.flush()
            time.sleep(3600)
        elif action == "long-error":
            send({"type": "error", "message": "E" * 10000, "traceback": "T" * 50000})
            continue
        elif action == "stderr-unterminated":
            for _ in range(80):  # 5 MiB of stderr without a newline, then short lines
                sys.stderr.write("z" * 65536)
            sys.stderr.write("\nlast words\n")
            sys.stderr.flush()
            os._exit(3)
        elif action == "chatty":
            for i in range(20000):
                sys.stderr.write(f"log line {i} " + "x" * 100 + "\n")
            chunk("still here")
        send({"type": "done"})
''')


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A factory: the fake adapter with an environment (FAKE_HELLO, FAKE_CAPS) and a per-turn timeout."""
    script = tmp_path / "fake_adapter.py"
    script.write_text(FAKE)
    started = []

    def make(timeout: float = 30.0, **env: str) -> SubprocessAdapter:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        started.append(SubprocessAdapter([sys.executable, str(script)], timeout=timeout, start_timeout=30))
        return started[-1]
    yield make
    for adapter in started:
        adapter.close()


def texts(chunks) -> list[str]:
    return [c["text"] for c in chunks if c["type"] == "text"]


def pid_of(adapter: SubprocessAdapter, endpoint=ENDPOINT) -> int:
    return int(texts(adapter.stream({"action": "pid"}, endpoint))[0])


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()


# ---- handshake and turn messages ------------------------------------------------------------------------

def test_the_hello_gives_name_version_and_capabilities(fake):
    adapter = fake(FAKE_CAPS='["text", "tool_use", "usage"]')
    assert (adapter.name, adapter.version, adapter.capabilities) == ("fake", "0.0.1", {"text", "tool_use", "usage"})
    assert adapter.command.endswith("fake_adapter.py") and "fake" in repr(adapter)


def test_the_hello_announces_protocol_3(fake):
    assert fake(FAKE_HELLO="echo-protocol").name == "fake-protocol-3"


def test_a_hello_with_malformed_native_differences_is_refused(tmp_path):
    script = tmp_path / "adapter.py"
    script.write_text("import json, sys\nsys.stdin.readline()\nprint(json.dumps({'type': 'hello', 'name': 'x', "
                      "'version': '1', 'capabilities': ['text'], 'native_differences': {'id': 3}}), flush=True)\n"
                      "sys.stdin.read()\n")
    with pytest.raises(AdapterStartError, match=r"native_differences.id: 3 is not of type 'string' \(schema hello, "
                                                r"properties/native_differences/additionalProperties/type\)"):
        SubprocessAdapter([sys.executable, str(script)], timeout=10)


def test_a_protocol_1_adapter_gets_the_conversation_id_and_may_ignore_it(fake):
    adapter = fake()  # answers any hello alike and echoes turns: it knows nothing of conversation mode
    turn = first_turn(discover(ROOT / "suites", ids=["core/smoke-text"])[0])
    echoed = json.loads(texts(adapter.stream(turn, ENDPOINT))[0])
    assert echoed["turn"] == turn and turn["conversation"] == "core/smoke-text"
    assert "own_history" not in adapter.capabilities


def test_a_turn_message_carries_scenario_index_the_stable_endpoint_and_the_turn(fake):
    adapter = fake()
    adapter.scenario = "core/smoke-text"
    turn = {"action": "echo", "model_id": "m", "messages": [{"role": "user", "content": "Hi ✓"}]}
    first = json.loads(texts(adapter.stream(turn, ENDPOINT))[0])
    assert first == {"type": "turn", "scenario": "core/smoke-text", "index": 0, "turn": turn,
                     "endpoint": {**ENDPOINT, "endpoint_url": adapter.endpoint_url}}
    again = json.loads(texts(adapter.stream(turn, ENDPOINT))[0])
    other = json.loads(texts(adapter.stream(turn, dict(ENDPOINT)))[0])  # a new endpoint dict: a new scenario
    assert (again["index"], other["index"]) == (1, 0)
    assert other["endpoint"]["endpoint_url"] == adapter.endpoint_url


def test_the_child_environment_points_at_the_relay_with_dummy_credentials_only(fake, monkeypatch):
    monkeypatch.setenv("AWS_SESSION_TOKEN", "AKIAFAKESESSIONCANARY")
    monkeypatch.setenv("AWS_PROFILE", "production")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFAKEREALLOOKING1")
    adapter = fake()
    env = json.loads(texts(adapter.stream({"action": "echo"}, ENDPOINT))[1])
    assert env["AWS_ENDPOINT_URL_BEDROCK_RUNTIME"] == adapter.endpoint_url.rstrip("/")
    assert env["AWS_REGION"] == env["AWS_DEFAULT_REGION"] == "us-east-1"
    assert env["AWS_ACCESS_KEY_ID"].startswith("AKIAFAKE") and env["AWS_ACCESS_KEY_ID"] != "AKIAFAKEREALLOOKING1"
    assert env["AWS_SECRET_ACCESS_KEY"] and "AWS_SESSION_TOKEN" not in env and "AWS_PROFILE" not in env


def test_child_env_drops_every_aws_variable_and_keeps_the_rest():
    env = child_env("http://127.0.0.1:1234", "eu-west-1", {"AWS_SESSION_TOKEN": "x", "AWS_ROLE_ARN": "y", "PATH": "/bin"})
    assert env["PATH"] == "/bin" and "AWS_SESSION_TOKEN" not in env and "AWS_ROLE_ARN" not in env
    assert env["AWS_ENDPOINT_URL_BEDROCK_RUNTIME"] == "http://127.0.0.1:1234" and env["AWS_REGION"] == "eu-west-1"


def test_an_error_message_is_the_closing_error_chunk_like_an_in_process_exception(fake):
    adapter = fake()
    chunks = list(adapter.stream({"action": "error"}, ENDPOINT))
    assert chunks == [{"type": "text", "text": "partial"},
                      {"type": "error", "code": ADAPTER_EXCEPTION, "message": "ValueError: boom"}]
    assert texts(adapter.stream({"action": "pid"}, ENDPOINT))  # still in step
    assert list(adapter.stream({"action": "error-with-trace"}, ENDPOINT)) == [
        {"type": "error", "code": ADAPTER_EXCEPTION, "message": "TypeError: bad",
         "traceback": "  at parse (adapter.mjs:12:5)"}]


def test_a_stdout_line_past_the_limit_is_a_failure_without_reading_the_rest(fake):
    adapter = fake()
    with pytest.raises(AdapterFailure, match=r"wrote a stdout line longer than 8388608 bytes during the scenario "
                                             r"turn 0 \(the limit of a protocol line; log to stderr\); killed"):
        list(adapter.stream({"action": "unterminated"}, ENDPOINT))
    assert texts(adapter.stream({"action": "pid"}, ENDPOINT))  # a fresh process for the next turn


def test_an_unterminated_hello_past_its_limit_is_a_start_error(fake):
    with pytest.raises(AdapterStartError, match="wrote a stdout line longer than 1048576 bytes during the hello "
                                                "handshake"):
        fake(FAKE_HELLO="unterminated")


def test_an_error_message_and_traceback_are_cut_at_their_limits(fake):
    [chunk] = list(fake().stream({"action": "long-error"}, ENDPOINT))
    assert chunk["message"] == "E" * 4096 + f"… ({10000 - 4096} more characters cut)"
    assert chunk["traceback"] == "T" * 16384 + f"… ({50000 - 16384} more characters cut)"


def test_a_stderr_line_without_end_keeps_its_start_in_the_tail(fake):
    adapter = fake()
    with pytest.raises(AdapterFailure) as caught:
        list(adapter.stream({"action": "stderr-unterminated"}, ENDPOINT))
    tail = caught.value.stderr_tail
    assert tail[-2:] == ["z" * 1000 + "… (line cut)", "last words"], [line[:20] for line in tail]
    assert max(map(len, tail)) <= 1000 + len("… (line cut)")


def test_skip_raises_adapter_skip_with_the_reason_and_keeps_the_process(fake):
    adapter = fake()
    pid = pid_of(adapter)
    with pytest.raises(AdapterSkip, match="^images are not supported$") as caught:
        list(adapter.stream({"action": "skip"}, ENDPOINT))
    assert caught.value.status == "skip" and pid_of(adapter) == pid


def test_a_chatty_stderr_never_blocks_the_adapter(fake):
    adapter = fake(timeout=30)
    assert texts(adapter.stream({"action": "chatty"}, ENDPOINT)) == ["still here"]


# ---- failures: error verdicts with the stderr tail, the process killed and restarted ---------------------

def test_a_crash_reports_the_exit_code_and_the_stderr_tail_then_restarts(fake):
    adapter = fake()
    adapter.scenario = "core/single-call"
    pid = pid_of(adapter)
    with pytest.raises(AdapterFailure) as caught:
        list(adapter.stream({"action": "crash"}, ENDPOINT))
    message = str(caught.value)
    assert "crashed: exited with code 3 during core/single-call turn 1" in message
    assert f"stderr (last {TAIL_LINES} lines):" in message
    assert "traceback line 29" in message and f"traceback line {30 - TAIL_LINES}" in message
    assert f"traceback line {29 - TAIL_LINES}\n" not in message and "starting up" not in message
    assert caught.value.status == "error" and not alive(pid)
    assert pid_of(adapter) != pid  # a fresh process for the next scenario


def test_a_hang_is_cut_off_at_the_timeout_and_the_process_killed(fake):
    adapter = fake(timeout=2)
    pid = pid_of(adapter)
    with pytest.raises(AdapterFailure, match=r"timed out: no answer within 2s during the scenario turn 1") as caught:
        list(adapter.stream({"action": "hang"}, ENDPOINT))
    assert "about to wait forever" in str(caught.value) and not alive(pid)
    assert pid_of(adapter) != pid


def test_garbage_on_stdout_is_reported_with_the_line(fake):
    adapter = fake()
    with pytest.raises(AdapterFailure, match="wrote garbage on stdout") as caught:
        list(adapter.stream({"action": "garbage"}, ENDPOINT))
    assert "'DEBUG: calling Bedrock now' is not a protocol message" in str(caught.value)
    assert texts(adapter.stream({"action": "pid"}, ENDPOINT))


def test_a_line_nested_too_deep_to_decode_is_garbage_not_a_harness_error(fake):
    adapter = fake()
    with pytest.raises(AdapterFailure, match="wrote garbage on stdout during the scenario turn 0") as caught:
        list(adapter.stream({"action": "too-deep"}, ENDPOINT))
    assert "is not a protocol message" in str(caught.value) and "RecursionError" not in str(caught.value)


@pytest.mark.parametrize("action, sent", [("not-an-object", '"chunk": "hello"'), ("stray", '"type": "hello"')])
def test_a_protocol_violation_is_reported_with_the_message(fake, action, sent):
    adapter = fake()
    with pytest.raises(AdapterFailure, match="broke the protocol") as caught:
        list(adapter.stream({"action": action}, ENDPOINT))
    assert sent in str(caught.value)


def test_a_process_that_died_between_turns_is_reported_for_the_next_one(fake):
    adapter = fake()
    os.kill(pid_of(adapter), 9)
    adapter._child.process.wait()
    with pytest.raises(AdapterFailure, match="exited with code -9 before the scenario turn 1"):
        list(adapter.stream({"action": "pid"}, ENDPOINT))


def test_close_sends_eof_and_the_adapter_exits_0(fake):
    adapter = fake()
    pid = pid_of(adapter)
    assert adapter.close() == 0 and not alive(pid)


# ---- start-up failures: one-line usage errors -----------------------------------------------------------

@pytest.mark.parametrize("hello, expected", [
    ("garbage", "wrote garbage on stdout during the hello handshake: 'Welcome to fake adapter!'"),
    ("exit", "crashed: exited with code 4 during the hello handshake; its last stderr line: fatal: no config"),
    ("unknown-caps", "'telepathy' is not one of ['text', "),
    ("too-deep", "wrote garbage on stdout during the hello handshake: '[[["),
])
def test_a_broken_handshake_is_a_one_line_start_error(fake, hello, expected):
    with pytest.raises(AdapterStartError) as caught:
        fake(FAKE_HELLO=hello)
    assert expected in str(caught.value) and "\n" not in str(caught.value)
    assert isinstance(caught.value, AdapterLoadError)


def test_a_handshake_that_hangs_times_out(tmp_path):
    script = tmp_path / "silent.py"
    script.write_text("import time\ntime.sleep(3600)\n")
    with pytest.raises(AdapterStartError, match="no answer within 1s during the hello handshake"):
        SubprocessAdapter([sys.executable, str(script)], start_timeout=1)


@pytest.mark.parametrize("command, expected", [
    ("surely-not-a-command-xyz --flag", "cannot start adapter command 'surely-not-a-command-xyz --flag'"),
    ("", "the adapter command is empty"),
])
def test_a_command_that_cannot_start_is_a_start_error(command, expected):
    with pytest.raises(AdapterStartError, match=expected):
        SubprocessAdapter(command)


def test_the_module_exports_what_it_names():
    assert all(hasattr(subprocess_module, name) for name in subprocess_module.__all__)


# ---- through the runner: verdicts, and the run goes on ---------------------------------------------------

def test_undeclared_capabilities_skip_the_scenario_before_the_adapter_is_asked(fake):
    adapter = fake(FAKE_CAPS='["text"]')
    scenario = discover(ROOT / "suites", ids=["core/single-call"])[0]
    result = run_scenario(scenario, adapter, ROOT)
    assert result.status == "skip" and result.reason.startswith("adapter lacks ") and "tool_use" in result.reason


# Misbehaves on the scenarios named in argv[1] (scenario id -> hang|crash|garbage|skip|chatty); otherwise it is
# the reference adapter through the bridge, so those scenarios pass for real.
MISBEHAVING = textwrap.dedent(r'''
    import json, os, sys, time
    from harness import load_adapter
    from harness.adapters.bridge import answer

    plan, adapter = json.loads(sys.argv[1]), load_adapter("reference")
    print(f"misbehaving adapter {os.getpid()} up", file=sys.stderr, flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        mode = plan.get(message.get("scenario")) if message["type"] == "turn" else None
        if mode == "hang":
            print("waiting for a lock that never frees", file=sys.stderr, flush=True)
            time.sleep(3600)
        elif mode == "crash":
            print("Traceback (most recent call last):\nKeyError: 'toolUseId'", file=sys.stderr, flush=True)
            os._exit(7)
        elif mode == "garbage":
            print("<html>oops</html>", flush=True)
            time.sleep(3600)
        elif mode == "skip":
            print(json.dumps({"type": "skip", "reason": "reasoning is not exposed by this library"}), flush=True)
            continue
        elif mode == "chatty":
            for i in range(5000):
                print(f"debug {i} " + "y" * 200, file=sys.stderr)
        for reply in answer(adapter, message):
            print(json.dumps(reply), flush=True)
''')
PLAN = {"core/single-call": "hang", "core/parallel-calls": "crash", "core/interleaved-text": "garbage",
        "core/thinking-tools": "skip", "core/smoke-text": "chatty"}
ORDER = ["core/smoke-text", "core/single-call", "core/round-trip", "core/parallel-calls", "edge/zero-arg-tool",
         "core/interleaved-text", "core/thinking-tools", "edge/nova-style"]


@pytest.fixture(scope="module")
def misbehaving(tmp_path_factory):
    script = tmp_path_factory.mktemp("misbehaving") / "adapter.py"
    script.write_text(MISBEHAVING)
    known = {s.id: s for s in discover(ROOT / "suites")}
    scenarios = [known[sid] for sid in ORDER]
    # 3 s per turn (the hang), but start-ups (the first, and again after each failure) import boto3: give them 60.
    with SubprocessAdapter([sys.executable, str(script), json.dumps(PLAN)], timeout=3, start_timeout=60,
                           cwd=str(ROOT)) as adapter:
        return {r.scenario: r for r in run(scenarios, adapter, ROOT)}


def test_a_run_goes_on_after_each_failure_and_later_scenarios_pass(misbehaving):
    assert {sid: r.status for sid, r in misbehaving.items()} == {
        "core/smoke-text": "pass", "core/single-call": "error", "core/round-trip": "pass",
        "core/parallel-calls": "error", "edge/zero-arg-tool": "pass", "core/interleaved-text": "error",
        "core/thinking-tools": "skip", "edge/nova-style": "pass"}


def test_the_hung_scenario_is_an_error_naming_the_timeout_and_the_stderr_tail(misbehaving):
    reason = misbehaving["core/single-call"].reason
    assert "timed out: no answer within 3s during core/single-call turn 0" in reason
    assert "waiting for a lock that never frees" in reason


def test_the_crashed_scenario_is_an_error_with_the_exit_code_and_traceback(misbehaving):
    reason = misbehaving["core/parallel-calls"].reason
    assert "crashed: exited with code 7 during core/parallel-calls turn 0" in reason
    assert "Traceback (most recent call last):" in reason and "KeyError: 'toolUseId'" in reason


def test_the_garbage_scenario_is_an_error_quoting_the_line(misbehaving):
    reason = misbehaving["core/interleaved-text"].reason
    assert "wrote garbage on stdout during core/interleaved-text turn 0: '<html>oops</html>'" in reason
    assert "misbehaving adapter" in reason  # the stderr tail of the process that wrote it


def test_a_skip_message_skips_the_scenario_with_the_adapters_reason(misbehaving):
    assert misbehaving["core/thinking-tools"].reason == "reasoning is not exposed by this library"
