"""The cline shim (harness/adapters/js/cline.mjs) driven over the subprocess protocol against a fake of @cline/llms's
gateway surface (tests/js_fake/cline): the gateway and request it builds, the AgentModelEvents' mapping, the
runtime's assembly of the assistant message and the history it keeps, the endpoint refusal and the skips, offline.
Skipped when ``node`` is absent. The real package runs in test_js_cline_real.py."""

from __future__ import annotations

import shutil

import pytest

import js_shim
from js_shim import ENDPOINT, FAKES, MEDIA_RESULT_OPENING, MODEL, NODE, TOOLS, chunks, needs_node, runner

from harness.adapters import load_adapter
from harness.adapters.registry import AdapterLoadError
from harness.adapters.js.cline import MODULES_ENV, shim_command

pytestmark = needs_node("cline")
OPTIONS = {"max_tokens": 512, "temperature": 0.5, "thinking_budget": 1024}
OPENING = [{"role": "user", "content": "Hi."}, {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]},
           {"role": "user", "content": [{"type": "text", "text": "Read /tmp/a."}]}]
CALL = {"events": [
    {"type": "reasoning-delta", "text": "Think"}, {"type": "reasoning-delta", "text": "ing."},
    {"type": "text-delta", "text": "Let me "}, {"type": "text-delta", "text": "look."},
    {"type": "tool-call-delta", "toolCallId": "tu_1", "toolName": "read_file", "input": {"path": "/tmp/a"},
     "inputText": '{"path":"/tmp/a"}'},
    {"type": "usage", "usage": {"inputTokens": 30, "outputTokens": 7, "cacheReadTokens": 4, "cacheWriteTokens": 6}},
    {"type": "finish", "reason": "tool-calls"}]}
ANSWER = {"events": [{"type": "text-delta", "text": "Done."}, {"type": "finish", "reason": "stop"}]}
RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "a's text"}]}


@pytest.fixture
def shim(tmp_path, monkeypatch):
    """run(turns, calls) -> (each turn's answer lines, the fake's logged stream calls): the shim on a copy of the
    fake."""
    monkeypatch.delenv(MODULES_ENV, raising=False)
    return runner(tmp_path, "cline", "FAKE_CLINE", lambda folder: shim_command(folder, NODE))


def turn(messages, conversation="s", options=OPTIONS, **extra) -> dict:
    return js_shim.turn(messages, options, conversation, **extra)


def test_hello_names_the_release_declares_conversation_mode_and_cites_its_own_cache_point(shim):
    (hello,), _ = shim([], [])
    assert hello[0]["name"] == "cline" and hello[0]["version"] == "9.9.9-fake"
    declared = set(hello[0]["capabilities"])
    assert {"own_history", "usage_input_includes_cache", "reasoning_signature", "tool_result_media"} <= declared
    assert not declared & {"cache_points", "non_streaming", "structured_output", "service_tier", "guardrail"}
    assert "applyBedrockCachePointToLastUserMessage" in hello[0]["vocabulary"]["cache-points-as-asked"]


