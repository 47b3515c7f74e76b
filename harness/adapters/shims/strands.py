"""strands-agents' ``BedrockModel`` as a harness adapter, driven the way a strands ``Agent`` drives it, in
conversation mode.

The shim keeps strands ``Messages`` as an agent holds them (Converse-shaped blocks: ``toolUse``, ``toolResult``
with ``status``, ``reasoningContent`` with the signature): the scenario's opening messages, then per turn the
message strands' stream processing returned (appended as the agent appends it), then the tool results.
strands' ``stream_messages`` (its history cleanup, then ``BedrockModel.stream``, then ``process_stream``) builds
the request and assembles the response. Its typed events map back the way a callback handler sees them (text,
reasoning text / signature / redacted content, tool-use deltas); the final ``ModelStopReason`` gives the
stop reason, usage, and each assembled ``toolUse`` (what the agent executes), which replaces the call's
streamed deltas at the place the call started. A call the assembled message dropped is left out. The closing
``message`` chunk is that message in Anthropic format (harness.adapters.shims.strands_native maps it, unrepaired).

Streaming parity (``non_streaming``): a turn that asks for it then goes through ``stream_messages`` again on the same
history with a twin ``BedrockModel(..., streaming=False)`` (``converse``, whose response strands turns into stream
events for the same ``process_stream``), and closes with both messages as strands' session store serializes them
(``native`` chunks). ``strands-persisted`` stores and restores the history before every later turn as strands'
session managers do (``SessionMessage``).
"""

from __future__ import annotations

import asyncio
import base64
import copy
import inspect
from collections.abc import Iterator
from typing import Any, Callable

from botocore.exceptions import ClientError

from harness.adapters.shims import strands_native as native
from harness.adapters.shims.common import Shim, assert_endpoint, boto_endpoint, message_chunk, native_chunk
from harness.converse.request import output_config, served_options, system_blocks, thinking_budget
from harness.converse.stream import error_chunk, metadata_chunk, response_fields_chunk, usage_chunk
from harness.converse.tools import cache_block
from harness.judge.protocol import AdapterSkip, FEATURES, NON_STREAMING, OWN_HISTORY, SURFACE_FEATURES

__all__ = ["StrandsAdapter", "StrandsPersistedAdapter", "chunks_from_events", "closing", "error", "final_message",
           "has_native_output", "has_service_tier", "output_model", "served", "strict_tools", "system_content",
           "to_strands"]

DISTRIBUTION = "strands-agents"


class StrandsAdapter(Shim):
    """``stream_messages(BedrockModel(...), ...)``: strands' own model-call path of an agent loop."""

    name = "strands"
    distribution = DISTRIBUTION
    extra = "strands"
    # the surface strands' API reaches: cache points (CachePoint content blocks, system_prompt_content, cache_tools),
    # usage's cacheDetails (strands' Usage keeps them), images and documents in a ToolResult's content, citations
    # (CitationStreamEvent, the assembled citationsContent block); how a request is served: the guardrail
    # (guardrail_id, guardrail_version, guardrail_trace, guardrail_stream_processing_mode), response field paths
    # (additional_response_field_paths; messageStop as the raw event strands passes on), the metadata event's trace,
    # tier and latency (the raw metadata event), and where BedrockConfig has ``service_tier`` the tier (the latency
    # through ``additional_args``, strands' field for any other request member); structured output where the release
    # has native output and strict tools (``has_native_output``: an output model through ``structured_output_model``,
    # which BedrockModel sends as outputConfig.textFormat, and BedrockConfig's ``strict_tools``)
    capabilities = (FEATURES - SURFACE_FEATURES) | {"cache_points", "cache_details", "tool_result_media", "citations",
                                                   "guardrail", "response_fields", "response_metadata", "service_tier",
                                                   OWN_HISTORY, NON_STREAMING}
    native_differences = native.DIFFERENCES

    def __init__(self) -> None:
        super().__init__()
        if not has_service_tier():
            self.capabilities = self.capabilities - {"service_tier"}
        if has_native_output():
            self.capabilities = self.capabilities | {"structured_output"}

    def stream(self, turn: dict, endpoint: dict) -> Iterator[dict]:
        """Stream one turn; the library's exception (after what it streamed) becomes the closing error chunk."""
        events: list[dict] = []
        model, whole = self._models(turn, endpoint)
        history = self.history.turn(turn, lambda messages, held: to_strands(messages))
        sent, failed = (copy.deepcopy(history) if turn.get("non_streaming") else None), None
        try:
            asyncio.run(_collect(model, turn, history, events))
        except Exception as exc:  # noqa: BLE001 - whatever the library raises is the verdict's error
            yield from chunks_from_events(events)
            yield error(exc)
            failed = exc
        else:
            yield from chunks_from_events(events)
            message = final_message(events)
            if message is not None:
                self.history.assembled(message)  # as the agent's event loop appends it
                yield message_chunk(native.anthropic_blocks(message["content"]))
        if turn.get("non_streaming"):  # streaming parity: the same history through BedrockModel(streaming=False)
            yield native_chunk("stream", lambda: native.native(final_message(events)), failed)
            yield native_chunk("converse", lambda: native.native(_whole(whole, turn, sent)))

    def _models(self, turn: dict, endpoint: dict) -> tuple[Any, Any]:
        """The last turn's models (streaming and not) when only the messages changed (an agent keeps its model)."""
        key = ({k: v for k, v in turn.items() if k not in ("messages", "conversation", "non_streaming")},
               sorted(endpoint.items()))
        return self.kept(key, lambda: (_bedrock_model(turn, endpoint), _bedrock_model(turn, endpoint, streaming=False)))


