"""Render an emulator script as InvokeModelWithResponseStream: Anthropic events in ``chunk`` frames (§8).

The inner events are compact JSON in Anthropic's own key order (``type`` first), as Bedrock forwards them;
the padding ``p`` sits outside the base64 ``bytes``. Text, fragments and ids come from the same seeded
choices as the ConverseStream rendering; Anthropic ids are ``msg_bdrk_01…`` / ``toolu_bdrk_01…``.
"""

from __future__ import annotations

import base64
import binascii
import re
import string
from typing import Any

from harness.endpoint.emulator.plan import digest, input_fragments, reasoning_deltas, schedule, text_deltas, encode_plan
from harness.endpoint.emulator.script import AUTO, EXCEPTIONS, Block, EmulatorScriptError, Script, parse_script
from harness.wire.eventstream import encode_chunk

__all__ = ["render_invoke_stream", "DEFAULT_MODEL_ID", "model_name", "STOP_REASON_NAMES"]

DEFAULT_MODEL_ID = "anthropic.claude-sonnet-4-20250514-v1:0"
# Bedrock stop reasons without an Anthropic twin: filtered output is a refusal, malformed output ends the turn.
STOP_REASON_NAMES = {"content_filtered": "refusal", "guardrail_intervened": "refusal",
                     "malformed_model_output": "end_turn", "malformed_tool_use": "end_turn"}
_BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
_LOCATIONS = {"documentChar": ("char_location", "start_char_index", "end_char_index"),
              "documentPage": ("page_location", "start_page_number", "end_page_number"),
              "documentChunk": ("content_block_location", "start_block_index", "end_block_index")}


def render_invoke_stream(script: Any, *, seed: str, model_id: str = DEFAULT_MODEL_ID) -> list[bytes]:
    """InvokeModelWithResponseStream ``chunk`` frames for a script, cut at the script's exception."""
    script = parse_script(script)
    parts = [_PARTS[block.kind](block, script, seed) for block in script.blocks]
    plan = [_chunk(_message_start(script, seed, model_id)), *schedule(script, parts),
            _chunk(_message_delta(script)), _chunk(_message_stop(script))]
    return encode_plan(plan, script, seed, EXCEPTIONS)


def _encode_chunk(name: str, event: dict, pad: int) -> bytes:
    return encode_chunk(event, pad)


def _chunk(event: dict):
    return _encode_chunk, "chunk", event


def model_name(model_id: str) -> str:
    """``us.anthropic.claude-sonnet-4-20250514-v1:0`` -> ``claude-sonnet-4-20250514``, message_start's model."""
    name = model_id.rsplit("/", 1)[-1].split("anthropic.", 1)[-1]
    return re.sub(r"-v\d+(:\d+)?$", "", name)


def anthropic_id(prefix: str, seed: str, key: object) -> str:
    """``prefix`` + ``01`` + 22 base62 characters of a sha256, the shape of Anthropic's ids on Bedrock."""
    number, chars = int.from_bytes(digest(seed, key), "big"), []
    while len(chars) < 22:
        number, rest = divmod(number, 62)
        chars.append(_BASE62[rest])
    return prefix + "01" + "".join(chars)


def _tool_id(block: Block, seed: str) -> str | None:
    if block.id is not AUTO:
        return block.id
    return anthropic_id("srvtoolu_bdrk_" if block.kind == "server_tool_use" else "toolu_bdrk_", seed, block.index)


def _message_start(script: Script, seed: str, model_id: str) -> dict:
    usage = {"input_tokens": script.usage.input_tokens}
    if script.usage.has_cache:
        usage["cache_creation_input_tokens"] = script.usage.cache_write_input_tokens or 0
        usage["cache_read_input_tokens"] = script.usage.cache_read_input_tokens or 0
    message = {"id": anthropic_id("msg_bdrk_", seed, "message"), "type": "message", "role": "assistant",
               "model": model_name(model_id), "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {**usage, "output_tokens": 1}}
    return {"type": "message_start", "message": message}


def _message_delta(script: Script) -> dict:
    reason = STOP_REASON_NAMES.get(script.stop_reason, script.stop_reason)
    return {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None},
            "usage": {"output_tokens": script.usage.output_tokens}}


