"""The Haystack shim: ``AmazonBedrockChatGenerator.run(messages, tools=..., streaming_callback=...)`` (sync path),
in conversation mode.

The shim keeps Haystack ``ChatMessage``s the way a Haystack application holds them: the scenario's opening
(``from_system``, ``from_user``), then per turn every reply ``ChatMessage`` the generator assembled from its stream
(``run(...)["replies"]``, with ``ToolCall``s and ``ReasoningContent``, signature in ``extra``), appended as they
are, then ``from_tool`` messages with the reply's ``ToolCall`` they answer and the ``error`` flag; each reply is a
closing ``message`` chunk (several replies for one response are themselves a finding). Tools are ``Tool``s with
the scenario's JSON schema (``haystack_messages``). The generator builds its boto3 client without an endpoint
option, so the endpoint reaches botocore through ``AWS_ENDPOINT_URL_BEDROCK_RUNTIME``, set while the client is
created (in ``__init__`` before 8.0.0, in ``warm_up`` after) and restored after, and the client's endpoint is
checked. What differs between releases (reasoning's two shapes, the client, string-only tool results) is in
``haystack_releases``. Every ``StreamingChunk`` the callback receives maps to harness chunks: text, reasoning
(text, signature) and tool-call deltas keyed by the chunk's content-block ``index``, the finish reason mapped
back to Bedrock's names, and ``meta["usage"]``.

Streaming parity (``non_streaming``): a turn that asks for it also goes through ``run`` without a callback on the
same history, and closes with what each run returned as Haystack serializes it (``{"replies": [to_dict()]}``,
``native`` chunks). ``haystack-persisted`` stores the conversation as JSON (``ChatMessage.to_dict`` /
``from_dict``) and restores it before every later turn.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Callable

from haystack.dataclasses import ChatMessage, StreamingChunk
from haystack.utils.auth import Secret
from haystack_integrations.common.amazon_bedrock.errors import (
    AmazonBedrockInferenceError,
)
from haystack_integrations.components.generators.amazon_bedrock import (
    AmazonBedrockChatGenerator,
)

from harness.adapters.shims.common import Shim, assert_endpoint, boto_endpoint, message_chunk, native_chunk
from harness.adapters.shims.haystack_messages import (
    CACHE_POINTS,
    CITATIONS,
    GUARDRAIL,
    REASONING_IN_EXTRA,
    RESULT_PARTS,
    STRUCTURED_OUTPUT,
    anthropic_content,
    make_tools,
    to_haystack,
    tools_cachepoint,
)
from harness.adapters.shims.haystack_releases import (
    close_generator,
    generation_kwargs,
    guardrail_config,
    meta_reasoning_chunks,
    response_format,
    warmed,
)
from harness.converse.stream import error_chunk
from harness.judge.protocol import NON_STREAMING, OWN_HISTORY

__all__ = ["NATIVE_DIFFERENCES", "STOP_REASONS", "HaystackAdapter", "HaystackPersistedAdapter",
           "chunks_from_streaming_chunk", "make_generator", "stored"]

# Haystack's FINISH_REASON_MAPPING is many-to-one (end_turn and stop_sequence -> stop; guardrail_intervened and
# content_filtered -> content_filter): the inverse can pick only one.
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens",
                "content_filter": "content_filtered"}
# Where Haystack's two results differ by design (declared, not compared), read in its code (haystack-ai 3.4.1).
NATIVE_DIFFERENCES = {
    "replies[*].meta.completion_start_time": "a timestamp only a streamed reply carries: haystack-ai's "
                                             "_convert_streaming_chunks_to_chat_message sets it to the first chunk's "
                                             "received_at; _parse_completion_response has no stream to time",
}


def make_generator(turn: dict, endpoint: dict,
                   callback: Callable[[StreamingChunk], None] | None = None) -> AmazonBedrockChatGenerator:
    """A warmed-up generator whose boto3 client points at ``endpoint``; a streaming one is built with its
    ``callback``, as a streaming application builds it (the generator validates a guardrail's stream mode against
    it at construction).

    The region goes in as a ``Secret``: releases before 6.12.0 take only a Secret there (they call
    ``resolve_value`` on it), later ones a Secret or a string. Structured output goes as ``generation_kwargs
    ["response_format"]`` and a guardrail as ``guardrail_config`` where the release has them.
    """
    options = turn.get("options") or {}
    served = response_format(options) if STRUCTURED_OUTPUT else {}
    guarded = guardrail_config(options, streaming=callback is not None) if GUARDRAIL else {}
    generator = warmed(lambda: AmazonBedrockChatGenerator(
        model=turn["model_id"], aws_access_key_id=Secret.from_token(endpoint["aws_access_key_id"]),
        aws_secret_access_key=Secret.from_token(endpoint["aws_secret_access_key"]), aws_session_token=None,
        aws_region_name=Secret.from_token(endpoint["region"]), aws_profile_name=None,
        generation_kwargs={**generation_kwargs(turn), **served}, streaming_callback=callback,
        **tools_cachepoint(turn), **guarded), endpoint["endpoint_url"])
    assert_endpoint(boto_endpoint(generator.client), endpoint, "AmazonBedrockChatGenerator.client")
    return generator


# ---- StreamingChunk -> harness chunks ----

def _tool_chunk(delta: Any) -> dict:
    chunk = {"type": "tool_call", "index": delta.index, "input_delta": delta.arguments or ""}
    if delta.id:
        chunk["id"] = delta.id
    if delta.tool_name:
        chunk["name"] = delta.tool_name
    return chunk


def _usage_chunk(usage: dict) -> dict:
    return {"type": "usage", "input_tokens": usage.get("prompt_tokens", 0),
            "output_tokens": usage.get("completion_tokens", 0),
            "cache_read_input_tokens": usage.get("cache_read_input_tokens") or 0,
            "cache_write_input_tokens": usage.get("cache_write_input_tokens") or 0}


def chunks_from_streaming_chunk(chunk: StreamingChunk) -> Iterator[dict]:
    """Harness chunks for one StreamingChunk (reasoning in either release's shape)."""
    if chunk.content:
        yield {"type": "text", "index": chunk.index, "text": chunk.content}
    yield from meta_reasoning_chunks(chunk.meta or {})
    if chunk.reasoning is not None and chunk.reasoning.reasoning_text:
        yield {"type": "reasoning", "index": chunk.index, "text": chunk.reasoning.reasoning_text}
    if chunk.reasoning is not None and chunk.reasoning.extra.get("signature"):
        yield {"type": "reasoning", "index": chunk.index, "signature": chunk.reasoning.extra["signature"]}
    yield from (_tool_chunk(delta) for delta in chunk.tool_calls or ())
    if chunk.finish_reason:
        yield {"type": "stop", "reason": STOP_REASONS.get(chunk.finish_reason, chunk.finish_reason)}
    if (chunk.meta or {}).get("usage"):
        yield _usage_chunk(chunk.meta["usage"])


def _inference_error(exc: AmazonBedrockInferenceError) -> dict:
    """Bedrock's code from the botocore ClientError the generator chains (``raise ... from``)."""
    cause = exc.__cause__
    chunk = error_chunk(cause if cause is not None else exc)
    return {**chunk, "message": str(exc)}


class HaystackAdapter(Shim):
    """Haystack's AmazonBedrockChatGenerator (amazon-bedrock-haystack), sync run with a streaming callback."""

    name = "haystack"
    distribution = "amazon-bedrock-haystack"
    extra = "haystack"
    era_companions = ("haystack-ai",)  # matrix/bisect: each release with the haystack-ai of its era
    # Redacted reasoning streams, assembles and goes back only up to 6.5.0 (see REASONING_IN_EXTRA); cache points
    # where the release has Haystack's prompt-caching options (CACHE_POINTS); a guardrail through guardrail_config
    # (GUARDRAIL), structured output through generation_kwargs["response_format"] (STRUCTURED_OUTPUT), citations
    # through a document FileContent's extra["citations"] (CITATIONS), where the release has each.
    capabilities = frozenset({
        "text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature", "usage", "cache_usage",
        "stop_reason", "round_trip", "errors", "streaming", OWN_HISTORY, NON_STREAMING,
    } | ({"redacted_reasoning"} if REASONING_IN_EXTRA else set()) | ({"cache_points"} if CACHE_POINTS else set())
      | ({"tool_result_media"} if RESULT_PARTS else set()) | ({"guardrail"} if GUARDRAIL else set())
      | ({"structured_output"} if STRUCTURED_OUTPUT else set()) | ({"citations"} if CITATIONS else set()))
    native_differences = NATIVE_DIFFERENCES
    # Read in haystack-ai (2.21.0): one filter reason, which the integration maps guardrail_intervened to.
    vocabulary = {"guardrail-as-content-filter": "haystack.dataclasses.streaming_chunk.FinishReason = Literal['stop', "
                                                 "'length', 'tool_calls', 'content_filter', 'tool_call_results']"}

    def stream(self, turn: dict, endpoint: dict) -> Iterator[dict]:
        """Run one turn; the callback's chunks in order, then the run's failure (an error chunk, or re-raised), or
        every reply ``ChatMessage`` (kept for the next turn, each a ``message`` chunk). When the turn asks, the same
        history then goes through ``run`` without a callback, and each run's replies close the turn as a
        ``native`` chunk.

        ``run`` returns only when the stream is over, so the chunks are relayed after it, in the order and
        granularity the callback saw them; a failure still comes after every chunk delivered before it.
        """
        received: list[StreamingChunk] = []
        history = list(self.history.turn(turn, lambda messages, held: to_haystack({**turn, "messages": messages},
                                                                                  held)))
        tools = make_tools(turn) or None
        generator = make_generator(turn, endpoint, received.append)
        try:
            replies, failure = _run(generator, history, tools, received.append)
        finally:
            close_generator(generator)
        whole = _whole(turn, endpoint, history, tools) if turn.get("non_streaming") else None
        for chunk in received:
            yield from chunks_from_streaming_chunk(chunk)
        yield from _outcome(failure)
        if replies:
            self.history.assembled(*replies)  # as a Haystack app (or its Agent) extends its messages with them
            yield from (message_chunk(anthropic_content(reply)) for reply in replies)
        if whole is not None:
            yield native_chunk("stream", lambda: _dumped(replies), failure)
            yield native_chunk("converse", lambda: _dumped(whole[0]), whole[1])


def _whole(turn: dict, endpoint: dict, history: list, tools: list | None) -> tuple[list[ChatMessage], Exception | None]:
    """The same history through a generator built without a callback (a non-streaming application's), ``run``
    without one."""
    generator = make_generator(turn, endpoint)
    try:
        return _run(generator, history, tools)
    finally:
        close_generator(generator)


def _run(generator: AmazonBedrockChatGenerator, history: list, tools: list | None,
         callback: Callable[[StreamingChunk], None] | None = None) -> tuple[list[ChatMessage], Exception | None]:
    """(the replies of one ``run``, or the exception it raised)."""
    try:
        return generator.run(list(history), tools=tools, streaming_callback=callback)["replies"], None
    except Exception as exc:  # noqa: BLE001 - relayed by the caller, after the chunks the callback already got
        return [], exc


def _outcome(failure: Exception | None) -> Iterator[dict]:
    """A Bedrock failure as the closing error chunk; any other exception is the adapter's, re-raised."""
    if isinstance(failure, AmazonBedrockInferenceError):
        yield _inference_error(failure)
    elif failure is not None:
        raise failure


def _dumped(replies: list[ChatMessage]) -> dict:
    """What ``run`` returned, as Haystack serializes it: every reply's ``to_dict()``."""
    return {"replies": [reply.to_dict() for reply in replies]}


def stored() -> tuple[Callable[[list], str], Callable[[str], list]]:
    """(dump, load) of a Haystack conversation as JSON text: each ``ChatMessage`` as its ``to_dict()``, restored
    with ``ChatMessage.from_dict``."""

    def dump(messages: list) -> str:
        return json.dumps([message.to_dict() for message in messages])

    def load(text: str) -> list:
        return [ChatMessage.from_dict(item) for item in json.loads(text)]

    return dump, load


class HaystackPersistedAdapter(HaystackAdapter):
    """``haystack-persisted``: ``haystack``, its messages stored as JSON and restored before every later turn."""

    name = "haystack-persisted"

    def store(self) -> tuple[Callable[[list], str], Callable[[str], list]]:
        return stored()
