"""A library's agent loop driven turn by turn: the loop runs in its own thread, and its tools wait for the harness.

An agent loop (strands ``Agent``, pydantic-ai ``Agent``) makes every model call of a conversation itself and
decides on its own whether to run the tools the model called. The harness drives one model call per turn, so
the loop runs in a thread and streams its chunks into a queue, and pauses at two points: a tool waits for its
result (the scenario's, which the harness sends as the next turn's ``tool_result``), and a model call waits for
its turn (model call k is turn k's; the gate keeps a loop that runs tools of its own, or none, from sending ahead
of the harness). A harness turn ends at the first pause or when the loop finishes. A loop that finished although
the model called tools ignored the calls: the next turn has nowhere to send its results, an error chunk says so.
Where the shim reads the library's events behind its run (an event stream fed by a task of its own, which does not
wait for its reader), a tool first waits, without pausing, until the reader has relayed the closing of the model call
whose tools run (``call_closed``), so the turn's last chunks come before its pause.
"""

from __future__ import annotations

import concurrent.futures.thread  # noqa: F401 -- its exit hook registers first, so _close_live runs before it
import queue
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from harness.adapters.shims.common import Shim
from harness.judge.protocol import AdapterFailure, AdapterSkip

__all__ = ["AgentLoop", "AgentShim", "Cancelled", "LOOP_ENDED", "TIMEOUT_S", "tool_results"]

TIMEOUT_S = 60.0  # a loop that neither streams nor waits for so long is stuck
LOOP_ENDED = "agent_loop_ended"  # the error code when results arrive for a loop that already finished


class Cancelled(BaseException):
    """Raised in a waiting tool when its conversation was abandoned (a new one started).

    A BaseException, so that no library turns it into an error result and makes another model call.
    """


def tool_results(turn: dict, result_cache_points: bool = False) -> list[dict]:
    """The tool_result blocks of a turn's new messages; other user content cannot enter a running loop, nor a cache
    point beside a result unless a tool can return one (``result_cache_points``)."""
    blocks = [b for m in turn.get("messages") or () for b in (m["content"] if isinstance(m["content"], list)
                                                              else [{"type": "text", "text": m["content"]}])]
    others = [b.get("type") for b in blocks if b.get("type") != "tool_result"]
    if others:
        raise AdapterSkip(f"an agent loop takes no user content between its model calls (this turn adds {others})")
    if not result_cache_points and any(b.get("cache_control") for b in blocks):  # the loop builds the message
        raise AdapterSkip("an agent loop takes no cache point beside a tool result (its tools return results only)")
    return blocks


_LIVE: weakref.WeakSet = weakref.WeakSet()  # loops not yet closed


def _close_live() -> None:
    """At interpreter exit, before non-daemon threads are joined: a library's tool threads (a strands Agent runs
    tools in an executor whose exit hook joins them) still waiting for a result are cancelled, not waited on."""
    for loop in list(_LIVE):
        loop.close()


threading._register_atexit(_close_live)  # threading's own exit hooks run in reverse order, before the joins


