"""The pydantic-ai shim: its history and event mapping, and its verdicts on core scenarios against the baseline.

Skipped unless pydantic-ai is installed (tox env ``shim-pydantic-ai``). Known failures must fail for the
documented reason (the report shows the evidence); every other scenario run here must pass.
"""

from __future__ import annotations

import base64
import importlib.metadata
import json

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    PartDeltaEvent,
    PartStartEvent,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

import dataclasses

import pydantic_ai.messages
import pydantic_ai.models
import pydantic_ai.models.bedrock
import pydantic_ai.providers.bedrock

from harness import load_adapter
from harness.adapters import CAPABILITIES, NON_STREAMING, OWN_HISTORY, USAGE_INCLUDES_CACHE
from harness.adapters.shims import pydantic_ai as shim
from harness.adapters.shims import pydantic_ai_history as history
from harness.adapters.shims import pydantic_ai_native as native

from shim_verdicts import (  # noqa: E402
    assert_baseline_lists,
    assert_refused,
    assert_sends_what_the_library_assembled,
    assert_verdict,
    report,
)
from shim_parity import natives, paired_turns  # noqa: E402

SPEC = "harness.adapters.shims.pydantic_ai:PydanticAiAdapter"
# Each known failure and what its report must show: the library's own output that makes it a finding.
# A cut stream ends as a complete response (only messageStop sets finish_reason, and nothing checks it came).
CUT = 'turn 0 chunk 1 (error): missing; expected error {"code": "adapter_error"} / actual nothing'
METADATA_LOST = "turn 0 chunk 3 (metadata): missing; expected metadata"
KNOWN = {"faults/truncated-stream": CUT,
         # request_stream streams whatever the model: Writer refuses tools on ConverseStream (rule 38)
         "edge/tool-result-no-status": "This model doesn't support tool use in streaming mode.",
         # unsigned reasoning carried into the user's turn as <assistant_thinking> text
         "edge/unsigned-reasoning-to-claude": "assistant_thinking",
         # every BinaryContent document is "Document N"; the cited answer goes back as plain text
         "edge/document-citations": "document.name 'Returns policy' / actual 'Document 1'",
         "edge/cache-point-before-document": "document.name 'release-notes' / actual 'Document 1'",
         # the metadata event's serviceTier and performanceConfig are dropped (only its trace is kept)
         **{sid: METADATA_LOST for sid in ("edge/latency-optimized", "edge/service-tier-flex")}}
# Graded warn: every streamed call's arguments are held as JSON text (ToolCallPart.args), which the shim reports as
# held; unsigned reasoning sent as text; an object result sent as its JSON text; Writer's error text wrapped in
# {"error": ...}; a cut stream ending quietly.
ARGUMENTS_AS_TEXT = "judgement arguments-as-object"
WARNED = {**{sid: ARGUMENTS_AS_TEXT for sid in ("core/parallel-calls", "core/thinking-tools", "edge/redacted-reasoning-tool",
                                                "edge/cache-usage", "edge/interleaved-reasoning-tools",
                                                "edge/unsigned-reasoning-round-trip", "edge/zero-arg-tool")},
          # the call cut off by max_tokens is held by the stream only, as its partial text
          "edge/max-tokens-mid-tool": "judgement cut-call-on-both-paths",
          # content_items splits a list return into one text block per item: the same items in another form
    "edge/tool-result-json-values": "the request holds the golden's content in another form",
          # the structured answer passes; the tool call is held as JSON text, as in every scenario with one
          "edge/structured-output": ARGUMENTS_AS_TEXT, "edge/cache-points": ARGUMENTS_AS_TEXT,
          "edge/nova-cache-points": ARGUMENTS_AS_TEXT,
          # a tool's search results go back as their JSON text (ToolReturnPart has no search result)
          "edge/search-result-citations": 'actual {"text": "{\\"type\\":\\"search_result\\"'}
