"""ConverseStream events (exactly what boto3 yields) and Converse responses -> stream chunks.

Blocks are tracked by ``contentBlockIndex``, so parallel and interleaved blocks never mix; every content
chunk carries its block's ``index``. Server-side tool use (``type: server_tool_use`` and its ``toolResult``
block) ran inside Bedrock: it is not a call the application must execute, so it yields no ``tool_call``. A block of
a kind the chunks do not carry (an image the model made, a kind newer than botocore) is surfaced as an ``other`` chunk
naming its kind and never read as text; how the service served the turn (``metadata``) and the model's extra response
fields (``response_fields``) close the stream beside the stop and usage chunks.
"""

from __future__ import annotations

import base64
import logging
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from botocore.eventstream import ParserError
from botocore.exceptions import BotoCoreError, ClientError
from urllib3.exceptions import HTTPError

from harness.converse.errors import BedrockResponseError

__all__ = [
    "INCOMPLETE",
    "drive",
    "STREAM_ERRORS",
    "Block",
    "BlockTable",
    "check_tool",
    "chunks_from_events",
    "chunks_from_response",
    "error_chunk",
    "metadata_chunk",
    "other_kind",
    "redacted_chunk",
    "response_fields_chunk",
    "traceback_tail",
    "usage_chunk",
]

log = logging.getLogger(__name__)

# What reading a stream can raise: modelled errors (EventStreamError is a ClientError) and the transport
# failures botocore does not wrap (bedrock-wire.md §4.5, §10).
STREAM_ERRORS = (ClientError, HTTPError, BotoCoreError, ParserError)
INCOMPLETE = {"type": "error", "code": "incompleteStream", "message": "the stream ended before the message stopped"}
TRACEBACK_FRAMES = 6  # the innermost frames an exception's error chunk keeps: where it broke


def error_chunk(exc: BaseException) -> dict:
    """An error chunk: Bedrock's code and message for a ClientError (lowerCamel when in-stream, as Bedrock names
    it); for any other exception its exact class name, its text and its traceback's tail."""
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        return {"type": "error", "code": error.get("Code") or "unknown", "message": error.get("Message") or str(exc)}
    return {"type": "error", "code": type(exc).__name__, "message": str(exc), "traceback": traceback_tail(exc)}


def traceback_tail(exc: BaseException, keep: Callable[[Any, Any], bool] = lambda summary, frame: True) -> str:
    """The innermost TRACEBACK_FRAMES frames of ``exc``'s traceback that ``keep(summary, frame)``, formatted as
    Python prints them, innermost last (no carets: placing them parses source, which is not thread-safe on 3.11)."""
    tb = exc.__traceback__
    kept = [summary for summary, (frame, _) in zip(traceback.extract_tb(tb), traceback.walk_tb(tb))
            if keep(summary, frame)][-TRACEBACK_FRAMES:]
    return "\n".join(f'  File "{s.filename}", line {s.lineno}, in {s.name}' + (f"\n    {s.line}" if s.line else "")
                     for s in kept)


def usage_chunk(usage: dict) -> dict:
    """A usage chunk from a Converse ``TokenUsage`` (absent cache counts are 0); ``cacheDetails``, the cache writes
    per TTL (1h before 5m), as ``cache_details`` when Bedrock sent any."""
    chunk = {"type": "usage", "input_tokens": usage.get("inputTokens", 0), "output_tokens": usage.get("outputTokens", 0),
             "cache_read_input_tokens": usage.get("cacheReadInputTokens") or 0,
             "cache_write_input_tokens": usage.get("cacheWriteInputTokens") or 0}
    details = [{"ttl": d.get("ttl"), "input_tokens": d.get("inputTokens")} for d in usage.get("cacheDetails") or ()
               if isinstance(d, dict)]
    return {**chunk, "cache_details": details} if details else chunk


def metadata_chunk(body: dict) -> dict | None:
    """What the service reports of how it served the turn (a prompt router's invoked model, the service tier, the
    latency configuration), from a metadata event or a Converse response; None when it reports none of them."""
    chunk = {"invoked_model_id": ((body.get("trace") or {}).get("promptRouter") or {}).get("invokedModelId"),
             "service_tier": (body.get("serviceTier") or {}).get("type"),
             "latency": (body.get("performanceConfig") or {}).get("latency")}
    return {"type": "metadata", **chunk} if any(value is not None for value in chunk.values()) else None


