"""The subprocess adapter: a program in any language speaking DESIGN.md's JSON-lines protocol.

The command is started once (shlex-split, no shell) and again only after it failed. Its environment holds
``AWS_ENDPOINT_URL_BEDROCK_RUNTIME``, ``AWS_REGION`` and dummy credentials, every real ``AWS_*`` variable
removed. The endpoint is one stable loopback port for the whole run, a relay (harness.adapters.relay) that
each scenario re-targets at its own loopback server; every turn message's ``endpoint`` names the same URL.

A crash, a hang past the per-turn timeout, a stdout line that is not a protocol message or is longer than the
limit (harness.cassettes.limits), or a protocol violation raises ``AdapterFailure`` (the scenario's verdict is
``error``) carrying the adapter's stderr tail;
the process is killed and started afresh for the next scenario. ``skip`` raises ``AdapterSkip``; ``error``
is the adapter's own exception, recorded as the closing error chunk exactly like one raised in-process (its message
and traceback cut to MAX_ERROR_CHARS and MAX_TRACEBACK_CHARS).
"""

from __future__ import annotations

import json
import os
import shlex
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from harness.adapters import AdapterFailure, AdapterLoadError, AdapterSkip
from harness.adapters.child import EOF, TAIL_LINES, Child, TooLong, tail_text
from harness.cassettes.limits import MAX_ERROR_CHARS, MAX_TRACEBACK_CHARS, clip
from harness.suite.contract import chunk_problem, problem
from harness.judge.protocol import TURN_TIMEOUT
from harness.adapters.relay import Relay
from harness.suite.runner import ADAPTER_EXCEPTION, DUMMY_KEYS

__all__ = ["DEFAULT_TIMEOUT", "PROTOCOL", "TAIL_LINES", "AdapterStartError", "ProcessFailure", "SubprocessAdapter",
           "child_env"]

# 2: turns carry ``conversation``; adapters declaring own_history get only the new messages. 3: adapters declaring
# non_streaming get turns with ``"non_streaming": true`` and answer ``native`` chunks; the hello may carry
# ``native_differences`` (path pattern -> why the library documents the two results apart). Any hello may carry
# ``vocabulary`` (declared judgement -> the library's own type it cites), which an older harness ignores.
PROTOCOL = 3
DEFAULT_TIMEOUT = TURN_TIMEOUT  # seconds per turn, and for start-up with the hello unless start_timeout says otherwise
_ENDS_TURN = ("done", "error", "skip")


class AdapterStartError(AdapterLoadError):
    """The command cannot start, or its hello handshake failed (for the CLI: a usage error)."""


class ProcessFailure(AdapterFailure):
    """The adapter process crashed, hung, wrote garbage or broke the protocol; carries its stderr tail."""

    def __init__(self, headline: str, stderr_tail: Sequence[str] | None = None):
        tail = "" if stderr_tail is None else f"; {tail_text(list(stderr_tail))}"
        super().__init__(headline + tail)
        self.headline, self.stderr_tail = headline, list(stderr_tail or ())

    def one_line(self) -> str:
        """The headline and the last stderr line: enough for a usage error."""
        last = f"; its last stderr line: {self.stderr_tail[-1]}" if self.stderr_tail else ""
        return self.headline + last


def child_env(endpoint_url: str, region: str = "us-east-1", base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: os.environ) without AWS_* variables, plus the loopback endpoint, region, dummy keys."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if not k.startswith("AWS_")}
    return {**env, "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": endpoint_url, "AWS_REGION": region,
            "AWS_DEFAULT_REGION": region, "AWS_ACCESS_KEY_ID": DUMMY_KEYS["aws_access_key_id"],
            "AWS_SECRET_ACCESS_KEY": DUMMY_KEYS["aws_secret_access_key"], "AWS_CONFIG_FILE": os.devnull,
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull, "AWS_EC2_METADATA_DISABLED": "true"}


