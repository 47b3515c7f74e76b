"""The langchain-aws-agent shim (LangChain's create_agent loop on ChatBedrockConverse): its verdicts against the
baseline, its tools' results in the form LangChain makes of a tool's return value, and the turn gate. Skipped unless
langchain-aws and langchain are installed (the ``langchain-aws`` extra; tox env ``shim-langchain-aws-agent``)."""

from __future__ import annotations

import importlib.metadata

import pytest

pytest.importorskip("langchain_aws")
pytest.importorskip("langchain.agents")

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import ToolException

from harness import load_adapter
from harness.adapters import CAPABILITIES, NON_STREAMING, OWN_HISTORY
from harness.judge.protocol import AdapterSkip
from harness.adapters.shims import langchain_aws_agent as shim
from harness.suite.runner import run_scenario

from shim_verdicts import (  # noqa: E402
    ENDPOINT,
    ROOT,
    SCENARIOS,
    assert_baseline_lists,
    assert_verdict,
    certified_name,
    report,
)

SPEC = "harness.adapters.shims.langchain_aws_agent:LangchainAwsAgentAdapter"
NAME = certified_name("langchain-aws-agent", "langchain-aws", "langchain-aws")
KNOWN = {
    "edge/max-tokens-mid-tool": "presents call 'tooluse_E53Ks2JAXr1Et_EFUMCMia' as complete although the stream "
                                "ended badly",
    "edge/server-tool-then-client-tool": 'actual tool_call {"id": null, "name": null, "input": {"code"',
    "faults/missing-tool-use-id": "tool_call_ids_present: chunk 3 (tool_call) passes a call on without an id",
    "edge/tool-result-no-status": "This model doesn't support the status field. Remove status and try again.",
    "edge/image-output-block": "adapter error KeyError: 'source'",
    "edge/server-tool-text-result": 'actual tool_call {"id": null, "name": null, "input": {"snippet"',
    "edge/web-search-server-tool": "tool_call_ids_present: chunk 0 (tool_call) passes a call on without an id",
    "edge/tool-result-error-with-image": "all content must be type `text` if `is_error` is true",
}
FLOOR_KNOWN = {
    **{sid: text for sid, text in KNOWN.items() if sid != "edge/web-search-server-tool"},
    "edge/redacted-reasoning-tool": "adapter error IndexError: list index out of range",
    "faults/truncated-stream": "presents call 'tooluse_MB6h-d58uJUlgfnrBG79IJ' as complete although the stream ended "
                               "badly",
    "edge/server-tool-text-result": "adapter error KeyError: 'content'",
    "edge/openai-tool-result-image": "This model doesn't support the image field for user messages.",
}
KNOWN_HERE = FLOOR_KNOWN if NAME.endswith(".floor") else KNOWN
# the langchain-aws shim's findings that rest on its parity call (invoke), which the agent never makes, pass here
PASSING = [sid for sid in ("core/round-trip", "core/parallel-calls", "edge/guardrail-async", "edge/nova-style",
                           "edge/tool-result-media", "edge/tool-result-is-error", "faults/model-stream-error-mid-tool")
           if sid not in KNOWN_HERE]


@pytest.fixture
def adapter():
    return load_adapter(SPEC)


def test_identity_and_capabilities(adapter):
    assert adapter.name == "langchain-aws-agent"
    assert adapter.version == importlib.metadata.version("langchain-aws")
    assert adapter.capabilities <= CAPABILITIES and OWN_HISTORY in adapter.capabilities
    assert NON_STREAMING not in adapter.capabilities


def test_baseline_lists_exactly_the_known_failures():
    assert_baseline_lists(NAME, KNOWN_HERE)


@pytest.mark.parametrize("sid", sorted({*PASSING, *KNOWN_HERE}))
def test_verdict_matches_the_baseline(adapter, sid):
    assert_verdict(adapter, NAME, sid, KNOWN_HERE)


