"""The langchain-js-blocks shim (harness/adapters/js/langchain_js_blocks.mjs) driven over the subprocess protocol against
the fake of LangChain.js (tests/js_fake/langchain-js), whose streamEvents without a version returns a ChatModelStream:
each content-block event maps to harness chunks as it is, the awaited AIMessage (content blocks) closes the turn and
joins the history, the tools go as call options. Skipped when ``node`` is absent."""

from __future__ import annotations

import shutil

import pytest

import js_shim
from js_shim import NODE, TOOLS, chunks, needs_node, runner

from harness.adapters.js.langchain_js import MODULES_ENV
from harness.adapters.js.langchain_js_blocks import PROGRAM, langchain_js_blocks
from harness.adapters.js.launch import shim_command

pytestmark = needs_node("langchain-js-blocks")
OPENING = {"role": "user", "content": "Read /tmp/a"}
USAGE = {"input_tokens": 40, "output_tokens": 7, "total_tokens": 47, "input_token_details": {"cache_read": 4}}
TOOL_EVENTS = [
    {"event": "message-start"},
    {"event": "content-block-start", "index": 0, "content": {"type": "reasoning", "reasoning": ""}},
    {"event": "content-block-delta", "index": 0, "delta": {"type": "reasoning-delta", "reasoning": "Think."}},
    {"event": "content-block-start", "index": 1,
     "content": {"type": "tool_call_chunk", "id": "tu_1", "name": "read_file", "args": "", "index": 1}},
    {"event": "content-block-delta", "index": 1, "delta": {"type": "block-delta", "fields": {
        "type": "tool_call_chunk", "id": "tu_1", "name": "read_file", "args": '{"path": '}}},
    {"event": "content-block-delta", "index": 1, "delta": {"type": "block-delta", "fields": {
        "type": "tool_call_chunk", "id": "tu_1", "name": "read_file", "args": '{"path": "/tmp/a"}'}}},
    {"event": "usage", "usage": USAGE},
    {"event": "content-block-finish", "index": 1,
     "content": {"type": "tool_call", "id": "tu_1", "name": "read_file", "args": {"path": "/tmp/a"}}},
    {"event": "message-finish", "reason": "tool_use", "usage": USAGE}]
TOOL_MESSAGE = {"content": [{"type": "reasoning", "reasoning": "Think."},
                            {"type": "tool_call", "id": "tu_1", "name": "read_file", "args": {"path": "/tmp/a"}}],
                "response_metadata": {"finish_reason": "tool_use", "output_version": "v1"}}


@pytest.fixture
def shim(tmp_path, monkeypatch):
    monkeypatch.delenv(MODULES_ENV, raising=False)
    run_shim = runner(tmp_path, "langchain-js", "FAKE_LANGCHAIN_JS",
                      lambda folder: shim_command(PROGRAM, "bedrock-harness-langchain-js.mjs", folder, NODE))
    return lambda turns, calls: run_shim(turns, calls)


def turn(messages, tool_choice="any", **extra) -> dict:
    return js_shim.turn(messages, {"max_tokens": 64, "tool_choice": tool_choice}, "s", **extra)


def test_hello_names_the_content_block_path_without_parity(shim):
    (hello,), _ = shim([], [])
    assert hello[0]["name"] == "langchain-js-blocks" and "non_streaming" not in hello[0]["capabilities"]


def test_each_event_maps_as_it_is_and_the_awaited_message_closes_the_turn(shim):
    (_, answer), (call,) = shim([turn([OPENING])], [{"events": TOOL_EVENTS, "message": TOOL_MESSAGE}])
    assert chunks(answer) == [
        {"type": "reasoning", "index": 0, "text": "Think."},
        {"type": "tool_call", "index": 1, "input_delta": "", "id": "tu_1", "name": "read_file"},
        {"type": "tool_call", "index": 1, "input_delta": '{"path": '},  # a block-delta restates the arguments whole
        {"type": "tool_call", "index": 1, "input_delta": '"/tmp/a"}'},
        {"type": "tool_call", "id": "tu_1", "name": "read_file", "input": {"path": "/tmp/a"}},  # the message's call
        {"type": "stop", "reason": "tool_use"},
        {"type": "usage", "input_tokens": 40, "output_tokens": 7, "cache_read_input_tokens": 4,
         "cache_write_input_tokens": 0},
        {"type": "message", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Think."},
            {"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "/tmp/a"}}]}}]
    assert call["kind"] == "streamEvents" and "version" not in call
    assert call["callTools"] == [{"type": "function", "function": {"name": "read_file", "description": "Read a file.",
                                                                   "parameters": TOOLS[0]["input_schema"]}}]
    assert call["callOptions"] == {"tool_choice": "any"} and "tools" not in call  # call options, no binding


def test_text_and_tool_call_deltas_map_too(shim):
    events = [{"event": "content-block-start", "index": 0, "content": {"type": "text", "text": ""}},
              {"event": "content-block-delta", "index": 0, "delta": {"type": "text-delta", "text": "Hi"}},
              {"event": "content-block-start", "index": 1, "content": {"type": "tool_call_chunk", "id": "tu_2",
                                                                        "name": "read_file", "args": ""}},
              {"event": "content-block-delta", "index": 1, "delta": {"type": "tool-call-delta", "args": "{}"}},
              {"event": "message-finish", "reason": "stop"}]
    (_, answer), _ = shim([turn([OPENING])], [{"events": events, "message": {"content": "Hi"}}])
    assert chunks(answer)[:4] == [{"type": "text", "index": 0, "text": "Hi"},
                                  {"type": "tool_call", "index": 1, "input_delta": "", "id": "tu_2", "name": "read_file"},
                                  {"type": "tool_call", "index": 1, "input_delta": "{}"},
                                  {"type": "stop", "reason": "stop"}]


def test_the_awaited_message_joins_the_history(shim):
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "42 lines"}]}
    _, (_, second) = shim([turn([OPENING]), turn([result])],
                          [{"events": TOOL_EVENTS, "message": TOOL_MESSAGE}, {"events": [], "message": {"content": ""}}])
    assistant, tool = second["messages"][2:]
    assert assistant["type"] == "ai" and assistant["data"]["content"] == TOOL_MESSAGE["content"]
    assert tool["type"] == "tool" and tool["data"]["tool_call_id"] == "tu_1"


def test_an_error_in_the_stream_ends_the_turn(shim):
    error = {"name": "ThrottlingException", "message": "Too many tokens"}
    events = [{"event": "content-block-delta", "index": 0, "delta": {"type": "text-delta", "text": "Par"}}]
    (_, answer), _ = shim([turn([OPENING])], [{"events": events, "error": error, "message": {"content": ""}}])
    assert chunks(answer) == [{"type": "text", "index": 0, "text": "Par"},
                              {"type": "error", "code": "ThrottlingException", "message": "Too many tokens"}]


def test_the_modules_variable_runs_the_shim_on_that_folder(tmp_path, monkeypatch):
    shutil.copytree(js_shim.FAKES / "langchain-js", tmp_path / "fake")
    monkeypatch.setenv(MODULES_ENV, str(tmp_path / "fake"))
    adapter = langchain_js_blocks()
    try:
        assert (adapter.name, adapter.version) == ("langchain-js-blocks", "9.9.9-fake")
        assert adapter.argv[1].endswith("langchain_js_blocks.mjs")
    finally:
        adapter.close()
