"""Anthropic-format messages as pydantic-ai's message history, as an agent run records it (the ``pydantic-ai``
shims' history): ``ModelRequest``s of ``SystemPromptPart`` / ``UserPromptPart`` / ``ToolReturnPart``, and a
``ModelResponse`` per assistant message.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from harness.converse.request import system_texts

__all__ = ["PROVIDER", "cache_point", "request_part", "to_pydantic_ai", "tool_return_part"]

PROVIDER = "bedrock"  # pydantic-ai's provider name for Bedrock, kept on parts whose signatures go back to it


def to_pydantic_ai(turn: dict, held: list = ()) -> list:
    """The messages to append to ``held``: system prompt parts lead the first request (when nothing is held yet),
    one ModelResponse per assistant turn; a tool return names the call it answers (from either)."""
    from pydantic_ai.messages import ModelRequest, SystemPromptPart, ToolCallPart

    names = {p.tool_call_id: p.tool_name for m in held for p in getattr(m, "parts", ()) if isinstance(p, ToolCallPart)}
    names.update({b["id"]: b["name"] for m in turn["messages"] for b in _blocks(m["content"])
                  if b.get("type") == "tool_use"})
    history: list = []
    pending = [] if held else [SystemPromptPart(content=text) for text in system_texts(turn.get("system"))]
    for message in turn["messages"]:
        if message["role"] == "assistant":
            history += [ModelRequest(parts=pending)] if pending else []
            history.append(_response(message, turn["model_id"]))
            pending = []
        else:
            pending += _user_parts(_blocks(message["content"]), names)
    return history + ([ModelRequest(parts=pending)] if pending else [])


def _user_parts(blocks: list[dict], names: dict[str, str]) -> list:
    """A user message's parts, one per block; where it sends a document, its text, images and documents as one
    UserPromptPart of that content list, as an application asks about a document (``run(["...", BinaryContent(...)])``:
    BedrockConverseModel maps each UserPromptPart to its own message content and adds a text of its own to one that
    holds a document alone)."""
    from pydantic_ai.messages import UserPromptPart

    if not any(block.get("type") == "document" for block in blocks):
        return [part for block in blocks for part in _marked(request_part(block, names), block)]
    prompt = [block for block in blocks if block.get("type") in ("text", "image", "document")]
    content = [item for block in prompt for item in [block["text"] if block["type"] == "text" else _binary(block),
                                                     *cache_point(block)]]
    return [UserPromptPart(content=content)] + [part for block in blocks if block not in prompt
                                                for part in _marked(request_part(block, names), block)]


def cache_point(block: dict) -> list:
    """The ``CachePoint`` a block's ``cache_control`` asks for after it (its TTL where it names one), or nothing."""
    control = block.get("cache_control")
    if not control:
        return []
    from pydantic_ai.messages import CachePoint

    return [CachePoint(ttl=control["ttl"]) if control.get("ttl") else CachePoint()]


def _marked(part: Any, block: dict) -> list:
    """A part and the cache point its block asks for: inside a user prompt's content after what it marks, or after a
    tool's return as a user prompt of the marker alone (BedrockConverseModel puts it at the end of the user message
    built so far, beside the toolResult)."""
    from pydantic_ai.messages import UserPromptPart

    point = cache_point(block)
    if not point:
        return [part]
    if isinstance(part, UserPromptPart):
        content = part.content if isinstance(part.content, list) else [part.content]
        return [UserPromptPart(content=[*content, *point])]
    return [part, UserPromptPart(content=point)]


def _blocks(content: Any) -> list[dict]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or ())


def _binary(block: dict) -> Any:
    """An image or document as BinaryContent (a plain-text document's text as its UTF-8 bytes, ``text/plain``)."""
    from pydantic_ai.messages import BinaryContent

    source = block["source"]
    if source["type"] == "text":
        return BinaryContent(data=source["data"].encode("utf-8"), media_type="text/plain")
    return BinaryContent(data=base64.b64decode(source["data"]), media_type=source["media_type"])


def request_part(block: dict, names: dict[str, str]) -> Any:
    from pydantic_ai.messages import UserPromptPart

    if block.get("type") == "tool_result":
        content = block.get("content")
        if isinstance(content, list):
            content = [p if isinstance(p, str) else p["text"] if p.get("type") == "text" else
                       _binary(p) if p.get("type") in ("image", "document") else p.get("json", p) for p in content]
            content = content[0] if len(content) == 1 else content  # a tool returns its one value, not a list of it
        return tool_return_part(names.get(block["tool_use_id"], ""), content, block["tool_use_id"],
                                bool(block.get("is_error")))
    if block.get("type") in ("image", "document"):
        return UserPromptPart(content=[_binary(block)])
    return UserPromptPart(content=block["text"])


def tool_return_part(name: str, content: Any, call_id: str, failed: bool) -> Any:
    """A tool's result as the agent graph records it: a ToolReturnPart, or for a failed call what this release uses."""
    from pydantic_ai.messages import RetryPromptPart, ToolReturnPart

    if not failed:
        return ToolReturnPart(tool_name=name, content=content, tool_call_id=call_id)
    if _has_field(ToolReturnPart, "outcome"):
        return ToolReturnPart(tool_name=name, content=content, tool_call_id=call_id, outcome="failed")
    # Releases before 1.67 have no ToolReturnPart.outcome: a failed call is the RetryPromptPart a tool's ModelRetry
    # records (sent as a toolResult with status 'error', its text followed by "Fix the errors and try again.").
    text = content if isinstance(content, str) else json.dumps(content, default=str)
    return RetryPromptPart(tool_name=name, content=text, tool_call_id=call_id)


def _has_field(cls: type, name: str) -> bool:
    return name in getattr(cls, "__dataclass_fields__", {})


def _response(message: dict, model_id: str) -> Any:
    from pydantic_ai.messages import ModelResponse

    return ModelResponse(parts=[_response_part(b) for b in _blocks(message["content"])], model_name=model_id,
                         provider_name=PROVIDER)


def _response_part(block: dict) -> Any:
    from pydantic_ai.messages import TextPart, ThinkingPart, ToolCallPart

    kind = block.get("type")
    if kind == "thinking":
        return ThinkingPart(content=block.get("thinking", ""), signature=block.get("signature"), provider_name=PROVIDER)
    if kind == "redacted_thinking":  # pydantic-ai holds the opaque blob as text in `signature`
        return ThinkingPart(content="", id="redacted_content", provider_name=PROVIDER,
                            signature=base64.b64decode(block["data"]).decode("utf-8"))
    if kind == "tool_use":
        return ToolCallPart(tool_name=block["name"], args=block.get("input") or {}, tool_call_id=block["id"])
    return TextPart(content=block["text"])
