"""Haystack's messages both ways: the turn's Anthropic-format messages and tools as the ``ChatMessage``s and ``Tool``s a
Haystack application holds (each release's shape: reasoning folded into one ``ReasoningContent`` up to 6.5.0, tool
results as strings before haystack-ai 2.23.0), and a reply ``ChatMessage`` as an Anthropic-format message."""

from __future__ import annotations

import json
from typing import Any

from haystack.dataclasses import chat_message as haystack_chat_message
from haystack.dataclasses import (
    ChatMessage,
    ImageContent,
    TextContent,
    ToolCall,
)
from haystack.tools import Tool
from haystack_integrations.components.generators.amazon_bedrock.chat import utils as bedrock_utils

from harness.adapters.shims.haystack_releases import anthropic_reasoning, folded_reasoning, result_text

__all__ = ["REASONING_IN_EXTRA", "RESULT_PARTS", "anthropic_content", "make_tools", "to_haystack"]

# Reasoning in meta / extra["reasoning_contents"] (up to 6.5.0, see haystack_releases): only those releases have
# the function that folds it.
REASONING_IN_EXTRA = hasattr(bedrock_utils, "_process_reasoning_contents")
# haystack-ai 2.23.0 on takes a tool result as a string or a list of text and image parts (the type alias names it);
# before, a string only.
RESULT_PARTS = hasattr(haystack_chat_message, "ToolCallResultContentT")


# ---- turn -> Haystack messages and tools ----

def _part(block: dict) -> Any:
    """A user or tool-result content part: text or image; a JSON result part as its JSON text."""
    if "json" in block and "type" not in block:
        return TextContent(text=json.dumps(block["json"]))
    if block.get("type") == "image":
        source = block.get("source") or {}
        return ImageContent(base64_image=source.get("data", ""), mime_type=source.get("media_type"))
    return TextContent(text=block.get("text", ""))


def _calls_by_id(turn: dict, held: list = ()) -> dict[str, ToolCall]:
    """Every tool call in the history, by id: a tool result message carries the call it answers."""
    calls = {call.id: call for message in held for call in message.tool_calls}
    calls.update({block["id"]: ToolCall(tool_name=block["name"], arguments=block.get("input") or {}, id=block["id"])
                  for message in turn["messages"]
                  if message["role"] == "assistant" and isinstance(message["content"], list)
                  for block in message["content"] if block.get("type") == "tool_use"})
    return calls


def _tool_result(content: Any) -> Any:
    """A tool result: a string, the list of its parts, or (before haystack-ai 2.23.0) their texts one per line."""
    if not isinstance(content, list):
        return content if isinstance(content, str) else json.dumps(content)
    return [_part(part) for part in content] if RESULT_PARTS else result_text(content)


def _tool_message(block: dict, calls: dict[str, ToolCall]) -> ChatMessage:
    result = _tool_result(block.get("content", ""))
    origin = calls.get(block["tool_use_id"]) or ToolCall(tool_name="", arguments={}, id=block["tool_use_id"])
    return ChatMessage.from_tool(result, origin=origin, error=bool(block.get("is_error")))


def _user(content: Any, calls: dict[str, ToolCall]) -> list[ChatMessage]:
    """Tool results as tool messages, then the rest as one user message."""
    if isinstance(content, str):
        return [ChatMessage.from_user(content)]
    tools = [_tool_message(block, calls) for block in content if block.get("type") == "tool_result"]
    parts = [_part(block) for block in content if block.get("type") != "tool_result"]
    return tools + ([ChatMessage.from_user(content_parts=parts)] if parts else [])


def _assistant_part(block: dict) -> dict | None:
    """One assistant content entry in ChatMessage's serialized form (from 6.6.0 Haystack has no redacted
    reasoning)."""
    kind = block.get("type")
    if kind == "thinking":
        extra = {"signature": block["signature"]} if block.get("signature") is not None else {}
        return {"reasoning": {"reasoning_text": block.get("thinking", ""), "extra": extra}}
    if kind == "tool_use":
        return {"tool_call": {"tool_name": block["name"], "arguments": block.get("input") or {}, "id": block["id"]}}
    return {"text": block["text"]} if kind == "text" else None


def _assistant(content: Any) -> ChatMessage:
    """An assistant message; ChatMessage.from_dict, since from_assistant takes one reasoning block only."""
    if isinstance(content, str):
        return ChatMessage.from_assistant(content)
    parts = [part for part in map(_assistant_part, content) if part is not None]
    if REASONING_IN_EXTRA:  # up to 6.5.0: one leading reasoning part holds every block
        folded = folded_reasoning(content)
        parts = ([folded] if folded else []) + [part for part in parts if "reasoning" not in part]
    return ChatMessage.from_dict({"role": "assistant", "content": parts, "meta": {}, "name": None})


def to_haystack(turn: dict, held: list = ()) -> list[ChatMessage]:
    """The turn's messages as Haystack chat messages, led by the system prompt when nothing is ``held`` yet."""
    calls = _calls_by_id(turn, held)
    messages = [ChatMessage.from_system(turn["system"])] if turn.get("system") and not held else []
    for message in turn["messages"]:
        if message["role"] == "assistant":
            messages.append(_assistant(message["content"]))
        else:
            messages.extend(_user(message["content"], calls))
    return messages


def _never_called(**kwargs: Any) -> None:
    raise RuntimeError("the harness executes no tools")


def make_tools(turn: dict) -> list[Tool]:
    """The turn's Anthropic-format tools as Haystack Tools."""
    return [Tool(name=tool["name"], description=tool.get("description", ""), parameters=tool["input_schema"],
                 function=_never_called) for tool in turn.get("tools") or ()]


# ---- the reply ChatMessage -> Anthropic format (the closing message chunk) ----

def anthropic_content(reply: ChatMessage) -> list[dict]:
    """The reply's content in order (``to_dict``, its public serialization) as Anthropic blocks; empty text out."""
    return [block for part in reply.to_dict()["content"] for block in _anthropic(part)]


def _anthropic(part: dict) -> list[dict]:
    if "text" in part:
        return [{"type": "text", "text": part["text"]}] if part["text"] else []
    if "reasoning" in part:
        return anthropic_reasoning(part["reasoning"])
    if "tool_call" in part:
        call = part["tool_call"]
        return [{"type": "tool_use", "id": call.get("id"), "name": call.get("tool_name"),
                 "input": call.get("arguments")}]
    return [dict(part)]  # shown, never dropped
