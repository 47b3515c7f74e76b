"""The LlamaIndex stream fold and message mapping on objects shaped like each release's (no LlamaIndex needed, so
CI catches a break of a release-specific branch)."""

from __future__ import annotations

import json
from types import SimpleNamespace

from harness.adapters.shims.common import message_chunk
from harness.adapters.shims.llama_index_stream import ChatStream, anthropic_blocks, tool_choice
from harness.judge.assembly import check_assembly


def text(value):
    return SimpleNamespace(block_type="text", text=value)


def thinking(content, signature=""):
    return SimpleNamespace(block_type="thinking", content=content, additional_information={"signature": signature})


def call(call_id, name, kwargs):
    return SimpleNamespace(block_type="tool_call", tool_call_id=call_id, tool_name=name, tool_kwargs=kwargs)


def response(blocks, delta="", **extra):
    return SimpleNamespace(message=SimpleNamespace(blocks=blocks), delta=delta, additional_kwargs=extra)


def parsed(kwargs):
    """A ToolCallBlock's kwargs as the library parses JSON text ({} when it does not parse)."""
    if not isinstance(kwargs, str):
        return kwargs
    try:
        return json.loads(kwargs or "{}")
    except json.JSONDecodeError:
        return {}


class FakeLlm:
    """get_tool_calls_from_response as every release has it: parsed kwargs per ToolCallBlock."""

    def get_tool_calls_from_response(self, last, error_on_no_tool_call=True):
        calls = [block for block in last.message.blocks if block.block_type == "tool_call"]
        return [SimpleNamespace(tool_id=c.tool_call_id or "", tool_name=c.tool_name, tool_kwargs=parsed(c.tool_kwargs))
                for c in calls]


def fold(responses):
    state = ChatStream()
    out = [chunk for r in responses for chunk in state.feed(r)]
    return out + list(state.close(FakeLlm()))


def test_reasoning_text_comes_from_thinking_delta_where_the_release_reports_it():
    chunks = fold([response([thinking("ab")], thinking_delta="ab"), response([thinking("abcd")], thinking_delta="cd"),
                   response([thinking("abcd", "S"), text("x")], delta="x")])
    assert chunks == [{"type": "reasoning", "text": "ab"}, {"type": "reasoning", "text": "cd"},
                      {"type": "reasoning", "signature": "S"}, {"type": "text", "text": "x"}]


def test_reasoning_text_is_what_the_thinking_block_grew_by_when_the_release_reports_no_delta():
    """0.12.1 and 0.12.2: no thinking_delta; every response carries the ThinkingBlock with all the reasoning so far."""
    chunks = fold([response([text("")]), response([thinking("ab"), text("")]), response([thinking("abcd"), text("")]),
                   response([thinking("abcd", "S"), text("")]), response([thinking("abcd", "S"), text("x")], delta="x")])
    assert chunks == [{"type": "reasoning", "text": "ab"}, {"type": "reasoning", "text": "cd"},
                      {"type": "reasoning", "signature": "S"}, {"type": "text", "text": "x"}]


def test_a_response_without_a_delta_key_repeats_no_reasoning_at_a_release_that_reports_deltas():
    chunks = fold([response([thinking("ab")], thinking_delta="ab"), response([thinking("ab", "S"), text("x")], delta="x"),
                   response([thinking("ab", "S"), text("x")], prompt_tokens=3, completion_tokens=1)])
    assert chunks == [{"type": "reasoning", "text": "ab"}, {"type": "reasoning", "signature": "S"},
                      {"type": "text", "text": "x"},
                      {"type": "usage", "input_tokens": 3, "output_tokens": 1, "cache_read_input_tokens": 0,
                       "cache_write_input_tokens": 0}]


def test_calls_keep_their_place_and_come_out_whole_whether_kwargs_are_json_text_or_a_dict():
    """Up to 0.14.11 a streamed ToolCallBlock holds the raw JSON text, from 0.14.12 on the parsed dict."""
    for partial, whole in (('{"a": ', '{"a": 1}'), ({}, {"a": 1})):
        chunks = fold([response([text("hi")], delta="hi"), response([text("hi"), call("t1", "f", partial)]),
                       response([text("hi"), call("t1", "f", whole)])])
        assert chunks == [{"type": "text", "text": "hi"}, {"type": "tool_call", "id": "t1", "name": "f", "input": {"a": 1}}]


def test_an_aborted_stream_drops_the_unfinished_calls_but_not_the_text():
    state = ChatStream()
    state.feed(response([call("t1", "f", "{")]))
    state.feed(response([], delta="late"))
    assert state.abort() == [{"type": "text", "text": "late"}]


def test_the_assembled_message_is_reported_as_the_message_holds_it():
    """Up to 0.14.11 a streamed ToolCallBlock keeps the raw JSON text: reported as text, never parsed."""
    other = SimpleNamespace(block_type="image", url="http://x/y.png")
    message = SimpleNamespace(blocks=[thinking("hm", "S1"), text(""), call("t1", "f", '{"a": 1}'),
                                      call("t4", "k", {"b": 2}), thinking("unsigned"), other])
    assert anthropic_blocks(message) == [
        {"type": "thinking", "thinking": "hm", "signature": "S1"}, {"type": "text", "text": ""},
        {"type": "tool_use", "id": "t1", "name": "f", "input": '{"a": 1}'},
        {"type": "tool_use", "id": "t4", "name": "k", "input": {"b": 2}},
        {"type": "thinking", "thinking": "unsigned"},  # the library sends no signature for an empty one
        {"type": "image", "block_type": "image", "url": "http://x/y.png"}]


def test_a_call_held_as_json_text_is_what_the_harness_reports():
    message = SimpleNamespace(blocks=[call("t1", "f", '{"a": 1}')])
    streamed = {"type": "tool_call", "id": "t1", "name": "f", "input": {"a": 1}}
    diff = check_assembly([streamed, message_chunk(anthropic_blocks(message))], scenario="core/x", turn=0)
    assert diff.changes == ("core/x turn 0 assembled message block 0 (tool_call): streamed input {\"a\": 1} / "
                            "assembled '{\"a\": 1}'",)


def test_one_named_tool_is_asked_for_in_the_dict_every_release_declares():
    assert tool_choice({"type": "tool", "name": "f"}) == {"tool_choice": {"tool": {"name": "f"}}}
    assert tool_choice("any") == {"tool_required": True} and tool_choice("auto") == {} and tool_choice(None) == {}


def test_the_metadata_event_under_the_usage_response_reports_how_the_request_was_served():
    usage = {"prompt_tokens": 14, "completion_tokens": 9}
    raw = {"metadata": {"usage": {"inputTokens": 14, "outputTokens": 9}, "serviceTier": {"type": "flex"},
                        "trace": {"promptRouter": {"invokedModelId": "haiku"}}}}
    last = SimpleNamespace(**vars(response([text("Paris.")], **usage)), raw=raw)
    assert fold([response([text("Paris.")], delta="Paris."), last])[-2:] == [
        {"type": "usage", "input_tokens": 14, "output_tokens": 9, "cache_read_input_tokens": 0,
         "cache_write_input_tokens": 0},
        {"type": "metadata", "invoked_model_id": "haiku", "service_tier": "flex", "latency": None}]
    plain = SimpleNamespace(**vars(response([text("Paris.")], **usage)), raw={"metadata": {"usage": {}}})
    assert fold([plain])[-1]["type"] == "usage"  # nothing served to report: no metadata chunk
