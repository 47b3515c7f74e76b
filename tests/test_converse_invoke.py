"""The Anthropic-native InvokeModelWithResponseStream path (harness/converse/invoke.py)."""

from __future__ import annotations

import base64
import json

import pytest
from realworld import ids, requires_realworld, streams
from test_converse_stream import fold

from harness.converse import (
    BedrockResponseError,
    TurnError,
    build_invoke_body,
    build_invoke_request,
    chunks_from_invoke_events,
)
from harness.wire.eventstream import decode_events, encode_chunk, encode_exception

OPERATION = "InvokeModelWithResponseStream"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": SCHEMA}}]
SIG = "EqQBCkgIAxABGAIiQK9x/+Tz0Y8r1dPrX8s=="
REDACTED = "EtkECkgIBxABGAIqQJTfqS/PYuAFZeOls6R8uGN014YNT7YDIFuhNyywoX1C"


def chunk(event: dict) -> dict:
    """One event as boto3 yields it on this operation."""
    return {"chunk": {"bytes": json.dumps(event).encode()}}


def message_start(input_tokens=20, cache_read=0, cache_write=0):
    return chunk({"type": "message_start", "message": {"id": "msg_bdrk_1", "role": "assistant", "content": [],
                  "usage": {"input_tokens": input_tokens, "cache_read_input_tokens": cache_read,
                            "cache_creation_input_tokens": cache_write, "output_tokens": 1}}})


def block_start(index, block):
    return chunk({"type": "content_block_start", "index": index, "content_block": block})


def delta(index, **body):
    return chunk({"type": "content_block_delta", "index": index, "delta": body})


def block_stop(index):
    return chunk({"type": "content_block_stop", "index": index})


def message_end(reason="tool_use", output_tokens=30):
    return [chunk({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None},
                   "usage": {"output_tokens": output_tokens}}),
            chunk({"type": "message_stop", "amazon-bedrock-invocationMetrics": {"inputTokenCount": 1}})]


def test_body_is_anthropic_messages_json():
    turn = {"model_id": "anthropic.claude-3-5-sonnet-20240620-v1:0", "system": "Be brief.", "tools": TOOLS,
            "messages": [{"role": "user", "content": "Weather in Paris and Rome?"},
                         {"role": "assistant", "content": [
                             {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
                             {"type": "tool_use", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}',
                                                               "tool_call_id": "toolu_2"}}]},
                         {"role": "tool", "tool_call_id": "toolu_1", "content": {"temp": 18}},
                         {"role": "tool", "tool_call_id": "toolu_2", "content": "timeout", "is_error": True}],
            "options": {"max_tokens": 300, "temperature": 0.5, "tool_choice": "any"}}
    assert build_invoke_body(turn) == {
        "anthropic_version": "bedrock-2023-05-31", "max_tokens": 300, "system": "Be brief.",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Weather in Paris and Rome?"}]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {"city": "Rome"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": '{"temp": 18}'}]},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "timeout"}],
                 "is_error": True}]}],
        "tools": [{"name": "get_weather", "description": "Weather.", "input_schema": SCHEMA}],
        "tool_choice": {"type": "any"}, "temperature": 0.5}


