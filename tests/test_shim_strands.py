"""The strands-agents shim: its history and event mapping, and its verdicts on core scenarios against the baseline.

Skipped unless strands-agents is installed (tox env ``shim-strands``). Known failures must fail for the
documented reason (the report shows the evidence); every other scenario run here must pass.
"""

from __future__ import annotations

import asyncio
import base64
import importlib.metadata
import json

import pytest

pytest.importorskip("strands")

import strands.event_loop.streaming as streaming
import strands.models.bedrock
from strands.event_loop.streaming import process_stream

import strands.types.session

from harness import load_adapter
from harness.adapters import CAPABILITIES, NON_STREAMING, OWN_HISTORY, USAGE_INCLUDES_CACHE, AdapterSkip
from harness.adapters.shims import strands as shim
from harness.adapters.shims import strands_native as native

from shim_verdicts import (  # noqa: E402
    assert_baseline_lists,
    assert_refused,
    assert_sends_what_the_library_assembled,
    assert_verdict,
    report,
)
from shim_parity import natives, paired_turns  # noqa: E402
from shim_verdicts import ROOT, SCENARIOS  # noqa: E402
from harness.suite.runner import run_scenario

SPEC = "harness.adapters.shims.strands:StrandsAdapter"
# Each known failure and what its report must show: the library's own output that makes it a finding.
KNOWN = {
    "edge/max-tokens-mid-tool": 'actual tool_call {"id": "tooluse_E53Ks2JAXr1Et_EFUMCMia", "name": "read_file", '
                                '"input": {}}',
    "edge/server-tool-then-client-tool": 'actual tool_call {"id": "tooluse_86QZr6KytxFeqOIjxu477l", "name": '
                                         '"nova_code_interpreter"',
    "edge/tool-result-json-values": 'toolResult.content[0] {"text": "310"} / actual {"json": 310}',
    "faults/truncated-stream": "actual chunk 1 (stop): unexpected; expected nothing / actual stop {\"reason\": \"end_turn\"}",
    "edge/server-tool-text-result": 'actual tool_call {"id": "tooluse_hPFgKIuCSc0_qhY3swN-kJ", "name": '
                                    '"nova_code_interpreter"',
    # BedrockModel streams whenever streaming is on, whatever the model: Writer refuses tools there (rule 38)
    "edge/tool-result-no-status": "This model doesn't support tool use in streaming mode.",
    # every ToolResultContent item stays inside the result, whatever the model
    "edge/openai-tool-result-image": "This model doesn't support the image field for user messages.",
    "edge/tool-result-error-with-image": "all content must be ty",
    # DocumentSource holds bytes (or a location), never Bedrock's text source
    "edge/document-citations": 'document.source {"text": "The return window is thi',
    # guardrail_stream_processing_mode goes to converse too, whose GuardrailConfiguration refuses it
    "edge/guardrail-async": 'Unknown parameter in guardrailConfig: "streamProcessingMode"',
    # _native_output_config sends the output model's schema and name, never a description
    "edge/structured-output": "actual no outputConfig.textFormat.structure.jsonSchema.description",
}
PASSING = ["core/parallel-calls", "edge/end-turn-with-tool-use", "core/thinking-tools", "edge/redacted-reasoning-tool",
           "faults/throttling-mid-tool", "edge/tool-result-no-status", "edge/cache-points", "edge/nova-cache-points",
           "edge/cache-point-before-document", "edge/tool-result-media", "edge/nova-tool-result-media",
           "edge/response-field-paths", "edge/prompt-router-trace"]
# At the floor release (tox env shim-strands-oldest) the floor baseline holds three more (certification/strands.floor.*):
# 1.19.0's _convert_non_streaming_to_streaming reads content["reasoningContent"]["reasoningText"] of every reasoning
# block, so Converse's redactedContent raises on the non-streamed path.
FLOOR = importlib.metadata.version("strands-agents") == "1.19.0"
NAME = "strands.floor" if FLOOR else "strands"
if FLOOR:
    KNOWN |= {"edge/signature-only-reasoning": "assembled nothing (block dropped)",
              "edge/two-signed-reasoning-blocks": "turn 0 assembled message block 1 (reasoning): streamed signature",
              "edge/redacted-reasoning-tool": "turn 0 parity: the streamed call built a message / the non-streamed "
                                              "call raised \"KeyError: 'reasoningText'\"",
              "edge/unsigned-reasoning-to-claude": "User messages cannot contain reasoning content.",
              # before CacheToolsConfig, cache_tools is a type alone: the 1h tools point goes without its TTL
              "edge/cache-points": "actual no toolConfig.tools[1].cachePoint.ttl",
              # the citations in a block of their own, each location emptied by the request formatter
              "edge/document-citations": "tagged unionstructure messages[1].content[2].citationsContent.citations[0]"}
    del KNOWN["edge/structured-output"]  # no native output before 1.62.0: skipped
