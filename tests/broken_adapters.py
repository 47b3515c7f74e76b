"""Deliberately broken variants of the reference adapter, one real-world bug each (DESIGN.md's bug list).

Each variant is the reference ``ConverseAdapter`` with ONE stage swapped by composition: ``request`` (turn ->
boto3 kwargs, i.e. history formatting), ``chunks`` (ConverseStream events -> stream chunks) or, in conversation
mode, ``assemble`` (the streamed turn -> the assistant message the adapter sends back) or its agent loop; the
OpenAI-format ones also report native chat-completion chunks (``OpenAIFormat`` is their correct base). Nothing is
patched globally, so a variant cannot leak into another test. ``VARIANTS`` maps a short key to its class.
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Iterable, Iterator
from typing import Any

from harness.converse import (
    ConverseAdapter,
    assemble_message,
    build_request,
    chunks_from_events,
    to_converse_messages,
)
from harness.converse.adapter import native_chunk
from harness.converse.conversation import Conversation
from harness.converse.history import canonical_messages
from harness.converse.stream import INCOMPLETE, chunks_from_response
from harness.converse.request import converse_twin, history_policy, status_supported, streams_tool_use

__all__ = [
    "CONVERSATION",
    "OPENAI",
    "VARIANTS",
    "AgentLoopResendsAfterToolUseStop",
    "AgentLoopStopsOnEndTurn",
    "CrashOnUnknownStopReason",
    "CitationDeltaUnderWrongKey",
    "CitationsNotSentBack",
    "CleanAfterAsyncGuardrail",
    "CrashOnUnknownBlock",
    "ImageGluedIntoText",
    "InvokedModelDropped",
    "ResponseFieldsDropped",
    "ServedOptionsDropped",
    "ServerResultTextAsAnswer",
    "ConversationVariant",
    "CutStreamAsComplete",
    "GenericErrorCode",
    "OpenAIFormat",
    "OpenAIIndexFromContentBlockIndex",
    "OpenAISecondChoiceIndex",
    "OpenAIStream",
    "ReasoningCollapsedAtAssembly",
    "StoredHistoryLosesSignatures",
    "ReplySplitInTwo",
    "GarbledFieldAtAssembly",
    "StringArgumentsWhenStreamed",
    "SignatureOnlyBlockDroppedAtAssembly",
    "SignaturesConcatenatedAtAssembly",
    "ToolInputStringAtAssembly",
    "ZeroArgCallDroppedAtAssembly",
    "ConcatenatedSignatures",
    "DroppedSignature",
    "EmptySignatureForUnsignedReasoning",
    "EmptyZeroArgInput",
    "ErrorResultKeepsMedia",
    "ImageInToolResultForEveryModel",
    "MediaDroppedFromToolResults",
    "MediaFlattenedToText",
    "HistoryDropsFunctionToolCallId",
    "MissingIdAsEmpty",
    "MissingIdAsEmptyWithoutErrors",
    "NoToolCallsWhileStreaming",
    "SeparateToolResultMessages",
    "SignatureNotSentBack",
    "SignatureOnlySentWithoutText",
    "SingleLastStartedSlot",
    "StatusForEveryModel",
    "SwallowedStreamError",
    "ToolsStreamedToEveryModel",
    "UnsignedReasoningForEveryModel",
    "Variant",
    "WithoutErrors",
    "WireVariant",
    "CachePointInsideToolResult",
    "CacheTtlDroppedOnTools",
    "CachePointSharesToolElement",
    "ToolCachePointForEveryFamily",
    "CachePointAtMessageEnd",
    "SchemaInModelFields",
    "ToolChoiceWithoutTools",
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

    def converse_chunks(self, response: dict) -> Iterator[dict]:
        """Chunks for a non-streaming Converse response (the twin call of streaming parity)."""
        return chunks_from_response(response)

    def _stream(self, turn: dict, endpoint: dict | None = None) -> Iterator[dict]:
        """As the reference: the stream's chunks, then the message assembled from each call (``native``)."""
        request, streamed = self.request(turn), []
        for chunk in self._run(*self.calls(request, endpoint, self.chunks, self.converse_chunks)):
            streamed.append(chunk)
            yield chunk
        if not turn.get("non_streaming"):
            return
        yield native_chunk("stream", streamed)
        # A model whose tools go through Converse alone (rule 38) answered the one call both paths make.
        whole = (self._whole(converse_twin(request), endpoint, self.converse_chunks) if streams_tool_use(request)
                 else streamed)
        yield native_chunk("converse", whole)


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
        status = status_supported(turn["model_id"])
        request["messages"] = [self._message(m, status, history_policy(turn["model_id"])) for m in turn["messages"]]
        return request

    def _message(self, message: dict, status: bool, media: dict) -> dict:
        """One message at a time, roles kept as given (the way the seed's ``_transform_messages`` works)."""
        blocks = _content(message)
        calls = [_internal_tool_call(b) for b in blocks if b.get("type") == "tool_use"]
        rest = [b for b in blocks if b.get("type") != "tool_use"]
        converted = to_converse_messages([{"role": message["role"], "content": rest}], status, **media)
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


class MissingIdAsEmptyWithoutErrors(MissingIdAsEmpty):
    """The same bug in an adapter declaring no ``errors``: not compared on the error, held to the id law all the same
    (kept out of VARIANTS, whose members claim what the reference does)."""

    name = "broken-missing-id-as-empty-no-errors"
    capabilities = ConverseAdapter.capabilities - {"errors"}


class WithoutErrors(ConverseAdapter):
    """The reference declaring no ``errors`` capability: what it raises is not compared, and it passes."""

    name = "reference-without-errors"
    capabilities = ConverseAdapter.capabilities - {"errors"}


# ---- 5. reasoning signature dropped (stream side, and history side) --------------------------------------

