"""The LlamaIndex shim: its history, tool and chunk mapping, and its verdicts on core scenarios against the baseline.

Skipped unless llama-index-llms-bedrock-converse is installed (tox envs ``shim-llama-index`` and
``shim-llama-index-oldest``). Known failures must fail for the documented reason (the report shows the evidence);
every other scenario run here must pass. The floor release answers to its own certification
(llama-index.floor.*), every other release to the newest's.
"""

from __future__ import annotations

import importlib.metadata
import json

import pytest

pytest.importorskip("llama_index.llms.bedrock_converse")

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    MessageRole,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)

from llama_index.llms.bedrock_converse import BedrockConverse

from harness import load_adapter
from harness.adapters import CAPABILITIES, NON_STREAMING, OWN_HISTORY, USAGE_INCLUDES_CACHE
from harness.adapters.shims import llama_index as shim
from harness.adapters.shims.llama_index_stream import ChatStream, anthropic_blocks, tool_choice
from harness.adapters.shims.llama_index_stream import guardrail as guardrail_fields
from harness.suite.scenario import first_turn
from harness.judge.parity import EMPTY_ALIKE

from harness.cassettes import cassette
from harness.endpoint.responders import CassetteResponder
from harness.endpoint.server import BedrockServer
from harness.report import render_text
from harness.suite.runner import cassette_path, loopback_endpoint, run_scenario

from shim_parity import assert_found, natives, paired_turns  # noqa: E402
from shim_verdicts import (  # noqa: E402
    ENDPOINT,
    ROOT,
    SCENARIOS,
    assert_baseline_lists,
    assert_refused,
    assert_verdict,
)

SPEC = "harness.adapters.shims.llama_index:LlamaIndexAdapter"
FLOOR = json.loads((ROOT / "certification" / "llama-index.floor.json").read_text())["adapter"]["version"]
AT_FLOOR = importlib.metadata.version("llama-index-llms-bedrock-converse") == FLOOR
CERTIFIED = "llama-index.floor" if AT_FLOOR else "llama-index"
# Each known failure and what its report must show: the library's own output that makes it a finding.
UNSIGNED = "native blocks[0].additional_information.signature: streamed a str '', non-streamed a null null"
NEWEST = {
    "core/interleaved-text": "native blocks[0].text: streamed …'you by reading the file.Once I have the contents'…",
    "edge/interleaved-reasoning-tools": "Unknown model: moonshot.kimi-k2-thinking",
    "edge/server-tool-then-client-tool": '"name": "nova_code_interpreter"',
    "edge/signature-only-reasoning": "Expected `thinking` or `redacted_thinking`, but found `tool_use`",
    "edge/tool-result-no-status": "inference profile prefix: us.writer.palmyra-x5-v1:0",
    "edge/two-signed-reasoning-blocks": "(reasoning): actual text \"The user asks about the retry limit in a config "
                                        "file. I don't know its value yet.Reading /etc/app/config.yaml will show",
    "faults/truncated-stream": '"input": {"path": null}',
    # get_tool_calls_from_response: ToolSelection(tool_id=tool_call.tool_call_id or "")
    "faults/missing-tool-use-id": "tool_call_ids_present: chunk 3 (tool_call) has an empty id",
    # hard-coded model lists: Nova 2 Omni has no inference profile there, a prompt router's ARN no context size
    "edge/image-output-block": "inference profile prefix: us.amazon.nova-2-omni-v1:0",
    "edge/prompt-router-trace": "Unknown model: arn:aws:bedrock",
    "edge/server-tool-text-result": '"name": "nova_code_interpreter"',
    "edge/unsigned-reasoning-to-claude": "User messages cannot contain reasoning content",
}
# The streamed ThinkingBlock's signature "" against chat's None: messages_to_converse_messages sends both alike, so
# streaming parity notes it (edge/empty-text-before-reasoning passes, edge/unsigned-reasoning-round-trip keeps a
# warning).
# Findings graded warn, with the reason the report names. At 0.15.5 stream_chat builds every response's message as
# [TextBlock(text=<all the text so far>)] + the calls, so the streamed message holds an empty TextBlock where chat
# (_get_content_and_tool_calls) holds none: no-empty-text-block.
EMPTY_TEXT = "judgement no-empty-text-block"
WARNED_NEWEST = {
    **{sid: EMPTY_TEXT for sid in ("core/round-trip", "core/single-call", "core/thinking-tools",
                                   "edge/cache-both-spellings", "edge/cache-usage", "edge/parallel-results-round-trip",
                                   "edge/tool-result-is-error", "edge/tool-result-json-values",
                                   "edge/unicode-nested-input", "edge/zero-arg-tool", "faults/http-429-then-success")},
    "edge/interleaved-parallel-deltas": "robustness: no real recording shows Bedrock interleaving",
    "edge/unsigned-reasoning-round-trip": EMPTY_TEXT,
}
# At the floor: Kimi K2 and the prompt router run (llama-index-core 0.14.8 reads no metadata in a chat, so no model
# list is consulted), its unsigned reasoning differs as gpt-oss's; the
# Nova 2 model id is refused by get_model_name, so the server-tool scenario errors before any request; every streamed
# call keeps its input as JSON text (declared json-text, the judgement arguments-as-object), a zero-argument one as "",
# which the json-text equivalence reads as the {} chat holds.
AT_THE_FLOOR = {**{sid: why for sid, why in NEWEST.items()
                   if sid not in ("edge/interleaved-reasoning-tools", "edge/prompt-router-trace")},
                "edge/server-tool-then-client-tool": "inference profile prefix: us.amazon.nova-2-lite-v1:0",
                "edge/server-tool-text-result": "inference profile prefix: us.amazon.nova-2-lite-v1:0"}
