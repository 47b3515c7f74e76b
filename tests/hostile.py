"""A hostile-input corpus, generated (never checked in): cassettes an attacker or a careless user could hand over.

Each case is text built from a small, valid cassette (``cassettes/core/smoke-text.yaml``'s shape) with one thing
made hostile: YAML alias bombs, deep nesting, huge padding, wrong types, broken frames, IPv6 junk, what serve
cannot send (a status or header line, an empty frame item or one holding two frames), a non-JSON event, a key twice,
a stream botocore refuses (``CASES``, each refused); odd-shaped ones every reader must handle (``ACCEPTED``); and a
big (400k-frame, ~57 MB) cassette written line by line. ``bounded(cmd)`` runs a command in a child process under
an address-space limit and a timeout, so a regression shows as a failed test rather than a stuck machine.
"""

from __future__ import annotations

import base64
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from harness.wire.eventstream import encode_frame

__all__ = ["ACCEPTED", "CASES", "Bounded", "big_cassette", "bounded", "bounded_cli", "cassette_text", "frame_lines", "laughs",
           "string_bomb"]

_URI = "http://127.0.0.1/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream"
_REQUEST = """\
- request:
    method: POST
    uri: {uri}
    headers:
      Content-Type: application/json
{body}{extra}  response:
    status:
      code: 200
      message: OK
    headers:
      Content-Type: application/vnd.amazon.eventstream
    frames:
"""
_BODY = """\
    json:
      messages:
      - role: user
        content:
        - text: Say hello.
"""
_HEAD = """\
metadata:
  format_version: 1
  recorded: '2026-11-22T13:11:51Z'
  source: emulator
  region: us-east-1
  model_id: us.anthropic.claude-sonnet-4-20250514-v1:0
interactions:
"""
_OPEN = """\
    - event: messageStart
      p: 46
      json:
        role: assistant
"""
_DELTA = """\
    - event: contentBlockDelta
      p: {p}
      json:
        contentBlockIndex: 0
        delta:
          text: {text}
"""
_CLOSE = """\
    - event: contentBlockStop
      p: 10
      json:
        contentBlockIndex: 0
    - event: messageStop
      p: 57
      json:
        stopReason: end_turn
    - event: metadata
      p: 38
      json:
        metrics:
          latencyMs: 100
        usage:
          inputTokens: 19
          outputTokens: 8
          totalTokens: 27
"""


def frame_lines(texts, pad: int = 12) -> str:
    """Text delta frame items, one per text."""
    return "".join(_DELTA.format(p=pad, text=text) for text in texts)


def cassette_text(deltas: str | None = None, *, uri: str = _URI, body: str = _BODY, extra: str = "",
                  head: str = _HEAD, interactions: int = 1) -> str:
    """A cassette of ``interactions`` text streams whose deltas are ``deltas`` (frame items) in each."""
    deltas = frame_lines(["Hello there,", "' friend!'"]) if deltas is None else deltas
    one = _REQUEST.format(uri=uri, body=body, extra=extra) + _OPEN + deltas + _CLOSE
    return head + one * interactions


FRAMES_PER_INTERACTION = 100_000  # the most one interaction may hold (harness.cassettes.limits.MAX_FRAMES)


def big_cassette(path: Path, interactions: int = 4, text_size: int = 24) -> Path:
    """A ~57 MB cassette of 4 x 100,000 frames (text deltas, 24 characters each), written in one pass: within the
    file limit (limits.MAX_FILE_BYTES)."""
    text = "'" + "x" * text_size + "'"
    deltas = frame_lines([text] * (FRAMES_PER_INTERACTION - 4))  # messageStart, and three closing frames
    with open(path, "w", encoding="utf-8") as f:
        f.write(_HEAD)
        for _ in range(interactions):
            f.write(_REQUEST.format(uri=_URI, body=_BODY, extra="") + _OPEN + deltas + _CLOSE)
    return path