class StrandsPersistedAdapter(StrandsAdapter):
    """``strands-persisted``: the history stored and restored before every later turn as strands' session managers
    do it (``SessionMessage.from_message(...).to_dict()`` as JSON, then through a ``FileSessionManager``'s files and
    its restore: ``to_message()`` and ``_fix_broken_tool_use``)."""

    name = "strands-persisted"

    def store(self) -> tuple[Callable[[list], str], Callable[[str], list]]:
        return native.dump, native.load


def _whole(model: Any, turn: dict, history: list[dict]) -> dict:
    """The message strands assembles from the non-streaming call (``BedrockModel(streaming=False)``: ``converse``,
    its response turned into stream events by the model, then the same ``process_stream``)."""
    events: list[dict] = []
    asyncio.run(_collect(model, turn, history, events))
    message = final_message(events)
    if message is None:
        raise ValueError("stream_messages ended without a message")
    return message


def _bedrock_model(turn: dict, endpoint: dict, streaming: bool = True) -> Any:
    import boto3
    from strands.models.bedrock import BedrockModel

    options = turn.get("options") or {}
    budget = thinking_budget(options)
    session = boto3.Session(aws_access_key_id=endpoint["aws_access_key_id"],
                            aws_secret_access_key=endpoint["aws_secret_access_key"], region_name=endpoint["region"])
    config = {"model_id": turn["model_id"], "max_tokens": options.get("max_tokens"),
              "temperature": None if budget else options.get("temperature"),
              "additional_request_fields": {"thinking": {"type": "enabled", "budget_tokens": budget}} if budget else None,
              "cache_tools": _cache_tools(turn.get("tools") or ()), **served(options)}
    if "strict_tools" in BedrockModel.BedrockConfig.__annotations__:  # a release before it has no strict tools
        config["strict_tools"] = strict_tools(turn.get("tools") or ())
    model = BedrockModel(boto_session=session, endpoint_url=endpoint["endpoint_url"],
                         **{k: v for k, v in config.items() if v is not None}, **({} if streaming else {"streaming": False}))
    assert_endpoint(boto_endpoint(model.client), endpoint, "BedrockModel.client")
    return model


def has_service_tier() -> bool:
    """Whether this release's ``BedrockConfig`` has ``service_tier`` (1.19.0 has none: no tier reaches the request)."""
    from strands.models.bedrock import BedrockModel

    return "service_tier" in BedrockModel.BedrockConfig.__annotations__


