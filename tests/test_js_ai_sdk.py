"""The ai-sdk shim (harness/adapters/js/ai_sdk.mjs) driven over the subprocess protocol against a fake of the AI
SDK's public surface (tests/js_fake/ai-sdk): the stream parts' mapping, the history, the endpoint refusal and the
native results, offline. Skipped when ``node`` is absent. The real packages run in test_js_ai_sdk_real.py."""

from __future__ import annotations

import base64
import json

import pytest

import js_shim
from js_shim import ENDPOINT, MEDIA_RESULT_OPENING, NODE, TOOLS, chunks, needs_node, runner

from harness.adapters.js.ai_sdk import MODULES_ENV, shim_command

pytestmark = needs_node("ai-sdk")
OPTIONS = {"max_tokens": 512, "thinking_budget": 1024, "tool_choice": "auto"}
SIGNED = {"bedrock": {"signature": "c2ln"}}
CALL = [{"type": "tool-input-start", "id": "tu_1", "toolName": "read_file"},
        {"type": "tool-input-delta", "id": "tu_1", "delta": '{"path": '},
        {"type": "tool-input-delta", "id": "tu_1", "delta": '"/tmp/a"}'},
        {"type": "tool-call", "toolCallId": "tu_1", "toolName": "read_file", "input": {"path": "/tmp/a"}}]
ASSISTANT = {"role": "assistant", "content": [
    {"type": "reasoning", "text": "Think.", "providerOptions": SIGNED},
    {"type": "tool-call", "toolCallId": "tu_1", "toolName": "read_file", "input": {"path": "/tmp/a"}}]}
FINISH = {"type": "finish", "finishReason": "tool-calls", "rawFinishReason": "tool_use",
          "totalUsage": {"inputTokens": 30, "outputTokens": 7,
                         "inputTokenDetails": {"cacheReadTokens": 4, "cacheWriteTokens": 6}}}
# A history opening with every assistant block kind and a JSON tool result, as the harness sends it.
OPENING = [{"role": "user", "content": "Hi"},
           {"role": "assistant", "content": [{"type": "thinking", "thinking": "T", "signature": "c2ln"},
                                             {"type": "redacted_thinking", "data": "cmVk"},
                                             {"type": "tool_use", "id": "tu_9", "name": "read_file", "input": {}}]},
           {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_9", "content": [{"json": [1]}]},
                                        {"type": "text", "text": "and?"}]}]
# What CALL and FINISH's usage become, on ai 4 as on ai 5 and later.
CALL_CHUNKS = [{"type": "tool_call", "index": "tu_1", "id": "tu_1", "name": "read_file", "input_delta": ""},
               {"type": "tool_call", "index": "tu_1", "input_delta": '{"path": '},
               {"type": "tool_call", "index": "tu_1", "input_delta": '"/tmp/a"}'}]
USAGE_CHUNK = {"type": "usage", "input_tokens": 30, "output_tokens": 7, "cache_read_input_tokens": 4,
               "cache_write_input_tokens": 6}


@pytest.fixture
def shim(tmp_path, monkeypatch):
    """run(turns, calls, **fake_env) -> (each turn's answer lines, the fake's logged calls): the shim on a copy of the
    fake (FAKE_AI_SDK_OLD="1": ai 4's surface)."""
    monkeypatch.delenv(MODULES_ENV, raising=False)
    run_shim = runner(tmp_path, "ai-sdk", "FAKE_AI_SDK", lambda folder: shim_command(folder, NODE))

    def run(turns: list[dict], calls: list[dict], **fake: str) -> tuple[list[list[dict]], list[dict]]:
        return run_shim(turns, calls, env=fake)
    return run


def turn(messages, conversation="s", options=OPTIONS, **extra) -> dict:
    return js_shim.turn(messages, options, conversation, **extra)


