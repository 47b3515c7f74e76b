"""One adapter child process: stdin fed by a thread, stdout lines queued (so reads can time out), stderr
drained continuously into a bounded tail (so a chatty adapter never blocks), and a kill that takes everything
the command started. Every read is bounded: the first stdout line (the hello) by MAX_HELLO_BYTES, every other by
MAX_LINE_BYTES (a longer one is a ``TooLong`` in the queue and nothing more is read), at most QUEUED lines wait
unread (the adapter then blocks on its pipe), and each stderr line keeps MAX_STDERR_LINE_CHARS characters.

On Linux the command runs under harness.adapters.reaper, a child subreaper in its own session: when the command
exits or the harness asks (or dies), it kills every descendant, those that left the process group or the
session included, so none outlives the adapter or holds its pipes open. Elsewhere the command leads its own
session and process group, and a kill takes the group (whether or not its leader already exited).
"""

from __future__ import annotations

import collections
import errno
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.adapters import reaper
from harness.cassettes.limits import MAX_HELLO_BYTES, MAX_LINE_BYTES, MAX_STDERR_LINE_CHARS

__all__ = ["EOF", "QUEUED", "REAPED", "TAIL_LINES", "Child", "TooLong", "tail_text"]

TAIL_LINES = 20  # stderr lines kept for a failure report
QUEUED = 8  # stdout lines read ahead of the harness (each up to MAX_LINE_BYTES)
EOF = object()  # what ``receive`` returns once stdout has ended
REAPED = sys.platform.startswith("linux") and os.path.isdir("/proc/self")  # the reaper works here
_REAPER_EXIT = 5.0  # seconds the reaper gets to kill and reap everything before its group is killed instead


class TooLong:
    """What ``receive`` returns for a stdout line past its limit (nothing after it is read)."""

    def __init__(self, limit: int):
        self.limit = limit


def _executable(program: str, env: dict, cwd: str | None) -> str:
    """The file ``program`` names, found as exec would (PATH from ``env``); OSError as Popen raises it."""
    if os.sep not in program:
        found = shutil.which(program, path=env.get("PATH", os.defpath))
        if found is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
        program = found
    path = Path(cwd or ".", program)
    if not path.is_file():
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
    if not os.access(path, os.X_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), program)
    return os.path.abspath(path)  # not resolved: a venv's python is a symlink that must stay one


def _spawn(argv: Sequence[str], env: dict, cwd: str | None) -> tuple[subprocess.Popen, int | None]:
    """The process (the reaper where it works, else the command itself) and the reaper's control pipe."""
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    if not REAPED:
        return subprocess.Popen(argv, env=env, cwd=cwd, start_new_session=True, **pipes), None
    program = _executable(argv[0], env, cwd)
    readable, control = os.pipe()
    try:
        process = subprocess.Popen([sys.executable, "-I", reaper.__file__, str(readable), "--", program, *argv[1:]],
                                   env=env, cwd=cwd, start_new_session=True, pass_fds=(readable,), **pipes)
    except BaseException:
        os.close(control)
        raise
    finally:
        os.close(readable)
    return process, control


class Child:
    """One adapter process: stdin fed by a thread, stdout lines queued, stderr drained into a bounded tail."""

    def __init__(self, argv: Sequence[str], env: dict, cwd: str | None):
        self.process, self._control = _spawn(argv, env, cwd)
        self.lines: queue.Queue = queue.Queue(QUEUED)
        self._stopping = threading.Event()  # set by kill: the reader stops waiting for room in the queue
        self.outbox: queue.Queue = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()
        for target in (self._read, self._write):
            threading.Thread(target=target, daemon=True).start()

    def _read(self) -> None:
        """Queue stdout lines, each within its limit; past it, a TooLong and no more reading."""
        limit = MAX_HELLO_BYTES
        while line := self.process.stdout.readline(limit + 1):
            if len(line) > limit:
                self._put(TooLong(limit))
                return
            if not self._put(line):
                return
            limit = MAX_LINE_BYTES
        self._put(EOF)

    def _put(self, item: Any) -> bool:
        """Queue ``item`` once there is room; False when the child was killed meanwhile (nobody reads on)."""
        while not self._stopping.is_set():
            try:
                self.lines.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def _drain(self) -> None:
        """Read stderr continuously, so a chatty adapter never blocks on a full pipe; a line longer than
        MAX_STDERR_LINE_CHARS keeps its start, the rest is read and dropped."""
        cut = False
        while piece := self.process.stderr.readline(MAX_STDERR_LINE_CHARS):
            if not cut:
                text = piece.decode("utf-8", "replace").rstrip("\r\n")
                self.stderr.append(text if piece.endswith(b"\n") else f"{text}… (line cut)")
            cut = not piece.endswith(b"\n")

    def _write(self) -> None:
        """Write queued lines; None closes stdin (EOF: the protocol's request to exit)."""
        while (line := self.outbox.get()) is not None:
            try:
                self.process.stdin.write(line)
                self.process.stdin.flush()
            except (OSError, ValueError):  # the process is gone; its stdout EOF tells the reader
                return
        try:
            self.process.stdin.close()
        except OSError:
            pass

    def send(self, message: dict) -> None:
        self.outbox.put(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")

    def receive(self, deadline: float) -> Any:
        """The next stdout line, ``EOF``, a ``TooLong``, or None when the deadline passes first."""
        try:
            return self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None

    def exit_code(self, wait: float) -> int | None:
        try:
            return self.process.wait(wait)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """Kill the command and everything it started (descendants would hold the pipes open)."""
        self._stopping.set()
        if self._control is not None:
            self._release()  # the reaper kills the command, sweeps its descendants and exits
            if self.exit_code(_REAPER_EXIT) is not None:
                self.outbox.put(None)
                return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # the group outlives its leader: kill it all the same
        except (OSError, AttributeError):  # AttributeError: no process groups on this platform
            self.process.kill()
        self.process.wait()
        self.outbox.put(None)

    def _release(self) -> None:
        """Close the reaper's control pipe: it then kills the command and every descendant."""
        control, self._control = self._control, None
        if control is not None:
            os.close(control)

    def tail(self) -> list[str]:
        """The last stderr lines, once the drain has read what the dead process left."""
        self._drainer.join(2.0)
        return list(self.stderr)

    def finish(self, wait: float = 5.0) -> int | None:
        """EOF on stdin, then the exit code; killed (None) when it does not exit within ``wait`` seconds."""
        self.outbox.put(None)
        code = self.exit_code(wait)
        if code is None:
            self.kill()
        self._release()
        return code


def tail_text(lines: list[str]) -> str:
    if not lines:
        return "it wrote nothing on stderr"
    return f"stderr (last {len(lines)} lines):\n" + "\n".join(f"    {line}" for line in lines)
