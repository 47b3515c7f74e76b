"""The per-turn timeout of in-process adapters: a hung turn is an error naming the turn and the limit, the run goes on."""

import gc
import json
import threading
import time

import pytest
from click.testing import CliRunner

from harness.adapters.deadline import Deadline, TurnTimeout, with_deadline
from harness.adapters.subprocess import SubprocessAdapter
from harness.cli import main
from harness.converse import ConverseAdapter

RELEASE = threading.Event()  # set at teardown: the abandoned hung calls return


class Hanging(ConverseAdapter):
    """The reference adapter, except that it hangs (no chunk, no return) on one turn of core/smoke-text."""

    name = "hanging"

    def stream(self, turn, endpoint=None):
        if "Say hello" in json.dumps(turn["messages"]):
            RELEASE.wait(60)
            return
        yield from super().stream(turn, endpoint)


class SlowStart(ConverseAdapter):
    """Yields one chunk, then hangs before the rest."""

    def stream(self, turn, endpoint=None):
        yield {"type": "text", "text": "partial"}
        RELEASE.wait(60)


@pytest.fixture(autouse=True)
def release_hung_calls():
    RELEASE.clear()
    yield
    RELEASE.set()


def test_a_hung_turn_is_an_error_naming_turn_and_timeout_and_the_run_goes_on(monkeypatch):
    started = time.monotonic()
    done = CliRunner().invoke(main, ["run", "--adapter", "test_deadline:Hanging", "--timeout", "4", "--format", "json",
                                     "--scenario", "core/smoke-text", "--scenario", "core/single-call"])
    report = json.loads(done.stdout)
    by_id = {r["scenario"]: r for r in report["results"]}
    assert by_id["core/smoke-text"]["status"] == "error", by_id
    assert "turn 0" in by_id["core/smoke-text"]["reason"] and "4s per-turn timeout" in by_id["core/smoke-text"]["reason"]
    assert by_id["core/single-call"]["status"] == "pass"
    assert done.exit_code == 1 and time.monotonic() - started < 30


def test_chunks_before_the_hang_are_passed_on_then_the_timeout():
    bounded = Deadline(SlowStart(), 0.3)
    stream = bounded.stream({"messages": []}, {})
    assert next(stream) == {"type": "text", "text": "partial"}
    with pytest.raises(TurnTimeout, match=r"turn 0 did not finish within the 0.3s"):
        next(stream)


def test_turns_are_counted_per_endpoint_and_identity_is_the_adapters():
    class Quick:
        name, version, capabilities = "quick", "1", frozenset({"text"})

        def stream(self, turn, endpoint):
            yield {"type": "text", "text": str(turn)}

    bounded, first, second = Deadline(Quick(), 5), {}, {}
    assert [list(bounded.stream(n, first)) for n in (0, 1)][1] == [{"type": "text", "text": "1"}]
    assert bounded._index == 1
    list(bounded.stream(0, second))
    assert bounded._index == 0 and (bounded.name, bounded.version, bounded.capabilities) == ("quick", "1", {"text"})


def test_an_adapters_exception_reaches_the_runner_unchanged():
    class Raising:
        def stream(self, turn, endpoint):
            yield {"type": "text", "text": "a"}
            raise ValueError("broken on purpose")

    with pytest.raises(ValueError, match="broken on purpose"):
        list(Deadline(Raising(), 5).stream({}, {}))


def test_with_deadline_wraps_in_process_adapters_only():
    reference = ConverseAdapter()
    assert isinstance(with_deadline(reference, 1), Deadline) and with_deadline(reference, None) is reference
    wrapped = with_deadline(reference, 1)
    assert with_deadline(wrapped, 2) is wrapped
    subprocess_like = object.__new__(SubprocessAdapter)
    assert with_deadline(subprocess_like, 1) is subprocess_like


NEXT_TURN, STRAY_DONE = threading.Event(), threading.Event()


class WakesLate(ConverseAdapter):
    """Hangs on core/smoke-text past the timeout, then wakes while the next scenario runs and calls the endpoint
    it was given, as a real abandoned call would; that next scenario waits until the stray call is over.

    The wait is inside the next scenario's first turn, so it counts against that turn's 1 s timeout: the stray
    call makes its clients before it hangs and tries once (botocore's retries sleep between refused connects).
    Making them after waking, and retrying, took 0.23 s of that second on an idle machine and 0.46 s with three busy
    loops beside it (0.10 s and 0.17 s now); with nothing compiled (PYTHONDONTWRITEBYTECODE) on a busier one, the
    next scenario failed for the wrong reason."""

    name = "wakes-late"

    def __init__(self):
        super().__init__(max_attempts=1)

    def stream(self, turn, endpoint=None):
        if "Say hello" in json.dumps(turn["messages"]):
            self.client(endpoint), self._twin_client(endpoint)  # the stream's and its non-streaming twin's
            NEXT_TURN.wait(30)
            try:
                list(super().stream(turn, endpoint))
            except Exception:  # noqa: BLE001 - the stale endpoint is gone: that is the point
                pass
            finally:
                STRAY_DONE.set()
            return
        NEXT_TURN.set()
        STRAY_DONE.wait(30)
        yield from super().stream(turn, endpoint)


def test_an_abandoned_turn_that_wakes_later_cannot_answer_for_the_next_scenario():
    NEXT_TURN.clear()
    STRAY_DONE.clear()
    done = CliRunner().invoke(main, ["run", "--adapter", "test_deadline:WakesLate", "--timeout", "1", "--format",
                                     "json", "--scenario", "core/smoke-text", "--scenario", "edge/zero-arg-tool"])
    by_id = {r["scenario"]: r for r in json.loads(done.stdout)["results"]}
    assert STRAY_DONE.is_set() and by_id["core/smoke-text"]["status"] == "error"
    assert by_id["edge/zero-arg-tool"]["status"] == "pass", by_id["edge/zero-arg-tool"]["reason"]


def test_turns_share_one_worker_until_one_hangs_and_it_ends_with_the_adapter():
    class Where:
        name, version, capabilities = "where", "1", frozenset({"text"})

        def stream(self, turn, endpoint):
            if turn == "hang":
                RELEASE.wait(60)
            yield {"type": "text", "text": "", "thread": threading.current_thread()}

    def ends(thread):
        thread.join(10)
        return not thread.is_alive()

    bounded = Deadline(Where(), 0.3)
    first = {list(bounded.stream(n, {}))[0]["thread"] for n in range(5)}
    assert len(first) == 1 and all(t.is_alive() for t in first)
    with pytest.raises(TurnTimeout):
        list(bounded.stream("hang", {}))
    after = list(bounded.stream(0, {}))[0]["thread"]
    assert after not in first and bounded.abandoned == 1
    RELEASE.set()  # the hung call returns: its worker ends instead of taking turns
    assert ends(next(iter(first)))
    del bounded
    gc.collect()
    assert ends(after)