def has_native_output() -> bool:
    """Whether this release sends an output model as Bedrock's native structured output and marks tools strict: the
    ``structured_output_model`` of ``BedrockModel.stream`` (1.62.0 on: outputConfig.textFormat, ``_native_output_config``)
    and BedrockConfig's ``strict_tools``. Before 1.62.0 an output model is only a tool the Agent forces."""
    from strands.models.bedrock import BedrockModel

    return ("structured_output_model" in inspect.signature(BedrockModel.stream).parameters
            and "strict_tools" in BedrockModel.BedrockConfig.__annotations__)


def strict_tools(tools: Any) -> bool | None:
    """``strict_tools`` for a turn whose tools are all strict (None when none is); strands marks every tool of the
    request strict or none, so a turn with some strict tools is a skip."""
    marked = [bool(tool.get("strict")) for tool in tools]
    if not any(marked):
        return None
    if not all(marked):
        raise AdapterSkip("strands marks every tool strict or none (BedrockModel strict_tools)")
    return True


def output_model(output_format: dict) -> Any:
    """The pydantic model an application hands strands for the answer's JSON schema: named as the format is (strands
    sends the model's ``__name__`` as the schema's name), its JSON schema the format's own (pydantic's
    ``json_schema_extra`` in place of the schema pydantic would derive from fields, with a title on every property),
    so that the request shows what strands does with the application's schema."""
    from pydantic import ConfigDict, create_model

    output_config({"output_format": output_format})  # the one-line error for a malformed output_format
    schema = copy.deepcopy(output_format["schema"])

    def the_formats_schema(generated: dict) -> None:
        generated.clear()
        generated.update(copy.deepcopy(schema))

    return create_model(output_format.get("name") or "response",
                        __config__=ConfigDict(json_schema_extra=the_formats_schema))


def served(options: dict) -> dict:
    """How the turn asks to be served, as ``BedrockConfig`` keys: the guardrail's four, ``service_tier``,
    ``additional_response_field_paths``, and the latency as ``additional_args`` (strands has no performanceConfig
    key; ``additional_args`` is what it merges into the request as given)."""
    wire = served_options(options)
    guardrail = wire.get("guardrailConfig") or {}
    config = {"guardrail_id": guardrail.get("guardrailIdentifier"), "guardrail_version": guardrail.get("guardrailVersion"),
              "guardrail_trace": guardrail.get("trace"),
              "guardrail_stream_processing_mode": guardrail.get("streamProcessingMode"),
              "service_tier": (wire.get("serviceTier") or {}).get("type"),
              "additional_response_field_paths": wire.get("additionalModelResponseFieldPaths"),
              "additional_args": {"performanceConfig": wire["performanceConfig"]} if "performanceConfig" in wire else None}
    return {key: value for key, value in config.items() if value is not None}


async def _collect(model: Any, turn: dict, history: list[dict], events: list[dict]) -> None:
    """Every event ``stream_messages`` yields, appended as it arrives (kept when the stream raises)."""
    from strands.event_loop.streaming import stream_messages

    content = system_content(turn.get("system"))
    system = {"system_prompt": content[0]["text"]} if len(content) == 1 else {
        "system_prompt": None, "system_prompt_content": content or None}
    specs = [{"name": t["name"], "description": t.get("description") or "", "inputSchema": {"json": t["input_schema"]}}
             for t in turn.get("tools") or ()]
    options = turn.get("options") or {}
    choice = _tool_choice(options.get("tool_choice"))
    wanted = {"structured_output_model": output_model(options["output_format"])} if options.get("output_format") else {}
    async for event in stream_messages(model, messages=history, tool_specs=specs,
                                       tool_choice=choice, **system, **wanted):
        events.append(event)


def system_content(system: Any) -> list[dict]:
    """strands ``SystemContentBlock``s: each text, then the ``cachePoint`` its ``cache_control`` asks for."""
    return [b for text, control in system_blocks(system) for b in [{"text": text}] + ([cache_block(control)] if control else [])]


