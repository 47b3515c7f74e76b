"""ConverseStream events and Converse responses -> chunks (harness/converse/stream.py)."""

from __future__ import annotations

import base64
import json
import logging

import pytest
from realworld import ids, requires_realworld, streams

from harness.converse import (
    BedrockResponseError,
    chunks_from_events,
    chunks_from_response,
)
from harness.converse.stream import error_chunk
from harness.wire.eventstream import decode_events, encode_event, encode_exception

# --- test-side folding: adapter chunks -> normalized items (DESIGN.md "Normalized chunks") ----------------

def fold(chunks) -> list[dict]:
    """Fold adapter chunks the way DESIGN.md describes, independently of harness.judge.normalize."""
    items, tools, reasoning = [], {}, {}
    for c in chunks:
        kind = c["type"]
        if kind == "text" and items and items[-1]["type"] == "text":
            items[-1]["text"] += c["text"]
        elif kind == "text":
            items.append({"type": "text", "text": c["text"]})
        elif kind == "reasoning":
            item = reasoning.get(c["index"])
            if item is None or item["signature"] is not None:
                item = reasoning[c["index"]] = {"type": "reasoning", "text": "", "signature": None}
                items.append(item)
            item["text"] += c.get("text", "")
            item["signature"] = c.get("signature", item["signature"])
        elif kind == "redacted_reasoning":
            items.append({"type": "redacted_reasoning", "data": c["data"]})
        elif kind == "citation":
            items.append({"type": "citation", "citation": c["citation"]})
        elif kind == "tool_call":
            item = tools.get(c["index"])
            if item is None:
                item = tools[c["index"]] = {"type": "tool_call", "id": c["id"], "name": c["name"], "raw": ""}
                items.append(item)
            assert (item["id"], item["name"]) == (c["id"], c["name"]), "a delta carries another call's id/name"
            item["raw"] += c.get("input_delta", "") if "input" not in c else json.dumps(c["input"])
        else:
            items.append({k: v for k, v in c.items()})
    for item in tools.values():
        raw = item.pop("raw")
        item["input"] = json.loads(raw) if raw else {}
    return [i for i in items if not (i["type"] == "text" and not i["text"])]


# --- an independent assembly of raw ConverseStream events (what the adapter must agree with) ------------

def assemble(events) -> list[dict]:
    """The normalized items of a ConverseStream, read straight off the events."""
    items, open_items, server = [], {}, set()
    for event in events:
        (name, body), = event.items()
        index = body.get("contentBlockIndex")
        if name == "contentBlockStart":
            tool = body["start"].get("toolUse")
            if tool and tool.get("type") != "server_tool_use":
                open_items[index] = {"type": "tool_call", "id": tool["toolUseId"], "name": tool["name"], "raw": ""}
                items.append(open_items[index])
            else:
                server.add(index)
        elif name == "contentBlockDelta" and index not in server:
            delta = body["delta"]
            if "toolUse" in delta:
                open_items[index]["raw"] += delta["toolUse"]["input"]
            elif "citation" in delta:  # its own item: the text on either side is not joined
                items.append({"type": "citation", "citation": delta["citation"]})
            elif delta.get("text"):
                if items and items[-1]["type"] == "text":
                    items[-1]["text"] += delta["text"]
                else:
                    items.append({"type": "text", "text": delta["text"]})
            elif "reasoningContent" in delta:
                r = delta["reasoningContent"]
                if "redactedContent" in r:
                    items.append({"type": "redacted_reasoning", "data": base64.b64encode(r["redactedContent"]).decode()})
                    continue
                if index not in open_items:
                    open_items[index] = {"type": "reasoning", "text": "", "signature": None}
                    items.append(open_items[index])
                open_items[index]["text"] += r.get("text", "")
                open_items[index]["signature"] = r.get("signature", open_items[index]["signature"])
        elif name == "messageStop":
            items.append({"type": "stop", "reason": body["stopReason"]})
            if "additionalModelResponseFields" in body:  # Claude 4.6 sends some unasked (R-vercel)
                items.append({"type": "response_fields", "fields": body["additionalModelResponseFields"]})
        elif name == "metadata":
            u = body["usage"]
            items.append({"type": "usage", "input_tokens": u["inputTokens"], "output_tokens": u["outputTokens"],
                          "cache_read_input_tokens": u.get("cacheReadInputTokens", 0),
                          "cache_write_input_tokens": u.get("cacheWriteInputTokens", 0)})
    for item in items:
        if item["type"] == "tool_call":
            raw = item.pop("raw")
            item["input"] = json.loads(raw) if raw else {}
    return items