def test_hello_names_the_release_and_declares_conversation_mode(shim):
    (hello,), _ = shim([], [])
    assert hello[0]["name"] == "ai-sdk" and hello[0]["version"] == "9.9.9-fake"
    assert {"own_history", "non_streaming", "usage_input_includes_cache"} <= set(hello[0]["capabilities"])


def test_stream_parts_map_to_chunks_as_they_are(shim):
    parts = [{"type": "start"}, {"type": "reasoning-delta", "id": "0", "text": "Think."},
             {"type": "reasoning-delta", "id": "0", "text": "", "providerMetadata": SIGNED},
             {"type": "reasoning-delta", "id": "1", "text": "", "providerMetadata": {"bedrock": {"redactedData": "cmVk"}}},
             {"type": "text-delta", "id": "2", "text": "Reading."}, *CALL, FINISH]
    (_, answer), _ = shim([turn([{"role": "user", "content": "Read /tmp/a"}])], [{"parts": parts, "messages": [ASSISTANT]}])
    assert chunks(answer) == [
        {"type": "reasoning", "index": "0", "text": "Think."}, {"type": "reasoning", "index": "0", "signature": "c2ln"},
        {"type": "redacted_reasoning", "index": "1", "data": "cmVk"}, {"type": "text", "index": "2", "text": "Reading."},
        *CALL_CHUNKS,
        {"type": "stop", "reason": "tool_use"},
        USAGE_CHUNK,
        {"type": "message", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Think.", "signature": "c2ln"},
            {"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "/tmp/a"}}]}}]


def test_without_the_raw_finish_reason_the_sdks_own_is_reported_unmapped(shim):
    finish = {"type": "finish", "finishReason": "tool-calls", "totalUsage": {"inputTokens": 1, "outputTokens": 2}}
    (_, answer), _ = shim([turn([{"role": "user", "content": "Hi"}])], [{"parts": [finish], "messages": []}])
    assert chunks(answer)[0] == {"type": "stop", "reason": "tool-calls"}


def test_the_request_carries_tools_choice_thinking_and_the_loopback_provider(shim):
    _, (call,) = shim([turn([{"role": "user", "content": "Hi"}])], [{"parts": [FINISH], "messages": []}])
    assert call["baseURL"] == ENDPOINT["endpoint_url"] and call["accessKeyId"] == "AKIAFAKE"
    assert call["tools"]["read_file"]["inputSchema"]["jsonSchema"] == TOOLS[0]["input_schema"]
    assert call["toolChoice"] == "auto" and call["maxOutputTokens"] == 512 and call["system"] == "Be brief."
    assert call["providerOptions"] == {"bedrock": {"reasoningConfig": {"type": "enabled", "budgetTokens": 1024}}}


def test_the_history_is_the_sdks_response_messages_then_the_tool_results(shim):
    opening = {"role": "user", "content": "Read /tmp/a"}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "42 lines",
                                           "is_error": True}]}
    _, (first, second) = shim([turn([opening]), turn([result])],
                              [{"parts": [*CALL, FINISH], "messages": [ASSISTANT]}, {"parts": [FINISH], "messages": []}])
    assert first["messages"] == [opening]
    assert second["messages"] == [opening, ASSISTANT, {"role": "tool", "content": [
        {"type": "tool-result", "toolCallId": "tu_1", "toolName": "read_file",
         "output": {"type": "error-text", "value": "42 lines"}}]}]


def test_a_new_conversation_starts_afresh(shim):
    opening = {"role": "user", "content": "Hi"}
    _, (_, second) = shim([turn([opening]), turn([opening], conversation="t")],
                          [{"parts": [FINISH], "messages": [ASSISTANT]}, {"parts": [FINISH], "messages": []}])
    assert second["messages"] == [opening]


