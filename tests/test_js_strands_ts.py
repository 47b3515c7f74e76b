"""The strands-ts shim (harness/adapters/js/strands_ts.mjs) driven over the subprocess protocol against a fake of the
Strands TypeScript SDK's public surface (tests/js_fake/strands-ts): the stream events' mapping, the agent loop turn by
turn, an early loop end, the endpoint refusal and the skips, offline. Skipped when ``node`` is absent. The real
package runs in test_js_strands_ts_real.py."""

from __future__ import annotations

import shutil

import pytest

import js_shim
from js_shim import FAKES, NODE, TOOLS, chunks, needs_node, runner

from harness.adapters.js.strands_ts import MODULES_ENV, shim_command
from harness.adapters import load_adapter

pytestmark = needs_node("strands-ts")
OPTIONS = {"max_tokens": 512, "thinking_budget": 1024, "temperature": 0.5}
OPENING = [{"role": "user", "content": "Hi."}, {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]},
           {"role": "user", "content": [{"type": "text", "text": "Read /tmp/a."}]}]
START = {"type": "modelContentBlockStartEvent"}
STOP_BLOCK = {"type": "modelContentBlockStopEvent"}
CALL_EVENTS = [
    {"type": "modelMessageStartEvent", "role": "assistant"},
    START, {"type": "modelContentBlockDeltaEvent", "delta": {"type": "reasoningContentDelta", "text": "Think."}},
    {"type": "modelContentBlockDeltaEvent", "delta": {"type": "reasoningContentDelta", "signature": "c2ln"}}, STOP_BLOCK,
    {"type": "modelContentBlockStartEvent", "start": {"type": "toolUseStart", "name": "read_file", "toolUseId": "tu_1"}},
    {"type": "modelContentBlockDeltaEvent", "delta": {"type": "toolUseInputDelta", "input": '{"path": '}},
    {"type": "modelContentBlockDeltaEvent", "delta": {"type": "toolUseInputDelta", "input": '"/tmp/a"}'}}, STOP_BLOCK,
    {"type": "modelMessageStopEvent", "stopReason": "toolUse"},
    {"type": "modelMetadataEvent", "usage": {"inputTokens": 30, "outputTokens": 7, "totalTokens": 37,
                                             "cacheReadInputTokens": 4, "cacheWriteInputTokens": 6}}]
CALL_MESSAGE = {"role": "assistant", "content": [
    {"reasoning": {"text": "Think.", "signature": "c2ln"}},
    {"toolUse": {"name": "read_file", "toolUseId": "tu_1", "input": {"path": "/tmp/a"}, "reasoningSignature": "x"}}]}
TOOL_CALL = {"events": CALL_EVENTS, "message": CALL_MESSAGE, "stopReason": "toolUse"}
ANSWER = {"events": [START, {"type": "modelContentBlockDeltaEvent", "delta": {"type": "textDelta", "text": "Done."}},
                     STOP_BLOCK, {"type": "modelMessageStopEvent", "stopReason": "endTurn"}],
          "message": {"role": "assistant", "content": [{"text": "Done."}]}, "stopReason": "endTurn"}
RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "a's text"}]}


@pytest.fixture
def shim(tmp_path, monkeypatch):
    """run(turns, calls) -> (each turn's answer lines, the fake's logged model calls): the shim on a copy of the
    fake."""
    monkeypatch.delenv(MODULES_ENV, raising=False)
    run_shim = runner(tmp_path, "strands-ts", "FAKE_STRANDS", lambda folder: shim_command(folder, NODE))

    def run(turns: list[dict], calls: list[dict], **extra: str) -> tuple[list[list[dict]], list[dict]]:
        return run_shim(turns, calls, env=extra)
    return run


def turn(messages, conversation="s", options=OPTIONS, **extra) -> dict:
    return js_shim.turn(messages, options, conversation, **extra)


def test_hello_names_the_release_and_declares_conversation_mode_without_parity(shim):
    (hello,), _ = shim([], [])
    assert hello[0]["name"] == "strands-ts" and hello[0]["version"] == "9.9.9-fake"
    assert "own_history" in hello[0]["capabilities"] and "non_streaming" not in hello[0]["capabilities"]


def test_stream_events_map_to_chunks_as_they_are_and_the_agents_message_closes_the_call(shim):
    (_, first), _ = shim([turn(OPENING)], [TOOL_CALL])
    assert chunks(first) == [
        {"type": "reasoning", "index": 0, "text": "Think."}, {"type": "reasoning", "index": 0, "signature": "c2ln"},
        {"type": "tool_call", "index": 1, "id": "tu_1", "name": "read_file", "input_delta": ""},
        {"type": "tool_call", "index": 1, "input_delta": '{"path": '},
        {"type": "tool_call", "index": 1, "input_delta": '"/tmp/a"}'},
        {"type": "stop", "reason": "tool_use"},
        {"type": "usage", "input_tokens": 30, "output_tokens": 7, "cache_read_input_tokens": 4,
         "cache_write_input_tokens": 6},
        {"type": "message", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Think.", "signature": "c2ln"},
            {"type": "tool_use", "name": "read_file", "id": "tu_1", "input": {"path": "/tmp/a"},
             "reasoningSignature": "x"}]}}]