AS_TEXT = "judgement arguments-as-object"
WARNED_FLOOR = {
    **{sid: AS_TEXT for sid in ("core/parallel-calls", "core/round-trip", "core/single-call", "core/thinking-tools",
                                "edge/cache-both-spellings", "edge/cache-usage", "edge/nova-parallel-calls",
                                "edge/nova-style", "edge/parallel-results-round-trip", "edge/tool-result-is-error",
                                "edge/tool-result-json-values", "edge/unicode-nested-input",
                                "faults/http-429-then-success", "edge/interleaved-reasoning-tools",
                                "edge/unsigned-reasoning-round-trip", "edge/zero-arg-after-text", "edge/zero-arg-tool")},
    "edge/interleaved-parallel-deltas": WARNED_NEWEST["edge/interleaved-parallel-deltas"],
}
KNOWN, WARNED = (AT_THE_FLOOR, WARNED_FLOOR) if AT_FLOOR else (NEWEST, WARNED_NEWEST)
PASSING = ["core/parallel-calls", "edge/empty-text-before-reasoning", "faults/model-stream-error-mid-tool",
           "faults/throttling-mid-tool"]
SKIPPED = {"edge/redacted-reasoning-tool": "redacted_reasoning", "edge/guardrail-intervened": "stop_reason"}


@pytest.fixture
def adapter():
    return load_adapter(SPEC)


def test_identity_is_the_library_and_capabilities_are_what_it_exposes(adapter):
    assert adapter.name == "llama-index"
    assert adapter.version == importlib.metadata.version("llama-index-llms-bedrock-converse")
    assert adapter.capabilities <= CAPABILITIES and "streaming" in adapter.capabilities
    assert not {"stop_reason", "redacted_reasoning"} & adapter.capabilities
    assert NON_STREAMING in adapter.capabilities
    assert set(adapter.native_differences) == {"additional_kwargs.tool_call_id", "additional_kwargs.status",
                                               "blocks[*].tool_kwargs as json-text"}


def test_baseline_lists_exactly_the_known_failures():
    assert_baseline_lists(CERTIFIED, KNOWN)


@pytest.mark.parametrize("sid", sorted({*PASSING, *NEWEST, *AT_THE_FLOOR, *SKIPPED, *WARNED_NEWEST, *WARNED_FLOOR}))
def test_verdict_matches_the_baseline(adapter, sid):
    assert_verdict(adapter, CERTIFIED, sid, KNOWN, SKIPPED, WARNED)