def test_an_error_part_ends_the_turn_and_nothing_joins_the_history(shim):
    error = {"type": "error", "error": {"message": "Too many tokens", "type": "throttlingException"}}
    opening = {"role": "user", "content": "Hi"}
    (_, answer, _), (_, second) = shim([turn([opening]), turn([{"role": "user", "content": "Again"}])], [
        {"parts": [{"type": "text-delta", "id": "0", "text": "Par"}, error, FINISH], "messages": []},
        {"parts": [FINISH], "messages": []}])
    assert chunks(answer) == [{"type": "text", "index": "0", "text": "Par"},
                              {"type": "error", "code": "throttlingException", "message": "Too many tokens"}]
    assert second["messages"] == [opening, {"role": "user", "content": "Again"}]


def test_a_request_to_another_host_is_refused_before_it_is_sent(shim):
    (_, answer), _ = shim([turn([{"role": "user", "content": "Hi"}])],
                          [{"fetch": "https://bedrock-runtime.us-east-1.amazonaws.com/model/x/converse-stream",
                            "parts": [], "messages": []}])
    (error,) = chunks(answer)
    assert error["code"] == "EndpointRefused" and "never reaches a real AWS host" in error["message"]


def test_the_loopback_endpoint_itself_is_let_through(shim):
    (_, answer), _ = shim([turn([{"role": "user", "content": "Hi"}])],
                          [{"fetch": ENDPOINT["endpoint_url"] + "/model/x/converse-stream", "parts": [], "messages": []}])
    (error,) = chunks(answer)
    assert error["code"] != "EndpointRefused"  # sent: nothing listens on port 9, so the connection fails


def test_streaming_parity_reports_both_calls_native_messages(shim):
    (_, answer), (streamed, whole) = shim([turn([{"role": "user", "content": "Hi"}], non_streaming=True)], [
        {"parts": [FINISH], "messages": [ASSISTANT], "generate": {"messages": [{"role": "assistant", "content": "x"}]}}])
    assert chunks(answer)[-2:] == [{"type": "native", "path": "stream", "message": [ASSISTANT]},
                                   {"type": "native", "path": "converse",
                                    "message": [{"role": "assistant", "content": "x"}]}]
    assert whole["kind"] == "generateText" and whole["messages"] == streamed["messages"]


def test_a_failed_non_streaming_call_is_its_native_result(shim):
    (_, answer), _ = shim([turn([{"role": "user", "content": "Hi"}], non_streaming=True)], [
        {"parts": [FINISH], "messages": [], "generate": {"error": {"message": "bad", "type": "validationException"}}}])
    assert chunks(answer)[-1] == {"type": "native", "path": "converse", "error": "validationException: bad"}


def test_opening_assistant_blocks_and_json_results_convert_to_model_messages(shim):
    _, (call,) = shim([turn(OPENING)], [{"parts": [FINISH], "messages": []}])
    assert call["messages"][1:] == [
        {"role": "assistant", "content": [
            {"type": "reasoning", "text": "T", "providerOptions": SIGNED},
            {"type": "reasoning", "text": "", "providerOptions": {"bedrock": {"redactedData": "cmVk"}}},
            {"type": "tool-call", "toolCallId": "tu_9", "toolName": "read_file", "input": {}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "tu_9", "toolName": "read_file",
                                      "output": {"type": "json", "value": [1]}}]},
        {"role": "user", "content": [{"type": "text", "text": "and?"}]}]


CACHE_1H, CACHE_5M = {"type": "ephemeral", "ttl": "1h"}, {"type": "ephemeral"}


def cache_point(ttl=None) -> dict:
    return {"providerOptions": {"bedrock": {"cachePoint": {"type": "default", **({"ttl": ttl} if ttl else {})}}}}