PASSING = [sid for sid in PASSING if sid not in KNOWN]
WARNED = {"edge/interleaved-parallel-deltas": "warning (robustness: no real recording shows Bedrock interleaving",
          # ToolResultContent has no searchResult: the results go as json, a warning only where no recording shows them
          "edge/search-result-citations": 'actual {"json": {"type": "search_result"'}
TIERED = ["edge/service-tier-flex", "edge/latency-optimized"]  # BedrockConfig.service_tier: 1.19.0 has none
SKIPPED = {**{sid: "adapter lacks service_tier" for sid in TIERED},
           "edge/structured-output": "adapter lacks structured_output"} if FLOOR else {}
PASSING += [] if FLOOR else TIERED

@pytest.fixture
def adapter():
    return load_adapter(SPEC)


def test_identity_is_the_library_and_capabilities_are_known(adapter):
    assert adapter.name == "strands"
    assert adapter.version == importlib.metadata.version("strands-agents")
    assert adapter.capabilities <= CAPABILITIES and "streaming" in adapter.capabilities
    assert OWN_HISTORY in adapter.capabilities and USAGE_INCLUDES_CACHE not in adapter.capabilities
    assert NON_STREAMING in adapter.capabilities and adapter.native_differences == {}


def test_baseline_lists_exactly_the_known_failures():
    assert_baseline_lists(NAME, KNOWN)


@pytest.mark.parametrize("sid", sorted({*PASSING, *KNOWN, *WARNED, *SKIPPED}))
def test_verdict_matches_the_baseline(adapter, sid):
    assert_verdict(adapter, NAME, sid, KNOWN, skipped=SKIPPED, warned=WARNED)


def test_history_maps_to_strands_messages():
    data = base64.b64encode(b"opaque").decode()
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm", "signature": "SIG"},
                                          {"type": "redacted_thinking", "data": data},
                                          {"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": True}]}]
    assert shim.to_strands(messages) == [
        {"role": "user", "content": [{"text": "hi"}]},
        {"role": "assistant", "content": [{"reasoningContent": {"reasoningText": {"text": "hmm", "signature": "SIG"}}},
                                          {"reasoningContent": {"redactedContent": b"opaque"}},
                                          {"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "boom"}],
                                                     "status": "error"}}]}]


def test_cache_control_becomes_a_strands_cache_point_after_the_block_it_marks():
    data = base64.b64encode(b"- rename timeout\n").decode()
    messages = [{"role": "user", "content": [
        {"type": "text", "text": "Which change?", "cache_control": {"type": "ephemeral"}},
        {"type": "document", "title": "notes", "source": {"type": "base64", "media_type": "text/plain", "data": data}},
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok", "cache_control": {"type": "ephemeral",
                                                                                      "ttl": "1h"}}]}]
    assert shim.to_strands(messages)[0]["content"] == [
        {"text": "Which change?"}, {"cachePoint": {"type": "default"}},
        {"document": {"format": "txt", "name": "notes", "source": {"bytes": b"- rename timeout\n"}}},
        {"toolResult": {"toolUseId": "t1", "content": [{"text": "ok"}], "status": "success"}},
        {"cachePoint": {"type": "default", "ttl": "1h"}}]


def test_media_in_a_tool_result_stays_strands_tool_result_content():
    png = base64.b64encode(b"PNG").decode()
    pdf = base64.b64encode(b"%PDF").decode()
    result = {"type": "tool_result", "tool_use_id": "t1", "content": [
        {"type": "text", "text": "shot"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                       "data": png}},
        {"type": "document", "title": "spec", "source": {"type": "base64", "media_type": "application/pdf",
                                                         "data": pdf}}]}
    assert shim.to_strands([{"role": "user", "content": [result]}])[0]["content"][0]["toolResult"]["content"] == [
        {"text": "shot"}, {"image": {"format": "png", "source": {"bytes": b"PNG"}}},
        {"document": {"format": "pdf", "name": "spec", "source": {"bytes": b"%PDF"}}}]


