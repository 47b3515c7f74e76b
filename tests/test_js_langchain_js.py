"""The langchain-js shim (harness/adapters/js/langchain_js.mjs) driven over the subprocess protocol against a fake of
LangChain.js's surface (tests/js_fake/langchain-js): the chunks' mapping, the history, the endpoint refusal and the
native results, offline. Skipped when ``node`` is absent. The real packages run in test_js_langchain_js_real.py."""

from __future__ import annotations

import shutil

import pytest

import js_shim
from js_shim import ENDPOINT, FAKES, MEDIA_RESULT_OPENING, NODE, TOOLS, chunks, needs_node, runner

from harness.adapters.js.langchain_js import MODULES_ENV, langchain_js, shim_command

pytestmark = needs_node("langchain-js")
OPTIONS = {"max_tokens": 512, "thinking_budget": 1024, "tool_choice": "auto"}
CALL = [{"tool_call_chunks": [{"name": "read_file", "id": "tu_1", "index": 1}]},
        {"tool_call_chunks": [{"args": '{"path": ', "index": 1}]},
        {"tool_call_chunks": [{"args": '"/tmp/a"}', "index": 1}]}]
STOP = {"response_metadata": {"messageStop": {"stopReason": "tool_use"}}}
USAGE = {"usage_metadata": {"input_tokens": 40, "output_tokens": 7, "total_tokens": 47,
                            "input_token_details": {"cache_read": 4, "cache_creation": 6}}}
REASONING = [{"content": [{"type": "reasoning", "reasoning": "Think.", "index": 0}]},
             {"content": [{"type": "reasoning", "reasoning": "", "signature": "c2ln", "index": 0}]}]


@pytest.fixture
def shim(tmp_path, monkeypatch):
    """run(turns, calls, **script) -> (each turn's answer lines, the fake's logged calls): the shim on a copy of the
    fake, ``script`` the fake's other settings."""
    monkeypatch.delenv(MODULES_ENV, raising=False)
    run_shim = runner(tmp_path, "langchain-js", "FAKE_LANGCHAIN_JS", lambda folder: shim_command(folder, NODE))

    def run(turns: list[dict], calls: list[dict], **script) -> tuple[list[list[dict]], list[dict]]:
        return run_shim(turns, calls, script=script)
    return run


def turn(messages, conversation="s", options=OPTIONS, **extra) -> dict:
    return js_shim.turn(messages, options, conversation, **extra)


def test_hello_names_the_release_and_declares_its_native_differences(shim):
    (hello,), _ = shim([], [])
    assert hello[0]["name"] == "langchain-js" and hello[0]["version"] == "9.9.9-fake"
    assert {"own_history", "non_streaming", "usage_input_includes_cache"} <= set(hello[0]["capabilities"])
    assert "data.content as lone-text" in hello[0]["native_differences"]


