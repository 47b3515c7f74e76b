"""langchain-aws's ``ChatBedrockConverse`` as a harness adapter (its ConverseStream path, ``.stream``), in
conversation mode.

The shim keeps the LangChain history an application holds: the scenario's opening messages as
``SystemMessage`` / ``HumanMessage`` (and ``AIMessage`` when the opening has one), then per turn the
``AIMessageChunk``s summed the way LangChain sums them and made an ``AIMessage`` (``message_chunk_to_message``,
what ``invoke`` and every agent do), then one ``ToolMessage`` per result. Tools are bound with ``bind_tools``;
langchain-aws builds the Bedrock request from that history. Each streamed ``AIMessageChunk`` maps back:
content blocks to text / reasoning, ``tool_call_chunks`` to tool-call deltas, ``response_metadata
["stopReason"]`` to the stop, ``usage_metadata`` to usage (the library's own numbers: from 1.4.4 on its
``input_tokens`` count the cache tokens, ``usage_input_includes_cache``, before that they are Bedrock's, which the
shim finds out by asking the library's usage converter). When the stream ends, the summed message's ``tool_calls``
(what an agent executes) give each call's whole input, and the closing ``message`` chunk is that AIMessage
(harness.adapters.shims.langchain_aws_native maps it, unrepaired).

Streaming parity (``non_streaming``): a turn that asks for it then goes through the same bound model's ``invoke``
(langchain-aws's ``_generate``: Converse) on the same history, and closes with both AIMessages as
``message_to_dict`` gives them (``native`` chunks); ``DIFFERENCES`` are the paths the two legitimately differ at.
``langchain-aws-persisted`` stores and restores the history before every later turn as a LangGraph checkpointer does
(its serializer, harness.adapters.shims.langchain_aws_native). ``langchain-aws-events`` drives the same model through
``astream_events`` (v2) and reads its chat-model events as an application does.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Iterator
from typing import Any, Callable

from harness.adapters.shims import langchain_aws_native as native
from harness.adapters.shims.common import (
    Shim,
    assert_endpoint,
    boto_endpoint,
    install_hint,
    message_chunk,
    native_chunk,
    relayed,
)
from harness.converse.request import served_options, system_blocks, thinking_budget
from harness.converse.tools import cache_block
from harness.converse.stream import error_chunk, metadata_chunk
from harness.judge.protocol import FEATURES, NON_STREAMING, OWN_HISTORY, SURFACE_FEATURES, USAGE_INCLUDES_CACHE

__all__ = ["DIFFERENCES", "EVENT_DIFFERENCES", "LangchainAwsAdapter", "LangchainAwsEventsAdapter",
           "LangchainAwsPersistedAdapter", "assembled", "counts_cache_in_input", "from_chunk", "has_service_tier", "served",
           "to_langchain", "usage"]

DISTRIBUTION = "langchain-aws"
CLOSING = ("stop", "response_fields", "usage", "metadata")  # held back until the aggregated message's tool calls are out
# Where the AIMessage from the stream and the one from invoke legitimately differ, from langchain-core's and
# langchain-aws's code (listed in certification/langchain-aws.md).
DIFFERENCES = {
    "data.id": "a run id LangChain generates per call ('lc_run--<uuid>'; invoke's generation adds '-0')",
    "data.response_metadata.ResponseMetadata": "botocore's metadata of each HTTP response (request id, headers: an "
                                               "event stream against a JSON body)",
    "data.response_metadata.metrics.latencyMs": "each call's own latency; invoke wraps it in a list "
                                                "(_extract_response_metadata: 'response_metadata only supports string, "
                                                "list or dict'), the stream passes the metadata event's number on",
    "data.content[*].index": "the merge key streamed blocks carry (_parse_stream_event: 'always keep block inside a "
                             "list to preserve merging compatibility'); invoke's blocks are whole",
    "data.content as lone-text": "invoke holds a lone text block as a string (_parse_response -> "
                                 "_str_if_single_text_block), the stream keeps its list of blocks",
    "data.content[*].input as json-text": "a streamed tool_use block keeps the raw argument text (_tool_input_to_bedrock: 'A "
                             "streamed input is the raw argument text'); the parsed args are tool_calls[*].args on "
                             "both paths, compared, and what langchain-aws sends",
}

# What the end event's message holds besides invoke's AIMessage: astream_events hands on_llm_end's
# generations[0][0].message, which BaseChatModel.astream builds with merge_chat_generation_chunks (an AIMessageChunk).
EVENT_DIFFERENCES = {
    "type": "the end event's output is the merged AIMessageChunk ('AIMessageChunk'); invoke's is an AIMessage ('ai')",
    "data.type": "as type: message_to_dict's data.type of the chunk class",
    "data.tool_call_chunks": "the merged chunk keeps its tool_call_chunks (their args are tool_calls[*].args, compared)",
    "data.chunk_position": "a chunk's position field (None on the merged chunk); an AIMessage has none",
}


class LangchainAwsAdapter(Shim):
    """``ChatBedrockConverse(disable_streaming=False).bind_tools(...).stream(history)``, history kept by the shim."""

    name = DISTRIBUTION
    distribution = DISTRIBUTION
    extra = "langchain-aws"
    era_companions = ("langchain-core",)  # matrix/bisect: each release with the core of its era (harness.adapters.era)
    # Today's surface it reaches: cache points (cachePoint content blocks and tools entries), media in tool results
    # (LangChain's data blocks in a ToolMessage); how a request is served: a guardrail (``guardrails=``) and, from the
    # release with a ``service_tier`` field, the tier and latency (``service_tier=``, ``performance_config=``); response
    # field paths (``additional_model_response_field_paths=``, the messageStop's fields in ``response_metadata``); the
    # metadata event's trace, tier and latency (the usage chunk's ``response_metadata``).
    capabilities = (FEATURES - SURFACE_FEATURES) | {"cache_points", "tool_result_media", "guardrail", "service_tier",
                                                     "response_fields", "response_metadata", OWN_HISTORY,
                                                     USAGE_INCLUDES_CACHE, NON_STREAMING}
    native_differences = DIFFERENCES

    def __init__(self) -> None:
        super().__init__()
        if not counts_cache_in_input():
            self.capabilities = self.capabilities - {USAGE_INCLUDES_CACHE}
        if not has_service_tier():
            self.capabilities = self.capabilities - {"service_tier"}

    def stream(self, turn: dict, endpoint: dict) -> Iterator[dict]:
        """Stream one turn: content as it arrives; at the end the final message's tool_calls, stop, usage and the
        message itself (kept for the next turn). A library exception becomes the closing error chunk."""
        closing: list[dict] = []
        runnable = self._runnable(turn, endpoint)
        history = self.history.turn(turn, lambda messages, held: to_langchain(
            {"messages": messages, "system": None if held else turn.get("system")}))
        sent = copy.deepcopy(history) if turn.get("non_streaming") else None  # what the stream was given, untouched
        final, failed = None, None
        try:
            for kind, value in self.surfaced(runnable, list(history)):
                if kind == "final":
                    final = value
                    continue
                for item in from_chunk(value):
                    if item["type"] in CLOSING:
                        closing.append(item)
                    else:
                        yield item
        except Exception as exc:  # noqa: BLE001 - whatever the library raises is the verdict's error
            yield from closing
            yield error_chunk(exc)
            failed = exc
        else:
            yield from assembled(final)
            yield from closing
            if final is not None:
                self.history.assembled(final)
                yield message_chunk(native.anthropic_message(final))
        if turn.get("non_streaming"):  # streaming parity: the same history through invoke (Converse)
            model = turn["model_id"]
            yield native_chunk("stream", lambda: native.native(_kept(final)), failed,
                               lambda: native.sent(_kept(final), model))
            whole, error = _invoked(runnable, sent)
            yield native_chunk("converse", lambda: native.native(whole), error, lambda: native.sent(whole, model))

    def surfaced(self, runnable: Any, history: list) -> Iterator[tuple[str, Any]]:
        """What the application is handed: ``("chunk", AIMessageChunk)`` per streamed chunk, then ``("final",
        message)``, the message it keeps (None when nothing streamed). ``.stream``: the chunks summed the way
        LangChain sums them, made an AIMessage (``message_chunk_to_message``, what ``invoke`` and every agent do)."""
        summed = None
        for chunk in runnable.stream(history):
            summed = chunk if summed is None else summed + chunk
            yield "chunk", chunk
        yield "final", None if summed is None else _message(summed)

    def _runnable(self, turn: dict, endpoint: dict) -> Any:
        """The last turn's model when nothing but the messages changed (an app keeps its model between turns)."""
        key = ({k: v for k, v in turn.items() if k not in ("messages", "conversation")}, sorted(endpoint.items()))
        return self.kept(key, lambda: _runnable(turn, endpoint))