# --- event builders (the shapes boto3 yields) ---------------------------------------------------------------

def start_tool(index, tool_id, name, **extra):
    return {"contentBlockStart": {"start": {"toolUse": {"toolUseId": tool_id, "name": name, **extra}},
                                  "contentBlockIndex": index}}


def tool_delta(index, fragment):
    return {"contentBlockDelta": {"delta": {"toolUse": {"input": fragment}}, "contentBlockIndex": index}}


def text_delta(index, text):
    return {"contentBlockDelta": {"delta": {"text": text}, "contentBlockIndex": index}}


def reasoning_delta(index, **reasoning):
    return {"contentBlockDelta": {"delta": {"reasoningContent": reasoning}, "contentBlockIndex": index}}


def stop(index):
    return {"contentBlockStop": {"contentBlockIndex": index}}


def message_stop(reason="tool_use"):
    return {"messageStop": {"stopReason": reason}}


def metadata(**usage):
    return {"metadata": {"usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15, **usage},
                         "metrics": {"latencyMs": 1}}}


START = {"messageStart": {"role": "assistant"}}
USAGE = {"type": "usage", "input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 0,
         "cache_write_input_tokens": 0}


def calls(chunks):
    return [i for i in fold(chunks) if i["type"] == "tool_call"]


# --- tool calls ---------------------------------------------------------------------------------------------

def test_single_tool_call_accumulates_its_arguments_into_valid_json():
    events = [START, start_tool(0, "tooluse_A", "read_file"), tool_delta(0, ""), tool_delta(0, '{"pa'),
              tool_delta(0, 'th": "/tmp/te'), tool_delta(0, 'st.txt"}'), stop(0), message_stop(), metadata()]
    chunks = list(chunks_from_events(events))
    assert all(c["id"] == "tooluse_A" and c["name"] == "read_file" and c["index"] == 0
               for c in chunks if c["type"] == "tool_call")
    assert "".join(c["input_delta"] for c in chunks if c["type"] == "tool_call") == '{"path": "/tmp/test.txt"}'
    assert fold(chunks) == [{"type": "tool_call", "id": "tooluse_A", "name": "read_file",
                             "input": {"path": "/tmp/test.txt"}},
                            {"type": "stop", "reason": "tool_use"}, USAGE]


def test_parallel_tool_calls_with_interleaved_deltas_never_mix():
    events = [START, start_tool(1, "tooluse_A", "read_file"), start_tool(2, "tooluse_B", "list_dir"),
              tool_delta(2, '{"dir"'), tool_delta(1, '{"path": '), tool_delta(2, ': "/a"}'),
              tool_delta(1, '"/b"}'), stop(2), stop(1), message_stop(), metadata()]
    chunks = list(chunks_from_events(events))
    by_id = {}
    for c in chunks:
        if c["type"] == "tool_call":
            by_id.setdefault((c["index"], c["id"], c["name"]), []).append(c["input_delta"])
    assert {k: "".join(v) for k, v in by_id.items()} == {
        (1, "tooluse_A", "read_file"): '{"path": "/b"}', (2, "tooluse_B", "list_dir"): '{"dir": "/a"}'}
    assert calls(chunks) == [{"type": "tool_call", "id": "tooluse_A", "name": "read_file", "input": {"path": "/b"}},
                             {"type": "tool_call", "id": "tooluse_B", "name": "list_dir", "input": {"dir": "/a"}}]