def test_streamed_chunks_map_as_they_are_then_the_concatenated_message(shim):
    redacted = {"content": [{"type": "reasoning_content", "redactedContent": "cmVk"}]}
    script = [{"chunks": [*REASONING, redacted, {"content": "Read"}, {"content": "ing."}, *CALL, STOP, USAGE]}]
    (_, answer), _ = shim([turn([{"role": "user", "content": "Read /tmp/a"}])], script)
    assert chunks(answer) == [
        {"type": "reasoning", "index": 0, "text": "Think."}, {"type": "reasoning", "index": 0, "signature": "c2ln"},
        {"type": "redacted_reasoning", "index": None, "data": "cmVk"},
        {"type": "text", "index": None, "text": "Read"}, {"type": "text", "index": None, "text": "ing."},
        {"type": "tool_call", "index": 1, "input_delta": "", "id": "tu_1", "name": "read_file"},
        {"type": "tool_call", "index": 1, "input_delta": '{"path": '},
        {"type": "tool_call", "index": 1, "input_delta": '"/tmp/a"}'},
        {"type": "tool_call", "id": "tu_1", "name": "read_file", "input": {"path": "/tmp/a"}},
        {"type": "stop", "reason": "tool_use"},
        {"type": "usage", "input_tokens": 40, "output_tokens": 7, "cache_read_input_tokens": 4,
         "cache_write_input_tokens": 6},
        {"type": "message", "message": {"role": "assistant", "content": [  # the text deltas stay blocks of their own
            {"type": "thinking", "thinking": "Think.", "signature": "c2ln"}, {"type": "redacted_thinking", "data": "cmVk"},
            {"type": "text", "text": "Read"}, {"type": "text", "text": "ing."},
            {"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "/tmp/a"}}]}}]


def test_older_releases_reasoning_content_blocks_map_too(shim):
    older = [{"content": [{"type": "reasoning_content", "reasoningText": {"text": "T"}, "index": 0}]},
             {"content": [{"type": "reasoning_content", "reasoningText": {"signature": "c2ln"}, "index": 0}]}]
    (_, answer), _ = shim([turn([{"role": "user", "content": "Hi"}])], [{"chunks": older}])
    assert chunks(answer)[:2] == [{"type": "reasoning", "index": 0, "text": "T"},
                                  {"type": "reasoning", "index": 0, "signature": "c2ln"}]


def test_the_model_is_bound_to_the_tools_on_a_loopback_client(shim):
    _, (call,) = shim([turn([{"role": "user", "content": "Hi"}])], [{"chunks": [STOP]}])
    assert call["endpoint"] == ENDPOINT["endpoint_url"] and call["requestHandler"] == "NodeHttpHandler"
    assert call["credentials"] == {"accessKeyId": "AKIAFAKE", "secretAccessKey": "fake"}
    assert "maxAttempts" not in call  # the SDK's own retries, as an application's client has them
    assert call["tools"] == [{"type": "function", "function": {"name": "read_file", "description": "Read a file.",
                                                               "parameters": TOOLS[0]["input_schema"]}}]
    assert "kwargs" not in call  # tool_choice auto: Bedrock's default, written as nothing
    assert call["maxTokens"] == 512 and "temperature" not in call
    assert call["additionalModelRequestFields"] == {"thinking": {"type": "enabled", "budget_tokens": 1024}}


def test_a_release_ignoring_the_client_field_gets_it_through_its_public_client(shim):
    # 0.0.x builds its own BedrockRuntimeClient (HTTP/2, no endpoint, no guard); the shim sets its `client` field
    (_, answer), (call,) = shim([turn([{"role": "user", "content": "Hi"}])], [{"chunks": [STOP]}], ignores_client=True)
    assert call["endpoint"] == ENDPOINT["endpoint_url"] and call["requestHandler"] == "NodeHttpHandler"
    assert chunks(answer)[0] == {"type": "stop", "reason": "tool_use"}


def test_a_release_ignoring_the_client_field_is_still_refused_another_host(shim):
    foreign = "https://bedrock-runtime.us-east-1.amazonaws.com/model/x/converse-stream"
    (_, answer), _ = shim([turn([{"role": "user", "content": "Hi"}])], [{"request": foreign, "chunks": [STOP]}],
                          ignores_client=True)
    assert chunks(answer)[0]["code"] == "EndpointRefused"


def test_a_named_tool_choice_is_the_tools_name(shim):
    chosen = turn([{"role": "user", "content": "Hi"}], options={"max_tokens": 9, "tool_choice": {"name": "read_file"}})
    _, (call,) = shim([chosen], [{"chunks": [STOP]}])
    assert call["kwargs"] == {"tool_choice": "read_file"}


def test_the_history_is_the_concatenated_chunks_then_tool_messages(shim):
    opening = {"role": "user", "content": "Read /tmp/a"}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": [{"json": {"n": 42}}],
                                           "is_error": True}]}
    _, (first, second) = shim([turn([opening]), turn([result])], [{"chunks": [*REASONING, *CALL, STOP]}, {"chunks": []}])
    system, human = ({"type": "system", "data": {"content": "Be brief.", "additional_kwargs": {}, "response_metadata": {}}},
                     {"type": "human", "data": {"content": "Read /tmp/a", "additional_kwargs": {}, "response_metadata": {}}})
    assert first["messages"] == [system, human]
    assert second["messages"][:2] == [system, human]
    assistant, tool = second["messages"][2:]
    assert assistant["type"] == "ai" and assistant["data"]["content"] == [
        {"type": "reasoning", "reasoning": "Think.", "index": 0, "signature": "c2ln"}]
    assert assistant["data"]["tool_calls"] == [{"id": "tu_1", "name": "read_file", "args": {"path": "/tmp/a"},
                                                "type": "tool_call"}]
    assert tool["type"] == "tool" and tool["data"]["tool_call_id"] == "tu_1" and tool["data"]["status"] == "error"
    assert tool["data"]["content"] == [{"n": 42}]  # the object itself: @langchain/aws sends it as {json: ...}


def cache_point(ttl=None) -> dict:
    return {"cachePoint": {"type": "default", **({"ttl": ttl} if ttl else {})}}


def test_cache_control_becomes_cache_point_blocks_and_the_tools_point_the_call_option(shim):
    system = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
              {"type": "text", "text": "Quote."}]
    tools = [{**js_shim.TOOLS[0], "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    opening = {"role": "user", "content": [{"type": "text", "text": "Read /tmp/a", "cache_control": {"type": "ephemeral"}}]}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "42 lines",
                                           "cache_control": {"type": "ephemeral", "ttl": "5m"}}]}
    (hello, *_), (first, second) = shim([turn([opening], system=system, tools=tools),
                                         turn([result], system=system, tools=tools)],
                                        [{"chunks": [*CALL, STOP]}, {"chunks": []}])
    assert "cache_points" in hello[0]["capabilities"]
    assert [m["data"]["content"] for m in first["messages"]] == [
        [{"type": "text", "text": "Be brief."}, cache_point("1h")], "Quote.",
        [{"type": "text", "text": "Read /tmp/a"}, cache_point()]]
    assert first["kwargs"] == {"cache_control": {"type": "ephemeral", "ttl": "1h"}}
    assert second["messages"][-1]["data"]["content"] == [{"type": "text", "text": "42 lines"}, cache_point("5m")]