def _invoked(runnable: Any, history: list) -> tuple[Any, BaseException | None]:
    """(invoke's message, None), or (None, what invoke raised)."""
    try:
        return runnable.invoke(history), None
    except Exception as exc:  # noqa: BLE001 - the non-streamed call's failure is its outcome
        return None, exc


class LangchainAwsPersistedAdapter(LangchainAwsAdapter):
    """``langchain-aws-persisted``: the history stored and restored before every later turn the way a LangGraph
    checkpointer stores its ``messages`` channel (``InMemorySaver().serde.dumps_typed``, then ``loads_typed``)."""

    name = f"{DISTRIBUTION}-persisted"
    era_companions = ("langchain-core", "langgraph")  # its checkpointer's serializer too

    def __init__(self) -> None:
        try:
            import langgraph.checkpoint.memory  # noqa: F401 - the store's serializer
        except ImportError:
            raise ImportError(f"{self.name} stores the history with a LangGraph checkpointer's serializer, and "
                              f"langgraph is not installed: {install_hint(self.extra)}") from None
        super().__init__()

    def store(self) -> tuple[Callable[[list], Any], Callable[[Any], list]]:
        return native.dump, native.load


class LangchainAwsEventsAdapter(LangchainAwsAdapter):
    """``langchain-aws-events``: the same bound model driven through ``astream_events(history, version="v2")``, read
    as an application reads it: each ``on_chat_model_stream`` event's ``data["chunk"]`` is a surfaced chunk, and the
    ``on_chat_model_end`` event's ``data["output"]`` is the final message, kept for the next turn as it comes. Each
    event is relayed as the run yields it (``relayed``: the run on an event loop of its own), what it raises after
    the events before it."""

    name = f"{DISTRIBUTION}-events"
    native_differences = {**DIFFERENCES, **EVENT_DIFFERENCES}

    def surfaced(self, runnable: Any, history: list) -> Iterator[tuple[str, Any]]:
        final = None
        for event in relayed(runnable.astream_events(history, version="v2")):
            if event["event"] == "on_chat_model_stream":
                yield "chunk", event["data"]["chunk"]
            elif event["event"] == "on_chat_model_end":
                final = event["data"]["output"]
        yield "final", final