def test_the_streamed_empty_signature_llama_index_sends_like_none_is_a_parity_note(adapter):
    result = run_scenario(SCENARIOS["edge/empty-text-before-reasoning"], adapter, ROOT)
    notes = [note for turn in result.turns for note in turn.request_notes]
    assert result.status == "pass" and any(note.startswith(EMPTY_ALIKE) and UNSIGNED in note for note in notes), notes


def test_history_maps_to_llama_index_messages():
    turn = {"system": "sys", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "SIG"},
            {"type": "text", "text": "calling"},
            {"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": True},
            {"type": "tool_result", "tool_use_id": "t2", "content": [{"type": "text", "text": "ok"}]},
            {"type": "text", "text": "and?"}]}]}
    system, human, ai, failed, done, follow = shim.to_llama_index(turn)
    assert (system.role, system.content) == (MessageRole.SYSTEM, "sys")
    assert (human.role, human.content) == (MessageRole.USER, "hi")
    thinking, text, call = ai.blocks
    assert isinstance(thinking, ThinkingBlock) and (thinking.content, thinking.additional_information) == (
        "hmm", {"signature": "SIG"})
    assert isinstance(text, TextBlock) and text.text == "calling"
    assert isinstance(call, ToolCallBlock) and (call.tool_call_id, call.tool_name, call.tool_kwargs) == ("t1", "f", {})
    assert failed.role == MessageRole.TOOL and failed.content == "boom"
    assert failed.additional_kwargs == {"tool_call_id": "t1", "status": "error"}
    assert done.additional_kwargs == {"tool_call_id": "t2"} and done.content == "ok"
    assert follow.role == MessageRole.USER and follow.content == "and?"


def test_tools_carry_the_json_schema_and_the_llm_points_at_the_endpoint():
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    turn = {"model_id": "us.anthropic.claude-sonnet-4-20250514-v1:0", "messages": [],
            "tools": [{"name": "read_file", "description": "Read.", "input_schema": schema}],
            "options": {"max_tokens": 64, "temperature": None, "thinking_budget": 1024}}
    (tool,) = shim.make_tools(turn)
    assert (tool.metadata.name, tool.metadata.description) == ("read_file", "Read.")
    assert tool.metadata.get_parameters_dict() == schema
    llm = shim.make_llm(turn, ENDPOINT)
    assert llm._client.meta.endpoint_url == "http://127.0.0.1:9" and llm._client.meta.region_name == "eu-west-1"
    assert (llm.max_tokens, llm.temperature, llm.thinking) == (64, 1.0, {"type": "enabled", "budget_tokens": 1024})
    assert tool_choice("any") == {"tool_required": True} and tool_choice({"name": "f"}) == {
        "tool_choice": {"tool": {"name": "f"}}}


def _response(blocks, delta="", **extra):
    return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks), delta=delta,
                        additional_kwargs=extra)


def test_stream_keeps_each_calls_place_and_fills_in_its_whole_input():
    thinking = ThinkingBlock(content="hm", additional_information={"signature": "S"})
    call = ToolCallBlock(tool_call_id="t1", tool_name="f", tool_kwargs={"a": 1})
    state = ChatStream()
    first = state.feed(_response([thinking], thinking_delta="hm"))
    second = state.feed(_response([thinking, TextBlock(text="x")], delta="x"))
    held = state.feed(_response([thinking, TextBlock(text="xy"), call], delta="y"))
    assert first == [{"type": "reasoning", "text": "hm"}]
    assert second == [{"type": "reasoning", "signature": "S"}, {"type": "text", "text": "x"}] and held == []
    final = _response([thinking, TextBlock(text="xy"), call], prompt_tokens=5, completion_tokens=2,
                      cache_read_input_tokens=3, cache_creation_input_tokens=0)
    assert state.feed(final) == []
    assert list(state.close(shim.make_llm({"model_id": "m", "options": {}}, ENDPOINT))) == [
        {"type": "tool_call", "id": "t1", "name": "f", "input": {"a": 1}}, {"type": "text", "text": "y"},
        {"type": "usage", "input_tokens": 5, "output_tokens": 2, "cache_read_input_tokens": 3,
         "cache_write_input_tokens": 0}]


