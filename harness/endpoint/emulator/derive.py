"""Emulator scripts derived from recordings, so a recorded answer can be rendered again in any operation.

`script_from_frames` reads a ConverseStream's frames, `script_from_converse` a Converse response; both return
``(script, style)``. Rendering the script in the recording's own operation gives the recorded semantic
sequence back: the exact text and reasoning deltas, signatures, redacted blobs, tool ids verbatim, tool
inputs (parsed, with the recorded fragment count; the exact fragments when the text is not what the style
would write, e.g. a stream cut by max_tokens), server tool results, citations, stop reason, usage, latency
and the exception frame's position. `for_operation` adapts a derived script to another operation's rendering.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from collections.abc import Iterable
from itertools import accumulate
from typing import Any

from harness.endpoint.emulator.render import render_invoke_stream, render_stream
from harness.endpoint.emulator.script import STREAM_MEMBERS, EmulatorScriptError
from harness.wire.eventstream import Frame, decode_frames

__all__ = ["delivered", "for_operation", "recorded_text_deltas", "script_from_converse", "script_from_frames"]

_USAGE = {"inputTokens": "input_tokens", "outputTokens": "output_tokens",
          "cacheReadInputTokens": "cache_read_input_tokens", "cacheWriteInputTokens": "cache_write_input_tokens",
          "serverToolUsage": "server_tool_usage"}
_COUNTS = {"cacheReadInputTokenCount": "cache_read_input_tokens",
           "cacheWriteInputTokenCount": "cache_write_input_tokens"}
_DEFAULT_TYPE = {"claude": None, "nova": None}  # the toolUse start `type` each derived style renders by itself


def script_from_frames(frames: Iterable[Frame] | bytes) -> tuple[dict, str]:
    """The script and style (claude: tool input leads with "") of a ConverseStream's frames or body bytes."""
    blocks: dict[int, dict] = {}
    script: dict = {}
    order = []  # the block index of every block event, in stream order
    for number, frame in enumerate(decode_frames(frames) if isinstance(frames, bytes) else frames):
        if frame.message_type != "event":
            script["exception"] = _exception(frame, number)
            break
        body = frame.json()
        _read_event(frame.type, body, blocks, script)
        order += [body["contentBlockIndex"]] if "contentBlockIndex" in body else []
    if order != sorted(order):
        script["interleave"] = True  # parallel tool calls whose deltas alternate
    tools = [b for b in blocks.values() if "toolUse" in b["start"]]
    claude = not tools or any(_fragments(b)[:1] == [""] for b in tools)
    style = "claude" if claude else "nova"  # Nova sends each input whole, without Claude's leading ""
    script["content"] = [_block(blocks[n], style) for n in sorted(blocks)]
    return script, style


def _read_event(name: str, body: dict, blocks: dict, script: dict) -> None:
    index = body.get("contentBlockIndex")
    if name == "contentBlockStart":
        blocks[index] = {"start": body.get("start") or {}, "deltas": []}
    elif name == "contentBlockDelta":
        blocks.setdefault(index, {"start": {}, "deltas": []})["deltas"].append(body.get("delta") or {})
    elif name == "messageStop":
        script["stop_reason"] = body["stopReason"]
        if "additionalModelResponseFields" in body:
            script["additional_model_response_fields"] = body["additionalModelResponseFields"]
    elif name == "metadata":
        script["latency_ms"] = (body.get("metrics") or {}).get("latencyMs", 0)
        script["usage"] = _usage(body.get("usage") or {})
        if "trace" in body:
            script["trace"] = body["trace"]
        if "serviceTier" in body:
            script["service_tier"] = (body["serviceTier"] or {}).get("type")
        if "performanceConfig" in body:
            script["performance"] = (body["performanceConfig"] or {}).get("latency")


def _usage(usage: dict) -> dict:
    """The script's usage; the older ``...InputTokenCount`` spelling stands in where ``...InputTokens`` is missing."""
    out = {_USAGE[key]: value for key, value in usage.items() if key in _USAGE}
    out.setdefault("server_tool_usage", False)  # a recording without it re-renders without it
    for key, name in _COUNTS.items():
        if key in usage:
            out.setdefault(name, usage[key])
            out["both_cache_spellings"] = True
    if usage.get("cacheDetails"):
        out["cache_details"] = [{"ttl": d.get("ttl"), "input_tokens": d.get("inputTokens")} for d in usage["cacheDetails"]]
    return out


def _exception(frame: Frame, number: int) -> dict:
    """The script's ``exception``: cut after the ``number`` event frames before it."""
    if frame.message_type != "exception":
        raise EmulatorScriptError(f"frame {number}: a {frame.message_type} frame ({frame.type}) has no script form")
    body = frame.json()
    failure = {"type": frame.type, "message": body.get("message", ""), "after_event": number}
    if "originalStatusCode" in body:
        failure["original_status_code"] = body["originalStatusCode"]
    if "originalMessage" in body:
        failure["original_message"] = body["originalMessage"]
    return failure


