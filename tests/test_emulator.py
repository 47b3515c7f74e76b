"""The emulator renders scripts the way real Bedrock streams them: checked against the real recordings."""

from __future__ import annotations

import base64
import json
import re

import botocore.session
import pytest
from botocore.exceptions import EventStreamError
from botocore.parsers import create_parser
from hypothesis import given, settings
from hypothesis import strategies as st

import harness.endpoint.emulator.render as emulator
from harness.endpoint.emulator.render import (EmulatorScriptError, parse_script, render_converse, render_invoke_stream,
                              render_stream)
from harness.endpoint.emulator.derive import script_from_frames
from harness.endpoint.emulator.invoke import model_name
from harness.wire.eventstream import PADDING_ALPHABET, decode_events, decode_frames
from realworld import ids, requires_realworld, streams

BEDROCK_HEADERS = [":event-type", ":content-type", ":message-type"]
TOOL_ID = re.compile(r"^tooluse_[A-Za-z0-9_-]{22}$")
SIGNATURE = "EqQBCkgIBxABGAIqQExampleSignatureOnly=="
REDACTED = base64.b64encode(b"EtkECkgIBxABGAIqQOpaqueData").decode()


# ---- helpers: decode a rendering the way a client sees it -------------------------------------------

def payloads(frames: list[bytes]) -> list[tuple[str, dict]]:
    """(event type, JSON payload without the padding) of every frame."""
    out = []
    for frame in decode_frames(b"".join(frames)):
        body = frame.json()
        body.pop("p", None)
        out.append((frame.type, body))
    return out


def inner_events(frames: list[bytes]) -> list[dict]:
    """The Anthropic events inside InvokeModelWithResponseStream chunk frames."""
    return [json.loads(base64.b64decode(body["bytes"])) for _, body in payloads(frames)]


def deltas_of(events: list[tuple[str, dict]], index: int, kind: str) -> list:
    return [body["delta"][kind] for name, body in events
            if name == "contentBlockDelta" and body["contentBlockIndex"] == index and kind in body["delta"]]


def tool_inputs(events: list[tuple[str, dict]], index: int) -> list[str]:
    return [delta["input"] for delta in deltas_of(events, index, "toolUse")]


def starts(events: list[tuple[str, dict]]) -> dict[int, dict]:
    return {body["contentBlockIndex"]: body["start"] for name, body in events if name == "contentBlockStart"}


def stream_key(event: str, body: dict) -> tuple:
    """(event type, block index, delta kind, start kind): the grammar a client's state machine follows."""
    delta, start = body.get("delta", {}), body.get("start", {})
    kind = next(iter(delta), None)
    if kind == "reasoningContent":
        kind += "." + next(iter(delta[kind]))
    return event, body.get("contentBlockIndex"), kind, next(iter(start), None)


def invoke_key(event: dict) -> tuple:
    return (event["type"], event.get("index"), event.get("delta", {}).get("type"),
            event.get("content_block", {}).get("type"))


def assemble(events: list[dict]) -> list[dict]:
    """Converse-shaped content blocks folded from what boto3 yields for a ConverseStream."""
    blocks: dict[int, dict] = {}
    for event in events:
        name, body = next(iter(event.items()))
        index = body.get("contentBlockIndex")
        if name == "contentBlockStart":
            kind, start = next(iter(body["start"].items()))
            blocks[index] = {kind: {**start, **({"input": ""} if kind == "toolUse" else {})}}
        elif name == "contentBlockDelta":
            _fold(blocks, index, body["delta"])
    return [_finish(blocks[n]) for n in sorted(blocks)]


def _fold(blocks: dict, index: int, delta: dict) -> None:
    kind, value = next(iter(delta.items()))
    if kind == "toolUse":
        blocks[index]["toolUse"]["input"] += value["input"]
    elif kind == "toolResult":
        blocks[index]["toolResult"]["content"] = value
    elif kind in ("text", "citation"):
        block = blocks.setdefault(index, {"text": "", "citations": []})
        block["text" if kind == "text" else "citations"] += value if kind == "text" else [value]
    elif "redactedContent" in value:
        blocks[index] = {"reasoningContent": {"redactedContent": base64.b64encode(value["redactedContent"]).decode()}}
    else:
        text = blocks.setdefault(index, {"reasoningContent": {"reasoningText": {"text": ""}}})
        part = text["reasoningContent"]["reasoningText"]
        part["text"] += value.get("text", "")
        part.update({"signature": value["signature"]} if "signature" in value else {})


def _finish(block: dict) -> dict:
    if "toolUse" in block:
        raw = block["toolUse"]["input"]
        return {"toolUse": {**block["toolUse"], "input": json.loads(raw) if raw else {}}}
    if "citations" in block:
        if not block["citations"]:
            return {"text": block["text"]}
        return {"citationsContent": {"citations": block["citations"], "content": [{"text": block["text"]}]}}
    return block


# ---- scripts derived from real streams (harness.endpoint.emulator.derive, the fidelity oracle) --------------------