PASSING = ["faults/model-stream-error-mid-tool", "edge/guardrail-async", "edge/prompt-router-trace"]
# At the extra's floor the floor certification applies (certification/pydantic-ai.floor.*), with its own findings.
FLOOR = "1.23.0"
KNOWN_AT_FLOOR = {
    "edge/cache-usage": "turn 0 chunk 2 (usage): expected cache_write_input_tokens 1843 / actual 0",
    "edge/cache-both-spellings": "turn 0 chunk 2 (usage): expected cache_write_input_tokens 2048 / actual 0",
    "edge/server-tool-then-client-tool": 'actual tool_call {"id": "tooluse_86QZr6KytxFeqOIjxu477l", "name": "nova_co',
    "edge/server-tool-text-result": 'actual tool_call {"id": "tooluse_hPFgKIuCSc0_qhY3swN-kJ", "name": "nova_code',
    "edge/tool-result-is-error": "/tmp/missing.txt'\\n\\nFix the errors and try",
    "edge/tool-result-no-status": "does not exist\\n\\nFix the errors and try again.'",
    "faults/truncated-stream": CUT}
# 1.23.0 has no bedrock_service_tier: the shim does not declare service_tier there.
SKIPPED_AT_FLOOR = {sid: "adapter lacks service_tier" for sid in ("edge/latency-optimized", "edge/service-tier-flex")}
# nor the citations setting, native output or strict tools: no citations, no structured_output
SKIPPED_AT_FLOOR |= {"edge/structured-output": "adapter lacks structured_output",
                     "edge/document-citations": "adapter lacks citations",
                     "edge/search-result-citations": "adapter lacks citations",
                     # nor bedrock_cache_instructions / bedrock_cache_tool_definitions: no cache_points
                     **{sid: "adapter lacks cache_points" for sid in ("edge/cache-points", "edge/nova-cache-points",
                                                                      "edge/cache-point-before-document")}}
SKIPPED: dict = {}
FLOOR_ONLY = set(KNOWN_AT_FLOOR) - set(KNOWN)  # failures only the floor has
if importlib.metadata.version("pydantic-ai-slim") == FLOOR:
    NAME, KNOWN, PASSING = (
        "pydantic-ai.floor", KNOWN_AT_FLOOR,
        [s for s in PASSING if s not in KNOWN_AT_FLOOR | SKIPPED_AT_FLOOR.keys()])
    SKIPPED = SKIPPED_AT_FLOOR
    WARNED = {**{sid: why for sid, why in WARNED.items() if sid not in FLOOR_ONLY | SKIPPED_AT_FLOOR.keys()},
              "edge/interleaved-parallel-deltas": "warning (robustness: no real recording shows Bedrock interleaving",
              "edge/tool-result-json-values": "judgement object-result-as-json"}
else:
    NAME = "pydantic-ai"


@pytest.fixture
def adapter():
    return load_adapter(SPEC)


def test_identity_is_the_library_and_capabilities_are_known(adapter):
    assert adapter.name == "pydantic-ai"
    assert adapter.version == importlib.metadata.version("pydantic-ai-slim")
    assert {OWN_HISTORY, USAGE_INCLUDES_CACHE, NON_STREAMING} <= adapter.capabilities
    assert adapter.capabilities <= CAPABILITIES and "streaming" in adapter.capabilities


def test_baseline_lists_exactly_the_known_failures():
    assert_baseline_lists(NAME, KNOWN)


@pytest.mark.parametrize("sid", sorted({*PASSING, *KNOWN, *WARNED, *SKIPPED}))
def test_verdict_matches_the_baseline(adapter, sid):
    assert_verdict(adapter, NAME, sid, KNOWN, skipped=SKIPPED, warned=WARNED)