def laughs(indent: str, levels: int = 9, fan: int = 9) -> str:
    """The billion laughs as mapping items at ``indent`` (fan ** levels leaves, under 2 KB of text)."""
    lines = [f'{indent}lol0: &a0 "lol"']
    for n in range(1, levels + 1):
        lines.append(f"{indent}lol{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * fan) + "]")
    return "\n".join(lines) + "\n"


_BIG_STRING = 4 * 1024 * 1024  # the probe's: one 4 MiB string, aliased 1,000 times (4 GiB to whoever expands it)


def string_bomb(where: str, times: int = 1000) -> str:
    """A ~4 MB cassette anchoring one 4 MiB string and aliasing it ``times`` times, in the request's messages or
    system prompt, in the response's frames, or inside a mapping aliased under a key no reader looks at."""
    big = "x" * _BIG_STRING
    if where == "messages":
        items = f"        - text: &s {big}\n" + "        - text: *s\n" * times
        return cassette_text(body="    json:\n      messages:\n      - role: user\n        content:\n" + items)
    if where == "system":
        items = f"      - text: &s {big}\n" + "      - text: *s\n" * times
        return cassette_text(body="    json:\n      system:\n" + items + _BODY.replace("    json:\n", ""))
    if where == "frames":
        return cassette_text(frame_lines([f"&s {big}"] + ["*s"] * times))
    head = _HEAD.replace("interactions:", f"unread:\n  one: &m {{k: {big}}}\n  many: [" + ", ".join(["*m"] * times)
                         + "]\ninteractions:")
    return cassette_text(head=head)


def _deep_frame_base64(depth: int) -> str:
    """A whole frame, CRCs right, whose JSON payload is ``depth`` arrays deep (the YAML nests none of it)."""
    headers = ((":event-type", "contentBlockDelta"), (":content-type", "application/json"), (":message-type", "event"))
    frame = encode_frame(headers, b"[" * depth + b"]" * depth)
    return f"    - frame_base64: {base64.b64encode(frame).decode()}\n"


def _two_frames() -> str:
    """One frame item whose bytes are two whole frames (a client would read both)."""
    frame = encode_frame(((":event-type", "contentBlockDelta"), (":content-type", "application/json"),
                          (":message-type", "event")), b'{"contentBlockIndex":0,"delta":{"text":"hi"}}')
    return f"    - frame_base64: {base64.b64encode(frame * 2).decode()}\n"


def _frame_item(headers, payload: bytes) -> str:
    return f"    - frame_base64: {base64.b64encode(encode_frame(headers, payload)).decode()}\n"


def _exception(kind, payload: bytes = b'{"message":"slow down"}') -> str:
    """An exception frame item ending the stream after one delta, its type header ``kind`` (bytes: a bytes header)."""
    headers = ((":exception-type", kind), (":content-type", "application/json"), (":message-type", "exception"))
    return frame_lines(["hi"]) + _frame_item(headers, payload)


def _exception_ending(item: str) -> str:
    """A cassette whose stream is messageStart, ``item`` (frame items), and nothing after."""
    return cassette_text(item).split("    - event: contentBlockStop")[0]


def _nested(depth: int) -> str:
    return "      deep: " + "[" * depth + "]" * depth + "\n"