def test_the_gateway_is_bedrock_on_the_loopback_with_the_turns_credentials_and_the_request_the_runtimes(shim):
    system = [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Use tools.", "cache_control": {}}]
    _, (call,) = shim([turn(OPENING, system=system)], [ANSWER])
    assert call["provider"] == {"providerId": "bedrock", "baseUrl": ENDPOINT["endpoint_url"], "options": {
        "region": "us-east-1", "accessKeyId": "AKIAFAKE", "secretAccessKey": "fake"},
        "models": [{"id": MODEL, "name": MODEL, "capabilities": ["text", "tools", "reasoning"]}]}
    assert call["selection"] == {"providerId": "bedrock", "modelId": MODEL}
    request = call["request"]
    assert request["systemPrompt"] == "Be brief.\nUse tools."  # GatewayStreamRequest.systemPrompt is one string
    assert request["tools"] == [{"name": "read_file", "description": "Read a file.",
                                 "inputSchema": TOOLS[0]["input_schema"]}]
    assert request["options"] == {"maxTokens": 512, "temperature": 0.5, "thinking": True, "thinkingBudgetTokens": 1024}
    assert [(m["role"], m["content"]) for m in request["messages"]] == [
        ("user", [{"type": "text", "text": "Hi."}]), ("assistant", [{"type": "text", "text": "Hello."}]),
        ("user", [{"type": "text", "text": "Read /tmp/a."}])]


def test_a_model_without_thinking_or_tools_is_declared_with_text_only(shim):
    _, (call,) = shim([{**turn(OPENING, options={"max_tokens": 64}), "tools": []}], [ANSWER])
    assert call["provider"]["models"][0]["capabilities"] == ["text"]
    assert call["request"]["options"] == {"maxTokens": 64}


def test_events_map_to_chunks_as_they_are_and_the_runtimes_assembly_closes_the_turn(shim):
    (_, first), _ = shim([turn(OPENING)], [CALL])
    assert chunks(first) == [
        {"type": "reasoning", "index": None, "text": "Think"}, {"type": "reasoning", "index": None, "text": "ing."},
        {"type": "text", "index": None, "text": "Let me "}, {"type": "text", "index": None, "text": "look."},
        {"type": "tool_call", "id": "tu_1", "name": "read_file", "input": {"path": "/tmp/a"}},
        {"type": "usage", "input_tokens": 30, "output_tokens": 7, "cache_read_input_tokens": 4,
         "cache_write_input_tokens": 6},
        {"type": "stop", "reason": "tool_use"},
        {"type": "message", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Thinking."}, {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "/tmp/a"}}]}}]


def test_the_next_turn_sends_the_assembled_message_and_one_tool_message_per_result(shim):
    two = [{**CALL, "events": [*CALL["events"][4:5],
                               {"type": "tool-call-delta", "toolCallId": "tu_2", "toolName": "read_file",
                                "inputText": '{"path":"/tmp/b"}'}, {"type": "finish", "reason": "tool-calls"}]}, ANSWER]
    results = {"role": "user", "content": [*RESULT["content"], {"type": "tool_result", "tool_use_id": "tu_2",
                                                                  "content": "failed", "is_error": True}]}
    (_, _, second), (_, call) = shim([turn(OPENING), turn([results])], two)
    assert [c["type"] for c in chunks(second)] == ["text", "stop", "message"]
    assert [(m["role"], m["content"]) for m in call["request"]["messages"][3:]] == [
        ("assistant", [{"type": "tool-call", "toolCallId": "tu_1", "toolName": "read_file", "input": {"path": "/tmp/a"}},
                       {"type": "tool-call", "toolCallId": "tu_2", "toolName": "read_file", "input": {"path": "/tmp/b"}}]),
        ("tool", [{"type": "tool-result", "toolCallId": "tu_1", "toolName": "read_file", "output": "a's text"}]),
        ("tool", [{"type": "tool-result", "toolCallId": "tu_2", "toolName": "read_file", "output": "failed",
                   "isError": True}])]


def test_a_new_conversation_starts_a_fresh_history(shim):
    _, (_, call) = shim([turn(OPENING), turn(OPENING[:1], conversation="t")], [CALL, ANSWER])
    assert [m["role"] for m in call["request"]["messages"]] == ["user"]


def test_a_nameless_call_is_passed_on_as_the_event_gives_it_and_left_out_of_the_message(shim):
    events = [{"type": "tool-call-delta", "toolCallId": "", "toolName": "", "input": {}},
              {"type": "finish", "reason": "tool-calls"}]
    (_, first), _ = shim([turn(OPENING)], [{"events": events}])
    assert chunks(first) == [{"type": "tool_call", "id": "", "name": "", "input": {}},
                             {"type": "stop", "reason": "tool_use"},
                             {"type": "message", "message": {"role": "assistant", "content": []}}]


def test_reasoning_metadata_surfaces_as_its_signature_and_redacted_data(shim):
    events = [{"type": "reasoning-delta", "text": "T.", "metadata": {"signature": "c2ln"}},
              {"type": "text-delta", "text": "x"},
              {"type": "reasoning-delta", "text": "", "redacted": True, "metadata": {"redactedData": "cmVk"}},
              {"type": "finish", "reason": "max-tokens"}]
    (_, first), _ = shim([turn(OPENING)], [{"events": events}])
    assert chunks(first) == [
        {"type": "reasoning", "index": None, "text": "T."}, {"type": "reasoning", "index": None, "signature": "c2ln"},
        {"type": "text", "index": None, "text": "x"},
        {"type": "redacted_reasoning", "index": None, "data": "cmVk"}, {"type": "stop", "reason": "max_tokens"},
        {"type": "message", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "T.", "signature": "c2ln"}, {"type": "text", "text": "x"},
            {"type": "redacted_thinking", "data": "cmVk"}]}}]


def test_an_opening_with_signed_and_redacted_reasoning_is_held_in_the_reasoning_metadata(shim):
    opening = [OPENING[0], {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "T.", "signature": "c2ln"}, {"type": "redacted_thinking", "data": "cmVk"},
        {"type": "tool_use", "id": "tu_0", "name": "read_file", "input": {"path": "/z"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_0",
                                      "content": [{"type": "json", "json": {"n": 1}}]}]}]
    _, (call,) = shim([turn(opening)], [ANSWER])
    assert [(m["role"], m["content"]) for m in call["request"]["messages"][1:]] == [
        ("assistant", [{"type": "reasoning", "text": "T.", "metadata": {"signature": "c2ln"}},
                       {"type": "reasoning", "text": "", "redacted": True, "metadata": {"redactedData": "cmVk"}},
                       {"type": "tool-call", "toolCallId": "tu_0", "toolName": "read_file", "input": {"path": "/z"}}]),
        ("tool", [{"type": "tool-result", "toolCallId": "tu_0", "toolName": "read_file", "output": {"n": 1}}])]