def test_history_maps_to_pydantic_ai_messages():
    turn = {"model_id": "m", "system": "sys", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "SIG"},
            {"type": "redacted_thinking", "data": base64.b64encode(b"EtkE").decode()},
            {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": True},
                                     {"type": "text", "text": "and?"}]}]}
    first, response, last = history.to_pydantic_ai(turn)
    assert isinstance(first, ModelRequest) and [type(p) for p in first.parts] == [SystemPromptPart, UserPromptPart]
    assert isinstance(response, ModelResponse) and response.provider_name == "bedrock"
    thinking, redacted, call = response.parts
    assert (thinking.content, thinking.signature, thinking.provider_name) == ("hmm", "SIG", "bedrock")
    assert (redacted.id, redacted.signature) == ("redacted_content", "EtkE")
    assert (call.tool_name, call.args, call.tool_call_id) == ("f", {"a": 1}, "t1")
    result, follow = last.parts
    assert (result.tool_name, result.tool_call_id, result.content) == ("f", "t1", "boom")
    if "outcome" in ToolReturnPart.__dataclass_fields__:
        assert isinstance(result, ToolReturnPart) and result.outcome == "failed"
    else:  # before 1.67: a failed call is what ModelRetry records
        assert isinstance(result, RetryPromptPart)
    assert isinstance(follow, UserPromptPart) and follow.content == "and?"


def test_settings_carry_the_exact_thinking_budget_and_tool_choice():
    options = {"max_tokens": 4096, "temperature": 0.5, "thinking_budget": 2048, "tool_choice": {"name": "f"}}
    assert shim.settings({"options": options}) == {
        "max_tokens": 4096, "tool_choice": ["f"],
        "bedrock_additional_model_requests_fields": {"thinking": {"type": "enabled", "budget_tokens": 2048}}}
    assert shim.settings({"options": {"tool_choice": "any"}}) == {"tool_choice": "required"}


def test_the_guardrail_goes_as_bedrock_guardrail_config_with_its_mode_on_the_stream_only():
    guardrail = {"identifier": "g1", "version": "2", "trace": "enabled", "stream_processing_mode": "async"}
    turn = {"options": {"guardrail": guardrail}}
    wire = {"guardrailIdentifier": "g1", "guardrailVersion": "2", "trace": "enabled"}
    assert shim.settings(turn) == {"bedrock_guardrail_config": {**wire, "streamProcessingMode": "async"}}
    assert shim.settings(turn, converse=True) == {"bedrock_guardrail_config": wire}
    assert "guardrail" in load_adapter(SPEC).capabilities


def test_the_service_tier_and_latency_go_as_their_settings_where_the_release_has_the_tier():
    turn = {"options": {"service_tier": "flex", "latency": "optimized"}}
    assert shim.settings(turn) == {"bedrock_service_tier": {"type": "flex"},
                                   "bedrock_performance_configuration": {"latency": "optimized"}}
    has_tier = "bedrock_service_tier" in pydantic_ai.models.bedrock.BedrockModelSettings.__annotations__
    assert ("service_tier" in load_adapter(SPEC).capabilities) is has_tier
    assert has_tier is (importlib.metadata.version("pydantic-ai-slim") != FLOOR)


def test_the_response_metadata_is_declared_where_the_response_keeps_the_trace():
    release = tuple(int(part) for part in importlib.metadata.version("pydantic-ai-slim").split(".")[:3])
    kept = release >= (2, 35, 1)  # bisected: 2.35.0 keeps no trace, 2.35.1 keeps it on both paths
    assert shim.keeps_trace() is kept
    assert ("response_metadata" in load_adapter(SPEC).capabilities) is kept


def test_the_trace_the_response_keeps_is_a_metadata_chunk_and_nothing_else_is():
    router = "arn:aws:bedrock:us-east-1:111111111111:inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0"
    traced = ModelResponse(parts=[TextPart(content="Paris.")], finish_reason="stop",
                           provider_details={"finish_reason": "end_turn",
                                             "trace": {"promptRouter": {"invokedModelId": router}}})
    assert list(shim.from_response(traced))[-1] == {"type": "metadata", "invoked_model_id": router,
                                                    "service_tier": None, "latency": None}
    for details in ({"finish_reason": "end_turn"}, {"finish_reason": "end_turn", "trace": {"guardrail": {}}}, None):
        plain = ModelResponse(parts=[TextPart(content="Paris.")], finish_reason="stop", provider_details=details)
        assert [c["type"] for c in shim.from_response(plain)] == ["stop", "usage"]


