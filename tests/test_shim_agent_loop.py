"""The agent-loop driver the agent shims share, with an agent loop built on the reference adapter (no library)."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from harness.adapters import AdapterFailure, AdapterSkip
from harness.adapters.shims import agent_loop
from harness.adapters.shims.agent_loop import LOOP_ENDED, AgentLoop, AgentShim
from harness.adapters.shims.common import message_chunk
from harness.converse import ConverseAdapter
from harness.converse.conversation import assemble_message
from harness.report import render_text
from harness.suite.runner import run_scenario

from shim_verdicts import ROOT, SCENARIOS


class ReferenceAgent(AgentShim):
    """An agent loop on the reference adapter: it runs the calls of each response unless ``ignores`` says not."""

    name = "reference-agent"
    distribution, extra = "pytest", "test"
    ignores: tuple[str, ...] = ()  # stop reasons on which this loop ends although the model called tools

    def run(self, turn: dict, endpoint: dict, loop: AgentLoop) -> None:
        messages, model = list(turn["messages"]), ConverseAdapter()
        while True:
            loop.model_call()
            chunks = list(model.stream({**turn, "messages": messages}, endpoint))
            for chunk in chunks:
                loop.emit(chunk)
            if any(chunk["type"] == "error" for chunk in chunks):
                return
            message = assemble_message(chunks)
            loop.emit(message_chunk(message["content"]))
            calls = [block for block in message["content"] if block["type"] == "tool_use"]
            stop = next(chunk["reason"] for chunk in chunks if chunk["type"] == "stop")
            if not calls or stop in self.ignores:
                return
            messages += [message, {"role": "user", "content": [loop.result(call["id"]) for call in calls]}]


class EndTurnIgnoringAgent(ReferenceAgent):
    ignores = ("end_turn",)


@pytest.mark.parametrize("sid", ["core/parallel-calls", "core/thinking-tools", "edge/end-turn-with-tool-use",
                                 "edge/tool-result-is-error", "faults/model-stream-error-mid-tool"])
def test_a_loop_that_runs_the_calls_passes(sid):
    result = run_scenario(SCENARIOS[sid], ReferenceAgent(), ROOT)
    assert result.status == "pass", render_text([result])


def test_a_loop_that_ignores_calls_on_end_turn_is_caught_where_the_model_stops_so():
    assert run_scenario(SCENARIOS["core/round-trip"], EndTurnIgnoringAgent(), ROOT).status == "pass"
    result = run_scenario(SCENARIOS["edge/end-turn-with-tool-use"], EndTurnIgnoringAgent(), ROOT)
    assert result.status == "fail" and LOOP_ENDED in render_text([result]), render_text([result])


def _driven(script) -> AgentShim:
    """An agent shim whose loop is ``script(loop)``."""

    class Scripted(AgentShim):
        distribution, extra = "pytest", "test"

        def run(self, turn, endpoint, loop):
            script(loop)

    return Scripted()


def test_a_turn_ends_at_the_first_pause_and_the_next_turn_answers_the_waiting_calls():
    got = []

    def script(loop):
        loop.model_call()
        loop.emit({"type": "text", "text": "a"})
        got.append(loop.result("t1"))  # pauses turn 0
        loop.model_call()
        loop.emit({"type": "text", "text": "b"})
        got.append(loop.result("t2"))  # turn 1 answered t1 only: t2 gets an error result, no pause

    shim = _driven(script)
    assert list(shim.stream({"conversation": "c", "messages": []}, {})) == [{"type": "text", "text": "a"}]
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
    turn = {"conversation": "c", "messages": [{"role": "user", "content": [result]}]}
    assert list(shim.stream(turn, {})) == [{"type": "text", "text": "b"}]
    assert got[0] == result and got[1]["is_error"] and "no result" in got[1]["content"]


def test_a_second_model_call_waits_for_its_turn():
    calls = []

    def script(loop):
        for index in range(2):
            loop.model_call()
            calls.append(index)
            loop.emit({"type": "text", "text": str(index)})

    shim = _driven(script)
    assert list(shim.stream({"conversation": "c", "messages": []}, {})) == [{"type": "text", "text": "0"}]
    assert calls == [0]
    assert list(shim.stream({"conversation": "c", "messages": []}, {})) == [{"type": "text", "text": "1"}]


def test_a_tool_held_for_the_readers_closing_pauses_the_turn_only_after_it():
    """``after_close``: a tool that starts before the reader has emitted its model call's closing waits for it, and
    the turn ends after the closing chunk; an abandoned conversation ends the wait."""
    started, threads = threading.Event(), []

    def script(loop):
        loop.model_call()
        loop.emit({"type": "text", "text": "a"})

        def tool():
            started.set()
            try:
                loop.result("t1", after_close=True)
            except agent_loop.Cancelled:
                pass

        threads.append(threading.Thread(target=tool, daemon=True))
        threads[0].start()
        started.wait(5)
        threading.Event().wait(0.2)  # the tool thread has had its chance to pause the turn
        loop.emit({"type": "stop", "reason": "tool_use"})
        loop.call_closed()
        threads[0].join()

    shim = _driven(script)
    assert list(shim.stream({"conversation": "c", "messages": []}, {})) == [
        {"type": "text", "text": "a"}, {"type": "stop", "reason": "tool_use"}]
    shim.loop.close()
    waiting = []

    def unclosed(loop):
        waiting.append(threading.current_thread())
        loop.model_call()
        loop.result("t1", after_close=True)  # the reader never emits the closing

    held = AgentLoop("d", unclosed)
    threading.Event().wait(0.2)
    held.close()
    waiting[0].join(timeout=5)
    assert not waiting[0].is_alive()  # Cancelled in the held tool ended the loop


def test_results_for_a_finished_loop_are_an_error_and_user_content_mid_loop_is_a_skip():
    shim = _driven(lambda loop: loop.emit({"type": "text", "text": "done"}))
    assert list(shim.stream({"conversation": "c", "messages": []}, {})) == [{"type": "text", "text": "done"}]
    (error,) = shim.stream({"conversation": "c", "messages": [{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}]}, {})
    assert error["code"] == LOOP_ENDED and "1 tool call(s)" in error["message"]
    with pytest.raises(AdapterSkip, match="no user content between its model calls"):
        list(shim.stream({"conversation": "c", "messages": [{"role": "user", "content": "and?"}]}, {}))
    with pytest.raises(AdapterSkip, match="no cache point beside a tool result"):
        list(shim.stream({"conversation": "c", "messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok", "cache_control": {"type": "ephemeral"}}]}]},
                         {}))


def test_a_shim_whose_tools_return_cache_points_takes_a_cache_point_beside_a_result():
    marked = {"type": "tool_result", "tool_use_id": "t1", "content": "ok", "cache_control": {"type": "ephemeral"}}
    turn = {"messages": [{"role": "user", "content": [marked]}]}
    assert agent_loop.tool_results(turn, result_cache_points=True) == [marked]
    with pytest.raises(AdapterSkip, match="no cache point beside a tool result"):
        agent_loop.tool_results(turn)
    assert AgentShim.result_cache_points is False


def test_a_new_conversation_cancels_the_waiting_loop_and_a_failure_is_raised_in_the_harness_thread():
    threads = []

    def script(loop):
        threads.append(threading.current_thread())
        loop.result("t1")

    shim = _driven(script)
    list(shim.stream({"conversation": "a", "messages": []}, {}))
    list(shim.stream({"conversation": "b", "messages": []}, {}))
    threads[0].join(timeout=5)
    assert not threads[0].is_alive()

    def broken(loop):
        raise AdapterFailure("the library broke")

    shim = _driven(broken)
    with pytest.raises(AdapterFailure, match="the library broke"):
        list(shim.stream({"conversation": "c", "messages": []}, {}))


def test_a_stuck_loop_is_an_adapter_failure(monkeypatch):
    monkeypatch.setattr(agent_loop, "TIMEOUT_S", 0.2)
    stuck = threading.Event()
    shim = _driven(lambda loop: stuck.wait(5))
    with pytest.raises(AdapterFailure, match="neither streamed nor waited"):
        list(shim.stream({"conversation": "c", "messages": []}, {}))
    stuck.set()


_EXITS = """
import asyncio, sys
from harness.adapters.shims.agent_loop import AgentLoop

def run(loop):  # as a strands Agent does: the tool runs in an executor thread, which is not a daemon
    loop.model_call()
    loop.emit({"type": "tool_use", "id": "t1", "name": "read_file", "input": {}})
    asyncio.run(asyncio.to_thread(loop.result, "t1"))

loop = AgentLoop("core/round-trip", run)
print([chunk["type"] for chunk in loop.until_pause()], flush=True)  # the tool waits; the harness stops here
"""


def test_the_interpreter_exits_while_a_tool_thread_still_waits_for_its_result():
    """A run's last scenario can leave a library's non-daemon tool thread waiting for a result no turn sends;
    the loop is cancelled at exit, so the process ends (it hung at exit under ``tox -e shim-strands-agent-oldest``)."""
    child = subprocess.run([sys.executable, "-c", _EXITS], capture_output=True, text=True, timeout=30)
    assert (child.returncode, child.stdout) == (0, "['tool_use']\n"), child.stderr