def _fragments(acc: dict) -> list[str]:
    return [delta["toolUse"]["input"] for delta in acc["deltas"] if "toolUse" in delta]


def _block(acc: dict, style: str) -> dict:
    start, deltas = acc["start"], acc["deltas"]
    if "toolResult" in start:
        content = [part for delta in deltas for part in delta.get("toolResult", [])]
        return {"tool_result": {**_result_head(start["toolResult"]), "content": content}}
    if "toolUse" in start:
        return _tool(start["toolUse"], _fragments(acc), style)
    if "image" in start:
        return {"image": {"format": start["image"].get("format"), **_image_parts(deltas)}}
    future = next((key for key in [*start, *(k for d in deltas for k in d)] if key not in STREAM_MEMBERS), None)
    if future is not None:
        return {"future_block": {"kind": future, **({"start": start[future]} if future in start else {}),
                                 "deltas": [d[future] for d in deltas if future in d]}}
    reasoning = [d["reasoningContent"] for d in deltas if "reasoningContent" in d]
    if reasoning and "redactedContent" in reasoning[0]:
        return {"redacted_reasoning": reasoning[0]["redactedContent"]}
    if reasoning:
        signature = next((r["signature"] for r in reasoning if "signature" in r), None)
        return {"reasoning": [r["text"] for r in reasoning if "text" in r], **_signature(signature)}
    citations = [d["citation"] for d in deltas if "citation" in d]
    return {"text": [d["text"] for d in deltas if "text" in d], **({"citations": citations} if citations else {})}


def _image_parts(deltas: list[dict]) -> dict:
    images = [d["image"] for d in deltas if "image" in d]
    errors = [image["error"].get("message", "") for image in images if "error" in image]
    if errors:
        return {"error": errors[0]}
    return {"data": [(image.get("source") or {}).get("bytes", "") for image in images]}


def _signature(signature: str | None) -> dict:
    return {} if signature is None else {"signature": signature}


def _result_head(result: dict) -> dict:
    return {key: result[key] for key in ("status", "type") if key in result}


def _as_written(raw: str, style: str) -> dict | None:
    """The input document when ``raw`` is exactly what the style writes for it (else the fragments are kept)."""
    if raw == "":
        return {} if style == "claude" else None  # Claude's zero-argument call is its leading "" alone
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    separators = (",", ":") if style == "nova" else (", ", ": ")
    written = json.dumps(value, separators=separators, ensure_ascii=False)
    return value if isinstance(value, dict) and written == raw else None


def _tool(start: dict, fragments: list[str], style: str) -> dict:
    body = fragments[1:] if style == "claude" and fragments[:1] == [""] else fragments
    spec: dict[str, Any] = {"name": start.get("name", ""), "id": start.get("toolUseId")}
    value = _as_written("".join(fragments), style)
    if value is None:
        spec["raw_input"] = body
    else:
        spec["input"] = value
        if body and (style == "claude" or len(body) != 1):
            spec["fragments"] = len(body)
    kind = start.get("type")
    if kind == "server_tool_use":
        return {"server_tool_use": spec}
    return {"tool_use": {**spec, **({"type": kind} if kind != _DEFAULT_TYPE[style] else {})}}


def script_from_converse(response: dict) -> tuple[dict, str]:
    """The script and style (nova: client toolUse blocks carry ``type``) of a Converse response JSON."""
    content = ((response.get("output") or {}).get("message") or {}).get("content") or []
    nova = any((block.get("toolUse") or {}).get("type") == "tool_use" for block in content)
    style = "nova" if nova else "claude"
    script: dict = {"content": [_converse_block(block, style) for block in content],
                    "stop_reason": response["stopReason"], "usage": _usage(response.get("usage") or {}),
                    "latency_ms": (response.get("metrics") or {}).get("latencyMs", 0)}
    if "additionalModelResponseFields" in response:
        script["additional_model_response_fields"] = response["additionalModelResponseFields"]
    if "trace" in response:
        script["trace"] = response["trace"]
    script["usage"].pop("both_cache_spellings", None)  # a Converse rendering sends both spellings anyway
    return script, style


