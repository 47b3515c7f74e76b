"""Conversation history -> canonical Anthropic-format messages -> Converse messages.

Accepts Anthropic messages (str or block content), OpenAI-ish tool calls (``tool_calls`` on an assistant
message, ``function: {name, arguments, tool_call_id}`` blocks, ``role: tool`` results) and the harness's own
chunk vocabulary (``tool_call``, ``reasoning``, ``redacted_reasoning``). The canonical form is what Bedrock
accepts: ids resolved (a call with no id raises instead of being dropped), inputs as objects, empty text
dropped, consecutive same-role messages merged (so parallel results share ONE user turn), reasoning blocks
first in their assistant turn and tool results first in their user turn. Errors name the input position.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from typing import Any

from harness.converse.errors import TurnError
from harness.converse.tools import cache_block, cache_control

__all__ = ["REASONING_TYPES", "canonical_messages", "to_converse_messages"]

REASONING_TYPES = ("thinking", "redacted_thinking")
_ALIASES = {"tool_call": "tool_use", "reasoning": "thinking", "redacted_reasoning": "redacted_thinking"}
_IMAGE_FORMATS = {"image/png": "png", "image/jpeg": "jpeg", "image/jpg": "jpeg", "image/gif": "gif",
                  "image/webp": "webp"}
_DOCUMENT_FORMATS = {"application/pdf": "pdf", "text/csv": "csv", "text/plain": "txt", "text/markdown": "md",
                     "text/html": "html", "application/msword": "doc", "application/vnd.ms-excel": "xls",
                     "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
                     "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx"}
# What a tool result whose every part moved out of it still says (Bedrock wants a result's content non-empty).
MOVED = "(attached after the tool results)"


def _first(block: dict, *paths: str) -> Any:
    """The first non-empty value among dotted ``paths`` (e.g. ``function.tool_call_id``)."""
    for path in paths:
        value: Any = block
        for key in path.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if value not in (None, ""):
            return value
    return None


def _b64decode(data: Any, where: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, TypeError, ValueError):
        raise TurnError(f"{where}: data is not valid base64") from None


def _input(raw: Any, where: str) -> dict:
    """A tool call's input as an object: ``""`` and None become ``{}``, JSON text is parsed."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise TurnError(f"{where}: tool call arguments are not valid JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise TurnError(f"{where}: tool call input must be a JSON object, got {type(raw).__name__}")
    return raw


def _tool_use(block: dict, where: str) -> dict:
    call_id = _first(block, "id", "tool_use_id", "tool_call_id", "function.tool_call_id", "function.id")
    name = _first(block, "name", "function.name")
    if not name:
        raise TurnError(f"{where}: tool call has no name")
    if not call_id:
        raise TurnError(f"{where}: tool call {name!r} has no id (looked in id, tool_use_id, function.tool_call_id)")
    raw = block["input"] if "input" in block else _first(block, "arguments", "function.arguments")
    return {"type": "tool_use", "id": call_id, "name": name, "input": _input(raw, where)}


def _image(block: dict, where: str) -> dict:
    source = block.get("source") if isinstance(block.get("source"), dict) else {}
    if source.get("type") != "base64" or source.get("media_type") not in _IMAGE_FORMATS:
        raise TurnError(f"{where}: image source must be base64 png/jpeg/gif/webp, got "
                        f"{source.get('type')!r} {source.get('media_type')!r}")
    _b64decode(source.get("data"), where)
    return {"type": "image", "source": dict(source)}


def _document(block: dict, where: str) -> dict:
    """A document (base64 bytes of a PDF, a text or office file; or plain text) with its title (Bedrock's ``name``,
    required) and its ``citations`` setting."""
    source = block.get("source") if isinstance(block.get("source"), dict) else {}
    plain = source.get("type") == "text" and isinstance(source.get("data"), str)
    if not plain and (source.get("type") != "base64" or source.get("media_type") not in _DOCUMENT_FORMATS):
        raise TurnError(f"{where}: document source must be text, or base64 with one of the media types "
                        f"{', '.join(sorted(_DOCUMENT_FORMATS))}, got {source.get('type')!r} {source.get('media_type')!r}")
    if not plain:
        _b64decode(source.get("data"), where)
    name = block.get("title") or block.get("name")
    if not isinstance(name, str) or not name.strip():
        raise TurnError(f"{where}: document has no title (Bedrock names every document)")
    citations = block.get("citations")
    if citations is not None and not (isinstance(citations, dict) and isinstance(citations.get("enabled"), bool)):
        raise TurnError(f"{where}: document citations must be {{\"enabled\": true or false}}, got {citations!r:.80}")
    return {"type": "document", "source": dict(source), "title": name,
            **({"citations": dict(citations)} if citations is not None else {})}