def test_redacted_reasoning_goes_out_as_base64_and_a_mixed_block_as_the_sdk_holds_it(shim):
    redacted = {"type": "modelContentBlockDeltaEvent",
                "delta": {"type": "reasoningContentDelta", "redactedContent": "AAE="}}
    mixed = {"reasoning": {"text": "t", "redactedContent": "AAE="}}
    call = {"events": [START, redacted], "message": {"content": [{"reasoning": {"redactedContent": "AAE="}}, mixed]},
            "stopReason": "endTurn"}
    (_, first), _ = shim([turn(OPENING)], [call])
    assert chunks(first)[0] == {"type": "redacted_reasoning", "index": 0, "data": "AAE="}
    (message,) = [c["message"] for c in chunks(first) if c["type"] == "message"]
    assert message["content"] == [{"type": "redacted_thinking", "data": "AAE="}, mixed]


def test_the_agent_gets_the_loopback_model_the_opening_the_prompt_and_one_tool_per_scenario_tool(shim):
    _, (call,) = shim([turn(OPENING)], [ANSWER])
    model = call["model"]
    assert model["modelId"] == "us.anthropic.claude-sonnet-4-20250514-v1:0" and model["region"] == "us-east-1"
    assert model["maxTokens"] == 512 and "temperature" not in model  # thinking on: the temperature stays unset
    assert model["additionalRequestFields"] == {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    assert model["clientConfig"]["endpoint"] == "http://127.0.0.1:9"
    assert model["clientConfig"]["credentials"] == {"accessKeyId": "AKIAFAKE", "secretAccessKey": "fake"}
    assert call["options"] == {"systemPrompt": "Be brief.", "printer": False, "retryStrategy": None}
    assert call["tools"] == [{"name": "read_file", "description": "Read a file.", "toolSpec": {
        "name": "read_file", "description": "Read a file.", "inputSchema": TOOLS[0]["input_schema"]}}]
    assert call["messages"] == [{"role": "user", "content": [{"text": "Hi."}]},
                                {"role": "assistant", "content": [{"text": "Hello."}]},
                                {"role": "user", "content": [{"text": "Read /tmp/a."}]}]


def test_the_next_turns_results_answer_the_tools_and_the_loop_makes_the_next_call(shim):
    error = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "is_error": True,
                                          "content": [{"type": "text", "text": "no such file"}]}]}
    (_, first, second), (_, follow_up) = shim([turn(OPENING), turn([error])], [TOOL_CALL, ANSWER])
    assert chunks(first)[-1]["type"] == "message"
    assert chunks(second) == [{"type": "text", "index": 0, "text": "Done."}, {"type": "stop", "reason": "end_turn"},
                              {"type": "message", "message": {"role": "assistant",
                                                              "content": [{"type": "text", "text": "Done."}]}}]
    assert follow_up["messages"][-1] == {"role": "user", "content": [{"toolResult": {
        "toolUseId": "tu_1", "status": "error", "content": [{"text": "no such file"}]}}]}


def cache_point(ttl=None) -> dict:
    return {"cachePoint": {"cacheType": "default", **({"ttl": ttl} if ttl else {})}}


def test_cache_control_becomes_cache_point_blocks_the_tools_cache_config_and_the_results_point_by_hook(shim):
    system = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    tools = [{**TOOLS[0], "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    opening = [{"role": "user", "content": [{"type": "text", "text": "Read /tmp/a.", "cache_control": {"type": "ephemeral"}}]}]
    cached = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "a's text",
                                           "cache_control": {"type": "ephemeral", "ttl": "5m"}}]}
    (hello, *_), (first, follow_up) = shim([turn(opening, system=system, tools=tools),
                                            turn([cached], system=system, tools=tools)], [TOOL_CALL, ANSWER])
    assert "cache_points" in hello[0]["capabilities"]
    assert first["options"]["systemPrompt"] == [{"text": "Be brief."}, cache_point("1h")]
    assert first["model"]["cacheConfig"] == {"strategy": "auto", "toolsTTL": "1h", "systemPromptTTL": False,
                                             "messagesTTL": False}
    assert first["messages"] == [{"role": "user", "content": [{"text": "Read /tmp/a."}, cache_point()]}]
    assert follow_up["messages"][-1] == {"role": "user", "content": [{"toolResult": {
        "toolUseId": "tu_1", "status": "success", "content": [{"text": "a's text"}]}}, cache_point("5m")]}