def test_a_document_is_langchains_standard_file_block_named_by_its_title(shim):
    document = {"type": "document", "title": "release-notes",
                "source": {"type": "base64", "media_type": "text/plain", "data": "LSBh"}}
    _, (call,) = shim([turn([{"role": "user", "content": [document]}])], [{"chunks": [STOP]}])
    assert call["messages"][-1]["data"]["content"] == [{"type": "file", "source_type": "base64",
                                                        "mime_type": "text/plain", "data": "LSBh",
                                                        "metadata": {"name": "release-notes"}}]


def test_a_document_asking_for_citations_is_bedrocks_own_document_block_with_its_text_or_bytes(shim):
    text = {"type": "document", "title": "Returns policy", "citations": {"enabled": True},
            "source": {"type": "text", "media_type": "text/plain", "data": "Thirty days."}}
    pdf = {"type": "document", "title": "spec", "citations": {"enabled": True},
           "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}}
    (hello, _), (call,) = shim([turn([{"role": "user", "content": [text, pdf]}])], [{"chunks": [STOP]}])
    assert "citations" in hello[0]["capabilities"]
    cited, binary = call["messages"][-1]["data"]["content"]
    assert cited == {"type": "document", "document": {"name": "Returns policy", "format": "txt",
                                                      "source": {"text": "Thirty days."}, "citations": {"enabled": True}}}
    assert binary["document"]["format"] == "pdf" and binary["document"]["citations"] == {"enabled": True}
    assert bytes(binary["document"]["source"]["bytes"]["data"]) == b"%PD"  # the base64 source as its bytes


def test_media_in_a_tool_result_are_the_blocks_a_human_message_takes(shim):
    (hello, _), (call,) = shim([turn(MEDIA_RESULT_OPENING)], [{"chunks": [STOP]}])
    assert "tool_result_media" in hello[0]["capabilities"]
    assert call["messages"][-1]["data"]["content"] == [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
        {"type": "file", "source_type": "base64", "mime_type": "application/pdf", "data": "JVBE",
         "metadata": {"name": "spec"}}]


def test_the_service_tier_and_latency_are_the_models_fields(shim):
    served = turn([{"role": "user", "content": "Hi"}], options={"max_tokens": 9, "service_tier": "flex",
                                                                "latency": "optimized"})
    (hello, _), (call,) = shim([served], [{"chunks": [STOP]}])
    assert "service_tier" in hello[0]["capabilities"]
    assert call["serviceTier"] == "flex" and call["performanceConfig"] == {"latency": "optimized"}


def test_the_guardrail_is_the_models_guardrail_config_field(shim):
    guarded = turn([{"role": "user", "content": "Hi"}], options={"max_tokens": 9, "guardrail": {
        "identifier": "grd1", "version": "1", "trace": "enabled", "stream_processing_mode": "async"}})
    (hello, _), (call,) = shim([guarded], [{"chunks": [STOP]}])
    assert "guardrail" in hello[0]["capabilities"]
    assert call["guardrailConfig"] == {"guardrailIdentifier": "grd1", "guardrailVersion": "1", "trace": "enabled",
                                       "streamProcessingMode": "async"}


def test_opening_assistant_messages_become_ai_messages_with_tool_calls(shim):
    opening = [{"role": "user", "content": "Hi"},
               {"role": "assistant", "content": [{"type": "thinking", "thinking": "T", "signature": "c2ln"},
                                                 {"type": "redacted_thinking", "data": "cmVk"},
                                                 {"type": "tool_use", "id": "tu_9", "name": "read_file", "input": {}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_9", "content": "ok"}]}]
    _, (call,) = shim([turn(opening)], [{"chunks": [STOP]}])
    ai, tool = call["messages"][2:]
    assert ai["data"]["content"] == [{"type": "reasoning", "reasoning": "T", "signature": "c2ln"},
                                     {"type": "reasoning_content", "redactedContent": "cmVk"}]
    assert ai["data"]["tool_calls"] == [{"id": "tu_9", "name": "read_file", "args": {}, "type": "tool_call"}]
    assert tool["data"]["content"] == "ok" and tool["data"]["status"] == "success"


def test_a_new_conversation_starts_afresh(shim):
    opening = {"role": "user", "content": "Hi"}
    _, (_, second) = shim([turn([opening]), turn([opening], conversation="t")],
                          [{"chunks": [{"content": "Hello"}, STOP]}, {"chunks": []}])
    assert [m["type"] for m in second["messages"]] == ["system", "human"]


def test_an_error_ends_the_turn_after_its_chunks_and_nothing_joins_the_history(shim):
    error = {"name": "ThrottlingException", "message": "Too many tokens"}
    (_, answer, _), _ = shim([turn([{"role": "user", "content": "Hi"}]), turn([{"role": "user", "content": "Again"}])],
                             [{"chunks": [{"content": "Par"}], "error": error}, {"chunks": []}])
    assert chunks(answer) == [{"type": "text", "index": None, "text": "Par"},
                              {"type": "error", "code": "ThrottlingException", "message": "Too many tokens"}]


def test_the_failed_turn_leaves_the_history_alone(shim):
    error = {"name": "ThrottlingException", "message": "Too many tokens"}
    _, (_, second) = shim([turn([{"role": "user", "content": "Hi"}]), turn([{"role": "user", "content": "Again"}])],
                          [{"chunks": [{"content": "Par"}], "error": error}, {"chunks": []}])
    assert [m["type"] for m in second["messages"]] == ["system", "human", "human"]


def test_a_request_to_another_host_is_refused_before_it_is_sent(shim):
    foreign = "https://bedrock-runtime.us-east-1.amazonaws.com/model/x/converse-stream"
    (_, answer), _ = shim([turn([{"role": "user", "content": "Hi"}])], [{"request": foreign, "chunks": [STOP]}])
    (error,) = chunks(answer)
    assert error["code"] == "EndpointRefused" and "never reaches a real AWS host" in error["message"]
    assert foreign in error["message"]


def test_the_loopback_endpoint_itself_is_let_through(shim):
    (_, answer), _ = shim([turn([{"role": "user", "content": "Hi"}])],
                          [{"request": ENDPOINT["endpoint_url"] + "/model/x/converse-stream", "chunks": [STOP]}])
    assert chunks(answer) == [{"type": "stop", "reason": "tool_use"},
                              {"type": "message", "message": {"role": "assistant", "content": []}}]


def test_streaming_parity_reports_both_calls_stored_messages(shim):
    invoked = {"content": "Hello", "id": "req-1"}
    (_, answer), (streamed, whole) = shim([turn([{"role": "user", "content": "Hi"}], non_streaming=True)],
                                          [{"chunks": [{"content": "Hel"}, {"content": "lo"}, STOP],
                                            "invoke": {"message": invoked}}])
    stream, converse = chunks(answer)[-2:]
    assert stream["path"] == "stream" and stream["message"]["type"] == "ai"
    assert stream["message"]["data"]["content"] == "Hello"
    assert converse == {"type": "native", "path": "converse", "message": {"type": "ai", "data": {
        "content": "Hello", "additional_kwargs": {}, "response_metadata": {}, "tool_calls": [], "id": "req-1"}}}
    assert whole["kind"] == "invoke" and whole["messages"] == streamed["messages"]


def test_a_failed_non_streaming_call_is_its_native_result(shim):
    (_, answer), _ = shim([turn([{"role": "user", "content": "Hi"}], non_streaming=True)], [
        {"chunks": [STOP], "invoke": {"error": {"name": "ValidationException", "message": "bad"}}}])
    assert chunks(answer)[-1] == {"type": "native", "path": "converse", "error": "ValidationException: bad"}


def test_the_modules_variable_runs_the_shim_on_that_folder(tmp_path, monkeypatch):
    shutil.copytree(FAKES / "langchain-js", tmp_path / "fake")
    monkeypatch.setenv(MODULES_ENV, str(tmp_path / "fake"))
    adapter = langchain_js()
    try:
        assert (adapter.name, adapter.version) == ("langchain-js", "9.9.9-fake")
        assert adapter.argv[-1] == str(tmp_path / "fake") and adapter.argv[1].endswith("langchain_js.mjs")
    finally:
        adapter.close()
