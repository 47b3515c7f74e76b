"""The strands-agent shim's release branches, on fake objects shaped like each release's API: runs without
strands-agents, so CI (which installs no shim library) catches a break of a branch the floor release needs."""

from __future__ import annotations

import sys
import threading
import types

import pytest

from harness.adapters.shims.strands_agent import LastCallFirst, ModelCall, no_retries


@pytest.fixture
def fake_strands(monkeypatch):
    """``strands.event_loop.event_loop`` (MAX_ATTEMPTS = 6) and ``strands.event_loop._retry`` as fakes."""
    loop_module = types.ModuleType("strands.event_loop.event_loop")
    loop_module.MAX_ATTEMPTS = 6
    retry_module = types.ModuleType("strands.event_loop._retry")

    class ModelRetryStrategy:
        def __init__(self, max_attempts=6):
            self.max_attempts = max_attempts

    retry_module.ModelRetryStrategy = ModelRetryStrategy
    package = types.ModuleType("strands.event_loop")
    package.event_loop, package._retry = loop_module, retry_module
    for name, module in {"strands": types.ModuleType("strands"), "strands.event_loop": package,
                         "strands.event_loop.event_loop": loop_module, "strands.event_loop._retry": retry_module}.items():
        monkeypatch.setitem(sys.modules, name, module)
    return loop_module


def test_up_to_1_22_the_event_loop_constant_allows_one_attempt(fake_strands):
    class Agent:  # no retry_strategy parameter
        def __init__(self, model=None, tools=None):
            pass

    assert no_retries(Agent) == {} and fake_strands.MAX_ATTEMPTS == 1


def test_1_23_and_1_24_get_a_strategy_of_one_attempt(fake_strands):
    class Agent:  # retry_strategy=None meant the default strategy
        def __init__(self, model=None, retry_strategy=None):
            pass

    kwargs = no_retries(Agent)
    assert kwargs["retry_strategy"].max_attempts == 1 and fake_strands.MAX_ATTEMPTS == 6


def test_from_1_25_none_turns_retrying_off(fake_strands):
    default = object()

    class Agent:  # a sentinel default; None means no retrying
        def __init__(self, model=None, retry_strategy=default):
            pass

    assert no_retries(Agent) == {"retry_strategy": None} and fake_strands.MAX_ATTEMPTS == 6


def _return_all(order: LastCallFirst, call_ids: list[str]) -> list[str]:
    """Each call returns from its own thread, started in call order; the order in which they got through."""
    through: list[str] = []

    def call(call_id):
        order.returning(call_id)
        through.append(call_id)

    threads = [threading.Thread(target=call, args=(call_id,)) for call_id in call_ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    return through


def test_the_calls_of_a_response_return_last_call_first():
    order = LastCallFirst()
    order.expect(["a", "b", "c"])
    assert _return_all(order, ["a", "b", "c"]) == ["c", "b", "a"]


def test_a_call_of_no_expected_response_returns_at_once():
    order = LastCallFirst()
    order.expect(["a", "b"])
    assert _return_all(order, ["x"]) == ["x"]


class _Loop:
    def __init__(self):
        self.chunks = []

    def emit(self, chunk):
        self.chunks.append(chunk)


def test_only_calls_to_the_agents_own_tools_are_waited_for():
    order = LastCallFirst()
    call = ModelCall(_Loop(), order, frozenset({"read_file"}))
    message = {"role": "assistant", "content": [
        {"toolUse": {"toolUseId": "a", "name": "read_file", "input": {}}},
        {"toolUse": {"toolUseId": "s", "name": "nova_code_interpreter", "input": {}}},  # never runs: nothing waits
        {"toolUse": {"toolUseId": "b", "name": "read_file", "input": {}}}]}
    call.feed({"message": message})
    assert _return_all(order, ["a", "b"]) == ["b", "a"]
    assert call.loop.chunks[-1]["type"] == "message"


def test_a_cancelled_call_does_not_hold_up_the_earlier_ones():
    order = LastCallFirst()
    order.expect(["a", "b"])
    order.returning("b", wait=False)
    assert _return_all(order, ["a"]) == ["a"]


def test_the_message_chunk_carries_what_strands_holds_unrepaired():
    from harness.adapters.shims.strands_native import anthropic_blocks

    merged = {"text": "hi", "toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}
    garbled = {"reasoningContent": {"reasoningText": {"text": "a", "signature": "S", "type": "texttext"}}}
    content = [{"text": ""}, merged, garbled, {"reasoningContent": {"reasoningText": {"signature": "S2"}}},
               {"toolUse": {"toolUseId": "t2", "name": "g", "input": '{"a": 1}'}}, {"cachePoint": {}}]
    assert anthropic_blocks(content) == [
        {"type": "text", "text": ""}, merged, garbled, {"type": "thinking", "signature": "S2"},
        {"type": "tool_use", "id": "t2", "name": "g", "input": '{"a": 1}'}, {"cachePoint": {}}]