def response_fields_chunk(body: dict) -> Iterator[dict]:
    """messageStop's (or a Converse response's) additionalModelResponseFields, when it carries them."""
    if body.get("additionalModelResponseFields") is not None:
        yield {"type": "response_fields", "fields": body["additionalModelResponseFields"]}


def other_kind(start: dict) -> str:
    """The kind of a block the chunk vocabulary does not carry: ``image``, or a member newer than botocore's model
    (botocore hands an unknown union member over as ``SDK_UNKNOWN_MEMBER``)."""
    unknown = start.get("SDK_UNKNOWN_MEMBER")
    return str(unknown.get("name")) if isinstance(unknown, dict) else next(iter(sorted(start)), "unknown")


def redacted_chunk(index: int, data: bytes) -> dict:
    """Redacted reasoning: the opaque blob as base64 text (botocore hands over bytes)."""
    return {"type": "redacted_reasoning", "index": index, "data": base64.b64encode(bytes(data)).decode("ascii")}


def _reasoning(index: int, reasoning: dict) -> Iterator[dict]:
    """Reasoning text, its signature (which closes the block) and redacted reasoning, in that order."""
    if reasoning.get("text"):
        yield {"type": "reasoning", "index": index, "text": reasoning["text"]}
    if reasoning.get("signature"):
        yield {"type": "reasoning", "index": index, "signature": reasoning["signature"]}
    if reasoning.get("redactedContent"):
        yield redacted_chunk(index, reasoning["redactedContent"])


@dataclass
class Block:
    """One content block: text | reasoning | tool | server (ran inside Bedrock) | other."""

    kind: str
    id: str | None = None
    name: str | None = None
    closed: bool = False


class BlockTable:
    """Blocks by index; refuses a delta that would mix blocks, with the index and event named."""

    def __init__(self) -> None:
        self._blocks: dict[int, Block] = {}

    def start(self, index: int, block: Block, where: str, event: Any) -> None:
        if index in self._blocks:
            raise BedrockResponseError(f"{where}: block {index} already started", event=event, field="index")
        self._blocks[index] = block

    def delta(self, index: int, kind: str, where: str, event: Any) -> Block:
        """The open block at ``index``; text and reasoning blocks start implicitly (Bedrock sends no start)."""
        block = self._blocks.setdefault(index, Block("other" if kind == "tool" else kind))
        if block.closed:
            problem = "delta after the block stopped"
        elif (kind == "tool") != (block.kind in ("tool", "server")):
            problem = "tool input delta without a tool use start" if kind == "tool" else f"{kind} delta in a tool block"
        else:
            return block
        raise BedrockResponseError(f"{where}: {problem}", event=event, field="index")

    def stop(self, index: int) -> None:
        self._blocks.setdefault(index, Block("other")).closed = True


def check_tool(tool: dict, where: str, event: Any, label: str = "toolUse", id_field: str = "toolUseId") -> None:
    """Raise unless a tool use names both its id and name (never pass on an empty id)."""
    for field in (id_field, "name"):
        if not tool.get(field):
            also = " (toolUseId)" if field != "toolUseId" and field == id_field else ""
            raise BedrockResponseError(f"{where}: {label} has no {field}{also}", event=event, field=field)