def test_an_image_in_a_tool_result_is_an_image_part_and_a_document_is_a_skip(shim):
    with_image = [*MEDIA_RESULT_OPENING[:2], {"role": "user", "content": [
        {**MEDIA_RESULT_OPENING[2]["content"][0], "content": [{"type": "text", "text": "see"},
                                                              MEDIA_RESULT_OPENING[2]["content"][0]["content"][0]]}]}]
    _, (call,) = shim([turn(with_image)], [ANSWER])
    assert call["request"]["messages"][-1]["content"][0]["output"] == [
        {"type": "text", "text": "see"}, {"type": "image", "data": "iVBO", "mediaType": "image/png"}]
    assert "images" in call["provider"]["models"][0]["capabilities"]
    (_, skipped), _ = shim([turn(MEDIA_RESULT_OPENING)], [])
    assert skipped[0]["type"] == "skip" and "document" in skipped[0]["reason"]


def test_a_forced_tool_choice_and_a_user_document_are_skips(shim):
    (_, forced), _ = shim([turn(OPENING, options={**OPTIONS, "tool_choice": "any"})], [])
    assert forced[0]["type"] == "skip" and "tool choice" in forced[0]["reason"]
    document = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}}
    (_, skipped), _ = shim([turn([{"role": "user", "content": [document]}])], [])
    assert skipped[0]["type"] == "skip" and "AgentFilePart" in skipped[0]["reason"]


def test_a_failed_finish_is_the_error_text_the_gateway_gives_with_no_code(shim):
    failed = {"events": [{"type": "text-delta", "text": "Par"},
                         {"type": "finish", "reason": "error", "error": "Model stream error: interrupted",
                          "errorClass": "unknown", "errorRetryable": True}]}
    (_, first), _ = shim([turn(OPENING)], [failed])
    assert chunks(first) == [{"type": "text", "index": None, "text": "Par"},
                             {"type": "error", "code": None, "message": "Model stream error: interrupted"}]


def test_a_failed_turns_partial_message_stays_in_the_history_as_the_runtime_records_it(shim):
    failed = {"events": [{"type": "text-delta", "text": "Par"}, {"type": "finish", "reason": "error", "error": "x"}]}
    _, (_, call) = shim([turn(OPENING), turn([{"role": "user", "content": "Again."}])], [failed, ANSWER])
    assert [(m["role"], m["content"]) for m in call["request"]["messages"][3:]] == [
        ("assistant", [{"type": "text", "text": "Par"}]), ("user", [{"type": "text", "text": "Again."}])]


def test_a_failure_before_any_content_records_no_message(shim):
    (_, first), _ = shim([turn(OPENING)], [{"throw": {"name": "TypeError", "message": "boom"}}])
    assert chunks(first) == [{"type": "error", "code": None, "message": "TypeError: boom"}]


def test_a_request_to_another_host_is_refused_before_it_is_sent(shim):
    foreign = {**ANSWER, "url": "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream"}
    (_, first), _ = shim([turn(OPENING)], [foreign])
    (error,) = chunks(first)
    assert error["message"].startswith("EndpointRefused: ") and "bedrock-runtime.us-east-1" in error["message"]


def test_cline_resolves_to_the_shim_on_the_folder_the_environment_names(tmp_path, monkeypatch):
    folder = tmp_path / "modules"
    shutil.copytree(FAKES / "cline", folder)
    shim_command(folder, NODE)  # puts the shipped entry module beside the packages
    monkeypatch.setenv(MODULES_ENV, str(folder))
    adapter = load_adapter("cline", timeout=12.0)
    try:
        assert (adapter.name, adapter.version, adapter.timeout) == ("cline", "9.9.9-fake", 12.0)
        assert adapter.packages == {"@cline/llms": "9.9.9-fake"}  # what its reports name
        assert adapter.argv[1].endswith("cline.mjs")
        assert adapter.vocabulary["cache-points-as-asked"].startswith("@cline/llms ")
    finally:
        adapter.close()


def test_a_model_the_catalog_lists_is_selected_as_it_is(shim):
    _, (call,) = shim([turn(OPENING)], [ANSWER], {"models": [MODEL]})
    assert "models" not in call["provider"] and call["selection"]["modelId"] == MODEL


def test_a_release_without_the_gateway_says_so_in_one_line(tmp_path, monkeypatch):
    folder = tmp_path / "modules"
    shutil.copytree(FAKES / "cline", folder)
    shim_command(folder, NODE)
    monkeypatch.setenv(MODULES_ENV, str(folder))
    monkeypatch.setenv("FAKE_CLINE_NO_GATEWAY", "1")
    with pytest.raises(AdapterLoadError, match=r"@cline/llms 9\.9\.9-fake has no createGateway .*cannot run it"):
        load_adapter("cline", timeout=12.0)
