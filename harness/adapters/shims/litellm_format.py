"""LiteLLM's OpenAI chat format both ways, library-free (CI tests it without LiteLLM): the turn's Anthropic-format
messages as the chat messages a LiteLLM application holds, each native stream chunk as harness chunks, and the
message ``stream_chunk_builder`` or ``completion`` built as an Anthropic-format assistant message.

Redacted thinking has two forms across releases (``redacted``): up to 1.106 LiteLLM holds a ``redacted_thinking``
block's ``data`` as the base64 text Converse sent (``redactedContent``), which is also how the harness carries it;
from 1.108.0 it decodes that text into Claude's own data string (``common_utils.native_redacted_thinking_data``)
and wraps it in base64 again when it sends the block (``converse_redacted_content``), so the harness's form is
that wrapping.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Iterator
from typing import Any

from harness.converse.stream import metadata_chunk

__all__ = ["STOP_REASONS", "anthropic_message", "cached", "chunks_from_stream_chunk", "redacted_data", "to_openai",
           "tool_choice"]

# OpenAI finish reasons back to Bedrock's stopReason. LiteLLM's map is many-to-one (end_turn and stop_sequence
# -> stop; guardrail_intervened and content_filtered -> content_filter): the inverse can pick only one.
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens",
                "content_filter": "content_filtered", "function_call": "tool_use"}


# ---- turn -> OpenAI chat format (what litellm.completion takes) ----

def _image_url(block: dict) -> dict:
    source = block.get("source") or {}
    url = f"data:{source.get('media_type')};base64,{source.get('data')}"
    return {"type": "image_url", "image_url": {"url": url}}


def cached(block: dict) -> dict:
    """The block's ``cache_control`` as LiteLLM takes it, on the OpenAI part, tool or tool message it marks (its
    Bedrock path puts a cachePoint after each: get_cache_point_block, add_cache_point_tool_block); else nothing."""
    return {"cache_control": block["cache_control"]} if block.get("cache_control") else {}


def _part(block: dict) -> dict:
    """A user content part: text or image; a JSON result part as its JSON text (OpenAI's tool messages carry text)."""
    if "json" in block and "type" not in block:
        return {"type": "text", "text": json.dumps(block["json"])}
    if block.get("type") == "document":  # LiteLLM takes Anthropic's document block itself (_process_document_message)
        return dict(block)
    part = _image_url(block) if block.get("type") == "image" else {"type": "text", "text": block.get("text", "")}
    return {**part, **cached(block)}


def _file(block: dict) -> dict:
    """A document of a tool result as the OpenAI ``file`` part a LiteLLM tool message takes (its
    ToolMessageContentPart): the data URL as ``file_data``, the title as ``filename``; a plain-text source as its
    UTF-8 bytes (text/plain). LiteLLM's Bedrock path makes the part the toolResult's own document block (1.110.2)."""
    source = block.get("source") or {}
    media, data = source.get("media_type"), source.get("data")
    if source.get("type") == "text":
        media, data = "text/plain", base64.b64encode(str(data or "").encode()).decode("ascii")
    named = {"filename": block["title"]} if block.get("title") else {}
    return {"type": "file", "file": {"file_data": f"data:{media};base64,{data}", **named}, **cached(block)}


def _tool_content(content: Any) -> Any:
    """A tool message's content: a string, a list of OpenAI parts (text, image_url, file), or an object as its JSON
    text. A document goes as a ``file`` part: LiteLLM converts no Anthropic document block inside a tool message."""
    if isinstance(content, list):
        return [_file(block) if block.get("type") == "document" else _part(block) for block in content]
    return content if isinstance(content, str) else json.dumps(content)


def _user(content: Any) -> list[dict]:
    """Tool results become ``role: tool`` messages (OpenAI has no is_error flag); the rest one user message."""
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    tools = [{"role": "tool", "tool_call_id": block["tool_use_id"], "content": _tool_content(block.get("content", "")),
              **cached(block)} for block in content if block.get("type") == "tool_result"]
    parts = [_part(block) for block in content if block.get("type") != "tool_result"]
    return tools + ([{"role": "user", "content": parts}] if parts else [])


def _thinking(block: dict) -> dict:
    if block["type"] == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block["data"]}  # every release takes Converse's base64 text
    return {"type": "thinking", "thinking": block.get("thinking", ""),
            **({"signature": block["signature"]} if "signature" in block else {})}