def test_usage_keeps_the_cache_writes_per_ttl_strands_usage_holds():
    usage = {"inputTokens": 12, "outputTokens": 61, "totalTokens": 73, "cacheWriteInputTokens": 1843,
             "cacheDetails": [{"ttl": "1h", "inputTokens": 1536}, {"ttl": "5m", "inputTokens": 307}]}
    assert shim._usage(usage) == {"type": "usage", "input_tokens": 12, "output_tokens": 61,
                                  "cache_read_input_tokens": 0, "cache_write_input_tokens": 1843,
                                  "cache_details": [{"ttl": "1h", "input_tokens": 1536},
                                                    {"ttl": "5m", "input_tokens": 307}]}
    assert "cache_details" not in shim._usage({"inputTokens": 1, "outputTokens": 2})


def test_a_tools_cache_point_is_strands_cache_tools_and_only_after_the_last_tool():
    tool = {"name": "f", "input_schema": {"type": "object"}}
    marked = {**tool, "name": "g", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    assert shim._cache_tools([tool]) is None
    config = shim._cache_tools([tool, marked])
    if FLOOR:
        assert config == "default"  # a cache point type alone: strands #2232's TTL-less tools point
    else:
        assert (config.type, config.ttl) == ("default", "1h")
    with pytest.raises(shim.AdapterSkip, match="after the last tool only"):
        shim._cache_tools([marked, tool])


async def _processed(raw: list[dict]) -> list[dict]:
    async def chunks():
        for event in raw:
            yield event
    return [event async for event in process_stream(chunks())]


def _tool(index: int, tool_id: str, *deltas: str) -> list[dict]:
    start = {"contentBlockStart": {"contentBlockIndex": index,
                                   "start": {"toolUse": {"toolUseId": tool_id, "name": "f"}}}}
    return [start, *({"contentBlockDelta": {"contentBlockIndex": index, "delta": {"toolUse": {"input": d}}}}
                     for d in deltas), {"contentBlockStop": {"contentBlockIndex": index}}]


def test_events_map_in_stream_order_with_assembled_tool_input():
    raw = [{"messageStart": {"role": "assistant"}},
           {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "think"}}}},
           {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "S"}}}},
           {"contentBlockStop": {"contentBlockIndex": 0}},
           *_tool(1, "t1", '{"a"', ": 1}"),
           {"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"text": "done"}}},
           {"contentBlockStop": {"contentBlockIndex": 2}},
           {"messageStop": {"stopReason": "tool_use"}},
           {"metadata": {"usage": {"inputTokens": 5, "outputTokens": 7, "totalTokens": 12, "cacheReadInputTokens": 3}}}]
    assert shim.chunks_from_events(asyncio.run(_processed(raw))) == [
        {"type": "reasoning", "text": "think"}, {"type": "reasoning", "signature": "S"},
        {"type": "tool_call", "id": "t1", "name": "f", "input": {"a": 1}}, {"type": "text", "text": "done"},
        {"type": "stop", "reason": "tool_use"},
        {"type": "usage", "input_tokens": 5, "output_tokens": 7, "cache_read_input_tokens": 3,
         "cache_write_input_tokens": 0}]


def test_without_a_final_message_the_streamed_deltas_stand():
    raw = [{"messageStart": {"role": "assistant"}}, *_tool(0, "t1", '{"a"')[:2]]
    events = asyncio.run(_processed(raw))
    chunks = shim.chunks_from_events([event for event in events if "stop" not in event])
    assert chunks == [{"type": "tool_call", "id": "t1", "name": "f", "input_delta": '{"a"'}]


def test_throttling_keeps_bedrock_code_from_the_chained_client_error():
    from botocore.exceptions import ClientError
    from strands.types.exceptions import ModelThrottledException

    cause = ClientError({"Error": {"Code": "throttlingException", "Message": "slow down"}}, "ConverseStream")
    try:
        raise ModelThrottledException(str(cause)) from cause
    except ModelThrottledException as exc:
        assert shim.error(exc) == {"type": "error", "code": "throttlingException", "message": "slow down"}