class SubprocessAdapter:
    """An adapter behind a command: ``name``, ``version`` and ``capabilities`` come from its hello."""

    bounds_its_turns = True  # each turn under its own timeout: with_deadline leaves it as it is

    def __init__(self, command: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
                 start_timeout: float | None = None, cwd: str | None = None, region: str = "us-east-1"):
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise AdapterStartError("the adapter command is empty")
        self.command, self.timeout = shlex.join(self.argv), timeout
        self.start_timeout = timeout if start_timeout is None else start_timeout
        self.scenario = ""  # the id the turn messages carry (see follow)
        self._relay = Relay()
        self._env, self._cwd = child_env(self._relay.url, region), cwd
        self._child: Child | None = None
        self._endpoint: Mapping | None = None
        self._index = 0
        self.native_differences: dict[str, str] = {}
        self.vocabulary: dict[str, str] = {}
        try:
            self.name, self.version, self.capabilities = self._start()
        except ProcessFailure as exc:
            self.close()
            raise AdapterStartError(exc.one_line()) from None

    def __repr__(self) -> str:
        return f"<SubprocessAdapter {self.name!r} {self.version} ({self.command})>"

    @property
    def endpoint_url(self) -> str:
        """The stable loopback URL the adapter's environment and turn messages name."""
        return self._relay.url

    def stream(self, turn: dict, endpoint: Mapping) -> Iterator[dict]:
        """Send one turn and yield the chunks the adapter answers with, up to ``done``."""
        index = self._begin(endpoint)
        where = f"{self.scenario or 'the scenario'} turn {index}"
        self._ensure_running(where)
        self._child.send({"type": "turn", "scenario": self.scenario, "index": index,
                          "endpoint": {**endpoint, "endpoint_url": self._relay.url}, "turn": turn})
        deadline, ended = time.monotonic() + self.timeout, False
        try:
            while not ended:
                message = self._receive(deadline, where, self.timeout)
                ended = message["type"] in _ENDS_TURN
                chunk = self._answer(message, where)
                if chunk is not None:
                    yield chunk
        finally:
            if not ended:  # a failure, or the caller stopped early: the process is out of step
                self._stop_child()

    def follow(self, scenarios: Sequence, progress: Callable | None = None) -> Callable:
        """A ``progress`` for harness.suite.runner.run(scenarios, ...) keeping ``scenario`` on the one about to run."""
        ids = [s.id for s in scenarios]
        self.scenario = ids[0] if ids else ""

        def step(done: int, total: int, result: Any) -> None:
            self.scenario = ids[done] if done < len(ids) else ""
            if progress:
                progress(done, total, result)
        return step

    def close(self) -> int | None:
        """EOF on the adapter's stdin (it exits 0), then stop the relay; the exit code, None if it was killed."""
        code = self._child.finish() if self._child else None
        self._child = None
        self._relay.close()
        return code

    def __enter__(self) -> SubprocessAdapter:  # noqa: PYI034 -- typing.Self needs Python 3.11
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # ---- process and protocol ----

    def _start(self) -> tuple[str, str, frozenset[str]]:
        try:
            self._child = Child(self.argv, self._env, self._cwd)
        except OSError as exc:
            raise ProcessFailure(f"cannot start adapter command {self.command!r}: {exc.strerror or exc}") from None
        self._child.send({"type": "hello", "protocol": PROTOCOL})
        hello = self._receive(time.monotonic() + self.start_timeout, "the hello handshake", self.start_timeout)
        wrong = problem("hello", hello)
        if wrong:
            raise self._fail(f"answered the hello with {_short(hello)}: {wrong}")
        self.native_differences = dict(hello.get("native_differences", {}))
        self.vocabulary = dict(hello.get("vocabulary", {}))
        return hello["name"], hello["version"], frozenset(hello["capabilities"])

    def _begin(self, endpoint: Mapping) -> int:
        """The turn index; a new endpoint dict (the runner makes one per scenario) re-targets the relay."""
        if endpoint is self._endpoint:
            self._index += 1
            return self._index
        self._endpoint, self._index = endpoint, 0
        self._relay.retarget(endpoint["endpoint_url"])
        return 0

    def _ensure_running(self, where: str) -> None:
        if self._child is None:  # it failed in an earlier scenario: a fresh process for this one
            self._start()
        elif self._child.process.poll() is not None:
            raise self._fail(f"exited with code {self._child.process.returncode} before {where}")

    def _receive(self, deadline: float, where: str, limit: float) -> dict:
        """The next protocol message; a hang, EOF or garbage raises AdapterFailure."""
        while True:
            line = self._child.receive(deadline)
            if line is None:
                raise self._fail(f"timed out: no answer within {limit:g}s during {where} (is it stuck, or does it "
                                 "not flush stdout after each line?); killed")
            if line is EOF:
                code = self._child.exit_code(5.0)
                ended = "closed its stdout" if code is None else f"exited with code {code}"
                raise self._fail(f"crashed: {ended} during {where}")
            if isinstance(line, TooLong):
                raise self._fail(f"wrote a stdout line longer than {line.limit} bytes during {where} (the limit of a "
                                 "protocol line; log to stderr); killed")
            if line.strip():
                break
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than the decoder's stack allows
            message = None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise self._fail(f"wrote garbage on stdout during {where}: {_short(line)} is not a protocol message "
                             "(stdout carries protocol lines only; log to stderr)")
        return message

    def _answer(self, message: dict, where: str) -> dict | None:
        """The chunk a turn message stands for (None: ``done``); ``skip`` and anything else raise."""
        kind = message["type"]
        if kind == "chunk" and "chunk" in message:
            wrong = chunk_problem(message["chunk"])
            if wrong:
                raise self._fail(f"broke the protocol during {where}: sent {_short(message)}; {wrong}")
            return message["chunk"]
        if kind == "error":
            text, trace = message.get("message"), message.get("traceback")
            text = clip(text if isinstance(text, str) else str(text), MAX_ERROR_CHARS)
            return {"type": "error", "code": ADAPTER_EXCEPTION, "message": text,
                    **({"traceback": clip(trace, MAX_TRACEBACK_CHARS)} if isinstance(trace, str) and trace else {})}
        if kind == "done":
            return None
        if kind == "skip":
            raise AdapterSkip(str(message.get("reason") or "the adapter skipped it without a reason"))
        raise self._fail(f"broke the protocol during {where}: sent {_short(message)}; expected a chunk "
                         '{"type": "chunk", "chunk": {"type": ...}}, done, skip or error')

    def _fail(self, what: str) -> ProcessFailure:
        """Kill the process and describe the failure with its stderr tail."""
        return ProcessFailure(f"subprocess adapter {self.command!r} {what}", self._stop_child())

    def _stop_child(self) -> list[str]:
        child, self._child = self._child, None
        if child is None:
            return []
        child.kill()
        return child.tail()


def _short(value: Any, width: int = 200) -> str:
    text = value.decode("utf-8", "replace").rstrip("\r\n") if isinstance(value, bytes) else json.dumps(value)
    return repr(text if len(text) <= width else text[: width - 3] + "...")
