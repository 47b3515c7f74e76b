"""The ai-sdk-agent shim (harness/adapters/js/ai_sdk_agent.mjs) driven over the subprocess protocol against the fake of
the AI SDK (tests/js_fake/ai-sdk), whose streamText runs the tool loop as the real one does: model call k waits for
turn k, the harness's results flow into the tools' execute, a loop that ends early is ``agent_loop_ended``.
Skipped when ``node`` is absent; the real packages run in test_js_ai_sdk_real.py."""

from __future__ import annotations

import pytest

import js_shim
from js_shim import NODE, chunks, needs_node, runner

from harness.adapters.js.ai_sdk import AGENT_PROGRAM, MODULES_ENV, shim_command

pytestmark = needs_node("ai-sdk-agent")
SIGNED = {"bedrock": {"signature": "c2ln"}}
CALL_PART = {"type": "tool-call", "toolCallId": "tu_1", "toolName": "read_file", "input": {"path": "/tmp/a"}}
REASONING = {"type": "reasoning", "text": "Think.", "providerMetadata": SIGNED}
USAGE = {"inputTokens": {"total": 30, "noCache": 20, "cacheRead": 4, "cacheWrite": 6}, "outputTokens": {"total": 7}}
ASSISTANT = {"role": "assistant", "content": [{"type": "text", "text": "It has 42 lines."}]}
OPENING = {"role": "user", "content": "Read /tmp/a"}
RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "42 lines"}]}


def tool_step(finish="tool-calls", raw="tool_use") -> dict:
    """A model call that calls read_file (its provider parts, the SDK's content of it, its stream parts)."""
    return {"provider": [CALL_PART, {"type": "finish", "finishReason": {"unified": finish, "raw": raw}, "usage": USAGE}],
            "content": [REASONING, CALL_PART], "finishReason": finish, "rawFinishReason": raw,
            "parts": [{"type": "reasoning-delta", "id": "0", "text": "Think."},
                      {"type": "tool-input-start", "id": "tu_1", "toolName": "read_file"},
                      {"type": "tool-input-delta", "id": "tu_1", "delta": '{"path": "/tmp/a"}'}, CALL_PART],
            "messages": [{"role": "assistant", "content": [{**REASONING, "providerOptions": SIGNED}, CALL_PART]}]}


TEXT_STEP = {"provider": [{"type": "finish", "finishReason": {"unified": "stop", "raw": "end_turn"}, "usage": USAGE}],
             "finishReason": "stop", "rawFinishReason": "end_turn", "messages": [ASSISTANT],
             "parts": [{"type": "text-delta", "id": "1", "text": "It has 42 lines."}]}


@pytest.fixture
def shim(tmp_path, monkeypatch):
    """run(turns, calls, **fake_env) -> (each answer's lines, the fake's logged model calls): the agent shim on a copy
    of the fake (FAKE_AI_SDK_V5="1": ai 5's toModelOutput)."""
    monkeypatch.delenv(MODULES_ENV, raising=False)
    run_shim = runner(tmp_path, "ai-sdk", "FAKE_AI_SDK", lambda folder: shim_command(folder, NODE, AGENT_PROGRAM))

    def run(turns: list[dict], calls: list[dict], **fake: str) -> tuple[list[list[dict]], list[dict]]:
        return run_shim(turns, calls, env=fake)
    return run


def turn(messages, conversation="s", tool_choice="auto") -> dict:
    return js_shim.turn(messages, {"max_tokens": 512, "tool_choice": tool_choice}, conversation)


STOP_USAGE = [{"type": "usage", "input_tokens": 30, "output_tokens": 7, "cache_read_input_tokens": 4,
               "cache_write_input_tokens": 6}]


def test_hello_names_the_agent_without_non_streaming(shim):
    (hello,), _ = shim([], [])
    assert hello[0]["name"] == "ai-sdk-agent" and hello[0]["version"] == "9.9.9-fake"
    assert "own_history" in hello[0]["capabilities"] and "non_streaming" not in hello[0]["capabilities"]


