"""The langchain-js-events shim (harness/adapters/js/langchain_js_events.mjs) driven over the subprocess protocol against
the fake of LangChain.js (tests/js_fake/langchain-js), whose streamEvents yields the model run's events: the surfaced
chunks are the on_chat_model_stream events' chunks, the turn's message (and the history, and the stream side of
parity) the on_chat_model_end event's output. Skipped when ``node`` is absent."""

from __future__ import annotations

import pytest

import js_shim
from js_shim import NODE, chunks, needs_node, runner

from harness.adapters.js.langchain_js import EVENTS_PROGRAM, MODULES_ENV, shim_command

pytestmark = needs_node("langchain-js-events")
STOP = {"response_metadata": {"messageStop": {"stopReason": "end_turn"}}}
OPENING = {"role": "user", "content": "Hi"}


@pytest.fixture
def shim(tmp_path, monkeypatch):
    monkeypatch.delenv(MODULES_ENV, raising=False)
    run_shim = runner(tmp_path, "langchain-js", "FAKE_LANGCHAIN_JS",
                      lambda folder: shim_command(folder, NODE, EVENTS_PROGRAM))
    return lambda turns, calls: run_shim(turns, calls)


def turn(messages, **extra) -> dict:
    return js_shim.turn(messages, {"max_tokens": 64}, "s", **extra)


def test_hello_names_the_events_path_with_parity(shim):
    (hello,), _ = shim([], [])
    assert hello[0]["name"] == "langchain-js-events" and hello[0]["version"] == "9.9.9-fake"
    assert "non_streaming" in hello[0]["capabilities"] and "data.content as lone-text" in hello[0]["native_differences"]


def test_the_chunks_are_the_stream_events_and_the_message_the_end_events_output(shim):
    # the end event's output differs from the chunks' concatenation: the shim must take the library's, not its own
    calls = [{"chunks": [{"content": "Hel"}, {"content": "lo"}, STOP], "end": {"content": "Hello there", **STOP}}]
    (_, answer), (call,) = shim([turn([OPENING])], calls)
    assert call["kind"] == "streamEvents" and call["version"] == "v2"
    assert chunks(answer) == [{"type": "text", "index": None, "text": "Hel"}, {"type": "text", "index": None, "text": "lo"},
                              {"type": "stop", "reason": "end_turn"},
                              {"type": "message", "message": {"role": "assistant",
                                                              "content": [{"type": "text", "text": "Hello there"}]}}]


def test_the_end_events_message_joins_the_history(shim):
    calls = [{"chunks": [{"content": "Hel"}, STOP], "end": {"content": "Hello there"}}, {"chunks": [STOP]}]
    _, (_, second) = shim([turn([OPENING]), turn([{"role": "user", "content": "Again"}])], calls)
    assert [m["type"] for m in second["messages"]] == ["system", "human", "ai", "human"]
    assert second["messages"][2]["data"]["content"] == "Hello there"


def test_an_error_in_the_event_stream_ends_the_turn_after_its_chunks(shim):
    error = {"name": "ThrottlingException", "message": "Too many tokens"}
    (_, answer), _ = shim([turn([OPENING])], [{"chunks": [{"content": "Par"}], "error": error}])
    assert chunks(answer) == [{"type": "text", "index": None, "text": "Par"},
                              {"type": "error", "code": "ThrottlingException", "message": "Too many tokens"}]


def test_parity_compares_the_end_events_message_with_invoke(shim):
    calls = [{"chunks": [{"content": "Hel"}, STOP], "end": {"content": "Hello"}, "invoke": {"message": {"content": "Hello"}}}]
    (_, answer), (_, whole) = shim([turn([OPENING], non_streaming=True)], calls)
    stream, converse = chunks(answer)[-2:]
    assert stream["path"] == "stream" and stream["message"]["data"]["content"] == "Hello"
    assert converse["path"] == "converse" and whole["kind"] == "invoke"
