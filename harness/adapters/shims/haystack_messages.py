"""Haystack's messages both ways: the turn's Anthropic-format messages and tools as the ``ChatMessage``s and ``Tool``s a
Haystack application holds (each release's shape: reasoning folded into one ``ReasoningContent`` up to 6.5.0; tool
results as haystack's tool invoker makes them, media as parts from haystack-ai 2.23.0), and a reply ``ChatMessage`` as
an Anthropic-format message."""

from __future__ import annotations

import base64
import inspect
import json
from typing import Any

import haystack.dataclasses as haystack_dataclasses
from haystack.dataclasses import chat_message as haystack_chat_message
from haystack.dataclasses import (
    ChatMessage,
    ImageContent,
    TextContent,
    ToolCall,
)
from haystack.tools import Tool
from haystack_integrations.components.generators.amazon_bedrock import AmazonBedrockChatGenerator
from haystack_integrations.components.generators.amazon_bedrock.chat import utils as bedrock_utils

from harness.adapters.shims.common import has_media, returned_value
from harness.adapters.shims.haystack_releases import anthropic_reasoning, folded_reasoning, result_text
from harness.converse.request import system_blocks
from harness.converse.tools import cache_block

__all__ = ["CACHE_POINTS", "CITATIONS", "GUARDRAIL", "REASONING_IN_EXTRA", "RESULT_PARTS", "STRUCTURED_OUTPUT",
           "anthropic_content", "cache_meta", "invoked_text", "make_tools", "to_haystack", "tools_cachepoint"]

# Reasoning in meta / extra["reasoning_contents"] (up to 6.5.0, see haystack_releases): only those releases have
# the function that folds it.
REASONING_IN_EXTRA = hasattr(bedrock_utils, "_process_reasoning_contents")
# haystack-ai 2.23.0 on takes a tool result as a string or a list of text and image parts (the type alias names it);
# before, a string only.
RESULT_PARTS = hasattr(haystack_chat_message, "ToolCallResultContentT")
# A document part: haystack-ai's FileContent, where the release has it (the integration sends it as a document block).
FileContent = getattr(haystack_dataclasses, "FileContent", None)
# Prompt caching: the generator's tools_cachepoint_config (a cache point after the tools) and ChatMessage.meta
# ["cachePoint"] (one after that message's content, a system message's text included), which _format_messages reads;
# releases without the option (5.3.0) have neither.
CACHE_POINTS = "tools_cachepoint_config" in inspect.signature(AmazonBedrockChatGenerator.__init__).parameters
# A guardrail: the generator's guardrail_config (5.3.0 on).
GUARDRAIL = "guardrail_config" in inspect.signature(AmazonBedrockChatGenerator.__init__).parameters
# Structured output is a generation_kwargs key, not a parameter: the release that builds outputConfig of
# response_format documents the key in the generator's docstring (9.0.0; 5.3.0 has neither).
STRUCTURED_OUTPUT = "`response_format`" in (inspect.getdoc(AmazonBedrockChatGenerator.__init__) or "")


def _sends_document_citations() -> bool:
    """Whether this release sends a FileContent's ``extra["citations"]`` as the document's citations config: tried on
    the integration's own converter (haystack-ai without FileContent has no document part at all)."""
    convert = getattr(bedrock_utils, "_convert_file_content_to_bedrock_format", None)
    if FileContent is None or convert is None:
        return False
    probe = FileContent(base64_data="aGk=", mime_type="text/plain", extra={"citations": {"enabled": True}})
    try:
        sent = convert(probe)
    except ValueError:  # a release whose converter refuses a text document sends no text document's citations
        return False
    return sent.get("document", {}).get("citations") == {"enabled": True}


# Citations: a document sent with citations enabled (FileContent.extra["citations"], 9.0.0; not 5.3.0).
CITATIONS = _sends_document_citations()


def cache_meta(control: dict | None) -> dict:
    """A ChatMessage's ``meta`` asking for the cache point ``control`` after its content (nothing without one)."""
    return {"cachePoint": cache_block(control)["cachePoint"]} if control and CACHE_POINTS else {}


def tools_cachepoint(turn: dict) -> dict:
    """The generator's ``tools_cachepoint_config`` when the turn's last tool asks for a cache point: the one place
    Haystack puts a tools cache point, after every tool (a point asked after an earlier tool goes there too)."""
    marks = [tool["cache_control"] for tool in turn.get("tools") or () if tool.get("cache_control")]
    return {"tools_cachepoint_config": cache_block(marks[-1])["cachePoint"]} if marks and CACHE_POINTS else {}


def _marked(blocks: list) -> dict | None:
    """The cache_control of a message's content: Haystack places a message's cache point after all of it."""
    marks = [b["cache_control"] for b in blocks if isinstance(b, dict) and b.get("cache_control")]
    return marks[-1] if marks else None


# ---- turn -> Haystack messages and tools ----

