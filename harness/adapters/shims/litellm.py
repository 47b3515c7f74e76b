"""The LiteLLM shim: ``litellm.completion(model="bedrock/converse/<id>", stream=True)`` over its own httpx client,
in conversation mode.

The shim keeps OpenAI chat messages the way a LiteLLM application holds its history: the scenario's opening
(system, user), then per turn the message ``litellm.stream_chunk_builder`` assembled from the streamed chunks
(``choices[0].message``, appended as it is: ``tool_calls`` with JSON-string arguments, ``thinking_blocks`` with
signatures), then ``role: tool`` results (text, ``image_url`` and ``file`` parts); LiteLLM converts them to
Bedrock. Every native ``ModelResponseStream`` chunk goes to the harness as an ``openai_chunk`` (the OpenAI streaming
laws are judged on them) and maps to harness chunks (``litellm_format``): tool-call deltas keep the OpenAI ``index``
(the id comes only on a call's first delta), finish reasons map back to Bedrock's names, ``prompt_tokens`` include
the cache tokens (``usage_input_includes_cache``). The closing ``message`` chunk is the assembled message as it is.

Streaming parity (``non_streaming``): a turn that asks for it also goes through ``litellm.completion(stream=False)``
on the same history, and closes with the ``model_dump()`` of the message each call built (``native`` chunks).
``litellm-persisted`` sends the history through JSON before every later turn, each message as the plain dict
LiteLLM's ``Message.json()`` gives (``model_dump()``), as an application that stores its conversation does.
LiteLLM's httpx client is the shim's, and it refuses any request to another host than the loopback endpoint.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any, Callable

import httpx

from harness.converse.request import output_config, served_options
from harness.converse.stream import error_chunk as caught

from harness.adapters.shims.common import EndpointRefused, Shim, assert_endpoint, message_chunk, native_chunk
from harness.adapters.shims.litellm_format import (
    STOP_REASONS,
    cached,
    anthropic_message,
    chunks_from_stream_chunk,
    to_openai,
    tool_choice,
)
from harness.adapters.shims.litellm_offline import offline, offline_environment
from harness.judge.protocol import FEATURES, NON_STREAMING, OWN_HISTORY, SURFACE_FEATURES, USAGE_INCLUDES_CACHE

__all__ = ["NATIVE_DIFFERENCES", "REDACTED_NATIVE", "STOP_REASONS", "VOCABULARY", "LiteLLMAdapter",
           "LiteLLMPersistedAdapter", "completion_kwargs", "error_chunk", "guarded_client", "media_in_tool_results",
           "stored"]


# LiteLLM's local-only environment (switches, bundled tokenizers), set around its import and every call.
_OFFLINE = offline_environment()
_offline = functools.partial(offline, _OFFLINE)


with _offline():
    import litellm  # the real library: this module is harness.adapters.shims.litellm (absolute import)
    from litellm.litellm_core_utils.prompt_templates import common_utils as _prompt_utils

litellm.telemetry = False
litellm.suppress_debug_info = True  # else LiteLLM prints help banners to stdout, inside the harness's report
litellm.disable_hf_tokenizer_download = True
litellm.callbacks, litellm.success_callback, litellm.failure_callback = [], [], []

_LITELLM_ERRORS = tuple(litellm.LITELLM_EXCEPTION_TYPES)  # every exception LiteLLM maps a provider error to
# From 1.108.0 LiteLLM holds redacted thinking as Claude's own data string (see litellm_format.redacted_data).
REDACTED_NATIVE = hasattr(_prompt_utils, "native_redacted_thinking_data")
# The library's own types that cannot hold what a declared judgement asks (harness.judge.grade), read in litellm
# (1.80.6, 1.110.2): the OpenAI format's text arguments and its finish reasons, one for any filter.
VOCABULARY = {
    "arguments-as-object": "litellm.types.utils.Function.arguments: str (the OpenAI format)",
    "guardrail-as-content-filter": "the OpenAI finish_reason vocabulary (stop, length, tool_calls, content_filter, "
                                   "function_call), which litellm's map_finish_reason maps each provider's stop reason "
                                   "into",
}
# Where LiteLLM's two results differ by design (each verified in its code at 1.110.2; declared, not compared).
NATIVE_DIFFERENCES = {
    "tool_calls[*].index": "only the non-streamed message numbers its tool calls: the Converse response's "
                           "transformation (converse_transformation._translate_message_content) gives each "
                           "ChatCompletionToolCallChunk index=<its content block's position>; stream_chunk_builder "
                           "builds the streamed message's tool calls without one, as OpenAI's messages have none",
    "provider_specific_fields": "Bedrock's raw fields as each call received them, kept aside and never sent back: "
                                "the streamed message merges every delta's provider_specific_fields key by key "
                                "(stream_chunk_builder, e.g. the last reasoningContent delta), the non-streamed one "
                                "holds the response's reasoningContentBlocks (converse_transformation)",
}


def guarded_client(endpoint: dict) -> Any:
    """LiteLLM's HTTPHandler over an httpx client that refuses (``EndpointRefused``) any other host than the
    endpoint's, before a byte is sent: LiteLLM builds each URL itself, so the check sits on the request."""
    from litellm.llms.custom_httpx.http_handler import HTTPHandler

    def check(request: httpx.Request) -> None:
        assert_endpoint(str(request.url), endpoint, "LiteLLM's request URL")

    return HTTPHandler(client=httpx.Client(event_hooks={"request": [check]}, timeout=60))


