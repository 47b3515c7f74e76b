"""A per-turn time limit for in-process adapters (the subprocess adapter has its own, and kills its process).

``Deadline(adapter, timeout)`` runs each turn's ``stream`` in a worker thread and hands its chunks on when the
turn ends; a turn that has not finished ``timeout`` seconds after it started gives the chunks it yielded so far,
then raises ``AdapterFailure`` naming the turn and the limit, so the scenario's verdict is ``error`` and the run
goes on. Python cannot kill a thread: the hung turn is left behind in its daemon thread (it ends with the process,
or when its call returns) and told to stop at its next chunk; the next turn gets a new worker. Everything else
(name, version, capabilities, ...) is the wrapped adapter's.

One worker runs the turns one after another and the caller waits for the whole turn, not for each chunk. Running
turns off the caller's thread is the price of a timeout that can abandon a hung call: measured over 300 generated
scenarios, about an eighth of a run's time against turns on the caller's thread, whether a thread is started per
turn and chunks handed over one by one or not (the difference between the two was within the machine's noise).
"""

from __future__ import annotations

import math
import queue
import threading
import weakref
from collections.abc import Iterator, Mapping
from typing import Any

from harness.judge.protocol import AdapterFailure

__all__ = ["Deadline", "TurnTimeout", "with_deadline"]


class TurnTimeout(AdapterFailure):
    """An in-process adapter's turn ran past the per-turn timeout."""


class Deadline:
    """``adapter`` with each turn bounded by ``timeout`` seconds (``option``: the setting a message names)."""

    def __init__(self, adapter: Any, timeout: float, option: str = "--timeout"):
        if not (math.isfinite(timeout) and timeout > 0):  # inf overflows the wait; nan never times out
            raise ValueError(f"{option} {timeout!r}: a per-turn timeout is a finite number of seconds above 0")
        self.adapter, self.timeout, self.option = adapter, timeout, option
        self.abandoned = 0  # turns left running past the timeout: they may still call their endpoint
        self._endpoint: Mapping | None = None
        self._index = 0
        self._jobs: queue.SimpleQueue | None = None  # the worker's turns to run; None: start a worker

    def __getattr__(self, name: str) -> Any:  # name, version, capabilities, close, ...
        return getattr(self.adapter, name)

    def __repr__(self) -> str:
        return f"<Deadline {self.timeout:g}s {self.adapter!r}>"

    def stream(self, turn: dict, endpoint: Mapping) -> Iterator[dict]:
        """The adapter's chunks for ``turn``; TurnTimeout, after the chunks yielded by then, when it has not
        finished in time."""
        __tracebackhide__ = True  # left out of an adapter exception's traceback tail (runner.exception_chunk)
        index = self._turn_index(endpoint)
        outcome = _Outcome()
        self._worker().put((self.adapter, turn, endpoint, outcome))
        if not outcome.done.wait(self.timeout):
            outcome.stop.set()
            self._jobs.put(None)  # the hung worker ends when its call returns; the next turn gets a new one
            self._jobs = None
            self.abandoned += 1  # counted first: the runner moves to a new endpoint however far this is read
            yield from list(outcome.chunks)  # what it yielded before it hung
            raise TurnTimeout(f"timed out: turn {index} did not finish within the {self.timeout:g}s per-turn timeout "
                              f"({self.option}); the hung call was abandoned")
        yield from outcome.chunks
        if outcome.error is not None:
            raise outcome.error

    def _worker(self) -> queue.SimpleQueue:
        """The running worker's queue of turns, a new worker's when there is none (it ends with this object)."""
        if self._jobs is None:
            self._jobs = queue.SimpleQueue()
            threading.Thread(target=_serve, args=(self._jobs,), daemon=True, name="bedrock-harness turns").start()
            weakref.finalize(self, self._jobs.put, None)
        return self._jobs

    def _turn_index(self, endpoint: Mapping) -> int:
        """0 on a new endpoint dict (the runner makes one per scenario), else the next turn."""
        self._index = self._index + 1 if endpoint is self._endpoint else 0
        self._endpoint = endpoint
        return self._index


class _Outcome:
    """One turn as the worker ran it: its chunks, the exception that ended it, and whether it ended."""

    def __init__(self) -> None:
        self.chunks: list = []
        self.error: BaseException | None = None
        self.done, self.stop = threading.Event(), threading.Event()


def _serve(jobs: queue.SimpleQueue) -> None:
    """A worker: the turns put on ``jobs``, one after another, until a None."""
    while (job := jobs.get()) is not None:
        _pump(*job)


def _pump(adapter: Any, turn: dict, endpoint: Mapping, outcome: _Outcome) -> None:
    """Run one turn in the worker; stop at the next chunk once told to (the turn was abandoned)."""
    __tracebackhide__ = True
    try:
        stream = adapter.stream(turn, endpoint)
        for chunk in stream:
            if outcome.stop.is_set():
                getattr(stream, "close", lambda: None)()
                return
            outcome.chunks.append(chunk)
    except BaseException as exc:  # noqa: BLE001 - handed to the runner's thread, which judges it
        outcome.error = exc
    finally:
        outcome.done.set()


def with_deadline(adapter: Any, timeout: float | None, option: str = "--timeout") -> Any:
    """``adapter`` bounded per turn, unless ``timeout`` is None or it is bounded already (a subprocess adapter)."""
    if timeout is None or isinstance(adapter, Deadline) or getattr(adapter, "bounds_its_turns", False):
        return adapter
    return Deadline(adapter, timeout, option)