def test_a_turn_whose_tools_wait_ends_with_the_model_calls_stop_usage_and_content(shim):
    (_, first, second), _ = shim([turn([OPENING]), turn([RESULT])], [tool_step(), TEXT_STEP])
    assert chunks(first) == [
        {"type": "reasoning", "index": "0", "text": "Think."},
        {"type": "tool_call", "index": "tu_1", "id": "tu_1", "name": "read_file", "input_delta": ""},
        {"type": "tool_call", "index": "tu_1", "input_delta": '{"path": "/tmp/a"}'},
        {"type": "stop", "reason": "tool_use"}, *STOP_USAGE,
        {"type": "message", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Think.", "signature": "c2ln"},
            {"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "/tmp/a"}}]}}]
    assert chunks(second) == [{"type": "text", "index": "1", "text": "It has 42 lines."},
                              {"type": "stop", "reason": "end_turn"}, *STOP_USAGE,
                              {"type": "message", "message": {"role": "assistant", "content": [
                                  {"type": "text", "text": "It has 42 lines."}]}}]


def test_the_harness_results_flow_into_execute_and_the_next_model_call(shim):
    error = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "no such file",
                                          "is_error": True}]}
    _, (first, second) = shim([turn([OPENING]), turn([error], tool_choice="any")], [tool_step(), TEXT_STEP])
    assert first["messages"] == [OPENING] and first["toolChoice"] == "auto"
    assert second["messages"][2] == {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "tu_1",
                                      "toolName": "read_file", "output": {"type": "error-text", "value": "no such file"}}]}
    assert second["toolChoice"] == "required"  # the later turn's own tool choice, given by prepareStep


def test_a_results_cache_control_is_its_cache_point_in_the_messages_prepare_step_gives(shim):
    cached = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "42 lines",
                                           "cache_control": {"type": "ephemeral", "ttl": "1h"}}]}
    (hello, *_), (_, second) = shim([turn([OPENING]), turn([cached])], [tool_step(), TEXT_STEP])
    assert "cache_points" in hello[0]["capabilities"]
    assert second["messages"][2] == {"role": "tool", "content": [{
        "type": "tool-result", "toolCallId": "tu_1", "toolName": "read_file",
        "output": {"type": "text", "value": "42 lines"},
        "providerOptions": {"bedrock": {"cachePoint": {"type": "default", "ttl": "1h"}}}}]}


def test_under_ai_5_tomodeloutput_gets_the_output_alone_and_the_results_still_flow(shim):
    _, (_, second) = shim([turn([OPENING]), turn([RESULT])], [tool_step(), TEXT_STEP], FAKE_AI_SDK_V5="1")
    assert second["messages"][2] == {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "tu_1",
                                      "toolName": "read_file", "output": {"type": "text", "value": "42 lines"}}]}


def test_a_loop_that_stops_after_running_the_tools_is_agent_loop_ended(shim):
    (_, first, second), calls = shim([turn([OPENING]), turn([RESULT])], [tool_step("length", "max_tokens")])
    assert {"type": "stop", "reason": "max_tokens"} in chunks(first)
    (error,) = chunks(second)
    assert error["type"] == "error" and error["code"] == "agent_loop_ended" and len(calls) == 1


def test_results_for_a_loop_that_already_finished_are_agent_loop_ended(shim):
    (_, first, second), _ = shim([turn([OPENING]), turn([RESULT])], [TEXT_STEP])
    assert chunks(first)[-1]["type"] == "message"
    (error,) = chunks(second)
    assert error["code"] == "agent_loop_ended" and "had already finished" in error["message"]


def test_user_content_between_model_calls_is_a_skip(shim):
    (_, _, second), _ = shim([turn([OPENING]), turn([{"role": "user", "content": "And?"}])], [tool_step(), TEXT_STEP])
    assert second[-1]["type"] == "skip" and "no user content between its model calls" in second[-1]["reason"]


def test_a_new_conversation_starts_a_new_loop(shim):
    (_, _, second), calls = shim([turn([OPENING]), turn([OPENING], conversation="t")], [tool_step(), TEXT_STEP])
    assert chunks(second)[0]["type"] == "text" and calls[1]["messages"] == [OPENING]


def test_a_request_to_another_host_is_refused_before_it_is_sent(shim):
    (_, answer), _ = shim([turn([OPENING])], [{"fetch": "https://bedrock-runtime.us-east-1.amazonaws.com/model/x",
                                               **TEXT_STEP}])
    (error,) = chunks(answer)
    assert error["code"] == "EndpointRefused" and "never reaches a real AWS host" in error["message"]


def test_a_model_calls_metadata_closes_its_turn_after_usage_and_the_probe_declares_it(shim):
    served = {"bedrock": {"trace": {"promptRouter": {"invokedModelId": "arn:aws:bedrock:us-east-1:1:inference-profile/h"}},
                          "serviceTier": {"type": "flex"}}}
    step = {**TEXT_STEP, "provider": [{**TEXT_STEP["provider"][0], "providerMetadata": served}]}
    (hello, answer), _ = shim([turn([OPENING])], [step])
    assert "response_metadata" in hello[0]["capabilities"]
    assert chunks(answer)[1:4] == [{"type": "stop", "reason": "end_turn"}, *STOP_USAGE, {
        "type": "metadata", "invoked_model_id": "arn:aws:bedrock:us-east-1:1:inference-profile/h",
        "service_tier": "flex", "latency": None}]