def _cache_tools(tools: Any) -> Any:
    """``cache_tools`` for a turn whose last tool asks for a cache point after it: strands places its one tools point
    after every tool (a ``CacheToolsConfig`` with the TTL where strands has one; before, the point's type alone)."""
    marked = [i for i, tool in enumerate(tools) if tool.get("cache_control")]
    if not marked:
        return None
    if marked != [len(tools) - 1]:
        raise AdapterSkip("strands places its tools cache point after the last tool only (BedrockModel cache_tools)")
    control = tools[-1]["cache_control"]
    try:
        from strands.models.model import CacheToolsConfig
    except ImportError:  # before CacheToolsConfig: cache_tools is the cache point's type alone
        return "default"
    return CacheToolsConfig(type="default", ttl=control.get("ttl"))


def _tool_choice(choice: Any) -> dict | None:
    """strands' ToolChoice: ``{"auto": {}}``, ``{"any": {}}`` or ``{"tool": {"name": ...}}``."""
    if isinstance(choice, dict):
        return {"tool": {"name": choice["name"]}}
    return {choice: {}} if choice else None


def error(exc: BaseException) -> dict:
    """An error chunk; strands re-raises throttling as ModelThrottledException *from* the ClientError."""
    cause = exc.__cause__
    return error_chunk(cause if isinstance(cause, ClientError) and not isinstance(exc, ClientError) else exc)


# ---- turn -> strands Messages ----

def to_strands(messages: list[dict]) -> list[dict]:
    """strands ``Messages`` for Anthropic-format messages; a block's ``cache_control`` is a ``cachePoint`` block after
    it (strands' ``CachePoint``, its TTL kept)."""
    return [{"role": m["role"], "content": [c for b in _blocks(m["content"]) for c in _marked(b)]} for m in messages]


def _marked(block: Any) -> list[dict]:
    control = block.get("cache_control") if isinstance(block, dict) else None
    return [_block(block)] + ([cache_block(control)] if control else [])


def _blocks(content: Any) -> list:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or ())


_FORMATS = {"image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp"}
_DOCUMENTS = {"application/pdf": "pdf", "text/csv": "csv", "text/plain": "txt", "text/markdown": "md",
              "text/html": "html", "application/msword": "doc", "application/vnd.ms-excel": "xls",
              "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
              "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx"}


def _document(block: dict) -> dict:
    """strands' ``DocumentContent``: its source is bytes only, so a plain-text document goes as its UTF-8 bytes."""
    source = block["source"]
    data = source["data"].encode() if source["type"] == "text" else base64.b64decode(source["data"])
    document = {"format": "txt" if source["type"] == "text" else _DOCUMENTS[source["media_type"]],
                "name": block["title"], "source": {"bytes": data}}
    return {"document": {**document, **({"citations": block["citations"]} if "citations" in block else {})}}


def _image(block: dict) -> dict:
    source = block["source"]
    return {"image": {"format": _FORMATS[source["media_type"]], "source": {"bytes": base64.b64decode(source["data"])}}}


def _result_part(part: Any) -> dict:
    if isinstance(part, str):
        return {"text": part}
    if part.get("type") == "text":
        return {"text": part["text"]}
    if part.get("type") == "document":
        return _document(part)
    return _image(part) if part.get("type") == "image" else {"json": part.get("json", part)}


def _result(block: dict) -> dict:
    content = block.get("content")
    parts = [content] if isinstance(content, (str, dict)) and content != "" else list(content or ())
    return {"toolResult": {"toolUseId": block["tool_use_id"], "content": [_result_part(p) for p in parts],
                           "status": "error" if block.get("is_error") else "success"}}


def _block(block: Any) -> dict:
    kind = block.get("type")
    if kind == "text" and block.get("citations"):  # a cited answer goes back as strands holds it: citationsContent
        return {"citationsContent": {"citations": block["citations"], "content": [{"text": block["text"]}]}}
    if kind == "text":
        return {"text": block["text"]}
    if kind == "image":
        return _image(block)
    if kind == "document":
        return _document(block)
    if kind == "tool_use":
        return {"toolUse": {"toolUseId": block["id"], "name": block["name"], "input": block.get("input") or {}}}
    if kind == "tool_result":
        return _result(block)
    if kind == "thinking":
        text = {"text": block.get("thinking", ""), **({"signature": block["signature"]} if block.get("signature") else {})}
        return {"reasoningContent": {"reasoningText": text}}
    if kind == "redacted_thinking":
        return {"reasoningContent": {"redactedContent": base64.b64decode(block["data"])}}
    raise ValueError(f"no strands content block for {kind!r}")


