"""LiteLLM's OpenAI chat format both ways, on objects shaped like LiteLLM's (no LiteLLM needed: CI runs this), and
what the harness finds in a message LiteLLM holds malformed."""

from __future__ import annotations

import base64

from harness.adapters.shims.common import message_chunk
from harness.adapters.shims.litellm_format import (
    cached,
    _part,
    anthropic_message,
    chunks_from_stream_chunk,
    redacted_data,
    to_openai,
    tool_choice,
)
from harness.judge.assembly import check_assembly

NATIVE = "EtkECkgIBhABGAIiq6BPHcZQ"  # Claude's own redacted data, as LiteLLM holds it from 1.108.0
WRAPPED = base64.b64encode(NATIVE.encode()).decode()  # Converse's redactedContent: what the harness carries


def test_history_maps_to_openai_messages_the_way_a_litellm_app_holds_them():
    turn = {"system": "sys", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "SIG"},
            {"type": "redacted_thinking", "data": "b3BhcXVl"},
            {"type": "text", "text": "calling"},
            {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
            {"type": "tool_use", "id": "t2", "name": "g", "input": {"a": [1]}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": True},
            {"type": "tool_result", "tool_use_id": "t2", "content": [{"type": "text", "text": "ok"}]},
            {"type": "text", "text": "and?"}]}]}
    assert to_openai(turn) == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "calling", "reasoning_content": "hmm",
         "thinking_blocks": [{"type": "thinking", "thinking": "hmm", "signature": "SIG"},
                             {"type": "redacted_thinking", "data": "b3BhcXVl"}],
         "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                        {"id": "t2", "type": "function", "function": {"name": "g", "arguments": '{"a": [1]}'}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "boom"},
        {"role": "tool", "tool_call_id": "t2", "content": [{"type": "text", "text": "ok"}]},
        {"role": "user", "content": [{"type": "text", "text": "and?"}]}]
    assert to_openai(turn, held=["earlier"])[0] == {"role": "user", "content": "hi"}  # the system prompt once


def test_cache_controls_stay_on_the_part_and_the_tool_message_they_mark_and_a_document_goes_as_anthropics():
    hour = {"type": "ephemeral", "ttl": "1h"}
    document = {"type": "document", "title": "notes", "source": {"type": "base64", "media_type": "text/plain",
                                                                 "data": "aGk="}}
    turn = {"messages": [{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "x", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "q", "cache_control": hour}, document]}]}
    assert to_openai(turn) == [
        {"role": "tool", "tool_call_id": "t1", "content": "x", "cache_control": {"type": "ephemeral"}},
        {"role": "user", "content": [{"type": "text", "text": "q", "cache_control": hour}, document]}]
    assert cached({"name": "f", "cache_control": hour}) == {"cache_control": hour} and cached({"name": "f"}) == {}


def test_a_tool_results_image_and_documents_go_as_the_image_url_and_file_parts_of_its_tool_message():
    hour = {"type": "ephemeral", "ttl": "1h"}
    pdf = {"type": "document", "title": "report", "cache_control": hour,
           "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}}
    notes = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "h\u00e9"}}
    utf8 = base64.b64encode("h\u00e9".encode()).decode()
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}
    turn = {"messages": [{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "r"}, image, pdf, notes]},
        pdf]}]}
    assert to_openai(turn) == [
        {"role": "tool", "tool_call_id": "t1", "content": [
            {"type": "text", "text": "r"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
            {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "report"},
             "cache_control": hour},
            {"type": "file", "file": {"file_data": f"data:text/plain;base64,{utf8}"}}]},
        {"role": "user", "content": [pdf]}]  # beside the results: Anthropic's block (_process_document_message)


def test_tool_choice_and_json_result_parts_in_openais_words():
    assert tool_choice({"name": "f"}) == {"type": "function", "function": {"name": "f"}}
    assert (tool_choice("any"), tool_choice("auto")) == ("required", "auto")
    assert _part({"json": [1, 2]}) == {"type": "text", "text": "[1, 2]"}


def stream_chunk(delta: dict | None = None, finish_reason: str | None = None, usage: dict | None = None) -> dict:
    """A ModelResponseStream as LiteLLM's pydantic objects read through ``_get``: dicts serve alike."""
    return {"choices": [{"delta": delta or {}, "finish_reason": finish_reason}], "usage": usage}