def test_text_tool_call_text_keep_stream_order():
    events = [START, text_delta(0, "Let me "), text_delta(0, "look."), stop(0),
              start_tool(1, "tooluse_A", "read_file"), tool_delta(1, '{"path": "x"}'), stop(1),
              text_delta(2, "Done"), stop(2), message_stop(), metadata()]
    chunks = list(chunks_from_events(events))
    assert [(c["type"], c.get("index")) for c in chunks] == [
        ("text", 0), ("text", 0), ("tool_call", 1), ("tool_call", 1), ("text", 2), ("stop", None), ("usage", None)]
    assert fold(chunks) == [{"type": "text", "text": "Let me look."},
                            {"type": "tool_call", "id": "tooluse_A", "name": "read_file", "input": {"path": "x"}},
                            {"type": "text", "text": "Done"}, {"type": "stop", "reason": "tool_use"}, USAGE]


def test_zero_argument_tool_gives_empty_object_input():
    events = [START, start_tool(0, "tooluse_Z", "now"), tool_delta(0, ""), stop(0), message_stop(), metadata()]
    assert calls(chunks_from_events(events)) == [{"type": "tool_call", "id": "tooluse_Z", "name": "now", "input": {}}]


def test_tool_call_without_any_delta_is_still_surfaced():
    events = [START, start_tool(0, "tooluse_Z", "now"), stop(0), message_stop(), metadata()]
    assert calls(chunks_from_events(events)) == [{"type": "tool_call", "id": "tooluse_Z", "name": "now", "input": {}}]


@pytest.mark.parametrize("tool, field", [
    ({"name": "read_file"}, "toolUseId"),
    ({"toolUseId": None, "name": "read_file"}, "toolUseId"),
    ({"toolUseId": "", "name": "read_file"}, "toolUseId"),
    ({"toolUseId": "tooluse_A"}, "name"),
    ({"toolUseId": "tooluse_A", "name": None}, "name"),
])
def test_tool_use_start_without_id_or_name_raises_naming_the_field(tool, field):
    event = {"contentBlockStart": {"start": {"toolUse": tool}, "contentBlockIndex": 0}}
    with pytest.raises(BedrockResponseError) as info:
        list(chunks_from_events([START, event, tool_delta(0, "{}")]))
    assert str(info.value) == f"contentBlockStart at index 0: toolUse has no {field}"
    assert info.value.field == field and info.value.event == event


def test_null_tool_use_id_on_the_wire_raises():
    frames = encode_event("messageStart", {"role": "assistant"}) + encode_event(
        "contentBlockStart", {"contentBlockIndex": 3, "start": {"toolUse": {"toolUseId": None, "name": "f"}}})
    with pytest.raises(BedrockResponseError, match="contentBlockStart at index 3: toolUse has no toolUseId"):
        list(chunks_from_events(decode_events(frames)))


def test_tool_delta_for_a_block_that_never_started_raises():
    with pytest.raises(BedrockResponseError, match="contentBlockDelta at index 4: tool input delta without a tool"):
        list(chunks_from_events([START, tool_delta(4, '{"a": 1}')]))


def test_text_delta_inside_a_tool_block_raises():
    with pytest.raises(BedrockResponseError, match="index 0: text delta in a tool block"):
        list(chunks_from_events([START, start_tool(0, "t", "f"), text_delta(0, "x")]))


def test_delta_after_the_block_stopped_raises():
    with pytest.raises(BedrockResponseError, match="index 0: delta after the block stopped"):
        list(chunks_from_events([START, start_tool(0, "t", "f"), stop(0), tool_delta(0, "{}")]))


def test_second_start_for_the_same_index_raises_instead_of_gluing_ids():
    with pytest.raises(BedrockResponseError, match="index 0: block 0 already started"):
        list(chunks_from_events([START, start_tool(0, "tooluse_A", "f"), start_tool(0, "tooluse_B", "f")]))