def completion_kwargs(turn: dict, endpoint: dict, messages: list | None = None) -> dict:
    """Keyword arguments of ``litellm.completion`` for one turn against ``endpoint`` (``messages``: the history)."""
    options = turn.get("options") or {}
    kwargs: dict = {
        "model": f"bedrock/converse/{turn['model_id']}", "stream": True,
        "messages": to_openai(turn) if messages is None else messages,
        "stream_options": {"include_usage": True}, "max_tokens": options.get("max_tokens"),
        "aws_bedrock_runtime_endpoint": endpoint["endpoint_url"], "aws_region_name": endpoint["region"],
        "aws_access_key_id": endpoint["aws_access_key_id"],
        "aws_secret_access_key": endpoint["aws_secret_access_key"],
    }
    if turn.get("tools"):
        kwargs["tools"] = [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                                             "parameters": t["input_schema"],
                                                             **({"strict": True} if t.get("strict") else {})},
                            **cached(t)} for t in turn["tools"]]  # a tool's cache_control: a cachePoint after it
    # auto is Bedrock's default: left out, as an app writes it (LiteLLM refuses any tool_choice for a model outside
    # its allow-list unless told to drop it)
    if options.get("tool_choice") not in (None, "auto") and turn.get("tools"):
        kwargs["tool_choice"] = tool_choice(options["tool_choice"])
    if options.get("temperature") is not None:
        kwargs["temperature"] = options["temperature"]
    if options.get("thinking_budget"):
        kwargs["thinking"] = {"type": "enabled", "budget_tokens": options["thinking_budget"]}
    return {**kwargs, **served(options), **response_format(options)}


def missing() -> set[str]:
    """The capabilities this release has no API for: the tier where AmazonConverseConfig's config blocks hold no
    serviceTier (1.80.6: guardrailConfig and performanceConfig only), structured output where litellm's Bedrock types
    have no OutputConfigBlock (1.80.6 sends a json tool instead), media in tool results where a tool message's image
    and document do not become the toolResult's own blocks (``media_in_tool_results``)."""
    with _offline():
        from litellm.llms.bedrock.chat.converse_transformation import AmazonConverseConfig
        from litellm.types.llms import bedrock

    return ({"service_tier"} if "serviceTier" not in AmazonConverseConfig.get_config_blocks() else set()) | (
        {"structured_output"} if not hasattr(bedrock, "OutputConfigBlock") else set()) | (
        set() if media_in_tool_results() else {"tool_result_media"})


# A 1x1 PNG and a PDF header: enough for LiteLLM to read each part's media type and keep its bytes.
_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
_PROBE_RESULT = [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": _PNG}},
                 {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                                 "data": "JVBERi0xLjQK"}}]


def media_in_tool_results() -> bool:
    """Whether the release turns a ``role: tool`` message's image and document, in the parts the shim sends them as
    (``image_url`` and ``file``), into the toolResult's own image and document blocks: its Bedrock path converts
    every tool message with factory._convert_to_bedrock_tool_call_result (1.110.2 does; 1.80.6 keeps image_url
    parts only and drops file parts)."""
    with _offline():
        from litellm.litellm_core_utils.prompt_templates import factory

        message = {"role": "tool", "tool_call_id": "probe", "content": to_openai(
            {"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "probe",
                                                        "content": _PROBE_RESULT}]}]})[0]["content"]}
        try:
            blocks = factory._convert_to_bedrock_tool_call_result(message)["toolResult"]["content"]
        except Exception:  # noqa: BLE001 - a release that refuses the parts has no such API
            return False
    return [next(iter(block)) for block in blocks] == ["image", "document"]


def served(options: dict) -> dict:
    """How the turn asks to be served, as LiteLLM's parameters: the OpenAI ``service_tier`` (its Bedrock path maps it to
    serviceTier, _map_service_tier_param), and Bedrock's own ``performanceConfig`` and ``guardrailConfig``, the config
    blocks AmazonConverseConfig.get_config_blocks takes as given."""
    wire = served_options(options)
    params = {"service_tier": (wire.get("serviceTier") or {}).get("type"), "performanceConfig": wire.get("performanceConfig"),
              "guardrailConfig": wire.get("guardrailConfig")}
    return {key: value for key, value in params.items() if value is not None}


def response_format(options: dict) -> dict:
    """``options.output_format`` as the OpenAI ``response_format`` (json_schema with its name, description and schema,
    strict), which LiteLLM sends as Bedrock's outputConfig.textFormat for a model with native structured output."""
    if options.get("output_format") is None:
        return {}
    output_config(options)  # the one-line error for a malformed output_format
    wanted = options["output_format"]
    schema = {"name": wanted.get("name") or "response", "schema": wanted["schema"], "strict": True,
              **({"description": wanted["description"]} if wanted.get("description") else {})}
    return {"response_format": {"type": "json_schema", "json_schema": schema}}