def test_thinking_body_and_reasoning_round_trip():
    turn = {"model_id": "m", "tools": TOOLS, "messages": [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
            {"type": "reasoning", "text": "plan", "signature": SIG},
            {"type": "redacted_reasoning", "data": base64.b64encode(REDACTED.encode()).decode()}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]}],
        "options": {"max_tokens": 2048, "temperature": 0.5, "thinking_budget": 1024, "tool_choice": "any"}}
    body = build_invoke_body(turn)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert body["tool_choice"] == {"type": "auto"} and "temperature" not in body
    assert body["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "plan", "signature": SIG}, {"type": "redacted_thinking", "data": REDACTED},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}]


def test_request_kwargs_carry_the_body_as_json_bytes():
    turn = {"model_id": "m", "messages": [{"role": "user", "content": "hi"}], "options": {"max_tokens": 10}}
    request = build_invoke_request(turn)
    assert request["modelId"] == "m" and request["contentType"] == "application/json"
    assert json.loads(request["body"]) == build_invoke_body(turn)


def test_max_tokens_is_required_on_this_path():
    with pytest.raises(TurnError, match="options.max_tokens is required"):
        build_invoke_body({"model_id": "m", "messages": [], "options": {}})


def test_parallel_tool_calls_with_interleaved_deltas():
    events = [message_start(), block_start(0, {"type": "tool_use", "id": "toolu_A", "name": "f", "input": {}}),
              block_start(1, {"type": "tool_use", "id": "toolu_B", "name": "g", "input": {}}),
              delta(1, type="input_json_delta", partial_json='{"b":'), delta(0, type="input_json_delta", partial_json=""),
              delta(0, type="input_json_delta", partial_json='{"a": 1}'), delta(1, type="input_json_delta", partial_json=" 2}"),
              block_stop(0), block_stop(1), *message_end()]
    chunks = list(chunks_from_invoke_events(events))
    assert all(c["index"] == {"toolu_A": 0, "toolu_B": 1}[c["id"]] for c in chunks if c["type"] == "tool_call")
    assert fold(chunks) == [
        {"type": "tool_call", "id": "toolu_A", "name": "f", "input": {"a": 1}},
        {"type": "tool_call", "id": "toolu_B", "name": "g", "input": {"b": 2}},
        {"type": "stop", "reason": "tool_use"},
        {"type": "usage", "input_tokens": 20, "output_tokens": 30, "cache_read_input_tokens": 0,
         "cache_write_input_tokens": 0}]


def test_thinking_signature_redacted_and_text():
    events = [message_start(input_tokens=4, cache_read=1209, cache_write=7),
              block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
              delta(0, type="thinking_delta", thinking="Let me "), delta(0, type="thinking_delta", thinking="think."),
              delta(0, type="signature_delta", signature=SIG), block_stop(0),
              block_start(1, {"type": "redacted_thinking", "data": REDACTED}), block_stop(1),
              block_start(2, {"type": "text", "text": ""}), delta(2, type="text_delta", text="Hi"), block_stop(2),
              *message_end("end_turn", output_tokens=12)]
    chunks = list(chunks_from_invoke_events(events))
    assert chunks[2] == {"type": "reasoning", "index": 0, "signature": SIG}
    assert fold(chunks) == [
        {"type": "reasoning", "text": "Let me think.", "signature": SIG},
        {"type": "redacted_reasoning", "data": base64.b64encode(REDACTED.encode()).decode()},
        {"type": "text", "text": "Hi"}, {"type": "stop", "reason": "end_turn"},
        {"type": "usage", "input_tokens": 4, "output_tokens": 12, "cache_read_input_tokens": 1209,
         "cache_write_input_tokens": 7}]


@pytest.mark.parametrize("anthropic, bedrock", [
    ("end_turn", "end_turn"), ("tool_use", "tool_use"), ("max_tokens", "max_tokens"),
    ("stop_sequence", "stop_sequence"), ("refusal", "content_filtered"), ("pause_turn", "end_turn"),
])
def test_stop_reasons_use_bedrocks_vocabulary(anthropic, bedrock):
    chunks = list(chunks_from_invoke_events([message_start(), *message_end(anthropic)]))
    assert [c for c in chunks if c["type"] == "stop"] == [{"type": "stop", "reason": bedrock}]


@pytest.mark.parametrize("block, field", [({"type": "tool_use", "name": "f"}, "id"),
                                          ({"type": "tool_use", "id": "toolu_A", "name": None}, "name")])
def test_tool_use_without_id_or_name_raises(block, field):
    with pytest.raises(BedrockResponseError) as info:
        list(chunks_from_invoke_events([message_start(), block_start(2, block)]))
    also = " (toolUseId)" if field == "id" else ""
    assert str(info.value) == f"content_block_start at index 2: tool_use has no {field}{also}"
    assert info.value.field == field


def test_input_delta_without_a_tool_use_start_raises():
    with pytest.raises(BedrockResponseError, match="content_block_delta at index 0: tool input delta"):
        list(chunks_from_invoke_events([message_start(), delta(0, type="input_json_delta", partial_json="{}")]))


def test_server_tool_use_is_not_a_client_call():
    events = [message_start(), block_start(0, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search"}),
              delta(0, type="input_json_delta", partial_json='{"q": "x"}'), block_stop(0),
              block_start(1, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}),
              block_stop(1), *message_end("end_turn")]
    assert [c for c in chunks_from_invoke_events(events) if c["type"] == "tool_call"] == []


def test_in_stream_exception_and_anthropic_error_event_become_error_chunks():
    body = (encode_chunk({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}})
            + encode_exception("modelTimeoutException", {"message": "took too long"}))
    assert list(chunks_from_invoke_events(decode_events(body, OPERATION))) == [
        {"type": "text", "index": 0, "text": "Hi"},
        {"type": "error", "code": "modelTimeoutException", "message": "took too long"}]
    error = chunk({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    assert list(chunks_from_invoke_events([message_start(), error])) == [
        {"type": "error", "code": "overloaded_error", "message": "Overloaded"}]


def test_truncated_stream_ends_with_an_error():
    chunks = list(chunks_from_invoke_events([message_start(), block_start(0, {"type": "text", "text": ""})]))
    assert chunks[-1]["code"] == "incompleteStream"


def assemble(events) -> list[dict]:
    """The normalized items of an Anthropic event stream, read straight off the decoded JSON."""
    items, by_index, usage, raw = [], {}, {}, {}
    for event in events:
        e = json.loads(event["chunk"]["bytes"])
        if e["type"] == "message_start":
            u = e["message"]["usage"]
            usage = {"input_tokens": u["input_tokens"], "output_tokens": u["output_tokens"],
                     "cache_read_input_tokens": u.get("cache_read_input_tokens", 0),
                     "cache_write_input_tokens": u.get("cache_creation_input_tokens", 0)}
        elif e["type"] == "content_block_start":
            block = e["content_block"]
            if block["type"] == "tool_use":
                by_index[e["index"]] = {"type": "tool_call", "id": block["id"], "name": block["name"]}
                raw[e["index"]] = ""
            else:
                by_index[e["index"]] = {"type": "text", "text": block.get("text", "")}
            items.append(by_index[e["index"]])
        elif e["type"] == "content_block_delta" and e["delta"]["type"] == "input_json_delta":
            raw[e["index"]] += e["delta"]["partial_json"]
        elif e["type"] == "content_block_delta":
            by_index[e["index"]]["text"] += e["delta"]["text"]
        elif e["type"] == "message_delta":
            items.append({"type": "stop", "reason": e["delta"]["stop_reason"]})
            usage["output_tokens"] = e["usage"]["output_tokens"]
        elif e["type"] == "message_stop":
            items.append({"type": "usage", **usage})
    for index, text in raw.items():
        by_index[index]["input"] = json.loads(text) if text else {}
    return items


@requires_realworld
@pytest.mark.parametrize("interaction", streams(OPERATION), ids=ids(streams(OPERATION)))
def test_real_stream_matches_an_independent_assembly(interaction):
    chunks = list(chunks_from_invoke_events(decode_events(interaction.body, OPERATION)))
    assert fold(chunks) == assemble(decode_events(interaction.body, OPERATION))


def test_chunk_that_is_not_json_raises():
    with pytest.raises(BedrockResponseError, match="chunk event: the payload is not Anthropic event JSON"):
        list(chunks_from_invoke_events([{"chunk": {"bytes": b"\x00not json"}}]))