class AgentLoop:
    """One conversation's agent run in a thread; ``until_pause`` yields its chunks up to the next pause."""

    def __init__(self, conversation: Any, run: Callable[[AgentLoop], None]) -> None:
        self.conversation = conversation
        self.finished = False
        self._events: queue.Queue = queue.Queue()
        self._results: dict[str, dict] = {}
        self._waiting: set[str] = set()
        self._closed = False
        self._turn = 0  # the harness turn being streamed
        self._calls = 0  # model calls started
        self._closes = 0  # model calls whose closing chunks the reader has emitted
        self._answered = False  # the results of this turn arrived
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._main, args=(run,), daemon=True, name=f"agent-loop {conversation}")
        _LIVE.add(self)
        self._thread.start()

    def _main(self, run: Callable[[AgentLoop], None]) -> None:
        try:
            run(self)
        except Cancelled:
            return
        except BaseException as exc:  # noqa: BLE001 - handed to the harness's thread, which reports it
            self._events.put(("failed", exc))
            return
        self._events.put(("done", None))

    def emit(self, chunk: dict) -> None:
        """A chunk of the current model call (called from the loop's thread)."""
        self._events.put(("chunk", chunk))

    def model_call(self) -> None:
        """Called before each model call (loop thread): call k waits for harness turn k."""
        with self._changed:
            self._calls += 1
            self._pause(lambda: self._turn >= self._calls - 1, f"model call {self._calls - 1}")

    def call_closed(self) -> None:
        """The reader emitted the current model call's closing chunks (loop thread)."""
        with self._changed:
            self._closes += 1
            self._changed.notify_all()

    def result(self, call_id: str, after_close: bool = False) -> dict:
        """The harness's tool_result block for ``call_id`` (loop thread); waits until the next turn sends it.
        ``after_close``: first wait, without pausing the turn, until the reader has emitted the closing of the model
        call whose tools run (``call_closed``)."""
        with self._changed:
            if after_close:
                self._hold(lambda: self._closes >= self._calls, call_id)
            if call_id not in self._results and self._answered:  # this turn's results came without it
                self._results[call_id] = _unanswered(call_id)
            self._waiting.add(call_id)
            self._pause(lambda: call_id in self._results, call_id)
            self._waiting.discard(call_id)
            return self._results[call_id]

    def _pause(self, ready: Callable[[], bool], what: str) -> None:
        """Wait (lock held) until ``ready``; the first wait of a turn ends that harness turn."""
        if not ready():
            self._events.put(("waiting", self._turn))
        self._hold(ready, what)

    def _hold(self, ready: Callable[[], bool], what: str) -> None:
        """Wait (lock held) until ``ready``; an abandoned conversation raises ``Cancelled``."""
        while not ready() and not self._closed:
            self._changed.wait()
        if self._closed:
            raise Cancelled(what)

    def deliver(self, results: list[dict]) -> None:
        """The next turn's tool results (harness thread); a waiting call the harness sent none for gets an error."""
        with self._changed:
            self._turn += 1
            self._answered = True
            self._results.update({block["tool_use_id"]: block for block in results})
            self._results.update({call_id: _unanswered(call_id) for call_id in self._waiting - set(self._results)})
            self._changed.notify_all()

    def until_pause(self) -> Iterator[dict]:
        """The loop's chunks until its tools wait for results or it finishes (a failure is re-raised here)."""
        while not self.finished:
            try:
                kind, value = self._events.get(timeout=TIMEOUT_S)
            except queue.Empty:
                raise AdapterFailure(f"the agent loop neither streamed nor waited for {TIMEOUT_S:.0f} s") from None
            if kind == "chunk":
                yield value
            elif kind == "waiting" and value == self._turn:  # not a pause of a turn already over
                return
            elif kind in ("done", "failed"):
                self.finished = True
                if kind == "failed":
                    raise value

    def close(self) -> None:
        """Abandon the conversation: waiting tools raise ``Cancelled`` and the thread ends."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        _LIVE.discard(self)


def _unanswered(call_id: str) -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "is_error": True,
            "content": "the harness sent no result for this call"}


class AgentShim(Shim):
    """A shim whose turns drive one agent loop per conversation; subclasses write ``run(turn, endpoint, loop)``."""

    # whether the library's tools can return a cache point to go after their result (the tool's own return value)
    result_cache_points = False

    def __init__(self) -> None:
        super().__init__()
        self.loop: AgentLoop | None = None

    def stream(self, turn: dict, endpoint: dict) -> Iterator[dict]:
        """Turn 0 starts the loop; a later turn hands it the tool results; either streams to the next pause."""
        loop = self.loop
        if loop is None or "conversation" not in turn or turn["conversation"] != loop.conversation:
            if loop is not None:
                loop.close()
            self.loop = loop = AgentLoop(turn.get("conversation"), lambda own: self.run(turn, endpoint, own))
        else:
            results = tool_results(turn, self.result_cache_points)
            if loop.finished:
                yield {"type": "error", "code": LOOP_ENDED, "message": "the agent loop had already finished, without "
                       f"running the {len(results)} tool call(s) the model made, so their results had nowhere to go"}
                return
            loop.deliver(results)
        yield from loop.until_pause()

    def run(self, turn: dict, endpoint: dict, loop: AgentLoop) -> None:
        """Run the library's agent on the conversation opening in ``turn``, emitting chunks into ``loop``."""
        raise NotImplementedError