def _tool_call(block: dict) -> dict:
    arguments = json.dumps(block.get("input") or {})
    return {"id": block["id"], "type": "function", "function": {"name": block["name"], "arguments": arguments}}


def _blocks(content: list, *kinds: str) -> list[dict]:
    return [block for block in content if block.get("type") in kinds]


def _assistant(content: Any) -> dict:
    """One assistant message: text as its content, thinking_blocks / reasoning_content, tool_calls."""
    if isinstance(content, str):
        return {"role": "assistant", "content": content}
    by_type = functools.partial(_blocks, content)
    message: dict = {"role": "assistant", "content": "".join(b["text"] for b in by_type("text")) or None}
    thinking = [_thinking(block) for block in by_type("thinking", "redacted_thinking")]
    if thinking:
        message["thinking_blocks"] = thinking
        message["reasoning_content"] = "".join(b.get("thinking", "") for b in by_type("thinking"))
    if by_type("tool_use"):
        message["tool_calls"] = [_tool_call(block) for block in by_type("tool_use")]
    return message


def to_openai(turn: dict, held: list = ()) -> list[dict]:
    """The turn's messages as OpenAI chat messages, led by the system prompt when nothing is ``held`` yet."""
    messages = [{"role": "system", "content": turn["system"]}] if turn.get("system") and not held else []
    for message in turn["messages"]:
        if message["role"] == "assistant":
            messages.append(_assistant(message["content"]))
        else:
            messages.extend(_user(message["content"]))
    return messages


def tool_choice(choice: Any) -> Any:
    """A scenario's tool_choice in OpenAI's words."""
    if isinstance(choice, dict):
        return {"type": "function", "function": {"name": choice["name"]}}
    return {"any": "required"}.get(choice, choice)


# ---- ModelResponseStream -> harness chunks ----

def _get(obj: Any, key: str) -> Any:
    """A field of a LiteLLM pydantic object or TypedDict alike."""
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def redacted_data(data: Any, native: bool) -> Any:
    """A redacted_thinking block's ``data`` in the harness's form (the base64 text of Converse's redactedContent):
    ``native`` (1.108.0 on) Claude's own string, wrapped as LiteLLM wraps it to send it; else as it is. Bytes (no
    release holds them) as their base64; anything else, as it is."""
    if isinstance(data, bytes):
        return base64.b64encode(data).decode("ascii")
    return base64.b64encode(data.encode()).decode("ascii") if native and isinstance(data, str) else data


def _reasoning_chunks(delta: Any, native: bool) -> Iterator[dict]:
    """thinking_blocks carry text, signature and redacted data; reasoning_content alone only text."""
    blocks = _get(delta, "thinking_blocks")
    if not blocks:
        text = _get(delta, "reasoning_content")
        yield from ([{"type": "reasoning", "text": text}] if text else ())
        return
    for block in blocks:
        if _get(block, "type") == "redacted_thinking":
            yield {"type": "redacted_reasoning", "data": redacted_data(_get(block, "data"), native)}
            continue
        if _get(block, "thinking"):
            yield {"type": "reasoning", "text": _get(block, "thinking")}
        if _get(block, "signature"):
            yield {"type": "reasoning", "signature": _get(block, "signature")}