def test_server_tool_use_and_its_result_are_not_client_tool_calls():
    events = [START, start_tool(0, "tooluse_S", "nova_code_interpreter", type="server_tool_use"),
              tool_delta(0, '{"code": "1+1"}'), stop(0),
              {"contentBlockStart": {"start": {"toolResult": {"toolUseId": "tooluse_S", "type": "x_result",
                                                              "status": "success"}}, "contentBlockIndex": 1}},
              {"contentBlockDelta": {"delta": {"toolResult": [{"json": {"stdOut": "2"}}]}, "contentBlockIndex": 1}},
              stop(1), start_tool(2, "tooluse_C", "final_result", type="tool_use"), tool_delta(2, '{"v": 2}'),
              stop(2), message_stop(), metadata()]
    assert calls(chunks_from_events(events)) == [
        {"type": "tool_call", "id": "tooluse_C", "name": "final_result", "input": {"v": 2}}]


# --- reasoning, usage, stop ----------------------------------------------------------------------------------

def test_thinking_then_tool_call_gives_signed_reasoning_then_the_call():
    events = [START, reasoning_delta(0, text="I should "), reasoning_delta(0, text="call it."),
              reasoning_delta(0, signature="SIG+/="), stop(0), start_tool(1, "tooluse_A", "f"),
              tool_delta(1, '{"x": 1}'), stop(1), message_stop(), metadata()]
    chunks = list(chunks_from_events(events))
    assert [c for c in chunks if c["type"] == "reasoning"][-1] == {"type": "reasoning", "index": 0,
                                                                    "signature": "SIG+/="}
    assert fold(chunks)[:2] == [{"type": "reasoning", "text": "I should call it.", "signature": "SIG+/="},
                                {"type": "tool_call", "id": "tooluse_A", "name": "f", "input": {"x": 1}}]


def test_two_reasoning_blocks_keep_two_signatures():
    events = [START, reasoning_delta(0, text="a"), reasoning_delta(0, signature="SIG1"), stop(0),
              reasoning_delta(1, text="b"), reasoning_delta(1, signature="SIG2"), stop(1), message_stop("end_turn")]
    assert [i for i in fold(chunks_from_events(events)) if i["type"] == "reasoning"] == [
        {"type": "reasoning", "text": "a", "signature": "SIG1"}, {"type": "reasoning", "text": "b", "signature": "SIG2"}]


def test_redacted_reasoning_bytes_become_base64_text():
    blob = b"EtkECkgIBxAB\x00\xff"
    chunks = list(chunks_from_events([START, reasoning_delta(0, redactedContent=blob), stop(0), message_stop()]))
    assert chunks[0] == {"type": "redacted_reasoning", "index": 0, "data": base64.b64encode(blob).decode()}


def test_usage_carries_cache_tokens_and_stop_comes_first():
    events = [START, text_delta(0, "hi"), stop(0), message_stop("end_turn"),
              metadata(cacheReadInputTokens=1322, cacheWriteInputTokens=7)]
    assert list(chunks_from_events(events))[-2:] == [
        {"type": "stop", "reason": "end_turn"},
        {"type": "usage", "input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 1322,
         "cache_write_input_tokens": 7}]


def test_every_content_chunk_carries_its_block_index():
    events = [START, text_delta(0, "a"), stop(0), reasoning_delta(1, text="r"), reasoning_delta(1, signature="s"),
              stop(1), start_tool(2, "t", "f"), tool_delta(2, "{}"), stop(2), message_stop(), metadata()]
    content = [c for c in chunks_from_events(events) if c["type"] not in ("stop", "usage")]
    assert [c["index"] for c in content] == [0, 1, 1, 2, 2]


def test_unknown_events_and_deltas_are_skipped_with_a_debug_log(caplog):
    events = [START, {"futureEvent": {"x": 1}},
              {"contentBlockDelta": {"delta": {"SDK_UNKNOWN_MEMBER": {"name": "futureDelta"}}, "contentBlockIndex": 0}},
              {"contentBlockDelta": {"delta": {"futureDeltaMember": {"title": "t"}}, "contentBlockIndex": 0}},
              text_delta(0, "ok"), stop(0), message_stop("end_turn")]
    with caplog.at_level(logging.DEBUG, logger="harness.converse.stream"):
        chunks = list(chunks_from_events(events))
    assert chunks == [{"type": "text", "index": 0, "text": "ok"}, {"type": "stop", "reason": "end_turn"}]
    assert "futureEvent" in caplog.text and "SDK_UNKNOWN_MEMBER" in caplog.text