def counts_cache_in_input() -> bool:
    """Whether this release's ``usage_metadata["input_tokens"]`` include the cache read and write tokens.

    langchain-aws up to 1.4.3 passes Bedrock's ``inputTokens`` on (cache excluded); 1.4.4 and later add the cache
    tokens (bisected on edge/cache-usage). Asked of the library's own converter, ``_extract_usage_metadata``, with
    one cached token; a release without that function is taken to count the way the newest does.
    """
    from langchain_aws.chat_models import bedrock_converse

    convert = getattr(bedrock_converse, "_extract_usage_metadata", None)
    if convert is None:
        return True
    probe = {"usage": {"inputTokens": 1, "outputTokens": 0, "totalTokens": 2, "cacheReadInputTokens": 1,
                       "cacheWriteInputTokens": 0}}
    return convert(probe)["input_tokens"] > 1


def has_service_tier() -> bool:
    """Whether this release's ChatBedrockConverse has a ``service_tier`` field (1.1.0 has ``performance_config``
    only, so the tier cannot be asked for)."""
    from langchain_aws import ChatBedrockConverse

    return "service_tier" in (getattr(ChatBedrockConverse, "model_fields", None) or {})  # a class without fields: none


def served(options: dict) -> dict:
    """How the turn asks to be served, as ChatBedrockConverse's fields an application sets: ``guardrails`` (Bedrock's
    guardrailConfig keys, which every release sends as given), ``service_tier``, ``performance_config`` and
    ``additional_model_response_field_paths``."""
    wire = served_options(options)
    fields = {"guardrails": wire.get("guardrailConfig"), "performance_config": wire.get("performanceConfig"),
              "additional_model_response_field_paths": wire.get("additionalModelResponseFieldPaths")}
    if "serviceTier" in wire:
        fields["service_tier"] = wire["serviceTier"]["type"]
    return {key: value for key, value in fields.items() if value is not None}


def _message(summed: Any) -> Any:
    """The summed chunks as the AIMessage LangChain itself makes of them (``invoke`` / ``generate_from_stream``)."""
    from langchain_core.messages import message_chunk_to_message

    return message_chunk_to_message(summed)


def _kept(final: Any) -> Any:
    """The final message, or the error a stream without one is reported as on its parity path."""
    if final is None:
        raise ValueError("the stream ended without a message chunk")
    return final