def _search_result(block: dict, where: str) -> dict:
    """A search result a RAG tool returned: its source, title, text passages and ``citations`` setting."""
    content = block.get("content")
    texts = [c.get("text") if isinstance(c, dict) else None for c in content] if isinstance(content, list) else [None]
    if not all(isinstance(block.get(key), str) for key in ("source", "title")) or not texts or \
            not all(isinstance(t, str) and t.strip() for t in texts):
        raise TurnError(f"{where}: search_result needs a source, a title and content: a list of text blocks")
    citations = block.get("citations")
    return {"type": "search_result", "source": block["source"], "title": block["title"], "content": texts,
            **({"citations": dict(citations)} if isinstance(citations, dict) else {})}


def _part_kind(part: Any) -> str | None:
    """``text``/``image``/``json`` by ``type``; a bare ``{"text": ...}`` or ``{"json": ...}`` by its key."""
    if isinstance(part, str):
        return "str"
    if not isinstance(part, dict):
        return None
    if "type" in part:
        return part["type"]
    return next(iter(part)) if list(part) in (["text"], ["json"]) else "object"


def _result_part(part: Any, where: str) -> dict:
    """One tool-result part: text, image or JSON (a bare object is JSON)."""
    kind = _part_kind(part)
    if kind == "str":
        return {"type": "text", "text": part}
    if kind == "text" and isinstance(part.get("text"), str):
        return {"type": "text", "text": part["text"]}
    if kind == "json":
        return _json_part(part.get("json"))
    if kind == "object":
        return {"type": "json", "json": part}
    if kind == "image":
        return _image(part, where)
    if kind == "document":
        return _document(part, where)
    if kind == "search_result":
        return _search_result(part, where)
    raise TurnError(f"{where}: unsupported tool result part {part!r:.80}")


def _json_part(value: Any) -> dict:
    """A JSON result: an object as ``json``; any other value as text, since Bedrock takes only objects there (§9
    rule 26: "Provide a json object for the field")."""
    if isinstance(value, dict):
        return {"type": "json", "json": value}
    return {"type": "text", "text": value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}


def _result_content(content: Any, where: str) -> list[dict]:
    """A string, a list of parts, or an object (one JSON part); empty content is an empty list."""
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, dict):
        return [{"type": "json", "json": content}]
    if isinstance(content, list):
        return [_result_part(p, f"{where}.content[{k}]") for k, p in enumerate(content)]
    return [{"type": "text", "text": json.dumps(content)}]


def _tool_result(block: dict, where: str) -> dict:
    call_id = _first(block, "tool_use_id", "tool_call_id", "id")
    if not call_id:
        raise TurnError(f"{where}: tool result has no tool_use_id")
    return {"type": "tool_result", "tool_use_id": call_id, "content": _result_content(block.get("content"), where),
            "is_error": bool(block.get("is_error") or block.get("status") == "error")}


def _thinking(block: dict, where: str) -> dict | None:
    text, signature = _first(block, "thinking", "text") or "", block.get("signature") or None
    if not isinstance(text, str) or not (signature is None or isinstance(signature, str)):
        raise TurnError(f"{where}: thinking text and signature must be strings")
    return {"type": "thinking", "thinking": text, "signature": signature} if text or signature else None


def _redacted(block: dict, where: str) -> dict:
    _b64decode(block.get("data") or None, where)
    return {"type": "redacted_thinking", "data": block["data"]}


