"""Scripted model responses rendered the way real Bedrock sends them (bedrock-wire.md §3, §3.1, §4.4, §6, §7).

`render_stream` gives ConverseStream frames, `render_converse` the Converse JSON for the same script and
seed (same text, inputs and ids), `render_invoke_stream` (emulator_invoke.py) the Anthropic-native
InvokeModelWithResponseStream frames. Scripts are validated by `parse_script` (emulator_script.py); every
problem is an `EmulatorScriptError` naming the block index and field.
"""

from __future__ import annotations

import base64
import json
from dataclasses import replace
from typing import Any

from harness.endpoint.emulator.invoke import render_invoke_stream
from harness.endpoint.emulator.plan import (STYLES, check_style, encode_plan, input_fragments, parsed_input,
                                   reasoning_deltas, schedule, text_deltas, tool_id)
from harness.endpoint.emulator.script import AUTO, Block, EmulatorScriptError, Script, Usage, parse_script
from harness.wire.eventstream import encode_event, encode_frame, padding

__all__ = ["STYLES", "EmulatorScriptError", "parse_script", "render_stream", "render_converse",
           "render_invoke_stream", "CONVERSE_STREAM_EXCEPTIONS"]

CONVERSE_STREAM_EXCEPTIONS = ("internalServerException", "modelStreamErrorException", "validationException",
                              "throttlingException", "serviceUnavailableException")
_HEADERS = (":content-type", "application/json"), (":message-type", "event")


def render_stream(script: Any, *, style: str = "claude", seed: str, tools: bool = True) -> list[bytes]:
    """ConverseStream: one encoded frame per event, each padded with ``p``, cut at the script's exception; ``tools``:
    whether the request carried toolConfig (some styles stream differently without it)."""
    script = replace(parse_script(script), tools=tools)
    check_style(style)
    parts = [_PARTS[block.kind](block, script, style, seed) for block in script.blocks]
    metadata = {"metrics": {"latencyMs": script.latency_ms}, "usage": usage_json(script.usage, style),
                **({"trace": script.trace} if script.trace is not None else {}), **served_by(script)}
    plan = [_event("messageStart", {"role": "assistant"}), *schedule(script, parts),
            _event("messageStop", _message_stop(script)), _event("metadata", metadata)]
    return encode_plan(plan, script, seed, CONVERSE_STREAM_EXCEPTIONS)


def _event(name: str, body: dict):
    return encode_event, name, body


def _encode_in_order(name: str, body: dict, pad: int) -> bytes:
    """An event whose documents (``toolResult[].json``) keep the model's key order; the rest is built sorted."""
    payload = json.dumps({**body, "p": padding(pad)}, separators=(",", ":"), ensure_ascii=False).encode()
    return encode_frame(((":event-type", name), *_HEADERS), payload)


def _delta(block: Block, delta: dict):
    return _event("contentBlockDelta", {"contentBlockIndex": block.index, "delta": delta})


def _start(block: Block, start: dict):
    return _event("contentBlockStart", {"contentBlockIndex": block.index, "start": start})


def _stop(block: Block) -> list:
    return [_event("contentBlockStop", {"contentBlockIndex": block.index})]


def _text(block: Block, script: Script, style: str, seed: str):
    citations = [_delta(block, {"citation": citation}) for citation in block.citations]
    texts = text_deltas(block, seed, style, _last_answer_text(block, script))
    return [], citations + [_delta(block, {"text": text}) for text in texts], _stop(block)


def _last_answer_text(block: Block, script: Script) -> bool:
    """Whether ``block`` is the last text block of an end_turn answer to a request with tools (where Nova closes with
    "": R-nova1's answer does, R-nova-micro's, asked without tools, does not)."""
    texts = [b for b in script.blocks if b.kind == "text"]
    return script.tools and script.stop_reason == "end_turn" and bool(texts) and texts[-1] is block