def test_stream_chunks_map_back():
    first = stream_chunk({"content": "hi", "thinking_blocks": [{"type": "thinking", "thinking": "", "signature": "S"},
                                                                {"type": "redacted_thinking", "data": "QUJD"}],
                          "tool_calls": [{"id": "t1", "type": "function", "index": 0,
                                          "function": {"name": "f", "arguments": ""}}]})
    second = stream_chunk({"tool_calls": [{"type": "function", "function": {"arguments": '{"a"'}, "index": 0}]},
                          finish_reason="tool_calls")
    assert list(chunks_from_stream_chunk(first)) == [
        {"type": "reasoning", "signature": "S"}, {"type": "redacted_reasoning", "data": "QUJD"},
        {"type": "text", "text": "hi"}, {"type": "tool_call", "index": 0, "input_delta": "", "id": "t1", "name": "f"}]
    assert list(chunks_from_stream_chunk(second)) == [
        {"type": "tool_call", "index": 0, "input_delta": '{"a"'}, {"type": "stop", "reason": "tool_use"}]


def test_usage_keeps_prompt_tokens_which_include_the_cache_tokens():
    usage = {"prompt_tokens": 130, "completion_tokens": 7, "cache_read_input_tokens": 100,
             "cache_creation_input_tokens": 20}
    assert list(chunks_from_stream_chunk(stream_chunk(usage=usage))) == [
        {"type": "usage", "input_tokens": 130, "output_tokens": 7, "cache_read_input_tokens": 100,
         "cache_write_input_tokens": 20}]


def test_redacted_thinking_takes_the_harness_form_from_either_releases_form():
    """Up to 1.106 LiteLLM holds Converse's base64 text; from 1.108.0 Claude's own string, which it wraps to send."""
    assert redacted_data(WRAPPED, native=False) == WRAPPED
    assert redacted_data(NATIVE, native=True) == WRAPPED
    assert redacted_data(b"\x00raw", native=False) == base64.b64encode(b"\x00raw").decode()
    newest = stream_chunk({"thinking_blocks": [{"type": "redacted_thinking", "data": NATIVE}]})
    assert list(chunks_from_stream_chunk(newest, native=True)) == [{"type": "redacted_reasoning", "data": WRAPPED}]
    message = {"thinking_blocks": [{"type": "redacted_thinking", "data": NATIVE}], "content": "x"}
    assert anthropic_message(message, native=True)[0] == {"type": "redacted_thinking", "data": WRAPPED}
    assert anthropic_message({**message, "thinking_blocks": [{"type": "redacted_thinking", "data": WRAPPED}]})[0] == {
        "type": "redacted_thinking", "data": WRAPPED}


def test_the_built_message_maps_to_anthropic_blocks_as_it_is():
    message = {"content": "hi", "tool_calls": [
        {"id": "t1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}},
        {"id": "t2", "type": "function", "function": {"name": "g", "arguments": '{"a"'}},
        {"id": "t3", "type": "function", "function": {"name": "h", "arguments": ""}}],
        "thinking_blocks": [{"type": "thinking", "thinking": "hm", "signature": "S", "cache_control": None}]}
    assert anthropic_message(message) == [
        {"type": "thinking", "thinking": "hm", "signature": "S", "cache_control": None},
        {"type": "text", "text": "hi"}, {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}},
        {"type": "tool_use", "id": "t2", "name": "g", "input": '{"a"'},  # does not parse: the text itself
        {"type": "tool_use", "id": "t3", "name": "h", "input": {}}]  # blank: LiteLLM sends {}
    assert anthropic_message({"content": "", "reasoning_content": "hm"}) == [{"type": "thinking", "thinking": "hm"}]
    assert anthropic_message({"content": [{"type": "text", "text": "a"}]}) == [{"type": "text", "text": "a"}]


STREAMED = [{"type": "reasoning", "text": "one"}, {"type": "reasoning", "signature": "S1"},
            {"type": "reasoning", "text": "two"}, {"type": "reasoning", "signature": "S2"},
            {"type": "tool_call", "id": "t1", "name": "f", "input": {"a": 1}}]


def test_a_garbled_merged_thinking_block_is_passed_through_and_the_harness_reports_it():
    merged = {"type": "texttextsignature", "thinking": "onetwo", "signature": "S1S2"}
    held = {"thinking_blocks": [merged], "content": None, "tool_calls": [
        {"id": "t1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}]}
    reported = anthropic_message(held)
    assert reported[0] == merged  # never read field by field through its garbled type
    diff = check_assembly([*STREAMED, message_chunk(reported)], scenario="edge/x", turn=0)
    assert "not an assembled assistant message" in diff.changes[0] and "texttextsignature" in diff.changes[0]


def test_arguments_the_library_holds_unparseable_show_as_text_in_the_assembled_message():
    held = {"thinking_blocks": [{"type": "thinking", "thinking": "one", "signature": "S1"},
                                {"type": "thinking", "thinking": "two", "signature": "S2"}],
            "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1'}}]}
    diff = check_assembly([*STREAMED, message_chunk(anthropic_message(held))], scenario="edge/x", turn=0)
    assert diff.changes == ("edge/x turn 0 assembled message block 2 (tool_call): streamed input {\"a\": 1} / "
                            "assembled '{\"a\": 1'",)