def test_both_calls_report_the_message_as_strands_session_store_writes_it(adapter):
    found = natives(paired_turns(adapter, "core/thinking-tools")[0])
    assert found["stream"]["message"] == found["converse"]["message"]
    assert found["stream"]["message"]["content"][0]["reasoningContent"]["reasoningText"]["signature"]
    json.dumps(found)
    redacted = native.native({"role": "assistant", "content": [{"reasoningContent": {"redactedContent": b"opaque"}}]})
    assert redacted["content"][0]["reasoningContent"]["redactedContent"] == {
        "__bytes_encoded__": True, "data": base64.b64encode(b"opaque").decode()}  # encode_bytes_values


def test_a_converse_response_strands_reads_differently_is_a_parity_finding(adapter, monkeypatch):
    model = strands.models.bedrock.BedrockModel  # the method is public from 1.2x, _convert_... before
    name = next(n for n in ("convert_non_streaming_to_streaming", "_convert_non_streaming_to_streaming")
                if hasattr(model, n))
    real = getattr(model, name)

    def unsigned(self, response, **kwargs):  # the non-streaming path loses the reasoning signature
        for event in real(self, response, **kwargs):
            delta = event.get("contentBlockDelta", {}).get("delta", {}).get("reasoningContent", {})
            if "signature" not in delta:
                yield event

    monkeypatch.setattr(model, name, unsigned)
    status, text = report(adapter, "core/thinking-tools")
    assert status == "fail" and "turn 0 native content[0].reasoningContent.reasoningText.signature: streamed '" in text
    assert "' / non-streamed nothing" in text or "characters) / non-streamed nothing" in text, text


def test_a_garbled_reasoning_block_is_passed_on_as_strands_holds_it(adapter, monkeypatch):
    real = streaming.handle_content_block_stop

    def garbled(state):
        state = real(state)
        for block in state["content"]:
            if "reasoningContent" in block:
                block["reasoningContent"]["type"] = "texttextsignature"
        return state

    monkeypatch.setattr(streaming, "handle_content_block_stop", garbled)
    status, text = report(adapter, "core/thinking-tools")
    assert status == "fail" and "(message): not an assembled assistant message" in text, text
    assert 'got [{"reasoningContent": {"reasoningText": {"text": "The user wants' in text, text


def test_the_assembled_message_maps_to_anthropic_blocks():
    content = [{"reasoningContent": {"reasoningText": {"text": "hmm", "signature": "SIG"}}},
               {"reasoningContent": {"redactedContent": b"opaque"}}, {"text": ""}, {"text": "ok"},
               {"toolUse": {"toolUseId": "t1", "name": "f", "input": {"a": 1}}}]
    assert native.anthropic_blocks(content) == [
        {"type": "thinking", "thinking": "hmm", "signature": "SIG"},
        {"type": "redacted_thinking", "data": base64.b64encode(b"opaque").decode()}, {"type": "text", "text": ""},
        {"type": "text", "text": "ok"}, {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}]


PERSISTED = "harness.adapters.shims.strands:StrandsPersistedAdapter"


def test_the_persisted_variant_stores_the_history_as_strands_sessions_do():
    adapter = load_adapter(PERSISTED)
    assert adapter.name == "strands-persisted" and adapter.history.store == (native.dump, native.load)
    history = shim.to_strands([{"role": "assistant", "content": [
        {"type": "thinking", "thinking": "hmm", "signature": "SIG"},
        {"type": "redacted_thinking", "data": base64.b64encode(b"opaque").decode()},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}]}])
    assert native.load(native.dump(history)) == history
    assert report(adapter, "core/thinking-tools")[0] == "pass"