def _reasoning(block: Block, script: Script, style: str, seed: str):
    deltas = [{"text": text} for text in reasoning_deltas(block, seed)]
    if block.signature is not None:
        deltas.append({"signature": block.signature})
    return [], [_delta(block, {"reasoningContent": delta}) for delta in deltas], _stop(block)


def _redacted(block: Block, script: Script, style: str, seed: str):
    return [], [_delta(block, {"reasoningContent": {"redactedContent": block.data}})], _stop(block)


def _tool(block: Block, script: Script, style: str, seed: str):
    if style == "titan":
        raise EmulatorScriptError(f"{block.where}: the titan style streams no tool use (Titan text models have none)")
    start = _start(block, {"toolUse": _tool_head(block, style, seed)})
    fragments = input_fragments(block, seed, style)
    return [start], [_delta(block, {"toolUse": {"input": fragment}}) for fragment in fragments], _stop(block)


def _tool_result(block: Block, script: Script, style: str, seed: str):
    delta = {"contentBlockIndex": block.index, "delta": {"toolResult": list(block.content)}}
    start = _start(block, {"toolResult": _result_head(block, script, seed, style)})
    return [start], [(_encode_in_order, "contentBlockDelta", delta)], _stop(block)


def _image(block: Block, script: Script, style: str, seed: str):
    """ImageBlockStart{format}, then ImageBlockDelta{source: {bytes}} per part (or {error: {message}})."""
    deltas = [{"image": {"error": {"message": part["error"]}} if isinstance(part, dict) else {"source": {"bytes": part}}}
              for part in block.parts]
    return [_start(block, {"image": {"format": block.format}})], [_delta(block, d) for d in deltas], _stop(block)


def _future(block: Block, script: Script, style: str, seed: str):
    """A member no SDK's model knows yet: its start (when given) and deltas under its own name."""
    starts = [] if block.start is None else [_start(block, {block.format: block.start})]
    return starts, [_delta(block, {block.format: delta}) for delta in block.parts], _stop(block)


_PARTS = {"text": _text, "reasoning": _reasoning, "redacted_reasoning": _redacted, "tool_use": _tool,
          "server_tool_use": _tool, "tool_result": _tool_result, "image": _image, "future_block": _future}


def _tool_head(block: Block, style: str, seed: str) -> dict:
    """``{name, toolUseId?, type?}``: Nova 2 marks client tools ``tool_use``, every server tool ``server_tool_use``."""
    head = {"name": block.name}
    if (tid := tool_id(block, seed, style)) is not None:
        head["toolUseId"] = tid
    kind = block.type if block.type is not AUTO else ("tool_use" if style == "nova-2" else None)
    if block.kind == "server_tool_use":
        kind = "server_tool_use"
    return head if kind is None else {**head, "type": kind}


def _result_head(block: Block, script: Script, seed: str, style: str = "claude") -> dict:
    head = {"status": block.status}
    if (tid := tool_id(script.blocks[block.ref], seed, style)) is not None:
        head["toolUseId"] = tid
    return head if block.type is None else {**head, "type": block.type}


def served_by(script: Script) -> dict:
    """``performanceConfig`` and ``serviceTier`` as metadata (and a Converse response) carry them, when the script
    gives them."""
    served = {"performanceConfig": {"latency": script.performance} if script.performance is not None else None,
              "serviceTier": {"type": script.service_tier} if script.service_tier is not None else None}
    return {key: value for key, value in served.items() if value is not None}


def _message_stop(script: Script) -> dict:
    extra = script.additional_fields
    return {"stopReason": script.stop_reason, **({"additionalModelResponseFields": extra} if extra is not None else {})}