def _text(block: dict, where: str) -> dict | None:
    text, citations = block.get("text"), block.get("citations")
    if not isinstance(text, str):
        raise TurnError(f"{where}: text block without a text string")
    if citations is not None and not (isinstance(citations, list) and all(isinstance(c, dict) for c in citations)):
        raise TurnError(f"{where}: text citations must be a list of citation objects")
    if not text.strip():
        return None  # Bedrock rejects blank text
    return {"type": "text", "text": text, **({"citations": list(citations)} if citations else {})}


_BLOCKS = {"text": _text, "image": _image, "document": _document, "tool_use": _tool_use, "tool_result": _tool_result,
           "thinking": _thinking, "redacted_thinking": _redacted}


def _block(block: Any, where: str) -> dict | None:
    if isinstance(block, str):
        return _text({"text": block}, where)
    kind = _ALIASES.get(block.get("type"), block.get("type")) if isinstance(block, dict) else None
    if kind not in _BLOCKS:
        raise TurnError(f"{where}: unsupported content block {kind or block!r:.80}")
    made = _BLOCKS[kind](block, where)
    control = cache_control(block.get("cache_control"), where)
    return {**made, "cache_control": control} if made and control else made


def _blocks(message: dict, where: str) -> Iterator[dict]:
    content = message.get("content")
    items = [content] if isinstance(content, str) else list(content or ())
    for j, item in enumerate(items):
        block = _block(item, f"{where}.content[{j}]")
        if block:
            yield block
    for j, call in enumerate(message.get("tool_calls") or ()):
        yield _tool_use(call, f"{where}.tool_calls[{j}]")


def _message(message: Any, where: str) -> tuple[str, list[dict]]:
    if not isinstance(message, dict):
        raise TurnError(f"{where}: a message must be an object, got {type(message).__name__}")
    role = message.get("role")
    if role == "tool":
        return "user", [_tool_result(message, where)]
    if role not in ("user", "assistant"):
        raise TurnError(f"{where}: role must be 'user', 'assistant' or 'tool', got {role!r}")
    return role, list(_blocks(message, where))


def _leads(block: dict, role: str) -> bool:
    """Signed or redacted reasoning opens an assistant turn, tool results a user turn (Bedrock's rules 11, 12).

    Unsigned reasoning (gpt-oss, DeepSeek, Kimi) keeps its place: those models interleave reasoning with text and
    tool calls, and Bedrock's rule 13 wants blocks in their original pattern.
    """
    if role != "assistant":
        return block["type"] == "tool_result"
    return block["type"] == "redacted_thinking" or (block["type"] == "thinking" and bool(block.get("signature")))


def _ordered(role: str, blocks: list[dict]) -> list[dict]:
    return [b for b in blocks if _leads(b, role)] + [b for b in blocks if not _leads(b, role)]


def canonical_messages(messages: list | None) -> list[dict]:
    """Clean Anthropic-format messages; errors name ``messages[i].content[j]`` and the field."""
    merged: list[dict] = []
    for i, message in enumerate(messages or ()):
        role, blocks = _message(message, f"messages[{i}]")
        if blocks and merged and merged[-1]["role"] == role:
            merged[-1]["content"].extend(blocks)
        elif blocks:
            merged.append({"role": role, "content": blocks})
    return [{"role": m["role"], "content": _ordered(m["role"], m["content"])} for m in merged]


# --- canonical blocks -> Converse content blocks (boto3 form: blobs as bytes) ---------------------------

def _converse_image(block: dict) -> dict:
    source = block["source"]
    return {"image": {"format": _IMAGE_FORMATS[source["media_type"]],
                      "source": {"bytes": base64.b64decode(source["data"])}}}


def _converse_document(block: dict) -> dict:
    source = block["source"]
    if source["type"] == "text":
        document = {"format": "txt", "name": block["title"], "source": {"text": source["data"]}}
    else:
        document = {"format": _DOCUMENT_FORMATS[source["media_type"]], "name": block["title"],
                    "source": {"bytes": base64.b64decode(source["data"])}}
    return {"document": {**document, **({"citations": block["citations"]} if "citations" in block else {})}}


def _converse_search_result(block: dict) -> dict:
    result = {"source": block["source"], "title": block["title"], "content": [{"text": t} for t in block["content"]]}
    return {"searchResult": {**result, **({"citations": block["citations"]} if "citations" in block else {})}}