# --- errors ----------------------------------------------------------------------------------------------------

def test_in_stream_exception_becomes_an_error_chunk_after_what_was_yielded():
    body = (encode_event("messageStart", {"role": "assistant"}, 3)
            + encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hel"}}, 5)
            + encode_exception("modelStreamErrorException", {"message": "Model produced invalid sequence"}))
    assert list(chunks_from_events(decode_events(body))) == [
        {"type": "text", "index": 0, "text": "Hel"},
        {"type": "error", "code": "modelStreamErrorException", "message": "Model produced invalid sequence"}]


def test_stream_that_ends_before_message_stop_ends_with_an_error():
    chunks = list(chunks_from_events([START, start_tool(0, "t", "f"), tool_delta(0, '{"a": ')]))
    assert chunks[-1] == {"type": "error", "code": "incompleteStream",
                          "message": "the stream ended before the message stopped"}


# --- non-streaming Converse ----------------------------------------------------------------------------------

def test_converse_response_gives_the_same_items_as_the_stream():
    response = {"output": {"message": {"role": "assistant", "content": [
        {"reasoningContent": {"reasoningText": {"text": "think", "signature": "SIG"}}},
        {"text": "Calling."},
        {"toolUse": {"toolUseId": "tooluse_A", "name": "f", "input": {"x": 1}}},
        {"toolUse": {"toolUseId": "tooluse_B", "name": "g", "input": {}}}]}},
        "stopReason": "tool_use", "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}}
    events = [START, reasoning_delta(0, text="think"), reasoning_delta(0, signature="SIG"), stop(0),
              text_delta(1, "Calling."), stop(1), start_tool(2, "tooluse_A", "f"), tool_delta(2, '{"x": 1}'),
              stop(2), start_tool(3, "tooluse_B", "g"), tool_delta(3, ""), stop(3), message_stop(), metadata()]
    from_response = list(chunks_from_response(response))
    assert fold(from_response) == fold(chunks_from_events(events))
    assert next(c for c in from_response if c["type"] == "tool_call") == {
        "type": "tool_call", "index": 2, "id": "tooluse_A", "name": "f", "input": {"x": 1}}


def test_converse_response_tool_use_without_id_raises():
    response = {"output": {"message": {"content": [{"toolUse": {"name": "f", "input": {}}}]}}, "stopReason": "tool_use"}
    with pytest.raises(BedrockResponseError, match=r"output.message.content\[0\]: toolUse has no toolUseId"):
        list(chunks_from_response(response))


# --- real recordings -------------------------------------------------------------------------------------------

@requires_realworld
@pytest.mark.parametrize("interaction", streams("ConverseStream"), ids=ids(streams("ConverseStream")))
def test_real_stream_matches_an_independent_assembly(interaction):
    chunks = list(chunks_from_events(decode_events(interaction.body)))
    expected = assemble(decode_events(interaction.body))
    assert fold(chunks) == expected
    assert [item["type"] for item in expected if item["type"] in ("stop", "usage")] == ["stop", "usage"]
    assert expected[-1]["type"] == "usage"


def _lookup(spec):
    return spec["parameters"]


def test_an_exception_a_shim_catches_keeps_its_exact_class_name_and_its_traceback_tail():
    try:
        _lookup({})
    except KeyError as exc:
        chunk = error_chunk(exc)
    assert {k: chunk[k] for k in ("type", "code", "message")} == {"type": "error", "code": "KeyError",
                                                                  "message": "'parameters'"}
    frames = [line.split(", in ")[-1] for line in chunk["traceback"].splitlines() if line.startswith("  File ")]
    assert frames[-2:] == ["test_an_exception_a_shim_catches_keeps_its_exact_class_name_and_its_traceback_tail",
                           "_lookup"] and chunk["traceback"].endswith('    return spec["parameters"]')


def test_bedrocks_own_error_keeps_its_code_and_carries_no_traceback():
    from botocore.exceptions import ClientError
    exc = ClientError({"Error": {"Code": "throttlingException", "Message": "slow down"}}, "ConverseStream")
    assert error_chunk(exc) == {"type": "error", "code": "throttlingException", "message": "slow down"}


# ---- how the turn was served, response fields, blocks the chunks do not carry (bedrock-wire.md §13) ----------

ROUTED = "arn:aws:bedrock:us-east-1:111111111111:inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0"


def test_metadata_members_become_one_metadata_chunk_after_usage():
    served = {**metadata()["metadata"], "trace": {"promptRouter": {"invokedModelId": ROUTED}},
              "serviceTier": {"type": "priority"}, "performanceConfig": {"latency": "optimized"}}
    chunks = list(chunks_from_events([START, text_delta(0, "Hi."), stop(0), message_stop("end_turn"),
                                      {"metadata": served}]))
    assert [c["type"] for c in chunks] == ["text", "stop", "usage", "metadata"]
    assert chunks[-1] == {"type": "metadata", "invoked_model_id": ROUTED, "service_tier": "priority",
                          "latency": "optimized"}


def test_a_guardrail_trace_alone_gives_no_metadata_chunk():
    traced = {**metadata()["metadata"], "trace": {"guardrail": {"modelOutput": ["No."]}}}
    chunks = list(chunks_from_events([START, text_delta(0, "No."), message_stop("guardrail_intervened"),
                                      {"metadata": traced}]))
    assert [c["type"] for c in chunks] == ["text", "stop", "usage"]


def test_additional_response_fields_follow_the_stop():
    ended = {"messageStop": {"stopReason": "end_turn", "additionalModelResponseFields": {"stop_sequence": None}}}
    chunks = list(chunks_from_events([START, text_delta(0, "OK"), ended, metadata()]))
    assert chunks[1:3] == [{"type": "stop", "reason": "end_turn"},
                           {"type": "response_fields", "fields": {"stop_sequence": None}}]


def test_an_image_block_is_surfaced_by_its_kind_and_never_read_as_text():
    image = [{"contentBlockStart": {"contentBlockIndex": 1, "start": {"image": {"format": "png"}}}},
             {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"image": {"source": {"bytes": b"\x89PNG"}}}}},
             stop(1)]
    chunks = list(chunks_from_events([START, text_delta(0, "Look."), stop(0), *image, text_delta(2, "Done."), stop(2),
                                      message_stop("end_turn"), metadata()]))
    assert chunks[:3] == [{"type": "text", "index": 0, "text": "Look."}, {"type": "other", "index": 1, "kind": "image"},
                          {"type": "text", "index": 2, "text": "Done."}]