# name -> (a function giving the cassette text, a word the one-line error must hold)
CASES: dict[str, tuple] = {
    "alias-bomb-request": (lambda: cassette_text(body="    json:\n" + laughs("      ")), "alias"),
    "alias-bomb-unread-key": (lambda: cassette_text(head=_HEAD.replace(
        "interactions:", "unread:\n" + laughs("  ") + "interactions:")), "alias"),
    **{f"alias-string-bomb-{where}": (lambda where=where: string_bomb(where), "alias")
       for where in ("messages", "system", "frames", "mapping")},
    "deep-nesting": (lambda: cassette_text(extra="    x-deep:\n" + _nested(100_000)), "nest"),
    "deep-json-payload": (lambda: cassette_text("    - event: contentBlockDelta\n      payload: '" + "[" * 5000
                                                + "]" * 5000 + "'\n"), "nested"),
    "deep-json-frame-base64": (lambda: cassette_text(_deep_frame_base64(100_000)), "nested"),
    "timestamp-junk": (lambda: cassette_text(body="    json: {when: !!timestamp 'x'}\n"), "timestamp"),
    "int-5000-digits": (lambda: cassette_text().replace("inputTokens: 19", "inputTokens: 1" + "0" * 5000), "int"),
    "delta-text-list": (lambda: cassette_text(frame_lines(["[1, 2]"])), "delta.text"),
    "usage-wrong-type": (lambda: cassette_text().replace("inputTokens: 19", "inputTokens: [19]"), "usage"),
    "stop-reason-list": (lambda: cassette_text().replace("stopReason: end_turn", "stopReason: [end_turn]"),
                         "stopReason"),
    "huge-padding": (lambda: cassette_text(frame_lines(["hi"], pad=1_000_000_000_000)), "padding"),
    "padding-100m": (lambda: cassette_text(frame_lines(["hi"], pad=100_000_000)), "padding"),
    "padding-negative": (lambda: cassette_text(frame_lines(["hi"], pad=-5)), "padding"),
    "padding-wrong-type": (lambda: cassette_text(frame_lines(["hi"], pad="[1, 2]")), "padding"),
    "chunk-string": (lambda: cassette_text("    - event: chunk\n      chunk: x\n"), "frame 1"),
    "bytes-not-base64": (lambda: cassette_text("    - event: chunk\n      json: {bytes: '!!!'}\n"), "frame 1"),
    "frames-not-a-list": (lambda: cassette_text().replace("    frames:\n", "    frames: 7\n    x:\n", 1), "frames"),
    "frame-not-a-mapping": (lambda: cassette_text("    - 42\n"), "frame 1"),
    "json-wrong-type": (lambda: cassette_text("    - event: contentBlockDelta\n      json: [1, 2]\n"), "frame 1"),
    "headers-wrong-type": (lambda: cassette_text("    - headers: [[':event-type', [1]]]\n      payload: ''\n"),
                           "frame 1"),
    "base64-junk": (lambda: cassette_text("    - frame_base64: '@@@@'\n"), "frame 1"),
    "frame-bytes-truncated": (lambda: cassette_text("    - frame_base64: AAAAEAAAAAA=\n"), "frame 1"),
    "ipv6-junk-uri": (lambda: cassette_text(uri="http://[::1/model/x/converse-stream"), "uri"),
    "port-junk-uri": (lambda: cassette_text(uri="http://127.0.0.1:99999999/model/x/converse-stream"), "uri"),
    "status-wrong-type": (lambda: cassette_text().replace("code: 200", "code: [200]", 1), "interaction 0"),
    "metadata-broken": (lambda: "metadata: [\n", "broken YAML"),
    "metadata-list": (lambda: "metadata: []\ninteractions: []\n", "not a bedrock-harness cassette"),
    "top-level-scalar": (lambda: "42\n", "not a bedrock-harness cassette"),
    "huge-request-body": (lambda: cassette_text(body="    body: '" + "a" * (40 * 1024 * 1024) + "'\n"),
                          "request body"),
    "too-many-frames": (lambda: cassette_text(frame_lines(["hi"]) * 100_001), "frames"),
    # what `serve` cannot serve or botocore cannot parse, which verify once passed (issue 21)
    "status-99999": (lambda: cassette_text().replace("code: 200", "code: 99999", 1), "status"),
    "status-103": (lambda: cassette_text().replace("code: 200", "code: 103", 1), "status"),
    "frame-empty": (lambda: cassette_text("    - frame_base64: ''\n"), "frame 1"),
    "two-frames-in-one-item": (lambda: cassette_text(_two_frames()), "frame 1"),
    "message-start-not-json": (lambda: cassette_text().replace(_OPEN, "    - event: messageStart\n"
                                                                       "      payload: not json\n"), "frame 0"),
    "duplicate-interactions-key": (lambda: cassette_text().replace("interactions:\n", "interactions: []\n"
                                                                   "interactions:\n", 1), "duplicate"),
    "block-start-empty": (lambda: cassette_text("    - event: contentBlockStart\n      json: {contentBlockIndex: 0, "
                                                "start: {}}\n" + frame_lines(["hi"])), "frame 1"),
    # what verify passed and run then blamed on the adapter, or a client reads differently (issue 31)
    "exception-type-invalid-utf8-bytes": (lambda: _exception_ending(_exception(b"throttl\xffingException")),
                                          ":exception-type is a bytes"),
    "exception-payload-not-json": (lambda: _exception_ending(_exception("throttlingException", b"not json")),
                                   "not JSON"),
    "exception-payload-a-list": (lambda: _exception_ending(_exception("throttlingException", b"[1]")),
                                 "not a JSON object"),
    "error-code-a-number": (lambda: _exception_ending(frame_lines(["hi"]) + _frame_item(
        ((":error-code", 7), (":error-message", "x"), (":message-type", "error")), b"")), ":error-code is an int"),
    "empty-message-for-message-stop": (lambda: cassette_text().replace(
        "    - event: messageStop\n      p: 57\n      json:\n        stopReason: end_turn\n",
        _frame_item((), b"")), "unknown event type ''"),
    "header-line-break": (lambda: cassette_text().replace("      Content-Type: application/vnd.amazon.eventstream\n",
                                                          "      Content-Type: \"a\\r\\nX-Injected: 1\"\n"), "header"),
    "header-name-space": (lambda: cassette_text().replace("      Content-Type: application/vnd.amazon.eventstream\n",
                                                          "      Content Type: x\n"), "header"),
}