def _converse_block(block: dict, style: str) -> dict:
    kind, value = next(iter(block.items()))
    if kind == "text":
        return {"text": value}
    if kind == "citationsContent":
        text = "".join(part.get("text", "") for part in value.get("content", []))
        return {"text": text, "citations": list(value.get("citations", []))}
    if kind == "reasoningContent" and "redactedContent" in value:
        return {"redacted_reasoning": value["redactedContent"]}
    if kind == "reasoningContent":
        reasoning = value.get("reasoningText") or {}
        return {"reasoning": reasoning.get("text", ""), **_signature(reasoning.get("signature"))}
    if kind == "toolResult":
        return {"tool_result": {**_result_head(value), "content": list(value.get("content", []))}}
    if kind == "toolUse":
        spec = {"name": value["name"], "id": value.get("toolUseId"), "input": value.get("input") or {}}
        if value.get("type") == "server_tool_use":
            return {"server_tool_use": spec}
        pinned = value.get("type") != _DEFAULT_TYPE[style]
        return {"tool_use": {**spec, **({"type": value.get("type")} if pinned else {})}}
    raise EmulatorScriptError(f"Converse content block {kind!r} has no script form")


# ---- one script, another operation ----

def for_operation(script: dict, style: str, operation: str, seed: str) -> dict:
    """A derived script adapted to ``operation``'s rendering.

    InvokeModelWithResponseStream: the exception moves to the event after the same content (Anthropic events
    differ in number: text blocks have a start, redacted blocks no delta). Converse: tool uses whose input
    never became JSON (a stream cut by max_tokens) are left out, as a whole message has no partial input.
    """
    if operation == "InvokeModelWithResponseStream" and script.get("exception"):
        return _moved_exception(script, style, seed)
    if operation == "Converse":
        return {**script, "content": [block for block in script["content"] if _complete(block)]}
    return script


def _complete(block: dict) -> bool:
    spec = block.get("tool_use") or block.get("server_tool_use")
    if spec is None or "raw_input" not in spec:
        return True
    try:
        return isinstance(json.loads("".join(spec["raw_input"])), dict)
    except ValueError:
        return False


def _moved_exception(script: dict, style: str, seed: str) -> dict:
    """Cut the invoke rendering after the longest run of events whose content the recording delivered."""
    failure, clean = script["exception"], {k: v for k, v in script.items() if k != "exception"}
    source = _positions(render_stream(clean, style=style, seed=seed), "ConverseStream")
    shown = set().union(*source[:failure["after_event"]])
    target = _positions(render_invoke_stream(clean, seed=seed), "InvokeModelWithResponseStream")
    after = next((n for n, keys in enumerate(target) if not keys <= shown), len(target))
    return {**script, "exception": {**failure, "after_event": after}}


_INVOKE_NAMES = {"message_start": "messageStart", "content_block_start": "contentBlockStart",
                 "content_block_delta": "contentBlockDelta", "content_block_stop": "contentBlockStop",
                 "message_delta": "messageStop", "message_stop": "metadata"}


def _events(frames: list[bytes], operation: str) -> Iterable[tuple[str, dict]]:
    for frame in decode_frames(b"".join(frames)):
        if frame.message_type != "event" or operation == "ConverseStream":
            yield frame.type, frame.json() if frame.message_type == "event" else {}
        else:
            event = json.loads(base64.b64decode(frame.json()["bytes"]))
            yield _INVOKE_NAMES.get(event["type"], event["type"]), {"contentBlockIndex": event.get("index")}


def _positions(frames: list[bytes], operation: str) -> list[frozenset]:
    """Per event, the content it delivers: a block opened, its n-th delta, closed; or a message event."""
    out, deltas = [], Counter()
    for name, body in _events(frames, operation):
        index = body.get("contentBlockIndex")
        if name == "contentBlockDelta":
            keys = {("open", index), ("delta", index, deltas[index])}
            deltas[index] += 1
        elif name in ("contentBlockStart", "contentBlockStop"):
            keys = {("open" if name == "contentBlockStart" else "close", index)}
        else:
            keys = {name}
        out.append(frozenset(keys))
    return out


def delivered(frames: list[bytes], operation: str, cut: int) -> frozenset:
    """The content positions of the frames a byte cut leaves whole, comparable across operations."""
    ends = accumulate(len(frame) for frame in frames)
    return frozenset().union(*_positions([f for f, end in zip(frames, ends) if end <= cut], operation))


# ---- what the runner asks of a recording ----

def recorded_text_deltas(interaction: Any) -> int | None:
    """Non-empty text deltas of a recorded stream (ConverseStream or Anthropic-native); None for a JSON answer."""
    if interaction.frames is None:
        return None
    deltas = [_delta(frame) for frame in interaction.frames if frame.type in ("contentBlockDelta", "chunk")]
    return sum(1 for delta in deltas if isinstance(delta, dict) and delta.get("text"))


def _delta(frame: Frame) -> Any:
    """The delta a frame carries, or None when it carries none a client could read."""
    try:
        body = frame.json()
        if frame.type == "chunk":
            body = json.loads(base64.b64decode(body["bytes"]))
        return body.get("delta")
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None