def test_an_object_result_is_the_json_text_langchain_writes_of_the_returned_dict(adapter):
    status, text = report(adapter, "edge/tool-result-json-values")
    assert status == "warn" and "judgement object-result-as-json" in text, text
    assert 'actual {"text": "{\\"lines\\": 42}"}' in text, text


def test_a_tool_cache_point_is_a_skip(adapter):
    result = run_scenario(SCENARIOS["edge/cache-points"], adapter, ROOT)
    assert result.status == "skip" and "a cache point among them has no place" in result.reason, result.reason


def test_a_forced_tool_choice_is_a_skip(adapter):
    turn = {"conversation": "c", "model_id": "anthropic.claude-3-haiku-20240307-v1:0", "options": {"tool_choice": "any"},
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"name": "f", "input_schema": {"type": "object", "properties": {}}}]}
    with pytest.raises(AdapterSkip, match="create_agent takes no tool_choice"):
        list(adapter.stream(turn, ENDPOINT))


def test_tool_returns_are_values_a_tool_returns():
    assert shim.tool_return({"content": "text"}, "t1", "f") == "text"
    assert shim.tool_return({"content": [{"json": {"lines": 42}}]}, "t1", "f") == {"lines": 42}
    assert shim.tool_return({"content": [{"json": 310}]}, "t1", "f") == 310
    assert shim.tool_return({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
                            "t1", "f") == ["a", "b"]
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    assert shim.tool_return({"content": [{"type": "text", "text": "shot:"}, image]}, "t1", "f") == [
        {"type": "text", "text": "shot:"}, {"type": "image", "base64": "AAAA", "mime_type": "image/png"}]


def test_a_failed_result_raises_or_with_media_is_its_own_error_message():
    with pytest.raises(ToolException, match="no such file"):
        shim.tool_return({"content": "no such file", "is_error": True}, "t1", "f")
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    message = shim.tool_return({"content": [{"type": "text", "text": "broke"}, image], "is_error": True}, "t1", "f")
    assert isinstance(message, ToolMessage) and message.status == "error" and message.tool_call_id == "t1"


def test_the_error_result_goes_as_the_tool_message_langchain_makes(adapter):
    assert run_scenario(SCENARIOS["edge/tool-result-is-error"], adapter, ROOT).status == "pass"


def test_each_model_call_waits_for_its_turn(adapter, monkeypatch):
    """The agent's second model call starts only once the harness sends the results (the before_model gate)."""
    calls = []
    real = shim.AgentLoop.model_call

    def counted(loop):
        calls.append(loop._turn)
        return real(loop)

    monkeypatch.setattr(shim.AgentLoop, "model_call", counted)
    assert run_scenario(SCENARIOS["core/round-trip"], adapter, ROOT).status == "pass"
    assert calls == [0, 1]


def _flushed(monkeypatch) -> list:
    """The messages ModelCall closes its model calls with, as they come."""
    appended = []
    real = shim.ModelCall._flush

    def spy(self, message):
        appended.append(message)
        return real(self, message)

    monkeypatch.setattr(shim.ModelCall, "_flush", spy)
    return appended


def test_the_message_chunk_is_the_aimessage_the_agent_appended(adapter, monkeypatch):
    appended = _flushed(monkeypatch)
    assert run_scenario(SCENARIOS["core/single-call"], adapter, ROOT).status == "pass"
    [message] = appended
    assert isinstance(message, AIMessage) and message.tool_calls[0]["args"] == {"path": "/tmp/test.txt"}


# ---- langchain-aws-agent-events: the same agent read from its astream_events (v2) ----

EVENTS = "harness.adapters.shims.langchain_aws_agent:LangchainAwsAgentEventsAdapter"
EVENTS_NAME = certified_name("langchain-aws-agent-events", "langchain-aws", "langchain-aws")
CORE = sorted(sid for sid in SCENARIOS if sid.startswith("core/"))


@pytest.fixture
def events():
    return load_adapter(EVENTS)


def test_the_events_variant_is_the_same_agent(events):
    assert events.name == "langchain-aws-agent-events"
    assert events.version == importlib.metadata.version("langchain-aws")
    assert events.capabilities == load_adapter(SPEC).capabilities


def test_the_events_baseline_lists_exactly_the_known_failures():
    assert_baseline_lists(EVENTS_NAME, KNOWN_HERE)


@pytest.mark.parametrize("sid", sorted({*CORE, *PASSING, *KNOWN_HERE}))
def test_the_events_verdict_matches_the_baseline_and_never_calls_stream(events, monkeypatch, sid):
    """Every core scenario and the agent's known findings, read from astream_events alone."""
    from langgraph.pregel import Pregel

    def refused(*args, **kwargs):
        raise AssertionError("the events variant called the graph's .stream")

    monkeypatch.setattr(Pregel, "stream", refused)
    assert_verdict(events, EVENTS_NAME, sid, KNOWN_HERE)


def test_the_events_are_read_as_they_come():
    """The model node's chunk reaches the turn before the run goes on (here: raises); the graph's own stream (no
    parent run) is the updates pair, a node's own stream and other models' chunks are not the turn's."""
    from langchain_core.messages import AIMessageChunk

    chunk = AIMessageChunk(content="a")
    update = {"model": {"messages": [AIMessage(content="a")]}}

    class Agent:
        async def astream_events(self, state, version):
            assert version == "v2" and state == {"messages": []}
            yield {"event": "on_chain_start", "data": {}, "parent_ids": [], "metadata": {}}
            yield {"event": "on_chat_model_stream", "data": {"chunk": chunk}, "parent_ids": ["r", "m"],
                   "metadata": {"langgraph_node": "model"}}
            yield {"event": "on_chain_stream", "data": {"chunk": [update]}, "parent_ids": ["r"],
                   "metadata": {"langgraph_node": "model"}}
            yield {"event": "on_chain_stream", "data": {"chunk": update}, "parent_ids": [], "metadata": {}}
            raise RuntimeError("cut")

    surfaced = shim.LangchainAwsAgentEventsAdapter.surfaced(None, Agent(), [])
    assert next(surfaced) == ("messages", (chunk, {"langgraph_node": "model"}))
    assert next(surfaced) == ("updates", update)
    with pytest.raises(RuntimeError, match="cut"):
        next(surfaced)


def test_the_events_message_chunk_is_the_aimessage_the_graph_streamed_as_its_update(events, monkeypatch):
    appended = _flushed(monkeypatch)
    assert run_scenario(SCENARIOS["core/round-trip"], events, ROOT).status == "pass"
    first, last = appended
    assert isinstance(first, AIMessage) and first.tool_calls[0]["args"] == {"path": "/tmp/test.txt"}
    assert isinstance(last, AIMessage) and not last.tool_calls


@pytest.mark.parametrize("sid", ["core/round-trip", "core/parallel-calls"])
def test_a_tool_waits_until_its_model_calls_message_is_relayed(events, monkeypatch, sid):
    """astream_events runs the graph in a task of its own: an event the reader has not taken yet does not hold the
    graph back, which may already run the tools. Here the reader lags on the graph's update (the model node's message)
    while the event loop runs on; the turn still ends with that message, not at the tool that waits first."""
    import asyncio

    from langgraph.pregel import Pregel

    real = Pregel.astream_events

    def lagging(self, *args, **kwargs):
        async def events():
            async for event in real(self, *args, **kwargs):
                if event["event"] == "on_chain_stream" and not event.get("parent_ids"):
                    await asyncio.sleep(0.3)  # the graph runs on meanwhile: the tools node starts
                yield event
        return events()

    monkeypatch.setattr(Pregel, "astream_events", lagging)
    assert_verdict(events, EVENTS_NAME, sid, KNOWN_HERE)