def _converse_part(part: dict) -> dict:
    if part["type"] == "image":
        return _converse_image(part)
    if part["type"] == "search_result":
        return _converse_search_result(part)
    return _converse_document(part) if part["type"] == "document" else {part["type"]: part[part["type"]]}


def _converse_block(block: dict, status: bool) -> dict:
    kind = block["type"]
    if kind == "text" and block.get("citations"):  # a cited answer goes back with its citations (§13)
        return {"citationsContent": {"content": [{"text": block["text"]}], "citations": block["citations"]}}
    if kind == "text":
        return {"text": block["text"]}
    if kind == "image":
        return _converse_image(block)
    if kind == "document":
        return _converse_document(block)
    if kind == "tool_use":
        return {"toolUse": {"toolUseId": block["id"], "name": block["name"], "input": block["input"]}}
    if kind == "tool_result":
        result = {"toolUseId": block["tool_use_id"], "content": [_converse_part(p) for p in block["content"]]}
        return {"toolResult": {**result, **({"status": "error" if block["is_error"] else "success"} if status else {})}}
    if kind == "thinking":
        text = {"text": block["thinking"], "signature": block["signature"]}
        return {"reasoningContent": {"reasoningText": {k: v for k, v in text.items() if v is not None}}}
    return {"reasoningContent": {"redactedContent": base64.b64decode(block["data"])}}


def _with_cache_point(block: dict, converse: dict) -> list[dict]:
    """A Converse block and, when its block carries ``cache_control``, the cache point after it: beside a tool
    result in the message's content, never inside ``toolResult.content`` (rule 31)."""
    return [converse] + ([cache_block(block["cache_control"])] if block.get("cache_control") else [])


def _moves(part: dict, result: dict, images: bool, error_text_only: bool) -> bool:
    """Whether a tool-result part goes beside its result instead: an image for a family that takes none inside a
    result (§13 rule 36), any other part of an error result than text or JSON for one that takes only those there
    (rule 35: a json block beside the results is no content block Bedrock knows)."""
    return (part["type"] == "image" and not images) or (error_text_only and result["is_error"]
                                                         and part["type"] not in ("text", "json"))


def _user_blocks(blocks: list[dict], status: bool, images: bool, error_text_only: bool) -> list[dict]:
    """A user turn's Converse blocks: its tool results first (each with its cache point), then the parts moved out
    of them, in order, as their own blocks (never flattened into text), then the rest."""
    results, moved, rest = [], [], []
    for block in blocks:
        if block["type"] != "tool_result":
            rest += _with_cache_point(block, _converse_block(block, status))
            continue
        out = [p for p in block["content"] if _moves(p, block, images, error_text_only)]
        kept = [p for p in block["content"] if p not in out] or ([{"type": "text", "text": MOVED}] if out else [])
        results += _with_cache_point(block, _converse_block({**block, "content": kept}, status))
        moved += [_converse_part(p) for p in out]
    return results + moved + rest


def _sent(block: dict, unsigned_reasoning: bool) -> bool:
    """Whether an assistant block goes back: unsigned reasoning only to a family that takes it (§13 rule 37)."""
    return unsigned_reasoning or block["type"] != "thinking" or bool(block.get("signature"))


def to_converse_messages(messages: list | None, status: bool = True, *, images: bool = True,
                         error_text_only: bool = False, unsigned_reasoning: bool = True) -> list[dict]:
    """Converse ``messages`` for a history (signatures byte-exact, redacted reasoning as bytes, a cache point after
    each block that asks for one); ``status``: whether tool results carry ``status`` (most families accept it,
    Writer Palmyra rejects it: ``request.status_supported``); ``images``: whether an image may stay inside a tool
    result, ``error_text_only``: whether an error result holds text alone, ``unsigned_reasoning``: whether reasoning
    without a signature goes back (``request.history_policy``); a part that may not stay in a result is its own
    block beside the results."""
    return [{"role": m["role"], "content": _user_blocks(m["content"], status, images, error_text_only)
             if m["role"] == "user" else [c for b in m["content"] if _sent(b, unsigned_reasoning)
                                          for c in _with_cache_point(b, _converse_block(b, status))]}
            for m in canonical_messages(messages)]