def test_part_events_map_to_chunks():
    ids: dict[int, str] = {}
    events = [PartStartEvent(index=0, part=ThinkingPart(content="a")),
              PartDeltaEvent(index=0, delta=ThinkingPartDelta(signature_delta="S", provider_name="bedrock")),
              PartStartEvent(index=1, part=ToolCallPart(tool_name="f", args=None, tool_call_id="t1")),
              PartDeltaEvent(index=1, delta=ToolCallPartDelta(args_delta='{"x": 1}', tool_call_id="t1")),
              PartStartEvent(index=2, part=TextPart(content="ok"))]
    assert [chunk for event in events for chunk in shim.from_event(event, ids)] == [
        {"type": "reasoning", "text": "a"}, {"type": "reasoning", "signature": "S"},
        {"type": "tool_call", "id": "t1", "name": "f", "input_delta": ""},
        {"type": "tool_call", "id": "t1", "input_delta": '{"x": 1}'}, {"type": "text", "text": "ok"}]


def test_response_gives_raw_stop_reason_else_the_lossy_inverse():
    usage = RequestUsage(input_tokens=130, output_tokens=7, cache_read_tokens=100, cache_write_tokens=20)
    raw = ModelResponse(parts=[ToolCallPart(tool_name="f", args='{"x": 1}', tool_call_id="t1")], usage=usage,
                        finish_reason="stop", provider_details={"finish_reason": "stop_sequence"})
    assert list(shim.from_response(raw)) == [
        {"type": "tool_call", "id": "t1", "name": "f", "input": {"x": 1}},
        {"type": "stop", "reason": "stop_sequence"},
        {"type": "usage", "input_tokens": 130, "output_tokens": 7, "cache_read_input_tokens": 100,
         "cache_write_input_tokens": 20}]
    inverted = ModelResponse(parts=[ToolCallPart(tool_name="f", args='{"x"', tool_call_id="t1")],
                             finish_reason="length")
    assert [c for c in shim.from_response(inverted) if c["type"] != "usage"] == [{"type": "stop", "reason": "max_tokens"}]