def test_a_document_is_the_sdks_document_data_named_by_its_title(shim):
    document = {"type": "document", "title": "notes", "source": {"type": "base64", "media_type": "text/plain",
                                                                 "data": "LSBh"}}
    _, (call,) = shim([turn([{"role": "user", "content": [document]}])], [ANSWER])
    assert call["messages"] == [{"role": "user", "content": [
        {"document": {"name": "notes", "format": "txt", "source": {"bytes": "LSBh"}}}]}]


def test_media_in_a_tool_result_go_in_its_tool_result_block(shim):
    media = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
        {"type": "document", "title": "spec", "source": {"type": "base64", "media_type": "application/pdf",
                                                         "data": "JVBE"}}]}]}
    (hello, *_), (_, follow_up) = shim([turn(OPENING), turn([media])], [TOOL_CALL, ANSWER])
    assert "tool_result_media" in hello[0]["capabilities"]
    assert follow_up["messages"][-1]["content"][0]["toolResult"]["content"] == [
        {"image": {"format": "png", "source": {"bytes": "iVBO"}}},
        {"document": {"name": "spec", "format": "pdf", "source": {"bytes": "JVBE"}}}]


def test_the_guardrail_is_the_models_guardrail_config(shim):
    options = {**OPTIONS, "guardrail": {"identifier": "grd1", "version": "1", "trace": "enabled",
                                        "stream_processing_mode": "async"}}
    (hello, _), (call,) = shim([turn(OPENING, options=options)], [ANSWER])
    assert "guardrail" in hello[0]["capabilities"]
    assert call["model"]["guardrailConfig"] == {"guardrailIdentifier": "grd1", "guardrailVersion": "1",
                                                "trace": "enabled", "streamProcessingMode": "async"}


def test_the_0_1_surface_is_driven_by_feature_detection(shim):
    """0.1 has no Tool class and no ToolResultBlock.fromJSON, wraps model events as modelStreamEventHook and reports
    the message only on afterModelCallEvent: the same chunks and the same results come out."""
    (_, first, second), (_, follow_up) = shim([turn(OPENING), turn([RESULT])], [TOOL_CALL, ANSWER], FAKE_STRANDS_OLD="1")
    assert [c["type"] for c in chunks(first)] == ["reasoning"] * 2 + ["tool_call"] * 3 + ["stop", "usage", "message"]
    assert [c["type"] for c in chunks(second)] == ["text", "stop", "message"]
    assert follow_up["messages"][-1] == {"role": "user", "content": [{"toolResult": {
        "toolUseId": "tu_1", "status": "success", "content": [{"text": "a's text"}]}}]}


def test_results_for_a_loop_that_already_ended_are_an_agent_loop_ended_error(shim):
    early = {**TOOL_CALL, "events": CALL_EVENTS[:-2] + [{"type": "modelMessageStopEvent", "stopReason": "endTurn"}],
             "stopReason": "endTurn"}
    (_, first, second), calls = shim([turn(OPENING), turn([RESULT])], [early, ANSWER])
    assert {"type": "stop", "reason": "end_turn"} in chunks(first) and len(calls) == 1
    (error,) = chunks(second)
    assert error["type"] == "error" and error["code"] == "agent_loop_ended"


def test_a_cut_stream_reports_the_stop_reason_the_agent_ended_with(shim):
    cut = {**ANSWER, "events": ANSWER["events"][:-1]}
    (_, first), _ = shim([turn(OPENING)], [cut])
    assert chunks(first)[-1] == {"type": "stop", "reason": "end_turn"}


def test_a_request_to_another_host_is_refused_before_it_is_sent(shim):
    foreign = {**ANSWER, "url": "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream"}
    (_, first), _ = shim([turn(OPENING)], [foreign])
    (error,) = chunks(first)
    assert error["code"] == "EndpointRefused" and "bedrock-runtime.us-east-1.amazonaws.com" in error["message"]


def test_the_loopback_endpoint_itself_is_let_through(shim):
    (_, first), _ = shim([turn(OPENING)], [{**ANSWER, "url": "http://127.0.0.1:9/model/m/converse-stream"}])
    assert [c["type"] for c in chunks(first)] == ["text", "stop", "message"]


def test_a_wrapped_service_exception_keeps_bedrocks_code(shim):
    thrown = {"name": "ModelError", "message": "The model stream was interrupted.",
              "cause": {"name": "ModelStreamErrorException", "message": "interrupted", "$fault": "server"}}
    (_, first), _ = shim([turn(OPENING)], [{**ANSWER, "events": ANSWER["events"][:2], "throw": thrown}])
    text, error = chunks(first)
    assert text["text"] == "Done." and (error["code"], error["message"]) == ("ModelStreamErrorException", "interrupted")