def error_chunk(exc: Exception) -> dict:
    """An error chunk: Bedrock's error type when LiteLLM kept the response's x-amzn-errortype header, else the
    LiteLLM exception's class (in-stream exceptions carry their Bedrock type only inside the message text)."""
    headers = getattr(exc, "litellm_response_headers", None) or {}
    code = (headers.get("x-amzn-errortype") or "").split(":")[0]
    return {**caught(exc), "code": code} if code else caught(exc)


class LiteLLMAdapter(Shim):
    """LiteLLM's Bedrock Converse provider (``bedrock/converse/...``) in streaming mode, history kept by the shim."""

    name = "litellm"
    distribution = "litellm"
    extra = "litellm"
    # Today's surface it reaches: cache points (cache_control on parts, tools and tool messages); structured output
    # (response_format json_schema, strict tools) where the release has Bedrock's OutputConfigBlock; media in tool
    # results (image_url and file parts of a tool message) where the release makes them the result's own blocks. How a
    # request is served: the guardrail and latency (Bedrock's config blocks), the tier where the config blocks hold
    # serviceTier, and the metadata's trace, the stream's model-level provider_specific_fields.
    capabilities = (FEATURES - SURFACE_FEATURES) | {"cache_points", "structured_output", "tool_result_media",
                                                   "guardrail", "service_tier", "response_metadata", OWN_HISTORY,
                                                   USAGE_INCLUDES_CACHE, NON_STREAMING}

    def __init__(self) -> None:
        super().__init__()
        self.capabilities = self.capabilities - missing()
    native_differences = NATIVE_DIFFERENCES
    vocabulary = VOCABULARY

    def stream(self, turn: dict, endpoint: dict) -> Iterator[dict]:
        """Stream one turn through ``litellm.completion``; a LiteLLM exception becomes the closing error chunk. When
        the turn asks, the same history then goes through ``completion(stream=False)``, and each call's message
        closes the turn as a ``native`` chunk."""
        client = self.kept(sorted(endpoint.items()), lambda: guarded_client(endpoint))
        history = list(self.history.turn(turn, lambda messages, held: to_openai({**turn, "messages": messages}, held)))
        message, failure = yield from self._streamed(completion_kwargs(turn, endpoint, history), client, history)
        if message is not None:
            self.history.assembled(message)  # appended as LiteLLM's docs do: messages.append(response_message)
            yield message_chunk(anthropic_message(message, REDACTED_NATIVE))
        if turn.get("non_streaming"):
            yield native_chunk("stream", lambda: message.model_dump() if message is not None else None, failure)
            yield self._whole(completion_kwargs(turn, endpoint, history), client)

    def _streamed(self, kwargs: dict, client: Any, history: list) -> Iterator[dict]:
        """The stream's chunks; returns (the message stream_chunk_builder built or None, the LiteLLM error)."""
        native: list = []
        with _offline():
            try:
                for chunk in litellm.completion(**kwargs, client=client):
                    native.append(chunk)
                    yield {"type": "openai_chunk", "chunk": chunk.model_dump(mode="json", exclude_none=True)}
                    yield from chunks_from_stream_chunk(chunk, REDACTED_NATIVE)
            except _LITELLM_ERRORS as exc:
                _raise_refusal(exc)
                yield error_chunk(exc)
                return None, exc
            built = litellm.stream_chunk_builder(native, messages=history) if native else None
        return (built.choices[0].message if built is not None else None), None

    def _whole(self, kwargs: dict, client: Any) -> dict:
        """The native chunk of ``completion(stream=False)`` on the same request, or of the error it raised."""
        kwargs = {key: value for key, value in kwargs.items() if key != "stream_options"}
        with _offline():
            try:
                response = litellm.completion(**{**kwargs, "stream": False}, client=client)
            except Exception as exc:  # noqa: BLE001 - the call's failure is its outcome, compared with the stream's
                _raise_refusal(exc)
                return native_chunk("converse", lambda: None, exc)
        return native_chunk("converse", lambda: response.choices[0].message.model_dump())


def stored() -> tuple[Callable[[list], str], Callable[[str], list]]:
    """(dump, load) of a LiteLLM history as JSON text: each message a plain dict (a LiteLLM ``Message`` as its
    ``model_dump()``, which its ``json()`` returns; the others are dicts already), restored as those dicts."""

    def dump(messages: list) -> str:
        return json.dumps([m.model_dump() if hasattr(m, "model_dump") else m for m in messages])

    return dump, json.loads


class LiteLLMPersistedAdapter(LiteLLMAdapter):
    """``litellm-persisted``: ``litellm``, its history stored as JSON and restored before every later turn."""

    name = "litellm-persisted"

    def store(self) -> tuple[Callable[[list], str], Callable[[str], list]]:
        return stored()


def _raise_refusal(exc: BaseException) -> None:
    """Re-raise the guard's refusal that LiteLLM wrapped in one of its own errors (an adapter failure, no finding)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, EndpointRefused):
            raise seen
        seen = seen.__cause__ or seen.__context__