def test_cache_control_becomes_the_providers_cache_point_after_the_system_block_text_and_tool_result(shim):
    system = [{"type": "text", "text": "Be brief.", "cache_control": CACHE_1H}, {"type": "text", "text": "Quote."}]
    opening = {"role": "user", "content": [{"type": "text", "text": "Read /tmp/a", "cache_control": CACHE_5M}]}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "42 lines",
                                           "cache_control": {"type": "ephemeral", "ttl": "5m"}}]}
    (hello, *_), (first, second) = shim(
        [turn([opening], system=system), turn([result], system=system)],
        [{"parts": [*CALL, FINISH], "messages": [ASSISTANT]}, {"parts": [FINISH], "messages": []}])
    assert "cache_points" in hello[0]["capabilities"]
    assert first["system"] == [{"role": "system", "content": "Be brief.", **cache_point("1h")},
                               {"role": "system", "content": "Quote."}]
    assert first["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Read /tmp/a", **cache_point()}]}]
    assert second["messages"][-1] == {"role": "tool", "content": [
        {"type": "tool-result", "toolCallId": "tu_1", "toolName": "read_file",
         "output": {"type": "text", "value": "42 lines"}, **cache_point("5m")}]}


def test_a_documents_title_is_the_file_parts_filename(shim):
    document = {"type": "document", "title": "release-notes",
                "source": {"type": "base64", "media_type": "text/plain", "data": "LSBh"}}
    _, (call,) = shim([turn([{"role": "user", "content": [document]}])], [{"parts": [], "messages": []}])
    assert call["messages"][0]["content"] == [
        {"type": "file", "mediaType": "text/plain", "data": "LSBh", "filename": "release-notes"}]


def test_a_document_with_citations_enabled_asks_for_them_in_the_file_parts_options_beside_its_cache_point(shim):
    document = {"type": "document", "title": "Returns policy", "citations": {"enabled": True},
                "cache_control": {"type": "ephemeral"},
                "source": {"type": "text", "media_type": "text/plain", "data": "Thirty days."}}
    (hello, _), (call,) = shim([turn([{"role": "user", "content": [{"type": "text", "text": "How long?"}, document]}])],
                               [{"parts": [], "messages": []}])
    assert "citations" in hello[0]["capabilities"]
    (_, part) = call["messages"][0]["content"]
    assert bytes(part.pop("data").values()) == b"Thirty days."  # a plain-text source goes as its bytes
    assert part == {"type": "file", "mediaType": "text/plain", "filename": "Returns policy", "providerOptions": {
        "bedrock": {"citations": {"enabled": True}, "cachePoint": {"type": "default"}}}}


def test_a_release_that_sends_no_citations_for_a_file_part_declares_none(shim):
    """The probe's command (posted to the probe's own fetch) holds no document citations: 3.0.0's file parts have
    no citations option."""
    (hello,), _ = shim([], [], FAKE_AI_SDK_NO_CITATIONS="1")
    assert "citations" not in hello[0]["capabilities"] and "response_metadata" in hello[0]["capabilities"]


def test_search_results_in_a_tool_result_go_as_their_json_text(shim):
    found = {"type": "search_result", "source": "https://docs.example.com/returns", "title": "Returns policy",
             "content": [{"type": "text", "text": "Thirty days."}], "citations": {"enabled": True}}
    opening = [{"role": "user", "content": "Hi"},
               {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_9", "name": "read_file", "input": {}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_9", "content": [found]}]}]
    _, (call,) = shim([turn(opening)], [{"parts": [], "messages": []}])
    (text,) = call["messages"][2]["content"][0]["output"]["value"]
    assert text["type"] == "text" and json.loads(text["text"]) == found


def test_media_in_a_tool_result_go_as_file_parts_of_a_content_output(shim):
    document = {"type": "document", "title": "spec", "source": {"type": "base64", "media_type": "application/pdf",
                                                                "data": "JVBE"}}
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}
    opening = [{"role": "user", "content": "Hi"},
               {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_9", "name": "read_file", "input": {}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_9",
                                             "content": [{"type": "text", "text": "a"}, image, document]}]}]
    (hello, _), (call,) = shim([turn(opening)], [{"parts": [], "messages": []}])
    assert "tool_result_media" in hello[0]["capabilities"]
    assert call["messages"][2]["content"][0]["output"] == {"type": "content", "value": [
        {"type": "text", "text": "a"}, {"type": "file", "mediaType": "image/png", "data": {"type": "data", "data": "iVBO"}},
        {"type": "file", "mediaType": "application/pdf", "data": {"type": "data", "data": "JVBE"}, "filename": "spec"}]}