def test_an_opening_ending_in_tool_results_is_all_history(shim):
    opening = [*OPENING, {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_0", "name": "read_file",
                                                            "input": {"path": "/tmp/z"}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_0",
                                             "content": [{"type": "json", "json": {"n": 1}}]}]}]
    _, (call,) = shim([turn(opening)], [ANSWER])
    assert call["messages"][-2:] == [
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tu_0", "name": "read_file",
                                                       "input": {"path": "/tmp/z"}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "tu_0", "status": "success",
                                                     "content": [{"json": {"n": 1}}]}}]}]


def test_a_forced_tool_choice_and_user_content_between_calls_are_skips(shim):
    (_, forced), _ = shim([turn(OPENING, options={**OPTIONS, "tool_choice": "any"})], [])
    assert forced[0]["type"] == "skip" and "tool_choice" in forced[0]["reason"]
    (_, _, between), _ = shim([turn(OPENING), turn([{"role": "user", "content": "And?"}])], [TOOL_CALL])
    assert between[0]["type"] == "skip" and "user content" in between[0]["reason"]


def test_strands_ts_resolves_to_the_shim_on_the_folder_the_environment_names(tmp_path, monkeypatch):
    folder = tmp_path / "modules"
    shutil.copytree(FAKES / "strands-ts", folder)
    shim_command(folder, NODE)  # puts the shipped entry module beside the packages
    monkeypatch.setenv(MODULES_ENV, str(folder))
    adapter = load_adapter("strands-ts", timeout=12.0)
    try:
        assert (adapter.name, adapter.version, adapter.timeout) == ("strands-ts", "9.9.9-fake", 12.0)
        assert adapter.packages == {"@strands-agents/sdk": "9.9.9-fake"}  # what its reports name
        assert adapter.argv[1].endswith("strands_ts.mjs")
    finally:
        adapter.close()


CITATION = {"location": {"type": "documentChar", "documentIndex": 0, "start": 0, "end": 11}, "source": "",
            "title": "Returns policy", "sourceContent": [{"text": "Thirty days."}]}
BEDROCK_CITATION = {"location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 11}}, "source": "",
                    "title": "Returns policy", "sourceContent": [{"text": "Thirty days."}]}


def text(delta: str) -> dict:
    return {"type": "modelContentBlockDeltaEvent", "delta": {"type": "textDelta", "text": delta}}


def test_a_citation_delta_is_a_citation_chunk_in_bedrocks_shape_and_the_cited_block_a_text_with_citations(shim):
    cited = {"events": [text("Per the policy, "), STOP_BLOCK,
                        {"type": "modelContentBlockDeltaEvent", "delta": {"type": "citationsDelta",
                                                                          "citations": [CITATION], "content": []}},
                        text("thirty days."), STOP_BLOCK, {"type": "modelMessageStopEvent", "stopReason": "endTurn"}],
             "message": {"role": "assistant", "content": [{"text": "Per the policy, "}, {"citations": {
                 "citations": [{**CITATION, "location": {"type": "searchResult", "searchResultIndex": 1, "start": 0,
                                                         "end": 0}}],
                 "content": [{"text": "thirty days."}]}}]}, "stopReason": "endTurn"}
    (hello, answer), _ = shim([turn([{"role": "user", "content": "How long?"}])], [cited])
    assert "citations" in hello[0]["capabilities"]
    assert chunks(answer)[:3] == [{"type": "text", "index": -1, "text": "Per the policy, "},
                                  {"type": "citation", "index": -1, "citation": BEDROCK_CITATION},
                                  {"type": "text", "index": -1, "text": "thirty days."}]
    assert chunks(answer)[-1]["message"]["content"] == [{"type": "text", "text": "Per the policy, "}, {
        "type": "text", "text": "thirty days.", "citations": [{**BEDROCK_CITATION, "location": {
            "searchResultLocation": {"searchResultIndex": 1, "start": 0, "end": 0}}}]}]


def test_a_document_goes_as_document_block_data_with_its_text_source_and_citations_setting(shim):
    document = {"type": "document", "title": "Returns policy", "citations": {"enabled": True},
                "source": {"type": "text", "media_type": "text/plain", "data": "Thirty days."}}
    _, (call,) = shim([turn([{"role": "user", "content": [{"type": "text", "text": "How long?"}, document]}])],
                      [ANSWER])
    assert call["messages"][0]["content"][1] == {"document": {"name": "Returns policy", "format": "txt",
                                                              "source": {"text": "Thirty days."},
                                                              "citations": {"enabled": True}}}


def test_a_release_without_citations_blocks_declares_no_citations(shim):
    (hello,), _ = shim([], [], FAKE_STRANDS_OLD="1")
    assert "citations" not in hello[0]["capabilities"]
