"""Deliberately broken variants of the reference adapter, one real-world bug each (DESIGN.md's bug list).

Each variant is the reference ``ConverseAdapter`` with ONE stage swapped by composition: ``request`` (turn ->
boto3 kwargs, i.e. history formatting) or ``chunks`` (ConverseStream events -> stream chunks). Nothing is
patched globally, so a variant cannot leak into another test. ``VARIANTS`` maps a short key to its class.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator
from typing import Any

from harness.converse import (
    ConverseAdapter,
    build_request,
    chunks_from_events,
    to_converse_messages,
)

__all__ = [
    "VARIANTS",
    "ConcatenatedSignatures",
    "DroppedSignature",
    "EmptyZeroArgInput",
    "HistoryDropsFunctionToolCallId",
    "MissingIdAsEmpty",
    "NoToolCallsWhileStreaming",
    "SeparateToolResultMessages",
    "SignatureNotSentBack",
    "SingleLastStartedSlot",
    "SwallowedStreamError",
    "Variant",
]


class Variant(ConverseAdapter):
    """The reference adapter with a swappable stage; subclasses override ``request`` or ``chunks``."""

    name = "broken"
    bug = ""

    def request(self, turn: dict) -> dict:
        """The boto3 ``converse_stream`` kwargs for a turn (history formatting lives here)."""
        return build_request(turn)

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        """Stream chunks for ConverseStream events."""
        return chunks_from_events(events)

    def _stream(self, turn: dict, endpoint: dict | None = None) -> Iterator[dict]:
        yield from self._run(self.client(endpoint).converse_stream, self.request(turn), "stream", self.chunks)


# ---- 1. streaming: tool calls never surfaced --------------------------------------------------------------

class NoToolCallsWhileStreaming(Variant):
    """Only text surfaces while streaming; detected tool calls are never yielded (gollm: ``Parts()``)."""

    name = "broken-no-tool-calls"
    bug = "tool calls never yielded while streaming"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        return (chunk for chunk in chunks_from_events(events) if chunk["type"] != "tool_call")


# ---- 2. streaming: one "last started" slot for every tool call -------------------------------------------

class SingleLastStartedSlot(Variant):
    """Every toolUse delta goes to the most recently started call (no per-block tracking, no index)."""

    name = "broken-last-started-slot"
    bug = "parallel calls tracked in a single 'last started' slot"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        slot: dict = {}
        for chunk in chunks_from_events(events):
            if chunk["type"] != "tool_call":
                yield chunk
                continue
            if chunk.get("input_delta") == "":  # a toolUse start: it takes over the one slot
                slot = {"id": chunk["id"], "name": chunk["name"]}
            yield {"type": "tool_call", **slot, "input_delta": chunk["input_delta"]}


# ---- 3. history: drops tool calls whose id sits in function.tool_call_id (seed 004) ----------------------

def _internal_tool_call(block: dict) -> dict:
    """The app's stored form of a tool call: the id kept as ``function.tool_call_id`` (no top-level id)."""
    return {"function": {"name": block["name"], "arguments": json.dumps(block.get("input") or {}),
                         "tool_call_id": block["id"]}}


def _converse_tool_use(call: dict) -> dict | None:
    """The bug: reads ``call["id"]``; a call whose id lives in ``function.tool_call_id`` is silently dropped."""
    call_id = call.get("id", "")
    if not call_id:
        return None
    function = call["function"]
    return {"toolUse": {"toolUseId": call_id, "name": function["name"], "input": json.loads(function["arguments"])}}


def _content(message: dict) -> list:
    content = message.get("content")
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or ())


class HistoryDropsFunctionToolCallId(Variant):
    """History formatting that looks up ``id`` where the id lives in ``function.tool_call_id``."""

    name = "broken-history-drops-tool-calls"
    bug = "history drops tool calls whose id sits in function.tool_call_id"

    def request(self, turn: dict) -> dict:
        request = build_request({**turn, "messages": turn["messages"][:1]})
        request["messages"] = [self._message(m) for m in turn["messages"]]
        return request

    def _message(self, message: dict) -> dict:
        """One message at a time, roles kept as given (the way the seed's ``_transform_messages`` works)."""
        blocks = _content(message)
        calls = [_internal_tool_call(b) for b in blocks if b.get("type") == "tool_use"]
        rest = [b for b in blocks if b.get("type") != "tool_use"]
        converted = to_converse_messages([{"role": message["role"], "content": rest}])
        content = converted[0]["content"] if converted else []
        return {"role": message["role"], "content": content + [u for u in map(_converse_tool_use, calls) if u]}


# ---- 4. streaming: a missing toolUseId passed on as "" ----------------------------------------------------

_NO_ID = "\x00missing-tool-use-id"  # stands in for the absent id so the reference's stages run unchanged


def _fill_missing_ids(events: Iterable[dict]) -> Iterator[dict]:
    for event in events:
        tool = ((event.get("contentBlockStart") or {}).get("start") or {}).get("toolUse")
        if tool is not None and not tool.get("toolUseId"):
            event = copy.deepcopy(event)
            event["contentBlockStart"]["start"]["toolUse"]["toolUseId"] = _NO_ID
        yield event