def sending_unsigned(turn: dict, thinking_only: bool = True) -> dict:
    """The reference's request, but every reasoning block goes back, unsigned too: a library that loses signatures in
    a thinking conversation sends the blocks without them (the reference would leave unsigned reasoning out for
    Claude, rule 37); ``thinking_only``: only when the turn thinks, as those libraries do."""
    request = build_request(turn)
    if thinking_only and not (turn.get("options") or {}).get("thinking_budget"):
        return request
    request["messages"] = to_converse_messages(turn["messages"], status_supported(turn["model_id"]),
                                               **{**history_policy(turn["model_id"]), "unsigned_reasoning": True})
    return request


class DroppedSignature(Variant):
    """Reasoning text streams, but the signature delta is never yielded."""

    name = "broken-dropped-signature"
    bug = "reasoning signature never emitted"

    def request(self, turn: dict) -> dict:
        return sending_unsigned(turn)

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
        return sending_unsigned({**turn, "messages": _without_signatures(turn["messages"])})


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
                               for converted in to_converse_messages([part], status_supported(turn["model_id"]),
                                                                     **history_policy(turn["model_id"]))]
        return request


def _request_blocks(request: dict) -> Iterator[dict]:
    """Every content block of a Converse request's messages."""
    for message in request.get("messages", ()):
        yield from (b for b in message.get("content", ()) if isinstance(b, dict))


# ---- 8. a zero-argument tool input sent as "" ------------------------------------------------------------


class EmptyZeroArgInput(Variant):
    """History sends a zero-argument call's input as ``""`` (the raw, empty arguments string) instead of {}."""

    name = "broken-zero-arg-input-empty-string"
    bug = "a zero-argument tool input sent as ''"

    def request(self, turn: dict) -> dict:
        request = build_request(turn)
        for block in _request_blocks(request):
            if "toolUse" in block and block["toolUse"].get("input") == {}:
                block["toolUse"]["input"] = ""
        return request


# ---- 9. a mid-stream exception swallowed ----------------------------------------------------------------

class SwallowedStreamError(Variant):
    """An exception while reading the stream ends it quietly: no error chunk, no stop."""

    name = "broken-swallowed-stream-error"
    bug = "a mid-stream exception swallowed"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        # ``except Exception: break`` around the event loop, and no check that messageStop ever came.
        return (chunk for chunk in chunks_from_events(events) if chunk["type"] != "error")


# ---- 8b. a cut stream surfaced as a complete answer (strands' process_stream: issue 29) ----------------------

class CutStreamAsComplete(Variant):
    """A stream that ends before messageStop ends as a normal reply: stop end_turn, no error."""

    name = "broken-cut-stream-as-complete"
    bug = "a truncated stream surfaced as a complete end_turn answer"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        # The stop reason starts as end_turn and nothing checks that messageStop ever came.
        for chunk in chunks_from_events(events):
            yield {"type": "stop", "reason": "end_turn"} if chunk == INCOMPLETE else chunk


# ---- 8c. Bedrock's error code replaced by a generic one (issue 29) -----------------------------------------

class GenericErrorCode(Variant):
    """Every error Bedrock sends in the stream surfaces under one generic code, its text without Bedrock's code."""

    name = "broken-generic-error-code"
    bug = "Bedrock's error code replaced by a generic one"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        # ``raise ProviderError(str(exc))``: throttling and a model error become the same exception.
        return ({**chunk, "code": "provider_error"} if chunk["type"] == "error" and chunk != INCOMPLETE else chunk
                for chunk in chunks_from_events(events))


# ---- 9b. unsigned reasoning sent back with an empty "" signature (gpt-oss, DeepSeek, Kimi: issue 13) ---------

class EmptySignatureForUnsignedReasoning(Variant):
    """History formatting built around Claude's signed thinking: reasoning that had no signature goes back as ""."""

    name = "broken-empty-signature"
    bug = "unsigned reasoning sent back with an empty signature"

    def request(self, turn: dict) -> dict:
        request = build_request(turn)
        for block in _request_blocks(request):
            text = (block.get("reasoningContent") or {}).get("reasoningText")
            if isinstance(text, dict) and "signature" not in text:
                text["signature"] = ""
        return request


# ---- 9c. a tool result's status sent to every model (documented for Claude and Nova only: issue 13) ---------

class StatusForEveryModel(Variant):
    """Every tool result carries a status, whatever the model; OpenAI-family and Kimi models reject the field."""

    name = "broken-status-for-every-model"
    bug = "toolResult.status sent to models that take none"

    def request(self, turn: dict) -> dict:
        request = build_request(turn)
        for block in _request_blocks(request):
            if isinstance(block.get("toolResult"), dict):
                block["toolResult"].setdefault("status", "success")
        return request


# ==== today's surface (issue 28): cache placement, structured output, a toolless turn =========================

class WireVariant(Variant):
    """A library that writes the request body itself, past botocore's validation (another SDK, a gateway): ``wire``
    rewrites the JSON body after serialization, before signing, as such a library sends it."""

    def wire(self, body: dict) -> dict:
        return body

    def client(self, endpoint: dict | None, max_attempts: int | None = None):
        made = super().client(endpoint, max_attempts)
        if not getattr(made, "_wired", False):
            made.meta.events.register("before-sign.bedrock-runtime", self._rewrite)
            made._wired = True
        return made

    def _rewrite(self, request, **_):
        if request.data:
            request.data = json.dumps(self.wire(json.loads(request.data))).encode()


def _points_after_results(body: dict) -> Iterator[tuple[list, int]]:
    """(content, index) of every cachePoint right after a toolResult block."""
    for message in body.get("messages") or []:
        content = message.get("content") or []
        for j in range(len(content) - 1, 0, -1):
            if "cachePoint" in content[j] and "toolResult" in content[j - 1]:
                yield content, j