def _masked(events: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """Tool-input fragment boundaries are the emulator's own choice; everything else must match."""
    out = []
    for name, body in events:
        if "toolUse" in body.get("delta", {}) and body["delta"]["toolUse"]["input"]:
            body = {**body, "delta": {"toolUse": {"input": "<fragment>"}}}
        out.append((name, body))
    return out


@requires_realworld
@pytest.mark.parametrize("interaction", streams("ConverseStream"), ids=ids(streams("ConverseStream")))
def test_converse_stream_fidelity(interaction):
    real = payloads([interaction.body])
    script, style = script_from_frames(interaction.body)
    rendered = payloads(render_stream(script, style=style, seed=interaction.id))
    assert [stream_key(*e) for e in rendered] == [stream_key(*e) for e in real]
    assert _masked(rendered) == _masked(real)
    for index, start in starts(real).items():
        if "toolUse" in start:
            real_raw, our_raw = "".join(tool_inputs(real, index)), "".join(tool_inputs(rendered, index))
            assert our_raw == real_raw  # same JSON spacing per model family, not only the same document
            assert json.loads(our_raw or "{}") == json.loads(real_raw or "{}")
    ours = decode_frames(b"".join(render_stream(script, style=style, seed=interaction.id)))
    theirs = decode_frames(interaction.body)
    for our, their in zip(ours, theirs):
        assert our.headers == their.headers
        if b'"toolUse":{"input":"' not in their.payload or b'"input":""}' in their.payload:
            assert unpadded(our.payload) == unpadded(their.payload)  # key order, escaping, raw UTF-8: all Bedrock's
    assert len(list(decode_events(b"".join(f.encode() for f in ours)))) == len(real)


def unpadded(payload: bytes) -> bytes:
    return re.sub(rb',"p":"[A-Za-z0-9]*"(?=}$)|"p":"[A-Za-z0-9]*",', b"", payload)


def script_from_invoke_stream(events: list[dict]) -> tuple[dict, str]:
    """A script expressing a real Anthropic-native stream, and a model id naming the same model."""
    blocks: dict[int, dict] = {}
    usage = dict(events[0]["message"]["usage"])
    script = {"usage": {"input_tokens": usage["input_tokens"]}}
    if "cache_read_input_tokens" in usage:
        script["usage"].update(cache_read_input_tokens=usage["cache_read_input_tokens"],
                               cache_write_input_tokens=usage["cache_creation_input_tokens"])
    for event in events:
        if event["type"] == "content_block_start":
            blocks[event["index"]] = {"head": event["content_block"], "deltas": []}
        elif event["type"] == "content_block_delta":
            blocks[event["index"]]["deltas"].append(event["delta"])
        elif event["type"] == "message_delta":
            script["stop_reason"] = event["delta"]["stop_reason"]
            script["usage"]["output_tokens"] = event["usage"]["output_tokens"]
        elif event["type"] == "message_stop":
            script["latency_ms"] = event["amazon-bedrock-invocationMetrics"]["invocationLatency"]
    script["content"] = [_invoke_block(blocks[n]) for n in sorted(blocks)]
    return script, f"anthropic.{events[0]['message']['model']}-v1:0"


def _invoke_block(block: dict) -> dict:
    head, deltas = block["head"], block["deltas"]
    if head["type"] == "tool_use":
        fragments = [d["partial_json"] for d in deltas]
        raw = "".join(fragments)
        spec = {"name": head["name"], "id": head["id"], "input": json.loads(raw) if raw else {}}
        return {"tool_use": {**spec, **({"fragments": len(fragments) - 1} if len(fragments) > 1 else {})}}
    if head["type"] == "redacted_thinking":
        return {"redacted_reasoning": base64.b64encode(head["data"].encode()).decode()}
    if head["type"] == "thinking":
        signature = [d["signature"] for d in deltas if d["type"] == "signature_delta"]
        return {"reasoning": [d["thinking"] for d in deltas if d["type"] == "thinking_delta"],
                **({"signature": signature[0]} if signature else {})}
    return {"text": [d["text"] for d in deltas]}


def shape(value):
    """Keys in order and value types, with the ``type`` discriminators kept: Anthropic's JSON layout."""
    if isinstance(value, dict):
        return [(key, item if key == "type" else shape(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [shape(item) for item in value]
    return type(value).__name__


def content_of(events: list[dict]) -> dict:
    """Per block: its start, joined text / thinking / partial JSON and signature."""
    out: dict[int, dict] = {}
    for event in events:
        if event["type"] == "content_block_start":
            out[event["index"]] = {"start": event["content_block"], "text": "", "signature": None}
        elif event["type"] == "content_block_delta":
            delta = dict(event["delta"])
            kind = delta.pop("type")
            key = "signature" if kind == "signature_delta" else "text"
            out[event["index"]][key] = (out[event["index"]][key] or "") + next(iter(delta.values()))
    return out


@requires_realworld
@pytest.mark.parametrize("interaction", streams("InvokeModelWithResponseStream"),
                         ids=ids(streams("InvokeModelWithResponseStream")))
def test_invoke_stream_fidelity(interaction):
    real = inner_events([interaction.body])
    script, model_id = script_from_invoke_stream(real)
    rendered = inner_events(render_invoke_stream(script, seed=interaction.id, model_id=model_id))
    assert [invoke_key(e) for e in rendered] == [invoke_key(e) for e in real]
    assert [shape(e) for e in rendered] == [shape(e) for e in real]
    assert content_of(rendered) == content_of(real)  # text, thinking, signatures, exact partial JSON, tool ids
    assert rendered[0]["message"]["model"] == real[0]["message"]["model"]
    assert rendered[0]["message"]["id"].startswith("msg_bdrk_01")
    assert {k: v for k, v in rendered[0]["message"]["usage"].items() if k != "output_tokens"} == \
        {k: v for k, v in real[0]["message"]["usage"].items() if k != "output_tokens"}
    assert rendered[-2] == real[-2]  # message_delta: stop reason and output tokens


# ---- wire laws over many scripts ----------------------------------------------------------------------

TOOLS_SCRIPT = {
    "content": [{"text": "I'll read all three files."},
                {"tool_use": {"name": "read_file", "input": {"path": "/tmp/a.txt"}}},
                {"tool_use": {"name": "read_file", "input": {"path": "/tmp/b.txt", "n": [1, 2.5, None]}}},
                {"tool_use": {"name": "list_files", "input": {}}}],
    "stop_reason": "tool_use", "usage": {"input_tokens": 412, "output_tokens": 96}}
RICH_SCRIPT = {
    "content": [{"text": ""},
                {"reasoning": "Let me think about the weather in Paris, carefully.", "signature": SIGNATURE},
                {"redacted_reasoning": REDACTED},
                {"reasoning": "", "signature": SIGNATURE},
                {"reasoning": "unsigned thoughts"},
                {"text": "Returns: thirty days.", "citations": [{
                    "title": "Document 1", "sourceContent": [{"text": "The return window is thirty days."}],
                    "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 33}}}]},
                {"server_tool_use": {"name": "nova_code_interpreter", "input": {"snippet": "1234 * 5678"}}},
                {"tool_result": {"status": "success", "type": "nova_code_interpreter_result", "content": [
                    {"json": {"stdOut": "7006652", "stdErr": "", "exitCode": 0, "isError": False}}]}},
                {"tool_use": {"name": "final_result", "input": {"result": "30°C ☀️"}}}],
    "stop_reason": "tool_use", "latency_ms": 812,
    "usage": {"input_tokens": 20, "output_tokens": 30, "cache_read_input_tokens": 1209,
              "cache_write_input_tokens": 7, "server_tool_usage": {}},
    "additional_model_response_fields": {"delta": {"stop_sequence": None}}}
SCRIPTS = {"tools": TOOLS_SCRIPT, "rich": RICH_SCRIPT, "interleaved": {**TOOLS_SCRIPT, "interleave": True}}


def check_frame_laws(frames: list[bytes], operation: str) -> None:
    decoded = decode_frames(b"".join(frames))
    assert len(decoded) == len(frames)
    for frame in decoded:
        first = ":exception-type" if frame.message_type == "exception" else ":event-type"
        assert [name for name, _ in frame.headers] == [first, *BEDROCK_HEADERS[1:]]
        assert all(isinstance(value, str) for _, value in frame.headers)
        pad = frame.json()["p"]
        assert 2 <= len(pad) <= 61 and PADDING_ALPHABET.startswith(pad)
    assert len(list(decode_events(b"".join(frames), operation))) == len(frames)


@pytest.mark.parametrize("style", ["claude", "nova"])
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_every_frame_is_padded_with_bedrock_headers_and_botocore_accepts_it(name, style):
    frames = render_stream(SCRIPTS[name], style=style, seed=name)
    check_frame_laws(frames, "ConverseStream")
    assert all(f.header_map == {":event-type": f.type, ":content-type": "application/json", ":message-type": "event"}
               for f in decode_frames(b"".join(frames)))
    check_frame_laws(render_invoke_stream(SCRIPTS[name], seed=name), "InvokeModelWithResponseStream")


@pytest.mark.parametrize("style", ["claude", "nova"])
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_stream_grammar(name, style):
    """messageStart, blocks (no start for text/reasoning), messageStop then metadata; signature last."""
    events = payloads(render_stream(SCRIPTS[name], style=style, seed="g"))
    assert events[0] == ("messageStart", {"role": "assistant"})
    assert [e for e, _ in events[-2:]] == ["messageStop", "metadata"]
    kinds = {n: next(iter(s)) for n, s in starts(events).items()}
    script = parse_script(SCRIPTS[name])
    assert kinds == {b.index: ("toolResult" if b.kind == "tool_result" else "toolUse") for b in script.blocks
                     if b.kind in ("tool_use", "server_tool_use", "tool_result")}
    for block in script.blocks:
        keys = [stream_key(*e) for e in events if e[1].get("contentBlockIndex") == block.index]
        assert keys[-1][0] == "contentBlockStop" and keys.count(keys[-1]) == 1
        if block.signature is not None:
            assert keys[-2][2] == "reasoningContent.signature"


# ---- unit behaviour ---------------------------------------------------------------------------------------

def test_claude_and_nova_tool_input_shapes():
    claude = payloads(render_stream(TOOLS_SCRIPT, style="claude", seed="s"))
    nova = payloads(render_stream(TOOLS_SCRIPT, style="nova", seed="s"))
    doc = {"path": "/tmp/b.txt", "n": [1, 2.5, None]}
    claude_parts = tool_inputs(claude, 2)
    assert claude_parts[0] == "" and len(claude_parts) > 3 and all(0 < len(p) <= 12 for p in claude_parts[1:])
    assert "".join(claude_parts) == json.dumps(doc) == '{"path": "/tmp/b.txt", "n": [1, 2.5, null]}'
    assert tool_inputs(nova, 2) == ['{"path":"/tmp/b.txt","n":[1,2.5,null]}']
    assert tool_inputs(claude, 3) == [""] and tool_inputs(nova, 3) == ["{}"]  # zero-argument tool
    assert "type" not in starts(claude)[1]["toolUse"] and "type" not in starts(nova)[1]["toolUse"]  # Nova v1
    nova_2 = payloads(render_stream(TOOLS_SCRIPT, style="nova-2", seed="s"))
    assert starts(nova_2)[1]["toolUse"]["type"] == "tool_use" and tool_inputs(nova_2, 2) == tool_inputs(nova, 2)
    assert starts(claude)[1]["toolUse"]["name"] == "read_file"


def test_tool_start_type_can_be_pinned_or_dropped():
    script = {"content": [{"tool_use": {"name": "a", "input": {}, "type": "tool_use"}},
                          {"tool_use": {"name": "b", "input": {}, "type": None}}]}
    for style in ("claude", "nova"):
        heads = starts(payloads(render_stream(script, style=style, seed="t"))).values()
        assert [head["toolUse"].get("type") for head in heads] == ["tool_use", None]


def test_interleave_sends_starts_then_round_robin_deltas_then_stops():
    script = {**TOOLS_SCRIPT, "content": TOOLS_SCRIPT["content"][:3] + [
        {"tool_use": {"name": "read_file", "input": {"path": "/tmp/c.txt"}}}], "interleave": True}
    events = payloads(render_stream(script, style="claude", seed="i"))
    tools = [stream_key(*e)[:2] for e in events if e[1].get("contentBlockIndex", 0) > 0]
    n = len(tools) - 6
    assert tools[:3] == [("contentBlockStart", i) for i in (1, 2, 3)]
    assert tools[-3:] == [("contentBlockStop", i) for i in (1, 2, 3)]
    order = [index for _, index in tools[3:3 + n]]
    counts = [order.count(i) for i in (1, 2, 3)]
    expected = [i for r in range(max(counts)) for i in (1, 2, 3) if r < counts[i - 1]]
    assert order == expected and order[:3] == [1, 2, 3]
    text_stop = next(k for k, e in enumerate(events) if e[0] == "contentBlockStop")
    assert all(e[1].get("contentBlockIndex") == 0 for e in events[1:text_stop])
    for index, path in ((1, "/tmp/a.txt"), (2, "/tmp/b.txt"), (3, "/tmp/c.txt")):
        assert json.loads("".join(tool_inputs(events, index)))["path"] == path
    assert assemble(list(decode_events(b"".join(render_stream(script, style="claude", seed="i"))))) == \
        render_converse(script, seed="i")["output"]["message"]["content"]
    plain = payloads(render_stream({**script, "interleave": False}, style="claude", seed="i"))
    indexes = [e[1]["contentBlockIndex"] for e in plain if "contentBlockIndex" in e[1]]
    assert indexes == sorted(indexes)


def test_same_seed_same_bytes_and_different_seed_different_ids():
    assert render_stream(RICH_SCRIPT, style="claude", seed="a") == render_stream(RICH_SCRIPT, style="claude", seed="a")
    assert render_invoke_stream(RICH_SCRIPT, seed="a") == render_invoke_stream(RICH_SCRIPT, seed="a")
    ids_a = [s["toolUse"]["toolUseId"] for s in starts(payloads(render_stream(TOOLS_SCRIPT, seed="a"))).values()]
    ids_b = [s["toolUse"]["toolUseId"] for s in starts(payloads(render_stream(TOOLS_SCRIPT, seed="b"))).values()]
    assert all(TOOL_ID.match(i) for i in ids_a + ids_b)
    assert len(set(ids_a)) == 3 and not set(ids_a) & set(ids_b)
    converse = render_converse(TOOLS_SCRIPT, seed="a")["output"]["message"]["content"]
    assert [b["toolUse"]["toolUseId"] for b in converse if "toolUse" in b] == ids_a


def test_given_id_is_used_verbatim_everywhere():
    script = {"content": [{"tool_use": {"name": "f", "id": "tooluse_given", "input": {"a": 1}}}]}
    assert starts(payloads(render_stream(script, seed="x")))[0]["toolUse"]["toolUseId"] == "tooluse_given"
    assert render_converse(script, seed="x")["output"]["message"]["content"][0]["toolUse"]["toolUseId"] == "tooluse_given"
    assert inner_events(render_invoke_stream(script, seed="x"))[1]["content_block"]["id"] == "tooluse_given"


def test_invoke_ids_look_like_anthropic_ids():
    events = inner_events(render_invoke_stream(RICH_SCRIPT, seed="ids"))
    heads = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    assert re.fullmatch(r"msg_bdrk_01[0-9A-Za-z]{22}", events[0]["message"]["id"])
    assert re.fullmatch(r"srvtoolu_bdrk_01[0-9A-Za-z]{22}", heads[6]["id"])
    assert re.fullmatch(r"toolu_bdrk_01[0-9A-Za-z]{22}", heads[8]["id"])
    assert heads[7]["tool_use_id"] == heads[6]["id"]


def test_id_null_omits_tool_use_id():
    script = {"content": [{"tool_use": {"name": "read_file", "id": None, "input": {"path": "/a"}}}]}
    assert starts(payloads(render_stream(script, seed="n")))[0] == {"toolUse": {"name": "read_file"}}
    assert "toolUseId" not in render_converse(script, seed="n")["output"]["message"]["content"][0]["toolUse"]
    assert "id" not in inner_events(render_invoke_stream(script, seed="n"))[1]["content_block"]
    assert list(decode_events(b"".join(render_stream(script, seed="n"))))[1]["contentBlockStart"]["start"] == \
        {"toolUse": {"name": "read_file"}}


def test_raw_input_streams_as_is():
    truncated = '{"path": "/tmp/a'
    script = {"content": [{"tool_use": {"name": "read_file", "raw_input": truncated}}]}
    claude = tool_inputs(payloads(render_stream(script, style="claude", seed="r")), 0)
    assert claude[0] == "" and "".join(claude) == truncated
    assert tool_inputs(payloads(render_stream(script, style="nova", seed="r")), 0) == [truncated]
    exact = {"content": [{"tool_use": {"name": "f", "raw_input": ['{"pa', 'th": 1', "}"]}}]}
    assert tool_inputs(payloads(render_stream(exact, style="claude", seed="r")), 0) == ["", '{"pa', 'th": 1', "}"]
    assert render_converse(exact, seed="r")["output"]["message"]["content"][0]["toolUse"]["input"] == {"path": 1}
    with pytest.raises(EmulatorScriptError, match=r"^script content\[0\]\.tool_use\.raw_input: not a JSON object"):
        render_converse(script, seed="r")


def test_fragments_fixes_the_number_of_input_deltas():
    script = {"content": [{"tool_use": {"name": "f", "input": {"city": "Paris"}, "fragments": 4}}]}
    parts = tool_inputs(payloads(render_stream(script, style="claude", seed="f")), 0)
    assert parts[0] == "" and len(parts) == 5 and all(parts[1:]) and "".join(parts) == '{"city": "Paris"}'
    nova = tool_inputs(payloads(render_stream(script, style="nova", seed="f")), 0)
    assert len(nova) == 4 and "".join(nova) == '{"city":"Paris"}'
    too_many = {"content": [{"tool_use": {"name": "f", "input": {}, "fragments": 3}}]}
    with pytest.raises(EmulatorScriptError, match=r"content\[0\]\.tool_use\.fragments: 3 fragments for 2 characters"):
        render_stream(too_many, style="nova", seed="f")


@pytest.mark.parametrize("after", [0, 1, 4, 9])
def test_exception_replaces_everything_after_n_events(after):
    script = {**TOOLS_SCRIPT, "exception": {"type": "throttlingException", "message": "Slow down", "after_event": after}}
    frames = render_stream(script, seed="e")
    assert frames[:after] == render_stream(TOOLS_SCRIPT, seed="e")[:after]
    last = decode_frames(frames[-1])[0]
    assert len(frames) == after + 1 and last.message_type == "exception" and last.type == "throttlingException"
    assert [n for n, _ in last.headers] == [":exception-type", ":content-type", ":message-type"]
    seen = []
    with pytest.raises(EventStreamError) as raised:
        for event in decode_events(b"".join(frames)):
            seen.append(event)
    assert len(seen) == after
    assert raised.value.response["Error"] == {"Code": "throttlingException", "Message": "Slow down"}


def test_model_stream_error_carries_the_original_status():
    script = {**TOOLS_SCRIPT, "exception": {"type": "modelStreamErrorException", "message": "boom", "after_event": 2,
                                            "original_status_code": 500, "original_message": "upstream"}}
    body = decode_frames(render_stream(script, seed="m")[-1])[0].json()
    assert {k: v for k, v in body.items() if k != "p"} == {"message": "boom", "originalStatusCode": 500,
                                                              "originalMessage": "upstream"}
    frames = render_invoke_stream({**script, "exception": {"type": "modelTimeoutException", "after_event": 3}}, seed="m")
    with pytest.raises(EventStreamError, match="modelTimeoutException"):
        list(decode_events(b"".join(frames), "InvokeModelWithResponseStream"))
    assert len(frames) == 4


def test_exception_must_fit_the_stream_and_the_operation():
    total = len(render_stream(TOOLS_SCRIPT, seed="x"))
    late = {**TOOLS_SCRIPT, "exception": {"type": "throttlingException", "after_event": total + 1}}
    with pytest.raises(EmulatorScriptError, match=rf"^script exception\.after_event: {total + 1}, but the stream has {total} events$"):
        render_stream(late, seed="x")
    assert len(render_stream({**late, "exception": {**late["exception"], "after_event": total}}, seed="x")) == total + 1
    timeout = {**TOOLS_SCRIPT, "exception": {"type": "modelTimeoutException", "after_event": 1}}
    with pytest.raises(EmulatorScriptError, match=r"^script exception\.type: modelTimeoutException is not in this stream"):
        render_stream(timeout, seed="x")


def test_signature_only_reasoning_block():
    script = {"content": [{"reasoning": "", "signature": SIGNATURE}, {"text": "Hi"}]}
    events = payloads(render_stream(script, seed="s"))
    assert [b for n, b in events if b.get("contentBlockIndex") == 0] == [
        {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": SIGNATURE}}}, {"contentBlockIndex": 0}]
    assert render_converse(script, seed="s")["output"]["message"]["content"][0] == \
        {"reasoningContent": {"reasoningText": {"signature": SIGNATURE, "text": ""}}}
    invoke = [e for e in inner_events(render_invoke_stream(script, seed="s")) if e.get("index") == 0]
    assert [(k[0], k[2] or k[3]) for k in map(invoke_key, invoke)] == [
        ("content_block_start", "thinking"), ("content_block_delta", "signature_delta"), ("content_block_stop", None)]


def test_reasoning_is_several_deltas_with_the_signature_last():
    script = {"content": [{"reasoning": "one two three four five six seven eight nine ten", "signature": SIGNATURE}]}
    deltas = deltas_of(payloads(render_stream(script, seed="r")), 0, "reasoningContent")
    assert len(deltas) >= 4 and deltas[-1] == {"signature": SIGNATURE}
    assert "".join(d["text"] for d in deltas[:-1]) == script["content"][0]["reasoning"]
    unsigned = deltas_of(payloads(render_stream({"content": [{"reasoning": "just this"}]}, seed="r")), 0, "reasoningContent")
    assert all("signature" not in d for d in unsigned)


def test_empty_text_block_is_one_empty_delta():
    events = payloads(render_stream({"content": [{"text": ""}, {"text": "Hello"}]}, seed="t"))
    assert events[1:3] == [("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": ""}}),
                           ("contentBlockStop", {"contentBlockIndex": 0})]
    exact = payloads(render_stream({"content": [{"text": ["The", " end", ""]}]}, seed="t"))
    assert deltas_of(exact, 0, "text") == ["The", " end", ""]


def test_redacted_reasoning_is_one_base64_delta():
    events = payloads(render_stream({"content": [{"redacted_reasoning": REDACTED}]}, seed="d"))
    assert deltas_of(events, 0, "reasoningContent") == [{"redactedContent": REDACTED}]
    decoded = list(decode_events(b"".join(render_stream({"content": [{"redacted_reasoning": REDACTED}]}, seed="d"))))
    assert decoded[1]["contentBlockDelta"]["delta"]["reasoningContent"]["redactedContent"] == base64.b64decode(REDACTED)
    head = inner_events(render_invoke_stream({"content": [{"redacted_reasoning": REDACTED}]}, seed="d"))[1]
    assert head["content_block"] == {"type": "redacted_thinking", "data": base64.b64decode(REDACTED).decode()}


def test_server_tool_result_keeps_its_document_order():
    frames = render_stream(RICH_SCRIPT, style="nova", seed="n")
    events = payloads(frames)
    server, result = starts(events)[6]["toolUse"], starts(events)[7]["toolResult"]
    assert server["type"] == "server_tool_use" and result["toolUseId"] == server["toolUseId"]
    assert result == {"status": "success", "toolUseId": server["toolUseId"], "type": "nova_code_interpreter_result"}
    raw = next(f.payload for f in decode_frames(b"".join(frames)) if b'"toolResult":[' in f.payload)
    assert raw.index(b'"stdOut"') < raw.index(b'"exitCode"')  # documents keep the model's key order
    assert deltas_of(events, 7, "toolResult") == [RICH_SCRIPT["content"][7]["tool_result"]["content"]]


def test_citations_ride_in_the_text_block():
    events = payloads(render_stream(RICH_SCRIPT, seed="c"))
    keys = [stream_key(*e)[2] for e in events if e[1].get("contentBlockIndex") == 5]
    assert keys[0] == "citation" and set(keys[1:-1]) == {"text"}
    assert deltas_of(events, 5, "citation") == RICH_SCRIPT["content"][5]["citations"]
    invoke = [e for e in inner_events(render_invoke_stream(RICH_SCRIPT, seed="c")) if e.get("index") == 5]
    assert invoke[0]["content_block"] == {"type": "text", "text": "", "citations": []}
    assert invoke[1]["delta"]["citation"] == {"type": "char_location", "cited_text": "The return window is thirty days.",
                                              "document_index": 0, "document_title": "Document 1",
                                              "start_char_index": 0, "end_char_index": 33}


def test_message_stop_and_metadata():
    events = payloads(render_stream(RICH_SCRIPT, seed="u"))
    assert events[-2] == ("messageStop", {"stopReason": "tool_use",
                                          "additionalModelResponseFields": {"delta": {"stop_sequence": None}}})
    assert events[-1] == ("metadata", {"metrics": {"latencyMs": 812}, "usage": {
        "inputTokens": 20, "outputTokens": 30, "totalTokens": 20 + 30 + 1209 + 7, "cacheReadInputTokens": 1209,
        "cacheWriteInputTokens": 7, "serverToolUsage": {}}})
    defaults = payloads(render_stream({"content": [{"text": "a"}, {"tool_use": {"name": "f"}}]}, seed="u"))
    assert defaults[-2][1] == {"stopReason": "tool_use"}
    assert defaults[-1][1]["metrics"] == {"latencyMs": 200}


def test_invoke_message_events_and_stop_reason_names():
    events = inner_events(render_invoke_stream({**RICH_SCRIPT, "stop_reason": "content_filtered"}, seed="i",
                                               model_id="us.anthropic.claude-3-7-sonnet-20250219-v1:0"))
    message = events[0]["message"]
    assert message["model"] == "claude-3-7-sonnet-20250219"
    assert message["usage"] == {"input_tokens": 20, "cache_creation_input_tokens": 7, "cache_read_input_tokens": 1209,
                                "output_tokens": 1}
    assert events[-2] == {"type": "message_delta", "delta": {"stop_reason": "refusal", "stop_sequence": None},
                          "usage": {"output_tokens": 30}}
    assert events[-1] == {"type": "message_stop", "amazon-bedrock-invocationMetrics": {
        "inputTokenCount": 20, "outputTokenCount": 30, "invocationLatency": 812, "firstByteLatency": 406,
        "cacheReadInputTokenCount": 1209, "cacheWriteInputTokenCount": 7}}
    assert model_name("anthropic.claude-3-haiku-20240307-v1:0") == "claude-3-haiku-20240307"


def test_invoke_tool_input_matches_the_converse_stream_fragments():
    events = inner_events(render_invoke_stream(TOOLS_SCRIPT, seed="same"))
    partial = [e["delta"]["partial_json"] for e in events if e.get("index") == 2 and e["type"] == "content_block_delta"]
    assert partial == tool_inputs(payloads(render_stream(TOOLS_SCRIPT, style="claude", seed="same")), 2)


# ---- Converse (non-streaming) ------------------------------------------------------------------------

def botocore_parse_converse(body: dict) -> dict:
    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    shape = model.operation_model("Converse").output_shape
    response = {"status_code": 200, "headers": {}, "body": json.dumps(body).encode()}
    return create_parser("rest-json").parse(response, shape)


@pytest.mark.parametrize("style", ["claude", "nova"])
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_converse_matches_the_stream(name, style):
    body = render_converse(SCRIPTS[name], style=style, seed=name)
    assert list(body) == sorted(body) and body["output"]["message"]["role"] == "assistant"
    assert {"metrics", "output", "stopReason", "usage"} <= set(body)
    streamed = list(decode_events(b"".join(render_stream(SCRIPTS[name], style=style, seed=name))))
    assert body["output"]["message"]["content"] == assemble(streamed)
    assert body["stopReason"] == streamed[-2]["messageStop"]["stopReason"]
    assert body["metrics"] == streamed[-1]["metadata"]["metrics"]
    usage = {k: v for k, v in body["usage"].items() if not k.endswith("TokenCount") and k != "serverToolUsage"}
    assert usage == streamed[-1]["metadata"]["usage"]
    parsed = botocore_parse_converse(body)
    assert parsed["stopReason"] == body["stopReason"] and parsed["usage"] == usage


def test_converse_cache_counts_come_twice_as_in_real_responses():
    usage = render_converse(RICH_SCRIPT, seed="c")["usage"]
    assert usage["cacheReadInputTokens"] == usage["cacheReadInputTokenCount"] == 1209
    assert usage["cacheWriteInputTokens"] == usage["cacheWriteInputTokenCount"] == 7
    parsed = botocore_parse_converse(render_converse(RICH_SCRIPT, seed="c"))
    assert parsed["output"]["message"]["content"][2] == {"reasoningContent": {"redactedContent": base64.b64decode(REDACTED)}}


# ---- properties ---------------------------------------------------------------------------------------

json_values = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=12),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                           max_leaves=8)
blocks = st.one_of(
    st.builds(lambda t: {"text": t}, st.text(max_size=60)),
    st.builds(lambda t, s: {"reasoning": t, **({"signature": s} if s else {})}, st.text(max_size=60),
              st.sampled_from(["", SIGNATURE])),
    st.builds(lambda n, i: {"tool_use": {"name": n, "input": i}}, st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
              st.dictionaries(st.text(max_size=8), json_values, max_size=4)))


@settings(max_examples=60)
@given(content=st.lists(blocks, min_size=1, max_size=5), style=st.sampled_from(["claude", "nova"]),
       interleave=st.booleans(), seed=st.text(max_size=8))
def test_any_script_renders_a_stream_that_assembles_to_its_content(content, style, interleave, seed):
    script = {"content": content, "interleave": interleave}
    frames = render_stream(script, style=style, seed=seed)
    check_frame_laws(frames, "ConverseStream")
    assembled = assemble(list(decode_events(b"".join(frames))))
    assert assembled == render_converse(script, style=style, seed=seed)["output"]["message"]["content"]
    for block, got in zip(content, assembled):
        if "text" in block:
            assert got == {"text": block["text"]}
        elif "reasoning" in block:
            assert got["reasoningContent"]["reasoningText"]["text"] == block["reasoning"]
            assert got["reasoningContent"]["reasoningText"].get("signature") == block.get("signature")
        else:
            assert got["toolUse"]["input"] == block["tool_use"]["input"] and TOOL_ID.match(got["toolUse"]["toolUseId"])
    check_frame_laws(render_invoke_stream(script, seed=seed), "InvokeModelWithResponseStream")


# ---- script errors ------------------------------------------------------------------------------------

KNOWN = "text, reasoning, redacted_reasoning, tool_use, server_tool_use, tool_result, image, future_block"


@pytest.mark.parametrize("script, message", [
    ({"content": [{"text": "a"}, {"text": "b"}, {"toolUse": {}}]},
     f"script content[2]: unknown block kind 'toolUse' (known: {KNOWN})"),
    ({"content": [{"tool_use": {"input": {}}}]}, "script content[0].tool_use.name: required"),
    ({"content": [{"tool_use": {"name": "f", "inputs": {}}}]},
     "script content[0].tool_use: unknown field 'inputs' (known: name, id, input, raw_input, fragments, type)"),
    ({"content": [{"tool_use": {"name": "f", "input": "{}"}}]}, "script content[0].tool_use.input: expected a mapping, got str"),
    ({"content": [{"tool_use": {"name": "f", "input": {}, "raw_input": "{}"}}]},
     "script content[0].tool_use: give input or raw_input, not both"),
    ({"content": [{"tool_use": {"name": "f", "raw_input": ["{"], "fragments": 2}}]},
     "script content[0].tool_use.fragments: raw_input given as a list already fixes the fragments"),
    ({"content": [{"tool_use": {"name": "f", "fragments": 0}}]},
     "script content[0].tool_use.fragments: expected an integer >= 1, got 0"),
    ({"content": [{"text": "a", "signature": "x"}]}, "script content[0]: unknown field 'signature' (known: text, citations)"),
    ({"content": [{"text": "a", "reasoning": "b"}]}, "script content[0]: one block kind per block, got text, reasoning"),
    ({"content": [{"text": 3}]}, "script content[0].text: expected a string, got int"),
    ({"content": [{"reasoning": ["a", 1]}]}, "script content[0].reasoning[1]: expected a string, got int"),
    ({"content": ["hello"]}, f"script content[0]: expected a mapping with one block kind (known: {KNOWN})"),
    ({"content": [{"redacted_reasoning": "not base64!"}]},
     "script content[0].redacted_reasoning: not valid base64 (botocore decodes this blob)"),
    ({"content": [{"tool_result": {"content": []}}]}, "script content[0].tool_result: no server_tool_use block before it to answer"),
    ({"content": [{"server_tool_use": {"name": "s"}}, {"tool_result": {"status": "ok", "content": []}}]},
     "script content[1].tool_result.status: expected success or error, got 'ok'"),
    ({"content": [{"server_tool_use": {"name": "s", "type": "x"}}]},
     "script content[0].server_tool_use: unknown field 'type' (known: name, id, input, raw_input, fragments)"),
    ({"content": [], "stop_reason": "stop"}, "script stop_reason: unknown stop reason 'stop' (known: end_turn, tool_use, "
     "max_tokens, stop_sequence, guardrail_intervened, content_filtered, malformed_model_output, malformed_tool_use, "
     "model_context_window_exceeded)"),
    ({"content": [], "usage": {"input_tokens": -1, "output_tokens": 2}},
     "script usage.input_tokens: expected an integer >= 0, got -1"),
    ({"content": [], "usage": {"input_tokens": 1}}, "script usage.output_tokens: required"),
    ({"content": [], "usage": {"input_tokens": True, "output_tokens": 1}}, "script usage.input_tokens: expected an integer >= 0, got True"),
    ({"content": [], "exception": {"type": "Throttling", "after_event": 1}},
     "script exception.type: unknown exception 'Throttling' (known: internalServerException, modelStreamErrorException, "
     "validationException, throttlingException, serviceUnavailableException, modelTimeoutException)"),
    ({"content": [], "exception": {"type": "throttlingException", "after_event": 1, "original_status_code": 500}},
     "script exception.original_status_code: only modelStreamErrorException carries it"),
    ({"content": [], "exception": {"type": "modelStreamErrorException", "after_event": 1, "original_status_code": 99}},
     "script exception.original_status_code: expected an integer in 100..599, got 99"),
    ({"content": [], "exception": {"type": "throttlingException"}}, "script exception.after_event: required"),
    ({"content": [], "interleave": "yes"}, "script interleave: expected true or false, got 'yes'"),
    ({"content": [], "latency": 5}, "script: unknown field 'latency' (known: content, stop_reason, usage, latency_ms, "
     "interleave, exception, additional_model_response_fields, trace, service_tier, performance)"),
    ({}, "script content: required"),
    ({"content": {"text": "a"}}, "script content: expected a list, got dict"),
    ([], "script: expected a mapping, got list"),
])
def test_script_errors_name_the_block_and_field(script, message):
    with pytest.raises(EmulatorScriptError) as raised:
        render_stream(script, seed="x")
    assert str(raised.value) == message
    assert "\n" not in str(raised.value)


def test_errors_carry_the_callers_context_and_bad_styles_are_refused():
    with pytest.raises(EmulatorScriptError, match=r"^suites/core/a\.yaml turns\[1\]\.script content\[0\]: unknown block kind"):
        parse_script({"content": [{"txt": "a"}]}, where="suites/core/a.yaml turns[1].script")
    with pytest.raises(EmulatorScriptError, match=r"^style: unknown style 'gpt' \(known: claude, nova, nova-2, openai, open-weight, titan\)$"):
        render_stream({"content": []}, style="gpt", seed="x")


def test_public_names_exist():
    assert all(hasattr(emulator, name) for name in emulator.__all__)


# ---- image output, a future block kind, how the turn was served (bedrock-wire.md §13) ----------------------

SERVED_SCRIPT = {"content": [{"text": "Look."}, {"image": {"format": "png", "data": ["iVBORw0K", "GgoAAAAN"]}},
                             {"future_block": {"kind": "videoOutput", "start": {"format": "mp4"},
                                               "deltas": [{"source": {"bytes": "AAAA"}}]}},
                             {"text": "Done."}],
                 "service_tier": "flex", "performance": "optimized", "stop_reason": "end_turn"}


def _wire(script):
    return [(f.type, {k: v for k, v in f.json().items() if k != "p"})
            for f in decode_frames(b"".join(render_stream(script, style="nova-2", seed="s")))]


def test_an_image_streams_a_start_with_its_format_then_a_delta_per_part():
    events = _wire(SERVED_SCRIPT)
    assert ("contentBlockStart", {"contentBlockIndex": 1, "start": {"image": {"format": "png"}}}) in events
    assert [body["delta"]["image"] for name, body in events if name == "contentBlockDelta"
            and "image" in body["delta"]] == [{"source": {"bytes": "iVBORw0K"}}, {"source": {"bytes": "GgoAAAAN"}}]
    failed = {"content": [{"image": {"format": "webp", "error": "could not render"}}]}
    assert [b["delta"] for n, b in _wire(failed) if n == "contentBlockDelta"] == [
        {"image": {"error": {"message": "could not render"}}}]


def test_a_future_block_streams_under_its_own_member_and_botocore_hands_it_over_as_unknown():
    events = _wire(SERVED_SCRIPT)
    assert ("contentBlockStart", {"contentBlockIndex": 2, "start": {"videoOutput": {"format": "mp4"}}}) in events
    assert ("contentBlockDelta", {"contentBlockIndex": 2, "delta": {"videoOutput": {"source": {"bytes": "AAAA"}}}}) \
        in events


def test_metadata_and_the_converse_response_carry_the_tier_and_latency_that_served_it():
    [metadata] = [body for name, body in _wire(SERVED_SCRIPT) if name == "metadata"]
    assert metadata["serviceTier"] == {"type": "flex"} and metadata["performanceConfig"] == {"latency": "optimized"}
    converse = render_converse(SERVED_SCRIPT, style="nova-2", seed="s")
    assert converse["serviceTier"] == {"type": "flex"} and converse["performanceConfig"] == {"latency": "optimized"}
    assert converse["output"]["message"]["content"][1] == {"image": {"format": "png", "source": {
        "bytes": base64.b64encode(base64.b64decode("iVBORw0K") + base64.b64decode("GgoAAAAN")).decode()}}}
    assert "serviceTier" not in [b for n, b in _wire({"content": [{"text": "x"}]}) if n == "metadata"][0]


def test_a_derived_script_renders_the_same_image_future_block_and_served_members_again():
    frames = render_stream(SERVED_SCRIPT, style="claude", seed="s")
    derived, style = script_from_frames(b"".join(frames))
    assert _semantic(render_stream(derived, style=style, seed="s")) == _semantic(frames)


def _semantic(frames):
    return [(f.type, {k: v for k, v in f.json().items() if k != "p"}) for f in decode_frames(b"".join(frames))]


@pytest.mark.parametrize("script, message", [
    ({"content": [{"image": {"format": "bmp", "data": "AAAA"}}]},
     "script content[0].image.format: expected one of png, jpeg, gif, webp, got 'bmp'"),
    ({"content": [{"image": {"format": "png"}}]},
     "script content[0].image: give data (base64, or a list of base64 parts) or error, one of them"),
    ({"content": [{"image": {"format": "png", "data": ["AAAA", "not base64!"]}}]},
     "script content[0].image.data[1]: not valid base64"),
    ({"content": [{"future_block": {"kind": "toolUse", "deltas": []}}]},
     "script content[0].future_block.kind: 'toolUse' is a member ConverseStream already has"),
    ({"content": [], "service_tier": "gold"},
     "script service_tier: expected one of priority, default, flex, reserved, got 'gold'"),
    ({"content": [], "performance": "fast"}, "script performance: expected one of standard, optimized, got 'fast'"),
])
def test_served_and_new_block_errors_name_the_field(script, message):
    with pytest.raises(EmulatorScriptError) as raised:
        parse_script(script)
    assert str(raised.value) == message