def test_under_ai_6_media_in_a_tool_result_are_its_image_data_and_file_data_parts(shim):
    _, (call,) = shim([turn(MEDIA_RESULT_OPENING)], [{"parts": [], "messages": []}], FAKE_AI_SDK_SPEC="v3")
    assert call["messages"][2]["content"][0]["output"]["value"] == [
        {"type": "image-data", "data": "iVBO", "mediaType": "image/png"},
        {"type": "file-data", "data": "JVBE", "mediaType": "application/pdf", "filename": "spec"}]


def test_an_output_format_is_the_sdks_output_object_and_a_strict_tool_stays_strict(shim):
    fmt = {"type": "json_schema", "name": "answer", "description": "The answer.", "schema": {"type": "object"}}
    strict = [{**js_shim.TOOLS[0], "strict": True}]
    (hello, _), (call,) = shim([turn([{"role": "user", "content": "Hi"}], options={**OPTIONS, "output_format": fmt},
                                     tools=strict)], [{"parts": [], "messages": []}])
    assert "structured_output" in hello[0]["capabilities"]
    assert call["output"] == {"object": {"schema": {"jsonSchema": {"type": "object"}, "fake": True}, "name": "answer",
                                         "description": "The answer."}}
    assert call["tools"]["read_file"]["strict"] is True


def test_the_service_tier_and_latency_go_in_the_providers_options(shim):
    served = turn([{"role": "user", "content": "Hi"}], options={"max_tokens": 9, "service_tier": "flex",
                                                                "latency": "optimized"})
    (hello, _), (call,) = shim([served], [{"parts": [], "messages": []}])
    assert "service_tier" in hello[0]["capabilities"]
    assert call["providerOptions"] == {"bedrock": {"serviceTier": "flex", "performanceConfig": {"latency": "optimized"}}}


SERVED = {"bedrock": {"usage": {"cacheWriteInputTokens": 6},
                      "trace": {"promptRouter": {"invokedModelId": "arn:aws:bedrock:us-east-1:1:inference-profile/h"}},
                      "serviceTier": {"type": "flex"}, "performanceConfig": {"latency": "optimized"}}}


def test_the_metadata_events_invoked_model_tier_and_latency_close_the_turn_after_usage(shim):
    step = {"type": "finish-step", "finishReason": "stop", "providerMetadata": SERVED}
    (hello, answer), _ = shim([turn([{"role": "user", "content": "Hi"}])],
                              [{"parts": [{"type": "text-delta", "id": "0", "text": "Paris."}, step, FINISH],
                                "messages": []}])
    assert "response_metadata" in hello[0]["capabilities"]
    assert chunks(answer)[1:4] == [{"type": "stop", "reason": "tool_use"}, USAGE_CHUNK, {
        "type": "metadata", "invoked_model_id": "arn:aws:bedrock:us-east-1:1:inference-profile/h",
        "service_tier": "flex", "latency": "optimized"}]


def test_a_finish_whose_metadata_says_nothing_of_how_it_was_served_gives_no_metadata_chunk(shim):
    step = {"type": "finish-step", "finishReason": "stop", "providerMetadata": {"bedrock": {"usage": {}}}}
    (_, answer), _ = shim([turn([{"role": "user", "content": "Hi"}])], [{"parts": [step, FINISH], "messages": []}])
    assert [chunk["type"] for chunk in chunks(answer)] == ["stop", "usage", "message"]