def _message_stop(script: Script) -> dict:
    usage = script.usage
    metrics = {"inputTokenCount": usage.input_tokens, "outputTokenCount": usage.output_tokens,
               "invocationLatency": script.latency_ms, "firstByteLatency": script.latency_ms // 2}
    if usage.has_cache:
        metrics["cacheReadInputTokenCount"] = usage.cache_read_input_tokens or 0
        metrics["cacheWriteInputTokenCount"] = usage.cache_write_input_tokens or 0
    return {"type": "message_stop", "amazon-bedrock-invocationMetrics": metrics}


def _start(block: Block, content_block: dict):
    return _chunk({"type": "content_block_start", "index": block.index, "content_block": content_block})


def _delta(block: Block, delta: dict):
    return _chunk({"type": "content_block_delta", "index": block.index, "delta": delta})


def _stop(block: Block) -> list:
    return [_chunk({"type": "content_block_stop", "index": block.index})]


def _text(block: Block, script: Script, seed: str):
    head = {"type": "text", "text": "", **({"citations": []} if block.citations else {})}
    citations = [_delta(block, {"type": "citations_delta", "citation": _citation(c, f"{block.where}.citations[{n}]")})
                 for n, c in enumerate(block.citations)]
    texts = [_delta(block, {"type": "text_delta", "text": text}) for text in text_deltas(block, seed)]
    return [_start(block, head)], citations + texts, _stop(block)


def _citation(citation: dict, where: str) -> dict:
    """A Bedrock citation as Anthropic's document citation (char, page or content-block location)."""
    location = citation.get("location") or {}
    cited = "".join(part.get("text", "") for part in citation.get("sourceContent", []))
    if "searchResultLocation" in location:  # Anthropic's search-result citation: its index and block span
        place = location["searchResultLocation"]
        return {"type": "search_result_location", "cited_text": cited, "source": citation.get("source"),
                "title": citation.get("title"), "search_result_index": place.get("searchResultIndex", 0),
                "start_block_index": place.get("start"), "end_block_index": place.get("end")}
    for key, (kind, start, end) in _LOCATIONS.items():
        if key in location:
            place = location[key]
            cited = "".join(part.get("text", "") for part in citation.get("sourceContent", []))
            return {"type": kind, "cited_text": cited, "document_index": place.get("documentIndex", 0),
                    "document_title": citation.get("title"), start: place.get("start"), end: place.get("end")}
    raise EmulatorScriptError(f"{where}.location: needs {', '.join(_LOCATIONS)} or searchResultLocation for "
                              "InvokeModel streams")


def _reasoning(block: Block, script: Script, seed: str):
    deltas = [{"type": "thinking_delta", "thinking": text} for text in reasoning_deltas(block, seed)]
    if block.signature is not None:
        deltas.append({"type": "signature_delta", "signature": block.signature})
    head = {"type": "thinking", "thinking": "", "signature": ""}
    return [_start(block, head)], [_delta(block, delta) for delta in deltas], _stop(block)


def _redacted(block: Block, script: Script, seed: str):
    """Bedrock's redactedContent is the base64 of Anthropic's opaque ``data`` string."""
    try:
        data = base64.b64decode(block.data).decode("ascii")
    except (binascii.Error, UnicodeDecodeError):
        raise EmulatorScriptError(f"{block.where}.redacted_reasoning: does not decode to Anthropic's data string") from None
    return [_start(block, {"type": "redacted_thinking", "data": data})], [], _stop(block)


def _tool(block: Block, script: Script, seed: str):
    head = {"type": block.kind}
    if (tid := _tool_id(block, seed)) is not None:
        head["id"] = tid
    head.update(name=block.name, input={})
    deltas = [{"type": "input_json_delta", "partial_json": part} for part in input_fragments(block, seed, "claude")]
    return [_start(block, head)], [_delta(block, delta) for delta in deltas], _stop(block)


def _tool_result(block: Block, script: Script, seed: str):
    """Server tool results arrive whole in their start event, as Anthropic's ``*_tool_result`` blocks do."""
    head = {"type": block.type or "tool_result"}
    if (tid := _tool_id(script.blocks[block.ref], seed)) is not None:
        head["tool_use_id"] = tid
    return [_start(block, {**head, "content": list(block.content)})], [], _stop(block)


def _no_block(block: Block, script: Script, seed: str):
    """Anthropic's Messages stream has no image output and no future ConverseStream member: nothing is sent."""
    return [], [], []


_PARTS = {"text": _text, "reasoning": _reasoning, "redacted_reasoning": _redacted, "tool_use": _tool,
          "server_tool_use": _tool, "tool_result": _tool_result, "image": _no_block, "future_block": _no_block}