def _runnable(turn: dict, endpoint: dict) -> Any:
    """The chat model pointed at the endpoint, with the turn's tools bound."""
    from langchain_aws import ChatBedrockConverse

    options = turn.get("options") or {}
    budget = thinking_budget(options)
    model = ChatBedrockConverse(
        model=turn["model_id"], region_name=endpoint["region"], endpoint_url=endpoint["endpoint_url"],
        aws_access_key_id=endpoint["aws_access_key_id"], aws_secret_access_key=endpoint["aws_secret_access_key"],
        max_tokens=options.get("max_tokens"), temperature=None if budget else options.get("temperature"),
        additional_model_request_fields={"thinking": {"type": "enabled", "budget_tokens": budget}} if budget else None,
        disable_streaming=False, **_provider(turn["model_id"]), **served(options))
    assert_endpoint(boto_endpoint(model.client), endpoint, "ChatBedrockConverse.client")
    if getattr(model, "bedrock_client", None) is not None:  # the control plane (inference profiles), when built
        assert_endpoint(boto_endpoint(model.bedrock_client), endpoint, "ChatBedrockConverse.bedrock_client")
    if not turn.get("tools"):
        return model
    return model.bind_tools(_cached(turn["tools"]), tool_choice=_tool_choice(options.get("tool_choice")))


GEO_PREFIXES = ("us", "eu", "apac", "global", "jp", "au", "ca", "us-gov")


def _provider(model_id: str) -> dict:
    """``provider=`` for a model ARN, which ChatBedrockConverse refuses without one ("Model provider should be
    supplied when passing a model ARN as model_id"; its docs: provide it "for model IDs that do not have the provider
    in them"), as the application that knows the family it calls passes it: the first part of the ARN's resource
    name past a geography prefix (``default-prompt-router/anthropic.claude:1``: anthropic). Nothing for a model id,
    whose provider the library reads itself."""
    if not model_id.startswith("arn:"):
        return {}
    parts = model_id.rsplit("/", 1)[-1].split(".")
    return {"provider": parts[1] if len(parts) > 2 and parts[0] in GEO_PREFIXES else parts[0]}


def _tool_choice(choice: Any) -> str | None:
    """``any`` as it is, ``{"name": X}`` as LangChain's tool-name string; ``auto``, Bedrock's default, as an app
    writes it: not at all (langchain-aws refuses any tool_choice for a model outside its allow-list)."""
    return choice.get("name") if isinstance(choice, dict) else None if choice == "auto" else choice


# ---- turn -> LangChain messages ----

def to_langchain(turn: dict) -> list:
    """The LangChain history for a turn: system prompt, then each Anthropic-format message."""
    from langchain_core.messages import SystemMessage

    history: list = [SystemMessage(content=[text, cache_block(control)] if control else text)
                     for text, control in system_blocks(turn.get("system"))]
    for message in turn.get("messages") or ():
        history.extend(_assistant(message) if message["role"] == "assistant" else _user(message))
    return history


def _blocks(content: Any) -> list[dict]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or ())


def _cached(blocks: list[dict]) -> list[dict]:
    """Each block that carries ``cache_control`` followed by the ``cachePoint`` block it asks for, the way
    langchain-aws takes one: a content block already in Bedrock's form (no "type"), which _lc_content_to_bedrock
    passes through (and _messages_to_bedrock puts beside a ToolMessage's toolResult)."""
    out = []
    for block in blocks:
        control = block.get("cache_control") if isinstance(block, dict) else None
        out += [{k: v for k, v in block.items() if k != "cache_control"}, cache_block(control)] if control else [block]
    return out


def _user(message: dict) -> list:
    """One ToolMessage per tool_result (in order), then a HumanMessage with the rest."""
    from langchain_core.messages import HumanMessage, ToolMessage

    blocks = _blocks(message["content"])
    results = [ToolMessage(content=_result_content(b.get("content"), b.get("cache_control")),
                           tool_call_id=b["tool_use_id"], status="error" if b.get("is_error") else "success")
               for b in blocks if b.get("type") == "tool_result"]
    rest = [b for b in blocks if b.get("type") != "tool_result"]
    return results + ([HumanMessage(content=_cached([_media(b) for b in rest]))] if rest else [])


def _media(block: dict) -> dict:
    """An Anthropic image or document block of base64 data as LangChain's standard data block (``{"type": "image" |
    "file", "base64", "mime_type"}``, a file's ``name``), which langchain-aws formats as Bedrock's image or document
    (_format_data_content_block); any other block as it is."""
    source = block.get("source") if block.get("type") in ("image", "document") else None
    if not isinstance(source, dict) or source.get("type") != "base64":
        return block
    data = {"base64": source["data"], "mime_type": source["media_type"],
            **{k: v for k, v in block.items() if k == "cache_control"}}
    if block["type"] == "image":
        return {"type": "image", **data}
    return {"type": "file", **data, **({"name": block["title"]} if block.get("title") else {})}