def test_an_aborted_stream_drops_the_unfinished_calls_but_not_the_text():
    state = ChatStream()
    state.feed(_response([ToolCallBlock(tool_call_id="t1", tool_name="f", tool_kwargs="{")]))
    state.feed(_response([], delta="late"))
    assert state.abort() == [{"type": "text", "text": "late"}]


def test_capabilities_declare_conversation_mode_and_bedrocks_usage_convention(adapter):
    assert OWN_HISTORY in adapter.capabilities and USAGE_INCLUDES_CACHE not in adapter.capabilities


def test_the_assembled_message_maps_to_anthropic_blocks():
    message = ChatMessage(role=MessageRole.ASSISTANT, blocks=[
        ThinkingBlock(content="hm", additional_information={"signature": "S1S2"}), TextBlock(text=""),
        ToolCallBlock(tool_call_id="t1", tool_name="f", tool_kwargs={"a": 1})])
    assert anthropic_blocks(message) == [{"type": "thinking", "thinking": "hm", "signature": "S1S2"},
                                         {"type": "text", "text": ""},
                                         {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}]


def test_the_history_keeps_the_last_responses_message_itself(adapter, monkeypatch):
    seen, real = [], BedrockConverse.stream_chat_with_tools

    def recorded(self, *args, **kwargs):
        for response in real(self, *args, **kwargs):
            seen.append(response)
            yield response

    monkeypatch.setattr(BedrockConverse, "stream_chat_with_tools", recorded)
    scenario = SCENARIOS["core/single-call"]
    with BedrockServer(CassetteResponder(cassette.load(cassette_path(ROOT, scenario)))) as server:
        chunks = list(adapter.stream(first_turn(scenario), loopback_endpoint(server)))
    assert adapter.history.assistant == [seen[-1].message] and adapter.history.assistant[0] is seen[-1].message
    assert chunks[-1] == {"type": "message", "message": {"role": "assistant",
                                                         "content": anthropic_blocks(seen[-1].message)}}


def test_an_llm_that_ignores_the_endpoint_is_refused(adapter, monkeypatch):
    class Ignoring(BedrockConverse):  # a release that drops endpoint_url
        def __init__(self, endpoint_url=None, **kwargs):
            super().__init__(**kwargs)

    monkeypatch.setattr(shim, "BedrockConverse", Ignoring)
    assert_refused(adapter)


def _kwargs(value):
    """A ToolCallBlock's input as a dict: before 0.14.12 a streamed one is the JSON text accumulated so far."""
    try:
        return json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return None


def test_both_calls_report_the_chat_message_llama_index_built_as_its_model_dump(adapter):
    (first,) = paired_turns(adapter, "core/parallel-calls")
    stream, whole = natives(first)["stream"]["message"], natives(first)["converse"]["message"]
    calls = [[{**b, "tool_kwargs": _kwargs(b["tool_kwargs"])} for b in m["blocks"] if b["block_type"] == "tool_call"]
             for m in (stream, whole)]  # before 0.14.12 the streamed input is JSON text (declared json-text)
    assert calls[0] == calls[1] and [c["tool_kwargs"]["path"] for c in calls[0]] == ["/tmp/a.txt", "/tmp/b.txt",
                                                                                   "/tmp/c.txt"]
    assert stream["role"] == whole["role"] == "assistant"
    assert whole["additional_kwargs"] == {"tool_call_id": [], "status": []}  # declared: from toolResult blocks
    (held,) = adapter.history.assistant  # the streamed message only, appended before the next turn
    assert held.model_dump(mode="json") == stream