# Cassettes `verify` passes whose odd shapes every other reader must handle (show once crashed on each).
_ODD_BODIES = {
    "message-a-number": "    json:\n      messages: [5]\n",
    "block-a-list": "    json:\n      messages:\n      - {role: user, content: [[1, 2]]}\n",
    "content-a-number": "    json:\n      messages:\n      - {role: user, content: 7}\n",
    "system-a-number": "    json:\n      system: 3\n      messages: []\n",
    "system-items-odd": "    json:\n      system: [5, [1], {text: [2]}]\n",
    "tools-a-string": "    json:\n      toolConfig: {tools: x, toolChoice: [1]}\n",
    "tool-entries-odd": "    json:\n      toolConfig: {tools: [5, {toolSpec: 3}, {systemTool: []}]}\n",
    "fields-a-list": "    json:\n      additionalModelRequestFields: [1]\n      guardrailConfig: 5\n",
    "tool-result-odd": "    json:\n      messages:\n      - role: user\n        content:\n        - toolResult: "
                       "{toolUseId: 5, content: [3, {text: [1]}], status: [x]}\n        - toolUse: 7\n"
                       "        - reasoningContent: {reasoningText: 5, redactedContent: 3}\n",
    "body-a-list": "    json: [1, 2]\n",
}
ACCEPTED: dict[str, object] = {name: (lambda body=body: cassette_text(body=body)) for name, body in _ODD_BODIES.items()}
def aliased_frames(count: int = FRAMES_PER_INTERACTION - 4) -> str:
    """Under 1 MB: one anchored ``frame_base64`` text delta aliased into ``count`` frames (within the alias byte
    limit, so every reader reads all of them)."""
    frame = base64.b64encode(encode_frame(((":event-type", "contentBlockDelta"), (":message-type", "event")),
                                          b'{"contentBlockIndex":0,"delta":{"text":"a"}}')).decode()
    return cassette_text(f"    - &f {{frame_base64: {frame}}}\n" + "    - *f\n" * (count - 1))