def _tool_chunk(call: Any) -> dict:
    """One tool-call delta: the index always, the id and name when this delta carries them."""
    function = _get(call, "function")
    chunk = {"type": "tool_call", "index": _get(call, "index"), "input_delta": _get(function, "arguments") or ""}
    for key, value in (("id", _get(call, "id")), ("name", _get(function, "name"))):
        if value:
            chunk[key] = value
    return chunk


def _usage_chunk(usage: Any) -> dict:
    """LiteLLM's prompt_tokens include both cache counts (OpenAI's convention, declared); Bedrock's do not."""
    read, write = _get(usage, "cache_read_input_tokens") or 0, _get(usage, "cache_creation_input_tokens") or 0
    return {"type": "usage", "input_tokens": _get(usage, "prompt_tokens") or 0,
            "output_tokens": _get(usage, "completion_tokens") or 0,
            "cache_read_input_tokens": read, "cache_write_input_tokens": write}


def chunks_from_stream_chunk(chunk: Any, native: bool = False) -> Iterator[dict]:
    """Harness chunks for one ``ModelResponseStream``: reasoning, text, tool deltas, stop, usage (``native``: the
    release's redacted thinking form, see ``redacted_data``)."""
    for choice in _get(chunk, "choices") or ():
        delta = _get(choice, "delta")
        if delta is not None:
            yield from _reasoning_chunks(delta, native)
            if _get(delta, "content"):
                yield {"type": "text", "text": _get(delta, "content")}
            yield from (_tool_chunk(call) for call in _get(delta, "tool_calls") or ())
        if _get(choice, "finish_reason"):
            reason = _get(choice, "finish_reason")
            yield {"type": "stop", "reason": STOP_REASONS.get(reason, reason)}
    if _get(chunk, "usage"):
        yield _usage_chunk(_get(chunk, "usage"))
    trace = (_get(chunk, "provider_specific_fields") or {}).get("trace")  # the metadata event's trace, as LiteLLM keeps it
    served = metadata_chunk({"trace": trace}) if isinstance(trace, dict) else None
    yield from [served] if served else ()


# ---- the built message -> Anthropic format (the closing message chunk) ----

def anthropic_message(message: Any, native: bool = False) -> list[dict]:
    """What the message holds, in order: its thinking_blocks as they are (else its reasoning_content, unsigned),
    its content, its tool calls. Nothing is repaired: a block of another type, or a field LiteLLM added, passes
    through; only a redacted block's data takes the harness's form (``redacted_data``)."""
    blocks = [_thinking_block(block, native) for block in _get(message, "thinking_blocks") or ()]
    reasoning = _get(message, "reasoning_content")
    blocks += [{"type": "thinking", "thinking": reasoning}] if not blocks and reasoning else []
    return blocks + _content(_get(message, "content")) + [_tool_use(call) for call in _get(message, "tool_calls") or ()]


def _thinking_block(block: Any, native: bool) -> Any:
    if not isinstance(block, dict):
        return block  # not a block at all: the harness says so
    if block.get("type") == "redacted_thinking" and "data" in block:
        return {**block, "data": redacted_data(block["data"], native)}
    return dict(block)


def _content(content: Any) -> list[dict]:
    """The message's content: a string as one text block (none when empty), a list of parts as they are."""
    if isinstance(content, list):
        return [dict(part) if isinstance(part, dict) else {"type": "text", "text": part} for part in content]
    return [{"type": "text", "text": content}] if content else []


def _tool_use(call: Any) -> dict:
    """A tool call as the toolUse LiteLLM sends: OpenAI's ``arguments`` are JSON text by contract, and LiteLLM sends
    their ``json.loads`` (``{}`` for blank text); text that does not parse stays the text, so the harness shows it."""
    function = _get(call, "function")
    arguments = _get(function, "arguments")
    parsed: Any = arguments
    if isinstance(arguments, str) and not arguments.strip():
        parsed = {}
    elif isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except ValueError:
            pass
    return {"type": "tool_use", "id": _get(call, "id"), "name": _get(function, "name"), "input": parsed}