class CachePointInsideToolResult(WireVariant):
    """A tool result's cache point nested inside toolResult.content, where it is no member (Portkey-AI/gateway #1762)."""

    name = "broken-cache-point-inside-tool-result"
    bug = "a tool result's cache point sent inside toolResult.content"

    def wire(self, body: dict) -> dict:
        for content, j in list(_points_after_results(body)):
            content[j - 1]["toolResult"]["content"].append(content.pop(j))
        return body


class CacheTtlDroppedOnTools(Variant):
    """The tools cache point always sent with the default TTL (strands #2232): a 1h system point then follows a 5m one."""

    name = "broken-cache-ttl-dropped-on-tools"
    bug = "the tools cache point sent without its TTL"

    def request(self, turn: dict) -> dict:
        request = build_request(turn)
        for tool in (request.get("toolConfig") or {}).get("tools", []):
            if "cachePoint" in tool:
                tool["cachePoint"].pop("ttl", None)
        return request


class CachePointSharesToolElement(WireVariant):
    """A tool's cache point set on the toolSpec's own tools element (envoyproxy/ai-gateway PR #2476)."""

    name = "broken-cache-point-shares-tool-element"
    bug = "a tool's cache point set in the same toolConfig.tools element as its toolSpec"

    def wire(self, body: dict) -> dict:
        tools = (body.get("toolConfig") or {}).get("tools", [])
        for i in range(len(tools) - 1, 0, -1):
            if list(tools[i]) == ["cachePoint"] and "toolSpec" in tools[i - 1]:
                tools[i - 1].update(tools.pop(i))
        return body


class ToolCachePointForEveryFamily(Variant):
    """Whenever it caches, a cache point after the tools too, whatever the model (hermes-agent #97281: Nova rejects it)."""

    name = "broken-tool-cache-point-for-every-family"
    bug = "a tools cache point added for every model family that caches"

    def request(self, turn: dict) -> dict:
        request = build_request(turn)
        caching = any("cachePoint" in b for m in request["messages"] for b in m["content"]) or any(
            "cachePoint" in b for b in request.get("system", []))
        tools = (request.get("toolConfig") or {}).get("tools")
        if caching and tools and "cachePoint" not in tools[-1]:
            tools.append({"cachePoint": {"type": "default"}})
        return request


class CachePointAtMessageEnd(Variant):
    """The last user message's cache point moved to the end of the message, after a document too (strands #1966)."""

    name = "broken-cache-point-at-message-end"
    bug = "the last user message's cache point appended at its end, after a non-PDF document"

    def request(self, turn: dict) -> dict:
        request = build_request(turn)
        content = request["messages"][-1]["content"]
        points = [b for b in content if "cachePoint" in b]
        if points:
            content[:] = [b for b in content if "cachePoint" not in b] + points[-1:]
        return request


class SchemaInModelFields(Variant):
    """The answer's JSON schema sent as an OpenAI response_format in additionalModelRequestFields (Portkey #1547)."""

    name = "broken-schema-in-model-fields"
    bug = "structured output sent as response_format in additionalModelRequestFields, which Bedrock ignores"

    def request(self, turn: dict) -> dict:
        request = build_request(turn)
        config = request.pop("outputConfig", None)
        if config:
            definition = config["textFormat"]["structure"]["jsonSchema"]
            schema = {"name": definition.get("name"), "schema": json.loads(definition["schema"])}
            request.setdefault("additionalModelRequestFields", {})["response_format"] = {
                "type": "json_schema", "json_schema": schema}
        return request


class ToolChoiceWithoutTools(WireVariant):
    """The turn's tool choice sent even on a turn without tools (microsoft/agent-framework #5165, litellm #34276)."""

    name = "broken-tool-choice-without-tools"
    bug = "toolChoice sent in a request that defines no tools"

    def request(self, turn: dict) -> dict:
        self._choice = (turn.get("options") or {}).get("tool_choice")
        return build_request(turn)

    def wire(self, body: dict) -> dict:
        if getattr(self, "_choice", None) in ("auto", "any") and "toolConfig" not in body:
            body["toolConfig"] = {"toolChoice": {self._choice: {}}}
        return body


# ---- 9d. tools streamed to a model that refuses tool use in streaming mode (Writer Palmyra: issue 28, rule 38) ----

class ToolsStreamedToEveryModel(Variant):
    """Every turn goes to converse_stream, tools or not; Writer Palmyra refuses tool use there."""

    name = "broken-tools-streamed-to-every-model"
    bug = "tool use sent on ConverseStream to a model that refuses it there"

    def calls(self, request: dict, endpoint: dict | None, stream_chunks, whole_chunks) -> tuple:
        return self.client(endpoint).converse_stream, request, "stream", stream_chunks


# ---- 9e. a stop-reason mapping that knows four values and raises on the rest (issue 28: pi #1868) ----------------

KNOWN_STOPS = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length",
               "guardrail_intervened": "content_filter"}


class CrashOnUnknownStopReason(Variant):
    """The stop reason is looked up in a table of the values the library knew of; any other raises."""

    name = "broken-crash-on-unknown-stop-reason"
    bug = "an unknown stop reason crashes the stream (Unhandled stop reason)"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        for chunk in chunks_from_events(events):
            if chunk["type"] == "stop" and chunk["reason"] not in KNOWN_STOPS:
                raise ValueError(f"Unhandled stop reason: {chunk['reason']}")
            yield chunk


# ---- 9f. media inside tool results flattened, dropped, or kept where the family rejects it (issue 28) ---------

_MEDIA = ("image", "document")