class _ConverseState:
    """One ConverseStream: ``feed`` turns one event into chunks."""

    def __init__(self) -> None:
        self.blocks = BlockTable()
        self.stopped = False

    def feed(self, event: dict) -> Iterator[dict]:
        kind = next(iter(event), None)
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            log.debug("skipping unknown ConverseStream event %r", kind)
            return iter(())
        return handler(event[kind], event)

    def _on_messageStart(self, body: dict, event: dict) -> Iterator[dict]:
        return iter(())

    def _on_contentBlockStart(self, body: dict, event: dict) -> Iterator[dict]:
        index, start = body["contentBlockIndex"], body.get("start") or {}
        where, tool = f"contentBlockStart at index {index}", start.get("toolUse")
        if tool is not None:
            check_tool(tool, where, event)
        if tool is not None and tool.get("type") != "server_tool_use":
            self.blocks.start(index, Block("tool", tool["toolUseId"], tool["name"]), where, event)
            yield {"type": "tool_call", "index": index, "id": tool["toolUseId"], "name": tool["name"],
                   "input_delta": ""}
            return
        kind = "server" if tool is not None or "toolResult" in start else "other"
        log.debug("%s: skipping %s block %s", where, kind, sorted(start))
        self.blocks.start(index, Block(kind), where, event)
        if kind == "other" and start:  # an image the model made, or a kind newer than this adapter: surfaced, unread
            yield {"type": "other", "index": index, "kind": other_kind(start)}

    def _on_contentBlockDelta(self, body: dict, event: dict) -> Iterator[dict]:
        index, delta = body["contentBlockIndex"], body.get("delta") or {}
        where = f"contentBlockDelta at index {index}"
        if "text" in delta:
            self.blocks.delta(index, "text", where, event)
            yield from ([{"type": "text", "index": index, "text": delta["text"]}] if delta["text"] else ())
        elif "citation" in delta:  # a CitationsDelta of the text block: the key is citation, not citationsContent
            self.blocks.delta(index, "text", where, event)
            yield {"type": "citation", "index": index, "citation": delta["citation"]}
        elif "reasoningContent" in delta:
            self.blocks.delta(index, "reasoning", where, event)
            yield from _reasoning(index, delta["reasoningContent"])
        elif "toolUse" in delta:
            block = self.blocks.delta(index, "tool", where, event)
            if block.kind == "tool" and delta["toolUse"].get("input"):
                yield {"type": "tool_call", "index": index, "id": block.id, "name": block.name,
                       "input_delta": delta["toolUse"]["input"]}
        else:
            log.debug("%s: skipping %s delta", where, sorted(delta))

    def _on_contentBlockStop(self, body: dict, event: dict) -> Iterator[dict]:
        self.blocks.stop(body["contentBlockIndex"])
        return iter(())

    def _on_messageStop(self, body: dict, event: dict) -> Iterator[dict]:
        self.stopped = True
        yield {"type": "stop", "reason": body.get("stopReason")}
        yield from response_fields_chunk(body)

    def _on_metadata(self, body: dict, event: dict) -> Iterator[dict]:
        yield from ([usage_chunk(body["usage"])] if body.get("usage") else ())
        yield from filter(None, [metadata_chunk(body)])


def chunks_from_events(events: Iterable[dict]) -> Iterator[dict]:
    """Chunks for ConverseStream events; an exception while reading becomes the last chunk (an error).

    A stream that ends before ``messageStop`` (a truncated body) ends with an ``incompleteStream`` error,
    so a half-streamed tool call is never mistaken for a complete one.
    """
    state = _ConverseState()
    yield from drive(state.feed, events, lambda: state.stopped)


def drive(feed: Callable[[dict], Iterable[dict]], events: Iterable[dict], finished: Callable[[], bool]) -> Iterator[dict]:
    """Chunks of every event through ``feed``; a read error or an early end closes the list with an error chunk."""
    try:
        for event in events:
            yield from feed(event)
    except STREAM_ERRORS as exc:
        yield error_chunk(exc)
        return
    if not finished():
        yield dict(INCOMPLETE)


def _response_block(index: int, block: dict) -> Iterator[dict]:
    """Chunks for one content block of a Converse response (a tool call arrives with its whole input)."""
    reasoning, tool, cited = block.get("reasoningContent") or {}, block.get("toolUse"), block.get("citationsContent")
    if block.get("text"):
        yield {"type": "text", "index": index, "text": block["text"]}
    if isinstance(cited, dict):  # the citations first, as the stream sends them, then the cited text
        yield from ({"type": "citation", "index": index, "citation": c} for c in cited.get("citations") or ())
        text = "".join(part.get("text") or "" for part in cited.get("content") or () if isinstance(part, dict))
        yield from ([{"type": "text", "index": index, "text": text}] if text else ())
    yield from _reasoning(index, {**(reasoning.get("reasoningText") or {}), **reasoning})
    if tool is not None:
        check_tool(tool, f"output.message.content[{index}]", block)
    if tool is not None and tool.get("type") != "server_tool_use":
        yield {"type": "tool_call", "index": index, "id": tool["toolUseId"], "name": tool["name"],
               "input": tool.get("input") or {}}
    if "image" in block or "SDK_UNKNOWN_MEMBER" in block:
        yield {"type": "other", "index": index, "kind": other_kind(block)}


def chunks_from_response(response: dict) -> Iterator[dict]:
    """The chunks ``chunks_from_events`` gives for the same content, from a (non-streaming) Converse response."""
    content = ((response.get("output") or {}).get("message") or {}).get("content") or []
    for index, block in enumerate(content):
        yield from _response_block(index, block)
    if response.get("stopReason"):
        yield {"type": "stop", "reason": response["stopReason"]}
    yield from response_fields_chunk(response)
    if response.get("usage"):
        yield usage_chunk(response["usage"])
    yield from filter(None, [metadata_chunk(response)])