def usage_json(usage: Usage, style: str = "claude") -> dict:
    """Bedrock TokenUsage; cache counts only when the script gives them (both spellings when it asks), and
    serverToolUsage as the script gives it, else ``{}`` (every style but titan: current streams carry it), or none
    when the script says ``false``."""
    out = {"inputTokens": usage.input_tokens, "outputTokens": usage.output_tokens, "totalTokens": usage.total_tokens}
    server = usage.server_tool_usage if usage.server_tool_usage is not None else {} if style != "titan" else None
    server = None if server is False else server
    optional = {"cacheReadInputTokens": usage.cache_read_input_tokens,
                "cacheWriteInputTokens": usage.cache_write_input_tokens, "serverToolUsage": server,
                "cacheDetails": [{"ttl": ttl, "inputTokens": n} for ttl, n in usage.cache_details] or None}
    if usage.both_cache_spellings:
        optional.update(cacheReadInputTokenCount=usage.cache_read_input_tokens,
                        cacheWriteInputTokenCount=usage.cache_write_input_tokens)
    return dict(sorted({**out, **{key: value for key, value in optional.items() if value is not None}}.items()))


def render_converse(script: Any, *, style: str = "claude", seed: str) -> dict:
    """The Converse response JSON for the same script and seed (same ids); ``exception`` is stream-only."""
    script = parse_script(script)
    check_style(style)
    content = [_CONVERSE[block.kind](block, script, style, seed) for block in script.blocks]
    usage = usage_json(script.usage, style)
    # Real Converse responses carry each cache count twice: ...Tokens and the older ...TokenCount.
    usage.update({key[:-6] + "TokenCount": usage[key] for key in ("cacheReadInputTokens", "cacheWriteInputTokens")
                  if key in usage})
    body = {"metrics": {"latencyMs": script.latency_ms},
            "output": {"message": {"content": content, "role": "assistant"}},
            "stopReason": script.stop_reason, "usage": dict(sorted(usage.items()))}
    if script.additional_fields is not None:
        body["additionalModelResponseFields"] = script.additional_fields
    if script.trace is not None:
        body["trace"] = script.trace
    body.update(served_by(script))
    return dict(sorted(body.items()))


def _converse_text(block: Block, script: Script, style: str, seed: str) -> dict:
    text = "".join(text_deltas(block, seed, style))
    if not block.citations:
        return {"text": text}
    return {"citationsContent": {"citations": list(block.citations), "content": [{"text": text}]}}


def _converse_reasoning(block: Block, script: Script, style: str, seed: str) -> dict:
    reasoning = {"text": "".join(reasoning_deltas(block, seed))}
    if block.signature is not None:
        reasoning["signature"] = block.signature
    return {"reasoningContent": {"reasoningText": dict(sorted(reasoning.items()))}}


def _converse_redacted(block: Block, script: Script, style: str, seed: str) -> dict:
    return {"reasoningContent": {"redactedContent": block.data}}


def _converse_tool(block: Block, script: Script, style: str, seed: str) -> dict:
    return {"toolUse": dict(sorted({**_tool_head(block, style, seed), "input": parsed_input(block)}.items()))}


def _converse_result(block: Block, script: Script, style: str, seed: str) -> dict:
    result = {**_result_head(block, script, seed, style), "content": list(block.content)}
    return {"toolResult": dict(sorted(result.items()))}


def _converse_image(block: Block, script: Script, style: str, seed: str) -> dict:
    """The whole image as an ImageBlock (its parts' bytes joined); a failed one has no Converse form but its format."""
    data = [base64.b64decode(part) for part in block.parts if not isinstance(part, dict)]
    source = {"source": {"bytes": base64.b64encode(b"".join(data)).decode()}} if data else {}
    return {"image": {"format": block.format, **source}}


def _converse_future(block: Block, script: Script, style: str, seed: str) -> dict:
    return {block.format: {**(block.start or {}), **{k: v for delta in block.parts for k, v in delta.items()}}}


_CONVERSE = {"text": _converse_text, "reasoning": _converse_reasoning, "redacted_reasoning": _converse_redacted,
             "tool_use": _converse_tool, "server_tool_use": _converse_tool, "tool_result": _converse_result,
             "image": _converse_image, "future_block": _converse_future}