def _media_parts(turn: dict, change) -> dict:
    """The turn with ``change(part)`` for every image or document part of its tool results (None drops it)."""
    turn = copy.deepcopy(turn)
    for message in turn["messages"]:
        for block in _content(message) if isinstance(message.get("content"), list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                parts = [change(p) if isinstance(p, dict) and p.get("type") in _MEDIA else p for p in block["content"]]
                block["content"] = [p for p in parts if p is not None]
    return turn


class MediaFlattenedToText(Variant):
    """An image or document tool result goes back as one text block holding its base64 (the model never sees it)."""

    name = "broken-media-flattened-to-text"
    bug = "image and document tool results flattened into text (base64 inlined)"

    def request(self, turn: dict) -> dict:
        return build_request(_media_parts(turn, lambda part: {
            "type": "text", "text": f"data:{part['source']['media_type']};base64,{part['source']['data']}"}))


class MediaDroppedFromToolResults(Variant):
    """Only the text and JSON parts of a tool result go back; its images and documents are silently dropped."""

    name = "broken-media-dropped-from-tool-results"
    bug = "image and document tool results dropped"

    def request(self, turn: dict) -> dict:
        return build_request(_media_parts(turn, lambda part: None))


class HistoryPolicyOverridden(Variant):
    """The reference's request with one keyword of its family's history policy (``request.history_policy``) forced."""

    policy: dict = {}

    def request(self, turn: dict) -> dict:
        request = build_request(turn)
        request["messages"] = to_converse_messages(turn["messages"], status_supported(turn["model_id"]),
                                                   **{**history_policy(turn["model_id"]), **self.policy})
        return request


class ImageInToolResultForEveryModel(HistoryPolicyOverridden):
    """Images stay inside toolResult.content whatever the model; OpenAI-family models reject them there (rule 36)."""

    name = "broken-image-in-tool-result-for-every-model"
    bug = "an image kept inside a tool result for a model that rejects it there"
    policy = {"images": True}


class ErrorResultKeepsMedia(HistoryPolicyOverridden):
    """An error tool result keeps its image inside; Claude takes only text in an error result (rule 35)."""

    name = "broken-error-result-keeps-media"
    bug = "an image kept inside an error tool result sent to Claude"
    policy = {"error_text_only": False}


# ---- 9g. unsigned reasoning sent back to every model (issue 28: rule 37, vercel/ai #7034, oh-my-pi #9086) --------

class UnsignedReasoningForEveryModel(Variant):
    """Every reasoning block goes back, signed or not; Claude without thinking and Nova reject unsigned ones."""

    name = "broken-unsigned-reasoning-for-every-model"
    bug = "unsigned reasoning sent back to a model that rejects it"

    def request(self, turn: dict) -> dict:
        return sending_unsigned(turn, thinking_only=False)


# ---- 9h. citations: read under a made-up delta key, or not sent back (issue 28) ------------------------------

class CitationDeltaUnderWrongKey(Variant):
    """The stream reader looks for ``delta.citationsContent`` (what the library's own fixtures send); Bedrock's
    ``delta.citation`` falls through as an unknown delta and every real citation is dropped."""

    name = "broken-citation-delta-under-wrong-key"
    bug = "citation deltas read under a wrong key (citations dropped)"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        def renamed(event: dict) -> dict:
            delta = (event.get("contentBlockDelta") or {}).get("delta") or {}
            if "citation" not in delta:
                return event
            body = {**event["contentBlockDelta"], "delta": {"unknownDelta": delta["citation"]}}
            return {"contentBlockDelta": body}
        return chunks_from_events(renamed(event) for event in events)


class CitationsNotSentBack(Variant):
    """The cited answer goes back as plain text: the citations stay in the application, not in the history."""

    name = "broken-citations-not-sent-back"
    bug = "a cited answer sent back without its citations"

    def request(self, turn: dict) -> dict:
        turn = copy.deepcopy(turn)
        for message in turn["messages"]:
            for block in message["content"] if isinstance(message.get("content"), list) else ():
                if isinstance(block, dict):
                    block.pop("citations", None) if block.get("type") == "text" else None
        return build_request(turn)


# ==== conversation mode: correct chunks, a broken assembly (the issue-10 bug classes) ========================
#
# Each variant below streams exactly the reference's chunks; only what its "library" assembles and sends back
# is wrong. Made with conversation=False (stateless: the harness supplies the history) it passes everything.

class ConversationVariant(Variant):
    """The reference in conversation mode (``own_history``) with one step of its assembly swapped."""

    def __init__(self, conversation: bool = True, **kwargs: Any):
        super().__init__(conversation=conversation, **kwargs)


# ---- 10. signatures concatenated when the message is assembled (strands #3425 on the assembly side) ------

class SignaturesConcatenatedAtAssembly(ConversationVariant):
    """The assembler's signature buffer is never reset between reasoning blocks: block 2 goes back as SIG1SIG2."""

    name = "broken-assembly-concatenated-signatures"
    bug = "signatures concatenated when the message is assembled"

    def assemble(self, chunks: list[dict]) -> dict:
        buffer, kept = "", []
        for chunk in chunks:
            if chunk["type"] == "reasoning" and "signature" in chunk:
                buffer += chunk["signature"]
                chunk = {**chunk, "signature": buffer}
            kept.append(chunk)
        return assemble_message(kept)


# ---- 11. a signature-only reasoning block dropped from the assembled message ------------------------------

class SignatureOnlyBlockDroppedAtAssembly(ConversationVariant):
    """Reasoning blocks with no text are skipped when the message is assembled (their signature goes with them)."""

    name = "broken-assembly-drops-signature-only-block"
    bug = "a signature-only reasoning block dropped from the assembled message"

    def assemble(self, chunks: list[dict]) -> dict:
        message = assemble_message(chunks)
        keep = [b for b in message["content"] if not (b["type"] == "thinking" and not b["thinking"])]
        return {**message, "content": keep}


# ---- 12. tool input kept as the JSON string it was streamed as ---------------------------------------------

class ToolInputStringAtAssembly(ConversationVariant):
    """The assembled tool use keeps its joined argument text, and the history goes out with that string input."""

    name = "broken-assembly-input-as-json-string"
    bug = "tool input kept as a JSON string when the message is assembled"

    def assemble(self, chunks: list[dict]) -> dict:
        message = assemble_message(chunks)
        raw = {c["id"]: "" for c in chunks if c["type"] == "tool_call"}
        for chunk in chunks:
            if chunk["type"] == "tool_call":
                raw[chunk["id"]] += chunk.get("input_delta") or ""
        for block in message["content"]:
            if block["type"] == "tool_use":
                block["input"] = raw[block["id"]]
        return message

    def request(self, turn: dict) -> dict:
        """The library's serializer sends whatever input the message holds (the reference would parse it)."""
        strings = {b["id"]: b["input"] for m in turn["messages"] if isinstance(m.get("content"), list)
                   for b in m["content"] if b.get("type") == "tool_use" and isinstance(b.get("input"), str)}
        request = build_request(turn)
        for message in request["messages"]:
            for block in message["content"]:
                if "toolUse" in block and block["toolUse"]["toolUseId"] in strings:
                    block["toolUse"]["input"] = strings[block["toolUse"]["toolUseId"]]
        return request


# ---- 13. a zero-argument call dropped from the assembled reply ---------------------------------------------

class ZeroArgCallDroppedAtAssembly(ConversationVariant):
    """A call whose joined arguments are empty is skipped when the message is assembled ("malformed JSON")."""

    name = "broken-assembly-drops-zero-arg-call"
    bug = "a zero-argument call dropped from the assembled message"

    def assemble(self, chunks: list[dict]) -> dict:
        with_input = {c["id"] for c in chunks if c["type"] == "tool_call" and c.get("input_delta")}
        return assemble_message([c for c in chunks if c["type"] != "tool_call" or c["id"] in with_input])


# ---- 13b. several reasoning blocks collapsed into one -------------------------------------------------------

class ReasoningCollapsedAtAssembly(ConversationVariant):
    """All reasoning goes back as ONE thinking block: texts joined, the last signature, redacted blocks dropped."""

    name = "broken-assembly-collapses-reasoning"
    bug = "several thinking/redacted blocks collapsed into one when the message is assembled"

    def assemble(self, chunks: list[dict]) -> dict:
        message = assemble_message(chunks)
        thinking = [b for b in message["content"] if b["type"] == "thinking"]
        rest = [b for b in message["content"] if b["type"] not in ("thinking", "redacted_thinking")]
        if not thinking:
            return message
        signatures = [b["signature"] for b in thinking if b.get("signature")]
        merged = {"type": "thinking", "thinking": "".join(b["thinking"] for b in thinking),
                  **({"signature": signatures[-1]} if signatures else {})}
        return {**message, "content": [merged, *rest]}


# ---- 14. an agent loop that stops on end_turn although calls were made -------------------------------------

class AgentLoopStopsOnEndTurn(ConversationVariant):
    """The loop runs tools only when the stop reason is tool_use: after end_turn it returns, tools never run."""

    name = "broken-agent-loop-stops-on-end-turn"
    bug = "an agent loop that stops on end_turn with calls present"

    def stream(self, turn: dict, endpoint: dict | None = None) -> Iterator[dict]:
        results = any(isinstance(b, dict) and b.get("type") == "tool_result" for m in turn.get("messages") or ()
                      for b in (m.get("content") if isinstance(m.get("content"), list) else ()))
        if self.conversation is not None and turn.get("conversation") == getattr(self, "_finished", None) and results:
            return  # the loop ended with the previous turn: the tool results are never sent to the model
        chunks = []
        for chunk in super().stream(turn, endpoint):
            chunks.append(chunk)
            yield chunk
        stops = [c["reason"] for c in chunks if c["type"] == "stop"]
        called = any(c["type"] == "tool_call" for c in chunks)
        self._finished = turn.get("conversation") if stops[-1:] == ["end_turn"] and called else None


# ---- 14b. a signature-only reasoning block sent back without its (empty) text --------------------------------

class SignatureOnlySentWithoutText(Variant):
    """History formatting that writes a reasoning block's text only when there is some: a signature-only block
    goes back as reasoningText {signature} (LibreChat agents#248, langchainjs#11164)."""

    name = "broken-signature-only-sent-without-text"
    bug = "a signature-only reasoning block sent back without text"

    def request(self, turn: dict) -> dict:
        request = build_request(turn)
        for block in _request_blocks(request):
            text = block.get("reasoningContent", {}).get("reasoningText")
            if isinstance(text, dict) and text.get("text") == "":
                del text["text"]
        return request

    def client(self, endpoint: dict | None, max_attempts: int | None = None) -> Any:
        """A client that leaves validation to the service, as the JavaScript SDK does (botocore would refuse the
        request itself: reasoningText.text is a required member)."""
        import boto3
        from botocore.config import Config
        endpoint = endpoint or {}
        return boto3.client("bedrock-runtime", endpoint_url=endpoint.get("endpoint_url"),
                            region_name=endpoint.get("region"), aws_access_key_id=endpoint.get("aws_access_key_id"),
                            aws_secret_access_key=endpoint.get("aws_secret_access_key"),
                            config=Config(parameter_validation=False, retries={"total_max_attempts": max_attempts or 3,
                                                                               "mode": "standard"}))


# ---- 15. what only the library's own objects show (issue 18): parity, garbled fields, split replies, stores -----

class StringArgumentsWhenStreamed(Variant):
    """The message built from the stream keeps each call's arguments as their JSON text; the non-streamed call's
    message holds them as objects (the chunks, the request and the assembled message are all right)."""

    name = "broken-parity-string-arguments-when-streamed"
    bug = "streamed tool arguments held as a string, non-streamed ones as an object"

    def _stream(self, turn: dict, endpoint: dict | None = None) -> Iterator[dict]:
        for chunk in super()._stream(turn, endpoint):
            if chunk["type"] == "native" and chunk["path"] == "stream" and "message" in chunk:
                chunk = copy.deepcopy(chunk)
                for block in chunk["message"]["content"]:
                    if block["type"] == "tool_use":
                        block["input"] = json.dumps(block["input"])
            yield chunk


class GarbledFieldAtAssembly(ConversationVariant):
    """The assembler's accumulator leaks into the message it keeps: each tool use carries ``input_delta``, the
    joined argument text (the request it builds reads only the known fields, so Bedrock never sees it)."""

    name = "broken-assembly-garbled-field"
    bug = "an extra garbled field in the assembled message"

    def assemble(self, chunks: list[dict]) -> dict:
        message = assemble_message(chunks)
        raw: dict[str, str] = {}
        for chunk in chunks:
            if chunk["type"] == "tool_call":
                raw[chunk["id"]] = raw.get(chunk["id"], "") + (chunk.get("input_delta") or "")
        for block in message["content"]:
            if block["type"] == "tool_use":
                block["input_delta"] = raw.get(block["id"], "")
        return message


class _Split(Conversation):
    """A history that keeps the blocks before the first tool use and the rest as two assistant messages."""

    def history(self, turn):
        if self.assistant is not None and turn.get("conversation") == self.id:
            first, rest = _split(self.assistant)
            self.messages.append(first)
            self.assistant = rest
        return super().history(turn)

    def stream(self, turn, send, assemble=assemble_message):
        for chunk in super().stream(turn, send, assemble):
            if chunk["type"] == "message":
                first, rest = _split(chunk["message"])
                yield from ({"type": "message", "message": m} for m in (first, rest) if m["content"])
            else:
                yield chunk


def _split(message: dict) -> tuple[dict, dict]:
    at = next((i for i, b in enumerate(message["content"]) if b["type"] == "tool_use"), len(message["content"]))
    return ({**message, "content": message["content"][:at]}, {**message, "content": message["content"][at:]})


class ReplySplitInTwo(ConversationVariant):
    """One streamed response becomes two assistant messages, the calls in the second (a library that ends a message
    at the first tool use); both go back, one after the other."""

    name = "broken-assembly-reply-split-in-two"
    bug = "a reply split in two assistant messages"

    def __init__(self, conversation: bool = True, **kwargs: Any):
        super().__init__(conversation=conversation, **kwargs)
        if conversation:
            self.conversation = _Split()


class _StoreWithoutSignatures(Conversation):
    """A conversation saved after each response and restored before the next request by a store that keeps a
    reasoning block's text but not its signature (as a session table with no column for it would)."""

    def history(self, turn):
        if self.assistant is not None and turn.get("conversation") == self.id:
            self.messages.append(self.assistant)
            self.assistant = None
            self.messages = _without_signatures(json.loads(json.dumps(self.messages)))
        return super().history(turn)


class StoredHistoryLosesSignatures(ConversationVariant):
    """The history goes through a store before every later turn, and reasoning signatures do not survive it."""

    name = "broken-persisted-history-loses-signatures"
    bug = "a history that loses reasoning signatures when stored and restored"

    def request(self, turn: dict) -> dict:
        return sending_unsigned(turn)

    def __init__(self, conversation: bool = True, **kwargs: Any):
        super().__init__(conversation=conversation, **kwargs)
        if conversation:
            self.conversation = _StoreWithoutSignatures()


# ---- 14c. an agent loop that runs "the calls" of a tool_use stop that has none (strands-env #252) -------------

class _EmptyResultsAfterToolUseStop(Conversation):
    """After a tool_use stop the loop appends the user message of the results of the calls it ran, none or not."""

    stop = None

    def history(self, turn):
        held = self.assistant
        if held is not None and turn.get("conversation") == self.id and self.stop == "tool_use" \
                and not any(b["type"] == "tool_use" for b in held["content"]):
            self.messages += [held, {"role": "user", "content": []}]
            self.assistant = None
        return super().history(turn)

    def stream(self, turn, send, assemble=assemble_message):
        for chunk in super().stream(turn, send, assemble):
            self.stop = chunk["reason"] if chunk["type"] == "stop" else self.stop
            yield chunk


class AgentLoopResendsAfterToolUseStop(ConversationVariant):
    """On stop tool_use the loop runs the message's calls and appends one user message with their results, although
    the message held no call: that user message has empty content, and goes out before the application's next one."""

    name = "broken-agent-loop-empty-results-after-tool-use-stop"
    bug = "a user message with empty content sent after a tool_use stop without a toolUse block"

    def __init__(self, conversation: bool = True, **kwargs: Any):
        super().__init__(conversation=conversation, **kwargs)
        if conversation:
            self.conversation = _EmptyResultsAfterToolUseStop()

    def request(self, turn: dict) -> dict:
        """The library's serializer writes every message it holds, an empty one too (the reference drops it)."""
        request, messages = build_request(turn), turn["messages"]
        for k, message in enumerate(messages):
            if message.get("content") == []:
                request["messages"].insert(len(canonical_messages(messages[:k])), {"role": "user", "content": []})
        return request


# ---- OpenAI format: the native chat-completion chunks beside the stream ------------------------------------

FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls",
          "guardrail_intervened": "content_filter", "content_filtered": "content_filter"}


