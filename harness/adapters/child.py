"""One adapter child process: stdin fed by a thread, stdout lines queued (so reads can time out), stderr
drained continuously into a bounded tail (so a chatty adapter never blocks), and a kill that takes the whole
process group (grandchildren would hold the pipes open)."""

from __future__ import annotations

import collections
import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from typing import Any

__all__ = ["EOF", "TAIL_LINES", "Child", "tail_text"]

TAIL_LINES = 20  # stderr lines kept for a failure report
EOF = object()  # what ``receive`` returns once stdout has ended


class Child:
    """One adapter process: stdin fed by a thread, stdout lines queued, stderr drained into a bounded tail."""

    def __init__(self, argv: Sequence[str], env: dict, cwd: str | None):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=env, cwd=cwd, start_new_session=True)
        self.lines: queue.Queue = queue.Queue()
        self.outbox: queue.Queue = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()
        for target in (self._read, self._write):
            threading.Thread(target=target, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(EOF)

    def _drain(self) -> None:
        """Read stderr continuously, so a chatty adapter never blocks on a full pipe."""
        for line in self.process.stderr:
            self.stderr.append(line.decode("utf-8", "replace").rstrip("\r\n"))

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
        """The next stdout line, ``EOF``, or None when the deadline passes first."""
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
        """Kill the process group (grandchildren too, which would hold the pipes open)."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (OSError, AttributeError):  # AttributeError: no process groups on this platform
                self.process.kill()
        self.process.wait()
        self.outbox.put(None)

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
        return code


def tail_text(lines: list[str]) -> str:
    if not lines:
        return "it wrote nothing on stderr"
    return f"stderr (last {len(lines)} lines):\n" + "\n".join(f"    {line}" for line in lines)
