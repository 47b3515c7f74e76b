"""The createAgent shims, langchain-js-agent (harness/adapters/js/langchain_js_agent.mjs, ``agent.stream``) and
langchain-js-agent-events (langchain_js_agent_events.mjs, ``agent.streamEvents`` v2), each driven over the subprocess
protocol against the fake of LangChain.js (tests/js_fake/langchain-js), whose `langchain` createAgent runs the loop as
the real one does: model call k waits for turn k, the harness's results come back from the tools, a tool the agent
lacks gets the library's error, a loop that ends early is ``agent_loop_ended`` (the loop they share:
langchain_js_loop.mjs). What only the events path does is in test_js_langchain_js_agent_events.py. Skipped when
``node`` is absent."""

from __future__ import annotations

import pytest

import js_shim
from js_shim import NODE, TOOLS, chunks, needs_node, runner

from harness.adapters.js.langchain_js import AGENT_EVENTS_PROGRAM, AGENT_PROGRAM, MODULES_ENV, shim_command

pytestmark = needs_node("langchain-js-agent")
CALL = [{"tool_call_chunks": [{"name": "read_file", "id": "tu_1", "index": 1}]},
        {"tool_call_chunks": [{"args": '{"path": "/tmp/a"}', "index": 1}]}]
TOOL_STOP = {"response_metadata": {"messageStop": {"stopReason": "tool_use"}},
             "usage_metadata": {"input_tokens": 40, "output_tokens": 7, "total_tokens": 47}}
# What the fake's call turn gives: the streamed call, its assembled form, stop, usage and the message.
CALLED = [{"type": "tool_call", "index": 1, "input_delta": "", "id": "tu_1", "name": "read_file"},
          {"type": "tool_call", "index": 1, "input_delta": '{"path": "/tmp/a"}'},
          {"type": "tool_call", "id": "tu_1", "name": "read_file", "input": {"path": "/tmp/a"}},
          {"type": "stop", "reason": "tool_use"},
          {"type": "usage", "input_tokens": 40, "output_tokens": 7, "cache_read_input_tokens": 0,
           "cache_write_input_tokens": 0},
          {"type": "message", "message": {"role": "assistant", "content": [
              {"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "/tmp/a"}}]}}]
END = {"response_metadata": {"messageStop": {"stopReason": "end_turn"}}}
OPENING = {"role": "user", "content": "Read /tmp/a"}
RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "42 lines",
                                       "is_error": True}]}


# Each shim's name, and how it reads the agent (the fake's log of the run's options).
NAMES = {AGENT_PROGRAM: "langchain-js-agent", AGENT_EVENTS_PROGRAM: "langchain-js-agent-events"}
READS = {AGENT_PROGRAM: {"streamMode": ["messages", "custom"]}, AGENT_EVENTS_PROGRAM: {"version": "v2"}}


@pytest.fixture(params=[AGENT_PROGRAM, AGENT_EVENTS_PROGRAM], ids=["stream", "events"])
def program(request):
    return request.param


@pytest.fixture
def shim(tmp_path, monkeypatch, program):
    monkeypatch.delenv(MODULES_ENV, raising=False)
    run_shim = runner(tmp_path, "langchain-js", "FAKE_LANGCHAIN_JS", lambda folder: shim_command(folder, NODE, program))
    return lambda turns, calls, script=None: run_shim(turns, calls, script)


def turn(messages, conversation="s", tool_choice="auto", **extra) -> dict:
    return js_shim.turn(messages, {"max_tokens": 64, "tool_choice": tool_choice}, conversation, **extra)


def models(log: list[dict]) -> list[dict]:
    return [entry for entry in log if entry["kind"] == "stream"]


def test_hello_names_the_agent_without_parity(shim, program):
    (hello,), _ = shim([], [])
    assert hello[0]["name"] == NAMES[program] and hello[0]["version"] == "9.9.9-fake"
    assert "non_streaming" not in hello[0]["capabilities"] and "own_history" in hello[0]["capabilities"]
    assert "citations" in hello[0]["capabilities"]  # the loop's model takes Bedrock's own document block


def test_a_turn_ends_while_the_tool_waits_and_its_result_comes_back_from_the_tool(shim, program):
    (_, first, second), log = shim([turn([OPENING]), turn([RESULT])],
                                   [{"chunks": [*CALL, TOOL_STOP]}, {"chunks": [{"content": "42."}, END]}])
    assert chunks(first) == CALLED
    assert chunks(second) == [{"type": "text", "index": None, "text": "42."}, {"type": "stop", "reason": "end_turn"},
                              {"type": "message", "message": {"role": "assistant",
                                                              "content": [{"type": "text", "text": "42."}]}}]
    agent, *_ = log
    assert agent["kind"] == "agent" and agent["toolNames"] == ["read_file"] and agent["recursionLimit"] == 10000
    assert {key: agent.get(key) for key in READS[program]} == READS[program]
    one, two = models(log)
    assert [m["type"] for m in one["messages"]] == ["system", "human"]
    assert one["messages"][0]["data"]["content"] == [{"type": "text", "text": "Be brief."}]  # createAgent's systemPrompt
    tool = two["messages"][-1]
    assert tool["type"] == "tool" and tool["data"]["tool_call_id"] == "tu_1" and tool["data"]["status"] == "error"
    assert tool["data"]["content"] == "42 lines" and two["messages"][2]["type"] == "ai"


def test_each_model_call_takes_its_turns_tool_choice_and_the_tools_cache_point(shim):
    cached = [{**TOOLS[0], "cache_control": {"type": "ephemeral"}}]
    _, log = shim([turn([OPENING], tool_choice="any", tools=cached), turn([RESULT], tool_choice={"name": "read_file"})],
                  [{"chunks": [*CALL, TOOL_STOP]}, {"chunks": [END]}])
    one, two = models(log)
    assert one["kwargs"] == {"tool_choice": "any", "cache_control": {"type": "ephemeral"}}
    assert two["kwargs"] == {"tool_choice": "read_file"}


def test_a_call_the_agent_has_no_tool_for_waits_for_the_next_turn_at_the_model_call(shim):
    unknown = [{"tool_call_chunks": [{"name": "write_file", "id": "tu_2", "index": 0, "args": "{}"}]}, TOOL_STOP]
    (_, first, second), log = shim([turn([OPENING]), turn([{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "tu_2", "content": "ok"}]}])], [{"chunks": unknown}, {"chunks": [END]}])
    assert [c["type"] for c in chunks(first)][-3:] == ["stop", "usage", "message"]
    assert {"type": "stop", "reason": "end_turn"} not in chunks(first)  # model call 1 did not run within turn 0
    assert chunks(second)[0] == {"type": "stop", "reason": "end_turn"}
    tool = models(log)[1]["messages"][-1]["data"]
    assert tool["status"] == "error" and "write_file is not a valid tool" in tool["content"]  # the library's own result