class OpenAIStream:
    """Harness chunks -> chat.completion.chunk dicts, the way a correct OpenAI-format library streams them."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}  # call id -> tool_calls[].index, dense in order of first appearance
        self.arguments: dict[str, str] = {}

    def tool_index(self, chunk: dict) -> int:
        return self.calls.setdefault(chunk["id"], len(self.calls))

    def choice_index(self, chunk: dict) -> int:
        return 0

    def natives(self, chunk: dict) -> list[dict]:
        """The native chunks standing for one harness chunk (none for what OpenAI's format does not carry)."""
        kind = chunk["type"]
        if kind == "text":
            return [self._choice({"content": chunk["text"]})]
        if kind == "reasoning" and chunk.get("text"):
            return [self._choice({"reasoning_content": chunk["text"]})]
        if kind == "tool_call":
            return [self._choice({"tool_calls": [self._call(chunk)]}, chunk)]
        if kind == "stop":  # a call that streamed no arguments gets its "{}" before the finish
            empty = [self._choice({"tool_calls": [{"index": i, "function": {"arguments": "{}"}}]})
                     for cid, i in self.calls.items() if not self.arguments[cid].strip()]
            reason = "tool_calls" if self.calls else FINISH.get(chunk.get("reason"), "stop")
            return [*empty, self._choice({}, finish=reason)]
        if kind == "usage":
            return [{"object": "chat.completion.chunk", "choices": [], "usage": {
                "prompt_tokens": chunk["input_tokens"], "completion_tokens": chunk["output_tokens"]}}]
        return []

    def _call(self, chunk: dict) -> dict:
        first = chunk["id"] not in self.calls
        call = {"index": self.tool_index(chunk), "function": {"arguments": chunk.get("input_delta") or ""}}
        self.arguments[chunk["id"]] = self.arguments.get(chunk["id"], "") + call["function"]["arguments"]
        if first:
            call.update(id=chunk["id"], type="function")
            call["function"]["name"] = chunk["name"]
        return call

    def _choice(self, delta: dict, chunk: dict | None = None, finish: str | None = None) -> dict:
        index = self.choice_index(chunk) if chunk else 0
        return {"object": "chat.completion.chunk",
                "choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


class OpenAIFormat(ConversationVariant):
    """A correct OpenAI-format adapter: each native chunk as an ``openai_chunk`` before the harness chunk."""

    name = "openai-format"
    stream_class = OpenAIStream

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        native = self.stream_class()
        for chunk in chunks_from_events(events):
            yield from ({"type": "openai_chunk", "chunk": n} for n in native.natives(chunk))
            yield chunk


class _IndexFromContentBlock(OpenAIStream):
    def tool_index(self, chunk: dict) -> int:
        self.calls.setdefault(chunk["id"], chunk["index"])
        return chunk["index"]


class _ChoicePerCall(OpenAIStream):
    def choice_index(self, chunk: dict) -> int:
        return self.calls[chunk["id"]]


# ---- 15. OpenAI tool-call index taken from contentBlockIndex (litellm #11842, #19506) ----------------------

class OpenAIIndexFromContentBlockIndex(OpenAIFormat):
    """``tool_calls[].index`` is Bedrock's contentBlockIndex: a call after text starts at 1, not 0."""

    name = "broken-openai-index-from-content-block"
    bug = "OpenAI tool-call index taken from contentBlockIndex"
    stream_class = _IndexFromContentBlock


# ---- 16. a second choice index ------------------------------------------------------------------------------

class OpenAISecondChoiceIndex(OpenAIFormat):
    """Each parallel call goes out under a choice of its own: the second call's deltas carry ``choices[].index`` 1."""

    name = "broken-openai-second-choice"
    bug = "a parallel tool call streamed under a second choice index"
    stream_class = _ChoicePerCall


# ---- today's surface (issue 28): how a request is served, and blocks the chunks do not carry ----------------

class ServedOptionsDropped(Variant):
    """The library has no service-tier or latency option: the request goes out without serviceTier and
    performanceConfig, served on the default tier by standard inference."""

    name = "broken-served-options-dropped"
    bug = "the service tier and latency the application asked for are not sent"

    def request(self, turn: dict) -> dict:
        request = build_request(turn)
        return {k: v for k, v in request.items() if k not in ("serviceTier", "performanceConfig")}


class InvokedModelDropped(Variant):
    """The model that answered is taken to be the request's model id: a prompt router's invokedModelId is lost."""

    name = "broken-invoked-model-dropped"
    bug = "a prompt router's invoked model id dropped"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        # ``response.model = request.model_id``: metadata.trace is read for guardrails only.
        return ({**chunk, "invoked_model_id": None} if chunk["type"] == "metadata" else chunk
                for chunk in chunks_from_events(events))


class ResponseFieldsDropped(Variant):
    """messageStop is read for its stop reason alone: the additional response fields asked for are lost."""

    name = "broken-response-fields-dropped"
    bug = "additionalModelResponseFields dropped"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        return (chunk for chunk in chunks_from_events(events) if chunk["type"] != "response_fields")


class CleanAfterAsyncGuardrail(Variant):
    """In async guardrail mode the text already delivered is taken as the answer: a guardrail_intervened stop
    after streamed text is read as a late, out-of-band verdict and the turn reported as a clean end_turn."""

    name = "broken-clean-after-async-guardrail"
    bug = "partial text presented as a clean answer after an async guardrail intervened"

    def _stream(self, turn: dict, endpoint: dict | None = None) -> Iterator[dict]:
        guardrail = (turn.get("options") or {}).get("guardrail") or {}
        self._async = guardrail.get("stream_processing_mode") == "async"
        return super()._stream(turn, endpoint)

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        texted = False
        for chunk in chunks_from_events(events):
            texted = texted or chunk["type"] == "text"
            late = self._async and texted and chunk == {"type": "stop", "reason": "guardrail_intervened"}
            yield {"type": "stop", "reason": "end_turn"} if late else chunk


def _image_as_text(event: dict) -> dict:
    """An image delta read as text: its bytes inlined as base64 (the model never 'said' them)."""
    body = event.get("contentBlockDelta") or {}
    image = (body.get("delta") or {}).get("image") or {}
    data = (image.get("source") or {}).get("bytes")
    if data is None:
        return event
    return {"contentBlockDelta": {**body, "delta": {"text": base64.b64encode(bytes(data)).decode("ascii")}}}


class ImageGluedIntoText(Variant):
    """Every delta with content is read as text: an image the model made lands in the answer as base64."""

    name = "broken-image-glued-into-text"
    bug = "an image output block glued into the text"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        return chunks_from_events(_image_as_text(event) for event in events)


def _refuse_unknown(event: dict) -> dict:
    """Raise on a block member this adapter does not know (botocore's SDK_UNKNOWN_MEMBER), as a strict switch does."""
    for name in ("contentBlockStart", "contentBlockDelta"):
        body = event.get(name) or {}
        member = body.get("start" if name == "contentBlockStart" else "delta") or {}
        if "SDK_UNKNOWN_MEMBER" in member:
            raise ValueError(f"unsupported content block {member['SDK_UNKNOWN_MEMBER'].get('name')!r}")
    return event


class CrashOnUnknownBlock(Variant):
    """A block kind newer than the adapter raises: the whole turn is lost for a block it could have skipped."""

    name = "broken-crash-on-unknown-block"
    bug = "crashes on a content block kind it does not know"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        return chunks_from_events(_refuse_unknown(event) for event in events)


def _results_as_text(events: Iterable[dict]) -> Iterator[dict]:
    """A server tool's toolResult block read as text: no start, its text items as text deltas."""
    results = set()
    for event in events:
        start, body = event.get("contentBlockStart") or {}, event.get("contentBlockDelta") or {}
        if "toolResult" in (start.get("start") or {}):
            results.add(start["contentBlockIndex"])
            continue
        items = (body.get("delta") or {}).get("toolResult")
        if body.get("contentBlockIndex") in results and isinstance(items, list):
            text = "".join(item.get("text", "") for item in items)
            yield {"contentBlockDelta": {**body, "delta": {"text": text}}}
            continue
        yield event


class ServerResultTextAsAnswer(Variant):
    """A server tool's streamed result is read as answer text: its text items join the model's answer."""

    name = "broken-server-result-as-answer"
    bug = "a server tool result's text read as the answer"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        return chunks_from_events(_results_as_text(events))


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
    "cut_stream_as_complete": CutStreamAsComplete,
    "generic_error_code": GenericErrorCode,
    "empty_signature_for_unsigned_reasoning": EmptySignatureForUnsignedReasoning,
    "status_for_every_model": StatusForEveryModel,
    "tools_streamed_to_every_model": ToolsStreamedToEveryModel,
    "crash_on_unknown_stop_reason": CrashOnUnknownStopReason,
    "media_flattened_to_text": MediaFlattenedToText,
    "media_dropped_from_tool_results": MediaDroppedFromToolResults,
    "image_in_tool_result_for_every_model": ImageInToolResultForEveryModel,
    "error_result_keeps_media": ErrorResultKeepsMedia,
    "unsigned_reasoning_for_every_model": UnsignedReasoningForEveryModel,
    "citation_delta_under_wrong_key": CitationDeltaUnderWrongKey,
    "citations_not_sent_back": CitationsNotSentBack,
    "assembly_concatenated_signatures": SignaturesConcatenatedAtAssembly,
    "assembly_drops_signature_only_block": SignatureOnlyBlockDroppedAtAssembly,
    "assembly_input_as_json_string": ToolInputStringAtAssembly,
    "assembly_drops_zero_arg_call": ZeroArgCallDroppedAtAssembly,
    "assembly_collapses_reasoning": ReasoningCollapsedAtAssembly,
    "agent_loop_stops_on_end_turn": AgentLoopStopsOnEndTurn,
    "agent_loop_resends_after_tool_use_stop": AgentLoopResendsAfterToolUseStop,
    "signature_only_without_text": SignatureOnlySentWithoutText,
    "parity_string_arguments_when_streamed": StringArgumentsWhenStreamed,
    "assembly_garbled_field": GarbledFieldAtAssembly,
    "assembly_reply_split_in_two": ReplySplitInTwo,
    "persisted_history_loses_signatures": StoredHistoryLosesSignatures,
    "openai_index_from_content_block": OpenAIIndexFromContentBlockIndex,
    "openai_second_choice": OpenAISecondChoiceIndex,
    "cache_point_inside_tool_result": CachePointInsideToolResult,
    "cache_ttl_dropped_on_tools": CacheTtlDroppedOnTools,
    "cache_point_shares_tool_element": CachePointSharesToolElement,
    "tool_cache_point_for_every_family": ToolCachePointForEveryFamily,
    "cache_point_at_message_end": CachePointAtMessageEnd,
    "schema_in_model_fields": SchemaInModelFields,
    "tool_choice_without_tools": ToolChoiceWithoutTools,
    "served_options_dropped": ServedOptionsDropped,
    "invoked_model_dropped": InvokedModelDropped,
    "response_fields_dropped": ResponseFieldsDropped,
    "clean_after_async_guardrail": CleanAfterAsyncGuardrail,
    "image_glued_into_text": ImageGluedIntoText,
    "crash_on_unknown_block": CrashOnUnknownBlock,
    "server_result_as_answer": ServerResultTextAsAnswer,
}
CONVERSATION = frozenset(key for key, cls in VARIANTS.items() if issubclass(cls, ConversationVariant))
OPENAI = frozenset(key for key, cls in VARIANTS.items() if issubclass(cls, OpenAIFormat))