def test_the_restore_is_the_file_session_managers_own_repair_included():
    """A call left unanswered before a later message comes back answered as strands' session manager repairs it
    (_fix_broken_tool_use: an error toolResult for the orphaned toolUse); the last message is left as it is."""
    history = shim.to_strands([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": "go on"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "f", "input": {}}]}])
    restored = native.load(native.dump(history))
    assert restored[:2] == history[:2] and restored[-1] == history[-1]
    added = [block["toolResult"] for block in restored[2]["content"] if "toolResult" in block]
    assert [(r["toolUseId"], r["status"]) for r in added] == [("t1", "error")], restored[2]


def test_a_session_store_that_loses_signatures_shows_in_the_next_request(monkeypatch):
    real = strands.types.session.SessionMessage.to_message

    def lossy(self):
        message = real(self)
        for block in message["content"]:
            block.get("reasoningContent", {}).get("reasoningText", {}).pop("signature", None)
        return message

    monkeypatch.setattr(strands.types.session.SessionMessage, "to_message", lossy)
    status, text = report(load_adapter(PERSISTED), "core/thinking-tools")
    assert status == "fail" and "turn 1 request" in text and "reasoningContent" in text, text  # dropped, or unsigned


def test_the_next_turn_sends_the_message_strands_assembled(adapter, monkeypatch):
    real = streaming.handle_content_block_stop

    def resigned(state):
        state = real(state)
        for block in state["content"]:
            if "reasoningContent" in block and "reasoningText" in block["reasoningContent"]:
                block["reasoningContent"]["reasoningText"]["signature"] = "TAMPERED"
        return state

    monkeypatch.setattr(streaming, "handle_content_block_stop", resigned)
    assert_sends_what_the_library_assembled(adapter, "core/thinking-tools", "TAMPERED")


def test_a_model_that_ignores_the_endpoint_is_refused(adapter, monkeypatch):
    class Ignoring(strands.models.bedrock.BedrockModel):  # a release that drops endpoint_url
        def __init__(self, endpoint_url, **kwargs):
            super().__init__(**kwargs)

    monkeypatch.setattr(strands.models.bedrock, "BedrockModel", Ignoring)
    assert_refused(adapter)


def test_served_options_are_bedrock_config_keys_and_reach_the_request():
    options = {"service_tier": "flex", "latency": "optimized", "response_field_paths": ["/stop_sequence"],
               "guardrail": {"identifier": "g1", "version": "1", "trace": "enabled", "stream_processing_mode": "async"}}
    config = shim.served(options)
    assert config == {"guardrail_id": "g1", "guardrail_version": "1", "guardrail_trace": "enabled",
                      "guardrail_stream_processing_mode": "async", "service_tier": "flex",
                      "additional_response_field_paths": ["/stop_sequence"],
                      "additional_args": {"performanceConfig": {"latency": "optimized"}}}
    assert shim.served({}) == {}
    model = strands.models.bedrock.BedrockModel(model_id="m", region_name="us-east-1",
                                                **{k: v for k, v in config.items()
                                                   if k != "service_tier" or shim.has_service_tier()})
    formatter = getattr(model, "format_request", None) or model._format_request  # 1.19.0's name
    request = formatter([{"role": "user", "content": [{"text": "hi"}]}])
    assert request["guardrailConfig"] == {"guardrailIdentifier": "g1", "guardrailVersion": "1", "trace": "enabled",
                                          "streamProcessingMode": "async"}
    assert request["performanceConfig"] == {"latency": "optimized"}
    assert request["additionalModelResponseFieldPaths"] == ["/stop_sequence"]
    assert request.get("serviceTier") == ({"type": "flex"} if shim.has_service_tier() else None)
    assert shim.has_service_tier() is not FLOOR
    assert ("service_tier" in load_adapter(SPEC).capabilities) is not FLOOR


def test_structured_output_is_declared_where_bedrock_model_sends_native_output_and_strict_tools():
    release = tuple(int(part) for part in importlib.metadata.version("strands-agents").split(".")[:3])
    native_output = release >= (1, 62, 0)  # _native_output_config: 1.62.0 on (1.61.1 has strict_tools only)
    assert shim.has_native_output() is native_output
    assert ("structured_output" in load_adapter(SPEC).capabilities) is native_output
    assert ("structured_output" in load_adapter(PERSISTED).capabilities) is native_output


def test_the_output_format_is_a_pydantic_model_with_the_formats_name_and_schema():
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
              "additionalProperties": False}
    model = shim.output_model({"type": "json_schema", "name": "weather_answer", "schema": schema})
    assert model.__name__ == "weather_answer" and model.model_json_schema() == schema
    assert shim.output_model({"type": "json_schema", "schema": schema}).__name__ == "response"
    with pytest.raises(Exception, match="output_format"):
        shim.output_model({"type": "json_object"})


def test_strict_tools_is_set_when_every_tool_is_strict_and_a_mixed_turn_is_a_skip():
    assert shim.strict_tools([{"name": "f", "strict": True}, {"name": "g", "strict": True}]) is True
    assert shim.strict_tools([{"name": "f"}]) is None and shim.strict_tools([]) is None
    with pytest.raises(AdapterSkip, match="strict_tools"):
        shim.strict_tools([{"name": "f", "strict": True}, {"name": "g"}])


@pytest.mark.skipif(not shim.has_native_output(), reason="no native output before strands-agents 1.62.0")
def test_the_structured_turns_differ_from_the_golden_by_the_description_alone(adapter):
    result = run_scenario(SCENARIOS["edge/structured-output"], adapter, ROOT)  # outputConfig's schema and name, strict
    assert [(turn.laws, turn.request_problems, [(d.subject, d.changes) for d in turn.diffs]) for turn in result.turns] == [
        ((), (), [("request", (f"edge/structured-output turn {i} request expected outputConfig.textFormat.structure."
                               "jsonSchema.description 'The answer to a weather question.' / actual no "
                               "outputConfig.textFormat.structure.jsonSchema.description",))]) for i in (0, 1)]


@pytest.mark.skipif(not shim.has_native_output(), reason="no native output before strands-agents 1.62.0")
def test_without_the_output_model_the_request_has_no_output_config(adapter, monkeypatch):
    monkeypatch.setattr(shim, "output_model", lambda output_format: None)  # an application that never asks
    status, text = report(adapter, "edge/structured-output")
    assert status == "fail" and "actual no outputConfig" in text, text


def test_citations_response_fields_and_served_metadata_come_from_the_stream():
    citation = {"title": "Returns", "sourceContent": [{"text": "thirty days"}],
                "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 11}}}
    raw = [{"messageStart": {"role": "assistant"}},
           {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "As cited, "}}},
           {"contentBlockStop": {"contentBlockIndex": 0}},
           {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"citation": citation}}},
           {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"text": "thirty days."}}},
           {"contentBlockStop": {"contentBlockIndex": 1}},
           {"messageStop": {"stopReason": "end_turn", "additionalModelResponseFields": {"stop_sequence": None}}},
           {"metadata": {"usage": {"inputTokens": 5, "outputTokens": 7, "totalTokens": 12},
                         "serviceTier": {"type": "flex"}, "performanceConfig": {"latency": "optimized"},
                         "trace": {"promptRouter": {"invokedModelId": "haiku"}}}}]
    events = asyncio.run(_processed(raw))
    assert shim.chunks_from_events(events) == [
        {"type": "text", "text": "As cited, "}, {"type": "citation", "citation": citation},
        {"type": "text", "text": "thirty days."}, {"type": "stop", "reason": "end_turn"},
        {"type": "response_fields", "fields": {"stop_sequence": None}},
        {"type": "usage", "input_tokens": 5, "output_tokens": 7, "cache_read_input_tokens": 0,
         "cache_write_input_tokens": 0},
        {"type": "metadata", "invoked_model_id": "haiku", "service_tier": "flex", "latency": "optimized"}]
    message = shim.final_message(events)
    assert native.anthropic_blocks(message["content"]) == [
        {"type": "text", "text": "As cited, "}, *([  # 1.19.0: the text, then its citations in a block of their own
            {"type": "text", "text": "thirty days."}, {"citationsContent": {"citations": [citation]}}] if FLOOR else [
            {"type": "text", "text": "thirty days.", "citations": [citation]}])]
    plain = [event for event in events if "metadata" not in event.get("event", {})]
    assert shim.closing(plain) == ([{"type": "response_fields", "fields": {"stop_sequence": None}}], [])


def test_a_cited_answer_goes_back_as_strands_citations_content():
    citation = {"title": "Returns", "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 11}}}
    cited = {"role": "assistant", "content": [{"type": "text", "text": "thirty days.", "citations": [citation]}]}
    assert shim.to_strands([cited])[0]["content"] == [
        {"citationsContent": {"citations": [citation], "content": [{"text": "thirty days."}]}}]