def _part(block: dict) -> Any:
    """A user or tool-result content part: text or image; a JSON result part as its JSON text."""
    if "json" in block and "type" not in block:
        return TextContent(text=json.dumps(block["json"]))
    if block.get("type") == "image":
        source = block.get("source") or {}
        return ImageContent(base64_image=source.get("data", ""), mime_type=source.get("media_type"))
    source = block.get("source") or {}
    if block.get("type") == "document" and FileContent is not None and source.get("type") in ("base64", "text"):
        return _document(block, source)
    return TextContent(text=block.get("text", ""))


def _document(block: dict, source: dict) -> Any:
    """A document as haystack-ai's FileContent (its data base64 only: a plain-text document as its UTF-8 bytes, as
    text/plain), its title as ``filename`` and its citations config in ``extra["citations"]``, which the integration
    sends as the document's citations (where it does: ``CITATIONS``)."""
    text = source.get("type") == "text"
    data = base64.b64encode(source.get("data", "").encode()).decode("ascii") if text else source["data"]
    extra = {"citations": block["citations"]} if block.get("citations") and CITATIONS else {}
    return FileContent(base64_data=data, mime_type="text/plain" if text else source.get("media_type"),
                       filename=block.get("title"), extra=extra)


def _calls_by_id(turn: dict, held: list = ()) -> dict[str, ToolCall]:
    """Every tool call in the history, by id: a tool result message carries the call it answers."""
    calls = {call.id: call for message in held for call in message.tool_calls}
    calls.update({block["id"]: ToolCall(tool_name=block["name"], arguments=block.get("input") or {}, id=block["id"])
                  for message in turn["messages"]
                  if message["role"] == "assistant" and isinstance(message["content"], list)
                  for block in message["content"] if block.get("type") == "tool_use"})
    return calls


def _tool_result(content: Any) -> Any:
    """A tool result in the form haystack's own tool invoker makes of what a tool returns: a result holding an image
    or a document (ImageContent, FileContent) as the list of its parts (a tool whose ``outputs_to_string`` asks for the raw result, from
    haystack-ai 2.23.0; before, their texts one per line), anything else as the string the invoker converts the
    returned value to (``invoked_text``), so the integration's handling of a string result is what is certified."""
    if has_media(content):
        return [_part(part) for part in content] if RESULT_PARTS else result_text(content)
    return invoked_text(_searched(content) or returned_value(content))


def _searched(content: Any) -> list | None:
    """Search results as a RAG tool returns them to Haystack (its records: source, title, the passages' text);
    haystack-ai has no search-result content part, so its tool invoker writes them as text like any value
    (``invoked_text``: JSON text from haystack-ai 3)."""
    if not (isinstance(content, list) and any(isinstance(p, dict) and p.get("type") == "search_result"
                                              for p in content)):
        return None
    return [{"source": part.get("source"), "title": part.get("title"),
             "content": "\n".join(c.get("text", "") for c in part.get("content") or ())}
            if isinstance(part, dict) and part.get("type") == "search_result" else returned_value([part])
            for part in content]


def invoked_text(value: Any) -> str:
    """A tool's return value as haystack's own tool invoker writes it into ``ChatMessage.from_tool``: haystack-ai 3's
    ``_result_to_string`` (a string as it is, anything else ``json.dumps``), before it ``ToolInvoker``'s
    ``_default_output_to_string_handler`` with the invoker's defaults (``convert_result_to_json_string=False``:
    ``str()``)."""
    try:
        from haystack.components.agents.tool_calling import _result_to_string
    except ImportError:
        from haystack.components.tools import ToolInvoker

        placeholder = Tool(name="result", description="", parameters={"type": "object"}, function=_never_called)
        return ToolInvoker(tools=[placeholder])._default_output_to_string_handler(value)
    return _result_to_string(value)


def _tool_message(block: dict, calls: dict[str, ToolCall]) -> ChatMessage:
    result = _tool_result(block.get("content", ""))
    origin = calls.get(block["tool_use_id"]) or ToolCall(tool_name="", arguments={}, id=block["tool_use_id"])
    return ChatMessage.from_tool(result, origin=origin, error=bool(block.get("is_error")),
                                 meta=cache_meta(block.get("cache_control")))


def _user(content: Any, calls: dict[str, ToolCall]) -> list[ChatMessage]:
    """Tool results as tool messages, then the rest as one user message."""
    if isinstance(content, str):
        return [ChatMessage.from_user(content)]
    tools = [_tool_message(block, calls) for block in content if block.get("type") == "tool_result"]
    parts = [_part(block) for block in content if block.get("type") != "tool_result"]
    rest = [block for block in content if block.get("type") != "tool_result"]
    user = ChatMessage.from_user(content_parts=parts, meta=cache_meta(_marked(rest))) if parts else None
    return tools + ([user] if user else [])


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
    messages = [ChatMessage.from_system(text, meta=cache_meta(control))
                for text, control in system_blocks(turn.get("system"))] if not held else []
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
