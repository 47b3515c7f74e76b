"""Conversation mode in the reference (harness/converse/conversation.py): its own assembly and its history."""

from __future__ import annotations

import pytest

from harness.converse import Conversation, ConverseAdapter, TurnError, assemble_message

SIG1, SIG2 = "c2lnbmF0dXJlLW9uZQ==", "c2lnbmF0dXJlLXR3bw=="


def call(index, cid, *deltas, name="read_file"):
    return [{"type": "tool_call", "index": index, "id": cid, "name": name, "input_delta": d} for d in ("", *deltas)]


def test_each_streamed_block_becomes_one_block_in_stream_order():
    chunks = [{"type": "reasoning", "index": 0, "text": "Let me "}, {"type": "reasoning", "index": 0, "text": "think."},
              {"type": "reasoning", "index": 0, "signature": SIG1}, {"type": "reasoning", "index": 1, "signature": SIG2},
              {"type": "redacted_reasoning", "index": 2, "data": "UkVE"}, {"type": "text", "index": 3, "text": "Reading"},
              {"type": "text", "index": 3, "text": " both."}, *call(4, "t1", '{"path":', ' "/a"}'), *call(5, "t2"),
              {"type": "stop", "reason": "tool_use"}, {"type": "usage", "input_tokens": 1, "output_tokens": 2}]
    assert assemble_message(chunks) == {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "Let me think.", "signature": SIG1},
        {"type": "thinking", "thinking": "", "signature": SIG2},
        {"type": "redacted_thinking", "data": "UkVE"},
        {"type": "text", "text": "Reading both."},
        {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "/a"}},
        {"type": "tool_use", "id": "t2", "name": "read_file", "input": {}},  # zero arguments: {}
    ]}


def test_interleaved_deltas_stay_with_their_block():
    first, second = call(1, "a", '{"p": ', '1}'), call(2, "b", '{"p": ', '2}')
    chunks = [first[0], second[0], first[1], second[1], first[2], second[2]]
    assert [b["input"] for b in assemble_message(chunks)["content"]] == [{"p": 1}, {"p": 2}]


def test_complete_inputs_unsigned_reasoning_and_empty_text():
    chunks = [{"type": "reasoning", "index": 0, "text": "r"}, {"type": "text", "index": 1, "text": ""},
              {"type": "tool_call", "index": 2, "id": "t", "name": "n", "input": {"k": [1]}}]
    assert assemble_message(chunks)["content"] == [{"type": "thinking", "thinking": "r"},
                                                   {"type": "tool_use", "id": "t", "name": "n", "input": {"k": [1]}}]


def test_a_call_cut_off_mid_input_is_left_out():
    chunks = [{"type": "text", "index": 0, "text": "Hi"}, *call(1, "t", '{"path": "/tm'),
              {"type": "stop", "reason": "max_tokens"}]
    assert assemble_message(chunks)["content"] == [{"type": "text", "text": "Hi"}]


def fake_send(replies):
    sent = []

    def send(turn):
        sent.append(turn["messages"])
        yield from replies.pop(0)
    return sent, send


def test_the_history_grows_by_the_assembled_message_and_the_new_messages():
    conversation = Conversation()
    sent, send = fake_send([[*call(0, "t1", "{}"), {"type": "stop", "reason": "tool_use"}],
                            [{"type": "text", "index": 0, "text": "Done."}]])
    prompt = {"role": "user", "content": "Go."}
    results = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}
    first = list(conversation.stream({"conversation": "s", "messages": [prompt]}, send))
    assistant = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {}}]}
    assert first[-1] == {"type": "message", "message": assistant}
    second = list(conversation.stream({"conversation": "s", "messages": [results]}, send))
    assert sent == [[prompt], [prompt, assistant, results]]
    assert second[-1]["message"] == {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}


def test_a_new_conversation_id_starts_afresh():
    conversation = Conversation()
    sent, send = fake_send([[{"type": "text", "index": 0, "text": "A"}], [{"type": "text", "index": 0, "text": "B"}]])
    list(conversation.stream({"conversation": "one", "messages": [{"role": "user", "content": "1"}]}, send))
    list(conversation.stream({"conversation": "two", "messages": [{"role": "user", "content": "2"}]}, send))
    assert sent[1] == [{"role": "user", "content": "2"}]


def test_a_failed_turn_reports_no_message_and_appends_none():
    conversation = Conversation()
    sent, send = fake_send([[{"type": "text", "index": 0, "text": "A"}, {"type": "error", "code": "x", "message": "y"}],
                            []])
    chunks = list(conversation.stream({"conversation": "s", "messages": [{"role": "user", "content": "1"}]}, send))
    assert [c["type"] for c in chunks] == ["text", "error"]
    list(conversation.stream({"conversation": "s", "messages": [{"role": "user", "content": "2"}]}, send))
    assert sent[1] == [{"role": "user", "content": "1"}, {"role": "user", "content": "2"}]


def test_conversation_mode_needs_the_conversation_id():
    with pytest.raises(TurnError, match="turn has no 'conversation'"):
        list(ConverseAdapter(conversation=True).stream({"model_id": "m", "messages": []}, {}))


def test_the_stateless_reference_ignores_the_conversation_id():
    adapter = ConverseAdapter()
    assert adapter.conversation is None and "own_history" not in adapter.capabilities