@pytest.mark.parametrize("kwargs, graded, evidence", [
    (lambda value: json.dumps(value), "warn", "judgement arguments-as-object"),  # the declared json-text form
    (lambda value: json.dumps({**value, "path": "/elsewhere"}), "fail",
     "native blocks[1].tool_kwargs.path: streamed '/elsewhere' / non-streamed '/tmp/a.txt'"),
])
def test_a_call_whose_input_is_a_string_on_one_path_only_is_compared_by_its_value(adapter, monkeypatch, kwargs,
                                                                                   graded, evidence):
    """The 0.14.11-and-earlier shape planted in the stream only: a ToolCallBlock holding its input as JSON text, which
    ToolCallBlock's type allows (declared json-text); a text holding other arguments still fails parity."""
    real = BedrockConverse.stream_chat_with_tools

    def as_text(self, *args, **kw):
        for response in real(self, *args, **kw):
            for block in response.message.blocks:
                if isinstance(block, ToolCallBlock) and _kwargs(block.tool_kwargs):  # a partial text is left
                    block.tool_kwargs = kwargs(_kwargs(block.tool_kwargs))
            yield response

    monkeypatch.setattr(BedrockConverse, "stream_chat_with_tools", as_text)
    result = run_scenario(SCENARIOS["core/parallel-calls"], adapter, ROOT)
    report = render_text([result])
    assert result.status == graded and evidence in report, report


def test_the_persisted_variant_restores_the_history_from_model_dump_json():
    adapter = load_adapter("llama-index-persisted")
    dump, load = adapter.history.store
    message = ChatMessage(role=MessageRole.ASSISTANT, blocks=[
        ThinkingBlock(content="hm", additional_information={"signature": "S"}),
        ToolCallBlock(tool_call_id="t1", tool_name="f", tool_kwargs={"a": 1})])
    (restored,) = load(dump([message]))
    assert restored == message and restored is not message
    first, _ = paired_turns(adapter, "core/thinking-tools")
    (kept,) = [m for m in adapter.history.messages if m.role == MessageRole.ASSISTANT]  # turn 0's, through the store
    assert kept.model_dump(mode="json") == natives(first)["stream"]["message"]
    assert run_scenario(SCENARIOS["core/thinking-tools"], adapter, ROOT).status == "warn"  # as llama-index: EMPTY_TEXT


def test_a_store_that_loses_signatures_shows_in_the_next_request():
    adapter = load_adapter("llama-index-persisted")
    dump, load = adapter.history.store

    def lossy(text):
        messages = load(text)
        for block in (b for m in messages for b in m.blocks if isinstance(b, ThinkingBlock)):
            block.additional_information = {}
        return messages

    adapter.history.store = (dump, lossy)
    assert_found(adapter, "core/thinking-tools", "turn 1 request expected messages[1].content[0]")


def test_the_guardrail_goes_as_bedrock_converses_guardrail_fields_with_its_mode_on_the_stream_only(monkeypatch):
    guardrail = {"identifier": "g1", "version": "2", "trace": "enabled", "stream_processing_mode": "async"}
    turn = {"model_id": "us.anthropic.claude-sonnet-4-20250514-v1:0", "messages": [],
            "options": {"max_tokens": 64, "guardrail": guardrail}}
    assert guardrail_fields(turn["options"]) == {"guardrail_identifier": "g1", "guardrail_version": "2",
                                                 "trace": "enabled", "guardrail_stream_processing_mode": "async"}
    assert guardrail_fields({}) == {}
    llm = shim.make_llm(turn, ENDPOINT)
    from llama_index.llms.bedrock_converse import utils

    sent = {}
    client = llm._client
    monkeypatch.setattr(client, "converse_stream", lambda **kw: sent.setdefault("stream", kw))
    monkeypatch.setattr(client, "converse", lambda **kw: sent.setdefault("whole", kw))
    for stream in (True, False):
        utils.converse_with_retry(client, model=llm.model, messages=[], max_retries=1, stream=stream,
                                  guardrail_identifier=llm.guardrail_identifier, guardrail_version=llm.guardrail_version,
                                  guardrail_stream_processing_mode=llm.guardrail_stream_processing_mode, trace=llm.trace)
    wire = {"guardrailIdentifier": "g1", "guardrailVersion": "2", "trace": "enabled"}
    assert sent["stream"]["guardrailConfig"] == {**wire, "streamProcessingMode": "async"}
    assert sent["whole"]["guardrailConfig"] == wire
    assert {"guardrail", "response_metadata"} <= load_adapter(SPEC).capabilities