def test_a_loop_that_finished_has_nowhere_to_send_results(shim):
    (_, first, second), _ = shim([turn([OPENING]), turn([RESULT])], [{"chunks": [{"content": "Done."}, END]}])
    assert chunks(first)[-1]["type"] == "message"
    (error,) = chunks(second)
    assert error["type"] == "error" and error["code"] == "agent_loop_ended"


def test_user_content_between_model_calls_is_a_skip(shim):
    (_, _, second), _ = shim([turn([OPENING]), turn([{"role": "user", "content": "And?"}])],
                             [{"chunks": [*CALL, TOOL_STOP]}])
    assert second[-1]["type"] == "skip" and "no user content" in second[-1]["reason"]


def test_a_model_error_ends_the_turn_after_its_chunks(shim):
    error = {"name": "ThrottlingException", "message": "Too many tokens"}
    (_, answer), _ = shim([turn([OPENING])], [{"chunks": [{"content": "Par"}], "error": error}])
    assert chunks(answer) == [{"type": "text", "index": None, "text": "Par"},
                              {"type": "error", "code": "ThrottlingException", "message": "Too many tokens"}]


def test_a_new_conversation_starts_a_new_agent(shim):
    _, log = shim([turn([OPENING]), turn([OPENING], conversation="t")],
                  [{"chunks": [*CALL, TOOL_STOP]}, {"chunks": [END]}])
    assert [entry["kind"] for entry in log] == ["agent", "stream", "agent", "stream"]
    assert [m["type"] for m in models(log)[1]["messages"]] == ["system", "human"]


def test_a_results_cache_point_and_media_reach_the_library_in_the_tools_message(shim):
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "cache_control": {"type": "ephemeral"},
                                           "content": [{"type": "image", "source": {"type": "base64",
                                                                                    "media_type": "image/png",
                                                                                    "data": "iVBO"}}]}]}
    _, log = shim([turn([OPENING]), turn([result])], [{"chunks": [*CALL, TOOL_STOP]}, {"chunks": [END]}])
    tool = models(log)[1]["messages"][-1]["data"]
    assert tool["content"] == [{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
                               {"cachePoint": {"type": "default"}}] and tool["status"] == "success"