def _result_content(content: Any, control: dict | None = None) -> str | list:
    """A tool result as ToolMessage content: a string stays one, an object is a JSON block; a result asking for a
    cache point gets the cachePoint block last, which langchain-aws sends beside the toolResult."""
    if control:
        parts = _result_content(content)
        return [*([{"type": "text", "text": parts}] if isinstance(parts, str) else parts), cache_block(control)]
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, dict):
        return [{"type": "json", "json": content}]
    return [{"type": "text", "text": p} if isinstance(p, str) else _media(p) for p in content]


def _assistant(message: dict) -> list:
    """An AIMessage as LangChain's own stream aggregates it: reasoning/text/tool_use blocks plus tool_calls."""
    from langchain_core.messages import AIMessage

    blocks = _blocks(message["content"])
    calls = [{"id": b["id"], "name": b["name"], "args": b.get("input") or {}, "type": "tool_call"}
             for b in blocks if b.get("type") == "tool_use"]
    return [AIMessage(content=[_ai_block(b) for b in blocks], tool_calls=calls)]


def _ai_block(block: dict) -> dict:
    kind = block.get("type")
    if kind == "thinking":
        reasoning = {"text": block.get("thinking", ""), "signature": block.get("signature") or ""}
        return {"type": "reasoning_content", "reasoning_content": reasoning}
    if kind == "redacted_thinking":
        return {"type": "reasoning_content",
                "reasoning_content": {"redacted_content": base64.b64decode(block["data"])}}
    return dict(block)


# ---- AIMessageChunk -> harness chunks ----

def from_chunk(message: Any) -> Iterator[dict]:
    """The harness chunks of one streamed AIMessageChunk."""
    for block in message.content if isinstance(message.content, list) else ():
        yield from _content(block)
    for call in message.tool_call_chunks:
        chunk = {"type": "tool_call", "index": call.get("index"), "input_delta": call.get("args") or ""}
        yield {**chunk, **{k: call[k] for k in ("id", "name") if call.get(k) is not None}}
    if message.response_metadata.get("stopReason"):
        yield {"type": "stop", "reason": message.response_metadata["stopReason"]}
    if message.response_metadata.get("additionalModelResponseFields"):  # the messageStop event, as langchain-aws keeps it
        yield {"type": "response_fields", "fields": message.response_metadata["additionalModelResponseFields"]}
    if message.usage_metadata:
        yield usage(message.usage_metadata)
        # the metadata event, which langchain-aws keeps whole as the usage chunk's response_metadata
        served = metadata_chunk(message.response_metadata)
        if served:
            yield served


def assembled(message: Any) -> Iterator[dict]:
    """The aggregated AIMessageChunk's ``tool_calls`` (what an agent executes), each with its whole input.

    A call without an id cannot be matched to its streamed deltas and is left to them.
    """
    for call in message.tool_calls if message is not None else ():
        if call.get("id"):
            yield {"type": "tool_call", "id": call["id"], "name": call["name"], "input": call["args"]}


def _content(block: Any) -> Iterator[dict]:
    """Text and reasoning blocks (tool_use blocks are read from ``tool_call_chunks``)."""
    if isinstance(block, str):
        block = {"type": "text", "text": block}
    index = block.get("index")
    if block.get("type") == "text" and block.get("text"):
        yield {"type": "text", "index": index, "text": block["text"]}
    reasoning = block.get("reasoning_content") if block.get("type") == "reasoning_content" else None
    if reasoning and reasoning.get("text"):
        yield {"type": "reasoning", "index": index, "text": reasoning["text"]}
    if reasoning and reasoning.get("signature"):
        yield {"type": "reasoning", "index": index, "signature": reasoning["signature"]}
    if reasoning and reasoning.get("redacted_content"):
        data = base64.b64encode(bytes(reasoning["redacted_content"])).decode("ascii")
        yield {"type": "redacted_reasoning", "index": index, "data": data}


def usage(metadata: dict) -> dict:
    """LangChain's UsageMetadata as a usage chunk, the library's numbers as they are (``counts_cache_in_input``
    says which convention its input_tokens follow)."""
    details = metadata.get("input_token_details") or {}
    read = details.get("cache_read") or 0
    write = (details.get("cache_creation") or 0) + sum(
        details.get(k) or 0 for k in ("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"))
    return {"type": "usage", "input_tokens": metadata.get("input_tokens", 0),
            "output_tokens": metadata.get("output_tokens", 0), "cache_read_input_tokens": read,
            "cache_write_input_tokens": write}