# ---- strands events -> harness chunks ----

def _streamed(event: dict) -> dict | None:
    """A callback-handler event as a chunk (tool deltas carry strands' ``current_tool_use``)."""
    if "data" in event and "delta" in event:
        return {"type": "text", "text": event["data"]}
    cited = event["callback"] if isinstance(event.get("callback"), dict) else event  # 1.19.0 nests it in "callback"
    if "citation" in cited and "delta" in cited:  # CitationStreamEvent: the citation delta as Bedrock sent it
        return {"type": "citation", "citation": cited["citation"]}
    if "reasoningText" in event:
        return {"type": "reasoning", "text": event["reasoningText"]}
    if "reasoning_signature" in event:
        return {"type": "reasoning", "signature": event["reasoning_signature"]}
    if "reasoningRedactedContent" in event:
        return {"type": "redacted_reasoning", "data": base64.b64encode(event["reasoningRedactedContent"]).decode()}
    if event.get("type") == "tool_use_stream":
        call = event["current_tool_use"]
        return {"type": "tool_call", "id": call.get("toolUseId"), "name": call.get("name"),
                "input_delta": event["delta"]["toolUse"].get("input", "")}
    return None


def _usage(usage: dict) -> dict:
    """strands' ``Usage`` holds Bedrock's TokenUsage as streamed, ``cacheDetails`` included."""
    return usage_chunk(usage)


def final_message(events: list[dict]) -> dict | None:
    """The message strands' stream processing returned (its final ``ModelStopReason``), if the stream finished."""
    return next((event["stop"][1] for event in events if "stop" in event), None)


def chunks_from_events(events: list[dict]) -> list[dict]:
    """Chunks in stream order; with a final ModelStopReason, each call is its assembled toolUse."""
    chunks = [chunk for chunk in map(_streamed, events) if chunk]
    final = next((event["stop"] for event in events if "stop" in event), None)
    if final is None:
        return chunks
    stop_reason, message, usage, _metrics = final
    stop, metadata = closing(events)
    return _assembled(chunks, message) + [{"type": "stop", "reason": stop_reason}, *stop, _usage(usage), *metadata]


def closing(events: list[dict]) -> tuple[list[dict], list[dict]]:
    """What strands' typed events do not carry, from the raw stream events it passes on (``ModelStreamChunkEvent``):
    messageStop's additionalModelResponseFields, and the metadata event's invoked model, tier and latency."""
    raw = [event["event"] for event in events if isinstance(event.get("event"), dict)]
    stops = [event["messageStop"] for event in raw if isinstance(event.get("messageStop"), dict)]
    metadata = [event["metadata"] for event in raw if isinstance(event.get("metadata"), dict)]
    return ([chunk for stop in stops[-1:] for chunk in response_fields_chunk(stop)],
            [chunk for body in metadata[-1:] for chunk in filter(None, [metadata_chunk(body)])])


def _assembled(chunks: list[dict], message: dict) -> list[dict]:
    """Streamed tool deltas replaced by the message's toolUse blocks (first delta's place, or the end)."""
    uses = [block["toolUse"] for block in message.get("content") or () if "toolUse" in block]
    whole = {use["toolUseId"]: {"type": "tool_call", "id": use["toolUseId"], "name": use["name"],
                                "input": use["input"]} for use in uses}
    out, placed = [], set()
    for chunk in chunks:
        if chunk["type"] != "tool_call":
            out.append(chunk)
        elif chunk["id"] in whole and chunk["id"] not in placed:
            out.append(whole[chunk["id"]])
            placed.add(chunk["id"])
    return out + [call for cid, call in whole.items() if cid not in placed]