def test_a_held_history_gets_no_second_system_prompt_and_tool_returns_name_the_held_call():
    held = [ModelRequest(parts=[SystemPromptPart(content="sys")]),
            ModelResponse(parts=[ToolCallPart(tool_name="f", args="{}", tool_call_id="t1")])]
    turn = {"model_id": "m", "system": "sys",
            "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}]}
    (request,) = history.to_pydantic_ai(turn, held)
    (result,) = request.parts
    assert isinstance(result, ToolReturnPart) and (result.tool_name, result.tool_call_id) == ("f", "t1")


def test_the_assembled_response_maps_to_anthropic_blocks():
    malformed = ToolCallPart(tool_name="g", args='{"a"', tool_call_id="t2")
    response = ModelResponse(parts=[
        ThinkingPart(content="hmm", signature="SIG"), ThinkingPart(content="", id="redacted_content", signature="EtkE"),
        TextPart(content=""), TextPart(content="ok"), ToolCallPart(tool_name="f", args='{"a": 1}', tool_call_id="t1"),
        malformed])
    assert native.anthropic_parts(response) == [
        {"type": "thinking", "thinking": "hmm", "signature": "SIG"},
        {"type": "redacted_thinking", "data": base64.b64encode(b"EtkE").decode()}, {"type": "text", "text": ""},
        {"type": "text", "text": "ok"}, {"type": "tool_use", "id": "t1", "name": "f", "input": '{"a": 1}'},
        {"type": "tool_use", "id": "t2", "name": "g", "input": '{"a"'}]  # the arguments as the part holds them


def test_both_calls_report_the_response_as_model_messages_type_adapter_dumps_it(adapter):
    [first, _] = paired_turns(adapter, "core/thinking-tools")
    found = natives(first)
    streamed, whole = found["stream"]["message"], found["converse"]["message"]
    assert streamed["kind"] == whole["kind"] == "response"
    # the declared difference, as each call holds it: the stream's argument text, Converse's object
    assert [p["args"] for p in streamed["parts"] if p["part_kind"] == "tool-call"] == ['{"path": "/tmp/test.txt"}']
    assert [p["args"] for p in whole["parts"] if p["part_kind"] == "tool-call"] == [{"path": "/tmp/test.txt"}]
    assert streamed["parts"][0]["signature"] == whole["parts"][0]["signature"] and streamed["parts"][0]["signature"]
    json.dumps(found)


def test_a_response_read_differently_from_converse_is_a_parity_finding(adapter, monkeypatch):
    real = pydantic_ai.models.bedrock.BedrockConverseModel._process_response

    async def unsigned(self, *args, **kwargs):
        response = await real(self, *args, **kwargs)
        response.parts = [dataclasses.replace(p, signature=None) if isinstance(p, ThinkingPart) else p
                          for p in response.parts]
        return response

    monkeypatch.setattr(pydantic_ai.models.bedrock.BedrockConverseModel, "_process_response", unsigned)
    status, text = report(adapter, "core/thinking-tools")
    assert status == "fail" and "turn 0 native parts[0].signature: streamed a str '" in text, text


def test_max_tokens_mid_call_leaves_a_call_in_the_stream_only_as_its_partial_text(adapter):
    status, text = report(adapter, "edge/max-tokens-mid-tool")  # the non-streamed twin holds no partial toolUse
    assert status == "warn" and 'turn 0 native parts[1]: streamed {"tool_name": "read_file", "args": "{\\"path' in text
    assert "judgement cut-call-on-both-paths" in text


PERSISTED = "harness.adapters.shims.pydantic_ai:PydanticAiPersistedAdapter"


def test_the_persisted_variant_stores_the_history_as_pydantic_ai_documents():
    adapter = load_adapter(PERSISTED)
    assert adapter.name == "pydantic-ai-persisted" and adapter.history.store == (native.dump, native.load)
    turn = {"model_id": "m", "system": "sys", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm", "signature": "SIG"},
                                          {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}]}]}
    held = history.to_pydantic_ai(turn)
    assert native.load(native.dump(held)) == held
    status, text = report(adapter, "core/thinking-tools")  # restored before turn 1: the same findings as pydantic-ai
    assert status == "warn" and ARGUMENTS_AS_TEXT in text and "turn 1 request" not in text, text


def test_a_store_that_loses_signatures_shows_in_the_next_request(monkeypatch):
    real = pydantic_ai.messages.ModelMessagesTypeAdapter

    class Lossy:
        dump_json = staticmethod(real.dump_json)

        @staticmethod
        def validate_json(text):
            return [dataclasses.replace(m, parts=[dataclasses.replace(p, signature=None) if isinstance(p, ThinkingPart)
                                                  else p for p in m.parts]) for m in real.validate_json(text)]

    monkeypatch.setattr(pydantic_ai.messages, "ModelMessagesTypeAdapter", Lossy)
    status, text = report(load_adapter(PERSISTED), "core/thinking-tools")
    assert status == "fail" and "turn 1 request" in text, text


def test_the_next_turn_sends_the_response_pydantic_ai_assembled(adapter, monkeypatch):
    real = pydantic_ai.models.StreamedResponse.get

    def resigned(self):
        response = real(self)
        response.parts = [dataclasses.replace(p, signature="TAMPERED") if isinstance(p, ThinkingPart) else p
                          for p in response.parts]
        return response

    monkeypatch.setattr(pydantic_ai.models.StreamedResponse, "get", resigned)
    assert_sends_what_the_library_assembled(adapter, "core/thinking-tools", "TAMPERED")


def test_a_provider_that_ignores_the_endpoint_is_refused(adapter, monkeypatch):
    class Ignoring(pydantic_ai.providers.bedrock.BedrockProvider):  # a release that drops base_url
        def __init__(self, base_url, **kwargs):
            super().__init__(**kwargs)

    monkeypatch.setattr(pydantic_ai.providers.bedrock, "BedrockProvider", Ignoring)
    assert_refused(adapter)