def test_a_release_whose_finish_part_keeps_only_the_trace_declares_no_response_metadata(shim):
    """The probe streams an answer through the provider's own fetch: a provider keeping the trace alone (4.0.0) in
    its finish part's providerMetadata does not carry the tier and latency."""
    (hello,), _ = shim([], [], FAKE_AI_SDK_TRACE_ONLY="1")
    assert "response_metadata" not in hello[0]["capabilities"] and "service_tier" in hello[0]["capabilities"]


def test_the_guardrail_goes_in_the_providers_options_without_its_stream_mode_for_generate_text(shim):
    guarded = turn([{"role": "user", "content": "Hi"}], non_streaming=True, options={"max_tokens": 9, "guardrail": {
        "identifier": "grd1", "version": "1", "trace": "enabled", "stream_processing_mode": "async"}})
    (hello, _), (streamed, whole) = shim([guarded], [{"parts": [], "messages": [], "generate": {"messages": []}}])
    assert "guardrail" in hello[0]["capabilities"]
    config = {"guardrailIdentifier": "grd1", "guardrailVersion": "1", "trace": "enabled"}
    assert streamed["providerOptions"]["bedrock"]["guardrailConfig"] == {**config, "streamProcessingMode": "async"}
    assert whole["kind"] == "generateText" and whole["providerOptions"]["bedrock"]["guardrailConfig"] == config


def test_the_older_lines_take_the_system_blocks_as_one_string_and_declare_no_cache_points(shim):
    system = [{"type": "text", "text": "Be brief.", "cache_control": CACHE_1H}, {"type": "text", "text": "Quote."}]
    (hello, _), (call,) = shim([turn([{"role": "user", "content": "Hi"}], system=system)],
                               [{"parts": [], "messages": []}], FAKE_AI_SDK_OLD="1")
    assert "cache_points" not in hello[0]["capabilities"] and call["system"] == "Be brief.\nQuote."


# ai 4 (the @ai-sdk/amazon-bedrock 2.x line): its stream parts and CoreMessage shapes
OLD = {"FAKE_AI_SDK_OLD": "1"}
OLD_ASSISTANT = {"role": "assistant", "content": [
    {"type": "reasoning", "text": "Think.", "signature": "c2ln"}, {"type": "redacted-reasoning", "data": "cmVk"},
    {"type": "tool-call", "toolCallId": "tu_1", "toolName": "read_file", "args": {"path": "/tmp/a"}}]}
OLD_PARTS = [{"type": "reasoning", "textDelta": "Think."}, {"type": "reasoning-signature", "signature": "c2ln"},
             {"type": "redacted-reasoning", "data": "cmVk"}, {"type": "text-delta", "textDelta": "Reading."},
             {"type": "tool-call-streaming-start", "toolCallId": "tu_1", "toolName": "read_file"},
             {"type": "tool-call-delta", "toolCallId": "tu_1", "toolName": "read_file", "argsTextDelta": '{"path": '},
             {"type": "tool-call-delta", "toolCallId": "tu_1", "toolName": "read_file", "argsTextDelta": '"/tmp/a"}'},
             {"type": "tool-call", "toolCallId": "tu_1", "toolName": "read_file", "args": {"path": "/tmp/a"}},
             {"type": "step-finish", "finishReason": "tool-calls",
              "providerMetadata": {"bedrock": {"usage": {"cacheReadInputTokens": 4, "cacheWriteInputTokens": 6}}}},
             {"type": "finish", "finishReason": "tool-calls", "usage": {"promptTokens": 30, "completionTokens": 7}}]


def test_ai_4_declares_bedrocks_own_input_tokens_and_its_per_call_message_ids(shim):
    (hello,), _ = shim([], [], **OLD)
    assert "usage_input_includes_cache" not in hello[0]["capabilities"]
    assert set(hello[0]["native_differences"]) == {"[*].id"}


