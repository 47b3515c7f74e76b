"""The Anthropic-native path: a turn -> InvokeModelWithResponseStream body, ``chunk`` events -> stream chunks.

Chunks are the same as on the Converse path, stop reasons mapped to Bedrock's vocabulary, so one golden
holds for both. Redacted reasoning keeps the Converse convention: ``data`` is base64 of the blob Converse
carries, which for Claude is the ASCII of Anthropic's opaque ``data`` string.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterable, Iterator
from typing import Any

from harness.converse.errors import BedrockResponseError, TurnError
from harness.converse.history import canonical_messages
from harness.converse.request import system_texts, thinking_budget
from harness.converse.stream import Block, BlockTable, check_tool, drive, redacted_chunk
from harness.converse.tools import anthropic_tool_choice, anthropic_tools

__all__ = [
    "ANTHROPIC_VERSION",
    "STOP_REASONS",
    "build_invoke_body",
    "build_invoke_request",
    "chunks_from_invoke_events",
]

log = logging.getLogger(__name__)

ANTHROPIC_VERSION = "bedrock-2023-05-31"
# Anthropic stop reasons outside Bedrock's StopReason enum.
STOP_REASONS = {"refusal": "content_filtered", "pause_turn": "end_turn"}


def _part(part: dict) -> dict:
    """A tool-result part; Anthropic has no JSON part, so JSON travels as its text."""
    if part["type"] == "json":
        return {"type": "text", "text": json.dumps(part["json"])}
    return dict(part)


def _redacted_data(data: str) -> str:
    try:
        return base64.b64decode(data).decode("ascii")
    except UnicodeDecodeError:
        raise TurnError(f"redacted_thinking data {data[:20]!r}... is not an Anthropic redacted blob") from None


def _anthropic_block(block: dict) -> dict:
    kind = block["type"]
    if kind == "tool_result":
        out = {"type": kind, "tool_use_id": block["tool_use_id"], "content": [_part(p) for p in block["content"]]}
        return {**out, "is_error": True} if block["is_error"] else out
    if kind == "thinking":
        return {k: v for k, v in block.items() if v is not None}
    if kind == "redacted_thinking":
        return {"type": kind, "data": _redacted_data(block["data"])}
    if kind == "text" and block.get("citations"):
        return {**block, "citations": [anthropic_citation(c) for c in block["citations"]]}
    return dict(block)


def anthropic_citation(citation: dict) -> dict:
    """A Bedrock citation (title, sourceContent, location) in Anthropic's document-citation shape: bedrock_citation's
    inverse, for a cited answer sent back on this path."""
    location = citation.get("location") if isinstance(citation.get("location"), dict) else {}
    member, place = next(iter(location.items()), ("documentChar", {}))
    cited = "".join(part.get("text", "") for part in citation.get("sourceContent") or () if isinstance(part, dict))
    if member == "searchResultLocation":
        return {"type": "search_result_location", "cited_text": cited, "source": citation.get("source"),
                "title": citation.get("title"), "search_result_index": place.get("searchResultIndex", 0),
                "start_block_index": place.get("start"), "end_block_index": place.get("end")}
    kind, start, end = next(((k, a, b) for k, (m, a, b) in _LOCATIONS.items() if m == member), (member, "start", "end"))
    return {"type": kind, "cited_text": cited, "document_index": place.get("documentIndex", 0),
            "document_title": citation.get("title"), start: place.get("start"), end: place.get("end")}


def _system(turn: dict, cache: bool) -> Any:
    texts = system_texts(turn.get("system"))
    if not texts or not cache:
        return "\n\n".join(texts) or None
    blocks = [{"type": "text", "text": t} for t in texts]
    blocks[-1]["cache_control"] = {"type": "ephemeral"}
    return blocks


def build_invoke_body(turn: dict) -> dict:
    """The Anthropic Messages JSON body (``max_tokens`` is required on this path); None values omitted."""
    options = turn.get("options") or {}
    if not options.get("max_tokens"):
        raise TurnError("options.max_tokens is required for the InvokeModel (Anthropic Messages) path")
    budget, cache = thinking_budget(options), bool(options.get("cache_points"))
    body = {
        "anthropic_version": ANTHROPIC_VERSION, "max_tokens": options["max_tokens"],
        "system": _system(turn, cache),
        "messages": [{"role": m["role"], "content": [_anthropic_block(b) for b in m["content"]]}
                     for m in canonical_messages(turn.get("messages"))],
        "tools": anthropic_tools(turn.get("tools"), cache_point=cache) or None,
        "tool_choice": anthropic_tool_choice(turn.get("tools"), options.get("tool_choice"), thinking=bool(budget)),
        "thinking": {"type": "enabled", "budget_tokens": budget} if budget else None,
        "temperature": None if budget else options.get("temperature"),
        "top_p": None if budget else options.get("top_p"),
        "stop_sequences": options.get("stop_sequences") or None,
    }
    return {k: v for k, v in body.items() if v is not None}


def build_invoke_request(turn: dict) -> dict:
    """boto3 keyword arguments of ``invoke_model_with_response_stream`` (the body as JSON bytes)."""
    if not turn.get("model_id"):
        raise TurnError("turn has no model_id")
    body = json.dumps(build_invoke_body(turn)).encode()
    return {"modelId": turn["model_id"], "body": body, "contentType": "application/json",
            "accept": "application/json"}


class _InvokeState:
    """One InvokeModelWithResponseStream: ``feed`` turns one Anthropic event into chunks."""

    def __init__(self) -> None:
        self.blocks = BlockTable()
        self.usage = {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0,
                      "cache_write_input_tokens": 0}
        self.done = False

    def feed(self, event: dict) -> Iterator[dict]:
        if "chunk" not in event:
            log.debug("skipping unknown InvokeModelWithResponseStream event %r", next(iter(event), None))
            return iter(())
        try:
            payload = json.loads(event["chunk"]["bytes"])
        except ValueError:
            raise BedrockResponseError("chunk event: the payload is not Anthropic event JSON", event=event,
                                       field="bytes") from None
        handler = getattr(self, f"_on_{payload.get('type')}", None)
        if handler is None:
            log.debug("skipping Anthropic event %r", payload.get("type"))
            return iter(())
        return handler(payload)

    def _count(self, usage: dict | None) -> None:
        names = {"input_tokens": "input_tokens", "output_tokens": "output_tokens",
                 "cache_read_input_tokens": "cache_read_input_tokens",
                 "cache_creation_input_tokens": "cache_write_input_tokens"}
        for source, target in names.items():
            if (usage or {}).get(source) is not None:
                self.usage[target] = usage[source]

    def _on_message_start(self, payload: dict) -> Iterator[dict]:
        self._count((payload.get("message") or {}).get("usage"))
        return iter(())

    def _on_content_block_start(self, payload: dict) -> Iterator[dict]:
        index, block = payload["index"], payload.get("content_block") or {}
        where, kind = f"content_block_start at index {index}", block.get("type")
        if kind == "tool_use":
            check_tool(block, where, payload, label="tool_use", id_field="id")
            self.blocks.start(index, Block("tool", block["id"], block["name"]), where, payload)
            yield {"type": "tool_call", "index": index, "id": block["id"], "name": block["name"], "input_delta": ""}
            return
        mapped = {"text": "text", "thinking": "reasoning", "redacted_thinking": "reasoning"}.get(kind, "server")
        self.blocks.start(index, Block(mapped), where, payload)
        if kind == "text" and block.get("text"):
            yield {"type": "text", "index": index, "text": block["text"]}
        elif kind == "thinking":
            yield from self._delta_chunks(index, {"type": "thinking_delta", **block})
            yield from self._delta_chunks(index, {"type": "signature_delta", **block})
        elif kind == "redacted_thinking":
            yield redacted_chunk(index, block.get("data", "").encode("ascii"))
        elif mapped == "server":
            log.debug("%s: skipping %s block", where, kind)

    def _delta_chunks(self, index: int, delta: dict) -> Iterator[dict]:
        kind = delta.get("type")
        if kind == "text_delta" and delta.get("text"):
            yield {"type": "text", "index": index, "text": delta["text"]}
        elif kind == "thinking_delta" and delta.get("thinking"):
            yield {"type": "reasoning", "index": index, "text": delta["thinking"]}
        elif kind == "signature_delta" and delta.get("signature"):
            yield {"type": "reasoning", "index": index, "signature": delta["signature"]}
        elif kind == "citations_delta" and isinstance(delta.get("citation"), dict):
            yield {"type": "citation", "index": index, "citation": bedrock_citation(delta["citation"])}
        elif kind not in ("text_delta", "thinking_delta", "signature_delta"):
            log.debug("content_block_delta at index %s: skipping %s", index, kind)

    def _on_content_block_delta(self, payload: dict) -> Iterator[dict]:
        index, delta = payload["index"], payload.get("delta") or {}
        where = f"content_block_delta at index {index}"
        if delta.get("type") == "input_json_delta":
            block = self.blocks.delta(index, "tool", where, payload)
            if block.kind == "tool" and delta.get("partial_json"):
                yield {"type": "tool_call", "index": index, "id": block.id, "name": block.name,
                       "input_delta": delta["partial_json"]}
            return
        kind = "text" if delta.get("type") in ("text_delta", "citations_delta") else "reasoning"
        self.blocks.delta(index, kind, where, payload)
        yield from self._delta_chunks(index, delta)

    def _on_content_block_stop(self, payload: dict) -> Iterator[dict]:
        self.blocks.stop(payload["index"])
        return iter(())

    def _on_message_delta(self, payload: dict) -> Iterator[dict]:
        self._count(payload.get("usage"))
        reason = (payload.get("delta") or {}).get("stop_reason")
        yield from ([{"type": "stop", "reason": STOP_REASONS.get(reason, reason)}] if reason else ())

    def _on_message_stop(self, payload: dict) -> Iterator[dict]:
        self.done = True
        metrics = payload.get("amazon-bedrock-invocationMetrics") or {}
        if not any(self.usage.values()) and metrics:  # no Anthropic usage at all: Bedrock's counts instead
            self._count({"input_tokens": metrics.get("inputTokenCount"),
                         "output_tokens": metrics.get("outputTokenCount"),
                         "cache_read_input_tokens": metrics.get("cacheReadInputTokenCount"),
                         "cache_creation_input_tokens": metrics.get("cacheWriteInputTokenCount")})
        yield {"type": "usage", **self.usage}

    def _on_error(self, payload: dict) -> Iterator[dict]:
        self.done = True
        error = payload.get("error") or {}
        yield {"type": "error", "code": error.get("type") or "error", "message": error.get("message") or ""}


# Anthropic's document citation locations -> Bedrock's CitationLocation member and its start/end fields.
_LOCATIONS = {"char_location": ("documentChar", "start_char_index", "end_char_index"),
              "page_location": ("documentPage", "start_page_number", "end_page_number"),
              "content_block_location": ("documentChunk", "start_block_index", "end_block_index")}


def bedrock_citation(citation: dict) -> dict:
    """An Anthropic citation in Bedrock's CitationsDelta shape (title, sourceContent, location), so both operations
    surface one citation alike; a location kind Bedrock has no member for is kept under its own name."""
    if citation.get("type") == "search_result_location":
        place = {"searchResultIndex": citation.get("search_result_index", 0), "start": citation.get("start_block_index"),
                 "end": citation.get("end_block_index")}
        return {"title": citation.get("title"), "source": citation.get("source"),
                "sourceContent": [{"text": citation.get("cited_text", "")}], "location": {"searchResultLocation": place}}
    member, start, end = _LOCATIONS.get(citation.get("type"), (citation.get("type") or "unknown", "start", "end"))
    place = {"documentIndex": citation.get("document_index", 0), "start": citation.get(start), "end": citation.get(end)}
    return {"title": citation.get("document_title"), "sourceContent": [{"text": citation.get("cited_text", "")}],
            "location": {member: place}}


def chunks_from_invoke_events(events: Iterable[dict]) -> Iterator[dict]:
    """Chunks for InvokeModelWithResponseStream events (``{"chunk": {"bytes": ...}}`` as boto3 yields them)."""
    state = _InvokeState()
    yield from drive(state.feed, events, lambda: state.done)