def test_structured_output_and_citations_are_declared_where_the_release_has_their_api():
    at_floor = importlib.metadata.version("pydantic-ai-slim") == FLOOR
    capabilities = load_adapter(SPEC).capabilities
    assert ("structured_output" in capabilities) is ("citations" in capabilities) is (not at_floor)
    assert shim.surface() == (set() if at_floor else {"structured_output", "citations", "cache_points"})


def test_the_output_format_is_native_output_and_a_strict_tool_a_strict_tool_definition():
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    turn = {"tools": [{"name": "f", "input_schema": {"type": "object"}, "strict": True},
                      {"name": "g", "input_schema": {"type": "object"}}],
            "options": {"output_format": {"type": "json_schema", "name": "answer", "description": "The answer.",
                                          "schema": schema}}}
    params = shim.parameters(turn)
    assert [t.strict for t in params.function_tools] == [True, None]
    assert params.output_mode == "native" and params.allow_text_output
    assert (params.output_object.json_schema, params.output_object.name, params.output_object.description) == (
        schema, "answer", "The answer.")
    assert shim.parameters({"tools": []}).output_mode != "native"
    with pytest.raises(Exception, match="options.output_format"):
        shim.parameters({"options": {"output_format": {"type": "json_object"}}})


def test_a_cited_document_turns_the_citations_setting_on_for_its_conversation():
    document = {"type": "document", "title": "policy", "citations": {"enabled": True},
                "source": {"type": "text", "media_type": "text/plain", "data": "thirty days"}}
    opening = {"conversation": "c1", "messages": [{"role": "user", "content": [{"type": "text", "text": "How long?"},
                                                                                  document]}]}
    later = {"conversation": "c1", "messages": [{"role": "user", "content": "And refunds?"}]}
    assert shim.settings(opening) == {"citations": True} and shim.settings(later) == {}
    adapter = load_adapter(SPEC)
    assert adapter._cites(opening) and adapter._cites(later)
    assert not adapter._cites({**later, "conversation": "c2"})
    # the question and its document are one prompt, as an application asks about a document
    parts = history.to_pydantic_ai({"model_id": "m", **opening})[0].parts
    assert len(parts) == 1 and parts[0].content[0] == "How long?"
    assert (parts[0].content[1].data, parts[0].content[1].media_type) == (b"thirty days", "text/plain")


@pytest.mark.skipif(importlib.metadata.version("pydantic-ai-slim") == FLOOR, reason="1.23.0 keeps no citations")
def test_a_blocks_citations_become_citation_chunks_as_bedrock_sent_them():
    citation = {"title": "policy", "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 11}}}
    delta = PartDeltaEvent(index=0, delta=TextPartDelta(content_delta="", provider_name="bedrock",
                                                        provider_details={"citations": [citation]}))
    assert list(shim.from_event(delta, {})) == [{"type": "citation", "citation": citation}]


def test_cache_control_becomes_cache_points_where_pydantic_ai_places_them():
    from pydantic_ai.messages import CachePoint

    five, hour = {"type": "ephemeral"}, {"type": "ephemeral", "ttl": "1h"}
    turn = {"model_id": "m", "system": [{"type": "text", "text": "be brief", "cache_control": hour}],
            "tools": [{"name": "f", "input_schema": {"type": "object"}},
                      {"name": "g", "input_schema": {"type": "object"}, "cache_control": hour}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": five}]}]}
    assert shim.settings(turn) == {"bedrock_cache_instructions": "1h", "bedrock_cache_tool_definitions": "1h"}
    assert shim.settings({**turn, "system": [{"type": "text", "text": "x", "cache_control": five}], "tools": []}) == {
        "bedrock_cache_instructions": True}
    with pytest.raises(shim.AdapterSkip, match="after all of the tools only"):
        shim.settings({**turn, "tools": list(reversed(turn["tools"]))})
    request = history.to_pydantic_ai(turn)[0]
    assert request.parts[1].content == ["hi", CachePoint()]
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok",
                                           "cache_control": {"type": "ephemeral", "ttl": "5m"}}]}
    parts = history.to_pydantic_ai({**turn, "messages": [result]}, held=[object()])[0].parts
    assert isinstance(parts[0], ToolReturnPart) and parts[1].content == [CachePoint(ttl="5m")]