class MissingIdAsEmpty(Variant):
    """A toolUse start without ``toolUseId`` becomes a tool call with id ``""`` instead of an error."""

    name = "broken-missing-id-as-empty"
    bug = "a missing toolUseId passed on as ''"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        for chunk in chunks_from_events(_fill_missing_ids(events)):
            yield {**chunk, "id": ""} if chunk.get("id") == _NO_ID else chunk


# ---- 5. reasoning signature dropped (stream side, and history side) --------------------------------------

class DroppedSignature(Variant):
    """Reasoning text streams, but the signature delta is never yielded."""

    name = "broken-dropped-signature"
    bug = "reasoning signature never emitted"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        return (chunk for chunk in chunks_from_events(events)
                if not (chunk["type"] == "reasoning" and "signature" in chunk))


def _unsigned(block: Any) -> Any:
    return {k: v for k, v in block.items() if k != "signature"} if isinstance(block, dict) else block


def _without_signatures(messages: list) -> list:
    return [{**m, "content": [_unsigned(b) for b in m["content"]]} if isinstance(m.get("content"), list) else m
            for m in messages]


class SignatureNotSentBack(Variant):
    """The signature streams correctly but history formatting leaves it out of the reasoning block."""

    name = "broken-signature-not-sent-back"
    bug = "reasoning signature not sent back in history"

    def request(self, turn: dict) -> dict:
        return build_request({**turn, "messages": _without_signatures(turn["messages"])})


# ---- 6. signatures concatenated across blocks (strands #3425) --------------------------------------------

class ConcatenatedSignatures(Variant):
    """The signature buffer is never reset between reasoning blocks: the second block carries SIG1SIG2."""

    name = "broken-concatenated-signatures"
    bug = "signatures concatenated across blocks"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        buffer = ""
        for chunk in chunks_from_events(events):
            if chunk["type"] == "reasoning" and "signature" in chunk:
                buffer += chunk["signature"]
                chunk = {**chunk, "signature": buffer}
            yield chunk


# ---- 7. each parallel tool result as its own user message ------------------------------------------------

def _split_results(message: dict) -> list[dict]:
    """A user message with several tool results -> one user message per result (then the rest)."""
    blocks = _content(message)
    results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
    if message.get("role") != "user" or len(results) < 2:
        return [message]
    rest = [b for b in blocks if b not in results]
    return [{"role": "user", "content": [r]} for r in results] + ([{"role": "user", "content": rest}] if rest else [])


class SeparateToolResultMessages(Variant):
    """Each tool result goes out as its own user message (pydantic-ai #1656, agno #6698, crewai #4749)."""

    name = "broken-separate-tool-results"
    bug = "each parallel tool result sent as its own user message"

    def request(self, turn: dict) -> dict:
        request = build_request({**turn, "messages": turn["messages"][:1]})
        # One message at a time: the reference's merging of same-role messages is exactly what this bug lacks.
        request["messages"] = [converted for m in turn["messages"] for part in _split_results(m)
                               for converted in to_converse_messages([part])]
        return request


# ---- 8. a zero-argument tool input sent as "" ------------------------------------------------------------

def _empty_inputs_as_strings(messages: list) -> list:
    for message in messages:
        for block in message["content"]:
            if "toolUse" in block and block["toolUse"].get("input") == {}:
                block["toolUse"]["input"] = ""
    return messages


class EmptyZeroArgInput(Variant):
    """History sends a zero-argument call's input as ``""`` (the raw, empty arguments string) instead of {}."""

    name = "broken-zero-arg-input-empty-string"
    bug = "a zero-argument tool input sent as ''"

    def request(self, turn: dict) -> dict:
        request = build_request(turn)
        request["messages"] = _empty_inputs_as_strings(request["messages"])
        return request


# ---- 9. a mid-stream exception swallowed ----------------------------------------------------------------

class SwallowedStreamError(Variant):
    """An exception while reading the stream ends it quietly: no error chunk, no stop."""

    name = "broken-swallowed-stream-error"
    bug = "a mid-stream exception swallowed"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        # ``except Exception: break`` around the event loop, and no check that messageStop ever came.
        return (chunk for chunk in chunks_from_events(events) if chunk["type"] != "error")


VARIANTS: dict[str, type[Variant]] = {
    "no_tool_calls": NoToolCallsWhileStreaming,
    "last_started_slot": SingleLastStartedSlot,
    "history_drops_tool_calls": HistoryDropsFunctionToolCallId,
    "missing_id_as_empty": MissingIdAsEmpty,
    "dropped_signature": DroppedSignature,
    "signature_not_sent_back": SignatureNotSentBack,
    "concatenated_signatures": ConcatenatedSignatures,
    "separate_tool_results": SeparateToolResultMessages,
    "zero_arg_input_empty_string": EmptyZeroArgInput,
    "swallowed_stream_error": SwallowedStreamError,
}
