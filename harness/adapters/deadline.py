"""A per-turn time limit for in-process adapters (the subprocess adapter has its own, and kills its process).

``Deadline(adapter, timeout)`` runs each turn's ``stream`` in a worker thread and hands its chunks on as they
come; a turn that has not finished ``timeout`` seconds after it started raises ``AdapterFailure`` naming the turn
and the limit, so the scenario's verdict is ``error`` and the run goes on. Python cannot kill a thread: the hung
turn is left behind as a daemon thread (it ends with the process, or when its call returns) and told to stop at
its next chunk. Everything else (name, version, capabilities, ...) is the wrapped adapter's.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

from harness.adapters.subprocess import SubprocessAdapter
from harness.suite.protocol import AdapterFailure

__all__ = ["Deadline", "TurnTimeout", "with_deadline"]

_DONE = object()  # the worker's last queue item after the adapter's stream ended


class TurnTimeout(AdapterFailure):
    """An in-process adapter's turn ran past the per-turn timeout."""


class Deadline:
    """``adapter`` with each turn bounded by ``timeout`` seconds (``option``: the setting a message names)."""

    def __init__(self, adapter: Any, timeout: float, option: str = "--timeout"):
        if not (math.isfinite(timeout) and timeout > 0):  # inf overflows the queue's wait; nan never times out
            raise ValueError(f"{option} {timeout!r}: a per-turn timeout is a finite number of seconds above 0")
        self.adapter, self.timeout, self.option = adapter, timeout, option
        self.abandoned = 0  # turns left running past the timeout: they may still call their endpoint
        self._endpoint: Mapping | None = None
        self._index = 0

    def __getattr__(self, name: str) -> Any:  # name, version, capabilities, close, ...
        return getattr(self.adapter, name)

    def __repr__(self) -> str:
        return f"<Deadline {self.timeout:g}s {self.adapter!r}>"

    def stream(self, turn: dict, endpoint: Mapping) -> Iterator[dict]:
        """The adapter's chunks for ``turn``; TurnTimeout when it has not finished in time."""
        __tracebackhide__ = True  # left out of an adapter exception's traceback tail (runner.exception_chunk)
        index = self._turn_index(endpoint)
        items: queue.SimpleQueue = queue.SimpleQueue()
        stop = threading.Event()
        threading.Thread(target=_pump, args=(self.adapter, turn, endpoint, items, stop), daemon=True,
                         name=f"bedrock-harness turn {index}").start()
        deadline = time.monotonic() + self.timeout
        try:
            while (item := self._next(items, deadline, index)) is not _DONE:
                yield item
        finally:
            stop.set()

    def _next(self, items: queue.SimpleQueue, deadline: float, index: int) -> Any:
        """The worker's next chunk or _DONE; its exception is raised here, a hang past ``deadline`` too."""
        __tracebackhide__ = True
        try:
            kind, value = items.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            self.abandoned += 1
            raise TurnTimeout(f"timed out: turn {index} did not finish within the {self.timeout:g}s per-turn timeout "
                              f"({self.option}); the hung call was abandoned") from None
        if kind == "error":
            raise value
        return value

    def _turn_index(self, endpoint: Mapping) -> int:
        """0 on a new endpoint dict (the runner makes one per scenario), else the next turn."""
        self._index = self._index + 1 if endpoint is self._endpoint else 0
        self._endpoint = endpoint
        return self._index


def _pump(adapter: Any, turn: dict, endpoint: Mapping, items: queue.SimpleQueue, stop: threading.Event) -> None:
    """Run one turn in the worker: ("chunk", c)... then ("chunk", _DONE), or ("error", exception)."""
    __tracebackhide__ = True
    try:
        stream = adapter.stream(turn, endpoint)
        for chunk in stream:
            if stop.is_set():
                getattr(stream, "close", lambda: None)()
                return
            items.put(("chunk", chunk))
        items.put(("chunk", _DONE))
    except BaseException as exc:  # noqa: BLE001 - handed to the runner's thread, which judges it
        items.put(("error", exc))


def with_deadline(adapter: Any, timeout: float | None, option: str = "--timeout") -> Any:
    """``adapter`` bounded per turn, unless ``timeout`` is None or it is bounded already (a subprocess adapter)."""
    if timeout is None or isinstance(adapter, (Deadline, SubprocessAdapter)):
        return adapter
    return Deadline(adapter, timeout, option)