ACCEPTED["frame-base64-aliased-100k"] = aliased_frames
ACCEPTED["converse-output-odd"] = lambda: cassette_text(uri=_URI.replace("converse-stream", "converse")).replace(
    "application/vnd.amazon.eventstream", "application/json").replace("    frames:\n", "    json: {output: {message: "
    "{content: [5, [1], {toolUse: 3}, {text: [2]}]}}, stopReason: [1], usage: 7}\n    unread:\n")


@dataclass(frozen=True)
class Bounded:
    """What a bounded child run gave: exit code, output, wall seconds and peak RSS (MB)."""

    returncode: int | None  # None: still running at the timeout, killed
    stdout: str
    stderr: str
    seconds: float
    peak_mb: float

    @property
    def lines(self) -> list[str]:
        return [line for line in (self.stdout + self.stderr).splitlines() if line.strip()]


def _limit(memory_mb: int):
    def apply() -> None:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def _wait(proc: subprocess.Popen, timeout: float, keep: bool = False) -> tuple[int | None, float]:
    """(exit code, peak RSS in MB) of ``proc``, reaped here so its own rusage is read; killed on timeout, which
    raises TimeoutExpired unless ``keep`` (the exit code is then None)."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, usage.ru_maxrss / 1024
        if time.monotonic() > deadline:
            proc.kill()
            _, _, usage = os.wait4(proc.pid, 0)
            if keep:
                return None, usage.ru_maxrss / 1024
            raise subprocess.TimeoutExpired(proc.args, timeout)
        time.sleep(0.02)


def bounded(args: list[str], cwd: Path, *, memory_mb: int = 1500, timeout: float = 60, keep: bool = False) -> Bounded:
    """``bedrock-harness ARGS`` in a child under RLIMIT_AS and a timeout (TimeoutExpired escapes to the test unless
    ``keep``: then the child is killed and its exit code is None)."""
    start = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-m", "harness.cli", *args], cwd=cwd, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, preexec_fn=_limit(memory_mb))
        code, peak = _wait(proc, timeout, keep)
        out.seek(0)
        err.seek(0)
        return Bounded(code, out.read(), err.read(), time.monotonic() - start, peak)


# Runs in the bounded child: each invocation through click's runner, one JSON line per result as it ends (a
# crash still leaves the finished ones, and the last "start" line names the one that crashed).
_CHILD = """
import json, sys, time
from click.testing import CliRunner
from harness.cli import main
for args in json.loads(sys.stdin.read()):
    print(json.dumps({"start": args}), flush=True)
    began = time.monotonic()
    result = CliRunner().invoke(main, args)
    text = result.output if result.exception is None or isinstance(result.exception, SystemExit) else \\
        result.output + "TRACEBACK " + repr(result.exception)
    print(json.dumps({"args": args, "exit": result.exit_code, "output": text,
                      "seconds": time.monotonic() - began}), flush=True)
"""


def bounded_cli(invocations: list[list[str]], cwd: Path, *, memory_mb: int = 1500,
                timeout: float = 120) -> tuple[list[dict], Bounded]:
    """Many CLI invocations in one child under RLIMIT_AS and a timeout: (per-invocation results, the child)."""
    start = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, \
            tempfile.TemporaryFile("w+") as stdin:
        stdin.write(json.dumps(invocations))
        stdin.seek(0)
        proc = subprocess.Popen([sys.executable, "-c", _CHILD], cwd=cwd, stdout=out, stderr=err, stdin=stdin,
                                preexec_fn=_limit(memory_mb))
        code, peak = _wait(proc, timeout)
        out.seek(0)
        err.seek(0)
        child = Bounded(code, out.read(), err.read(), time.monotonic() - start, peak)
    results = [json.loads(line) for line in child.stdout.splitlines() if line.startswith('{"args"')]
    return results, child