def test_ai_4_stream_parts_map_to_chunks_as_they_are(shim):
    (_, answer), (call,) = shim([turn([{"role": "user", "content": "Read /tmp/a"}])],
                                [{"parts": OLD_PARTS, "messages": [OLD_ASSISTANT]}], **OLD)
    assert call["toolCallStreaming"] is True  # else ai 4 streams no tool input parts
    assert chunks(answer) == [
        {"type": "reasoning", "index": None, "text": "Think."}, {"type": "reasoning", "index": None, "signature": "c2ln"},
        {"type": "redacted_reasoning", "index": None, "data": "cmVk"}, {"type": "text", "index": None, "text": "Reading."},
        *CALL_CHUNKS,
        {"type": "stop", "reason": "tool-calls"},
        USAGE_CHUNK,
        {"type": "message", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Think.", "signature": "c2ln"}, {"type": "redacted_thinking", "data": "cmVk"},
            {"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "/tmp/a"}}]}}]


def test_ai_4_history_takes_its_message_shapes(shim):
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "42 lines",
                                           "is_error": True}]}
    _, (first, second) = shim([turn(OPENING), turn([result])],
                              [{"parts": OLD_PARTS, "messages": [OLD_ASSISTANT]}, {"parts": [], "messages": []}], **OLD)
    assert first["messages"][1:] == [
        {"role": "assistant", "content": [
            {"type": "reasoning", "text": "T", "signature": "c2ln"}, {"type": "redacted-reasoning", "data": "cmVk"},
            {"type": "tool-call", "toolCallId": "tu_9", "toolName": "read_file", "args": {}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "tu_9", "toolName": "read_file",
                                      "result": [1]}]},
        {"role": "user", "content": [{"type": "text", "text": "and?"}]}]
    assert second["messages"][len(OPENING) + 1:] == [OLD_ASSISTANT, {"role": "tool", "content": [
        {"type": "tool-result", "toolCallId": "tu_1", "toolName": "read_file", "result": "42 lines", "isError": True}]}]


def test_ai_4_tool_results_with_parts_go_as_experimental_content(shim):
    opening = [{"role": "user", "content": "Hi"},
               {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_9", "name": "look", "input": {}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_9", "content": [
                   {"type": "text", "text": "a"},
                   {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}]}]}]
    _, (call,) = shim([turn(opening)], [{"parts": [], "messages": []}], **OLD)
    (result,) = call["messages"][2]["content"]
    assert result["experimental_content"] == [{"type": "text", "text": "a"},
                                              {"type": "image", "data": "iVBO", "mimeType": "image/png"}]


def test_the_probes_event_stream_frames_carry_bedrocks_prelude_and_crcs():
    """eventstream.mjs (the probe's answer): each message's lengths and CRC32s as bedrock-wire.md §4 frames them, the
    CRC computed here where Node has no zlib.crc32 (before 20.15) equal to zlib's."""
    import subprocess
    import zlib

    from harness.adapters.js.launch import shipped

    script = (f"const m = await import({json.dumps(shipped('eventstream.mjs').as_uri())});"
              "const bytes = Buffer.from('bedrock-harness probe');"
              "process.stdout.write(JSON.stringify({frame: m.frame('metadata', {usage: {inputTokens: 1}}).toString('base64'),"
              " table: m.tableCrc32(bytes)}));")
    done = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["table"] == zlib.crc32(b"bedrock-harness probe")
    frame = base64.b64decode(found["frame"])
    total, headers = int.from_bytes(frame[:4], "big"), int.from_bytes(frame[4:8], "big")
    assert total == len(frame) and int.from_bytes(frame[8:12], "big") == zlib.crc32(frame[:8])
    assert int.from_bytes(frame[-4:], "big") == zlib.crc32(frame[:-4])
    assert json.loads(frame[12 + headers:-4]) == {"usage": {"inputTokens": 1}}
    assert b":event-type" in frame[12:12 + headers] and b"metadata" in frame[12:12 + headers]