def test_a_member_newer_than_botocore_is_skipped_without_raising():
    unknown = {"SDK_UNKNOWN_MEMBER": {"name": "videoOutput"}}  # how botocore hands over a union member it lacks
    events = [START, {"contentBlockStart": {"contentBlockIndex": 0, "start": unknown}},
              {"contentBlockDelta": {"contentBlockIndex": 0, "delta": unknown}}, stop(0), text_delta(1, "Clip."),
              stop(1), message_stop("end_turn"), metadata()]
    chunks = list(chunks_from_events(events))
    assert [c["type"] for c in chunks] == ["other", "text", "stop", "usage"] and chunks[0]["kind"] == "videoOutput"


def test_a_converse_response_reports_the_same_served_members_and_blocks():
    response = {"output": {"message": {"role": "assistant", "content": [
                    {"text": "Look."}, {"image": {"format": "png", "source": {"bytes": b"\x89PNG"}}}]}},
                "stopReason": "end_turn", "additionalModelResponseFields": {"stop_sequence": None},
                "usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3},
                "trace": {"promptRouter": {"invokedModelId": ROUTED}}, "serviceTier": {"type": "flex"}}
    assert [c["type"] for c in chunks_from_response(response)] == ["text", "other", "stop", "response_fields", "usage",
                                                                   "metadata"]
    assert list(chunks_from_response(response))[-1] == {"type": "metadata", "invoked_model_id": ROUTED,
                                                        "service_tier": "flex", "latency": None}
