"""pydantic-ai's ``BedrockConverseModel`` as a harness adapter (its ConverseStream path), in conversation mode.

The shim keeps pydantic-ai's message history as an agent run does: the scenario's opening as ``ModelRequest``s
(``SystemPromptPart`` / ``UserPromptPart``; a ``ModelResponse`` when the opening has an assistant message), then
per turn the streamed ``ModelResponse`` the library assembled, then a ``ModelRequest`` of ``ToolReturnPart``s
(``outcome="failed"`` for an error result). Tools become ``ToolDefinition``s, and the request is streamed through
``pydantic_ai.direct.model_request_stream_sync`` (the documented single-request API, which prepares the history
as an agent run does). Part events map back to chunks; the final ``ModelResponse`` gives each tool call's
assembled arguments (when they parse), usage (``input_tokens`` include the cache tokens:
``usage_input_includes_cache``), the stop reason (Bedrock's own, which pydantic-ai keeps in
``provider_details["finish_reason"]``, else its ``finish_reason`` inverted, lossy), the metadata trace it keeps in
``provider_details["trace"]`` (a prompt router's invoked model, as a ``metadata`` chunk) and the closing ``message``
(harness.adapters.shims.pydantic_ai_native maps it, unrepaired).

Streaming parity (``non_streaming``): a turn that asks for it then goes through ``model_request_sync`` (Converse) on
the same history, and closes with both ModelResponses as ``ModelMessagesTypeAdapter`` dumps them (``native``
chunks). ``pydantic-ai-persisted`` stores and restores the history before every later turn with
``ModelMessagesTypeAdapter.dump_json`` / ``validate_json``, as pydantic-ai documents storing messages.
"""

from __future__ import annotations

import base64
import copy
import functools
import inspect
import json
from collections.abc import Iterator
from typing import Any, Callable

from harness.adapters.shims import pydantic_ai_native as native
from harness.adapters.shims.pydantic_ai_history import to_pydantic_ai
from harness.adapters.shims.common import Shim, assert_endpoint, boto_endpoint, message_chunk, native_chunk
from harness.converse.request import converse_twin, output_config, served_options, system_blocks, thinking_budget
from harness.converse.stream import error_chunk, metadata_chunk
from harness.judge.protocol import (FEATURES, NON_STREAMING, OWN_HISTORY, SURFACE_FEATURES, USAGE_INCLUDES_CACHE,
                                    AdapterSkip)

GUARDRAIL = "guardrail"  # bedrock_guardrail_config, in every release the shim runs (1.23 on)
SERVICE_TIER = "service_tier"  # bedrock_service_tier (not in 1.23) beside bedrock_performance_configuration
# native output as outputConfig.textFormat and ToolDefinition.strict as toolSpec.strict: the releases whose
# BedrockModelProfile has bedrock_supports_strict_tool_definition (not 1.23, which sends neither)
STRUCTURED_OUTPUT = "structured_output"
# the ``citations`` model setting (documents sent with citations enabled, each block's citations kept on its TextPart
# with Bedrock's own in provider_details): the releases whose ModelSettings has it (not 1.23)
CITATIONS = "citations"
# cache points: CachePoint(ttl=...) in a user prompt's content, bedrock_cache_instructions after the system prompt and
# bedrock_cache_tool_definitions after the last tool, each with its TTL: the releases with both settings (not 1.23)
CACHE_POINTS = "cache_points"
# the metadata event's trace (a prompt router's invoked model) kept as ModelResponse.provider_details["trace"]: the
# releases that keep it (2.35.1 on, bisected; ``keeps_trace`` asks the library). 2.68.0 keeps neither the event's
# serviceTier nor its performanceConfig, so the chunk carries the invoked model only.
RESPONSE_METADATA = "response_metadata"

__all__ = ["FINISH_REASONS", "PydanticAiAdapter", "PydanticAiPersistedAdapter", "error", "from_event",
           "from_response", "importable", "keeps_trace", "parameters", "parsed_args", "served", "settings", "surface",
           "usage"]

DISTRIBUTION = "pydantic-ai-slim"
# pydantic-ai's finish_reason -> the Bedrock stopReason it most often stands for; lossy: 'stop' also covers
# stop_sequence, 'length' model_context_window_exceeded, 'content_filter' guardrail_intervened, 'error'
# malformed_tool_use.
FINISH_REASONS = {"stop": "end_turn", "tool_call": "tool_use", "length": "max_tokens",
                  "content_filter": "content_filtered", "error": "malformed_model_output"}


class PydanticAiAdapter(Shim):
    """``model_request_stream_sync(BedrockConverseModel(..., provider=BedrockProvider(...)), history, ...)``."""

    name = "pydantic-ai"
    distribution = DISTRIBUTION
    extra = "pydantic-ai"
    capabilities = (FEATURES - SURFACE_FEATURES) | {OWN_HISTORY, USAGE_INCLUDES_CACHE, NON_STREAMING, GUARDRAIL}
    native_differences = native.DIFFERENCES
    vocabulary = native.VOCABULARY

    def __init__(self) -> None:
        super().__init__()
        importable(self.version)
        self.capabilities = self.capabilities | served() | surface()

    def stream(self, turn: dict, endpoint: dict) -> Iterator[dict]:
        """Stream one turn; the library's exception becomes the closing error chunk."""
        from pydantic_ai.direct import model_request_stream_sync

        model = self._model(turn, endpoint)
        history = self.history.turn(turn, lambda messages, held: to_pydantic_ai({**turn, "messages": messages}, held))
        sent, response, failed = (copy.deepcopy(history) if turn.get("non_streaming") else None), None, None
        try:
            ids: dict[int, str] = {}
            with model_request_stream_sync(model, list(history), model_settings=settings(turn, cites=self._cites(turn)),
                                           model_request_parameters=parameters(turn)) as stream:
                for event in stream:
                    yield from from_event(event, ids)
                response = stream.response
            yield from from_response(response)
        except Exception as exc:  # noqa: BLE001 - whatever the library raises is the verdict's error
            yield error(exc)
            failed = exc
        else:
            self.history.assembled(response)  # as an agent run appends it
            yield message_chunk(native.anthropic_parts(response))
        if turn.get("non_streaming"):  # streaming parity: the same history through model_request_sync (Converse)
            yield native_chunk("stream", lambda: native.native(response), failed)
            yield native_chunk("converse", lambda: native.native(_whole(model, turn, sent, self._cites(turn))))

    def _cites(self, turn: dict) -> bool:
        """Whether this conversation sent a document with citations enabled: an application that asks for citations
        keeps the setting for the whole conversation (the document stays in the history)."""
        if _cites(turn):
            self.cited = turn.get("conversation")
        return _cites(turn) or getattr(self, "cited", None) == turn.get("conversation") is not None

    def _model(self, turn: dict, endpoint: dict) -> Any:
        """The last turn's model when the model id and endpoint are the same (an agent keeps its model)."""
        return self.kept((turn["model_id"], sorted(endpoint.items())), lambda: _model(turn["model_id"], endpoint))


class PydanticAiPersistedAdapter(PydanticAiAdapter):
    """``pydantic-ai-persisted``: the history stored and restored before every later turn as pydantic-ai documents it
    ("Storing and loading messages": ``ModelMessagesTypeAdapter.dump_json`` / ``validate_json``)."""

    name = "pydantic-ai-persisted"

    def store(self) -> tuple[Callable[[list], str], Callable[[str], list]]:
        return native.dump, native.load


def _whole(model: Any, turn: dict, history: list, cites: bool) -> Any:
    """The ModelResponse of the non-streamed request on the same history (``pydantic_ai.direct.model_request_sync``)."""
    from pydantic_ai.direct import model_request_sync

    return model_request_sync(model, history, model_settings=settings(turn, converse=True, cites=cites),
                              model_request_parameters=parameters(turn))


def importable(version: str) -> None:
    """Import pydantic_ai now, so that a release which cannot be imported says why once, not on every turn."""
    try:
        import pydantic_ai  # noqa: F401
    except ModuleNotFoundError as exc:
        # Releases up to 1.31 import opentelemetry._events, which opentelemetry-api 1.44 removed; they declare
        # only opentelemetry-api>=1.28, so a fresh install of one of them today cannot be imported.
        if exc.name != "opentelemetry._events":
            raise
        raise ImportError(f"{DISTRIBUTION} {version} imports opentelemetry._events, which opentelemetry-api 1.44 "
                          "removed: install 'opentelemetry-api<1.44' beside it") from None


def served() -> set[str]:
    """The served features this release has the API for: the service tier only where BedrockModelSettings has
    ``bedrock_service_tier`` (releases before it read no tier; 1.23 has none), the response metadata where the
    response keeps the metadata event's trace (``keeps_trace``)."""
    from pydantic_ai.models.bedrock import BedrockModelSettings

    tier = {SERVICE_TIER} if "bedrock_service_tier" in BedrockModelSettings.__annotations__ else set()
    return tier | ({RESPONSE_METADATA} if keeps_trace() else set())


class _Events(list):
    """A ConverseStream response's event stream as pydantic-ai reads it: iterated, then closed."""

    def close(self) -> None:
        pass


@functools.cache
def keeps_trace() -> bool:
    """Whether this release keeps the stream's metadata trace on the response (``provider_details["trace"]``; 2.35.1
    on, before which the metadata event gives usage only). Asked of the library: one ``model_request_stream_sync``
    on a boto3 client whose ConverseStream call botocore's ``before-call`` event answers, before anything is sent,
    with a metadata event carrying a prompt router's trace."""
    import boto3
    from botocore.awsrequest import AWSResponse
    from pydantic_ai.direct import model_request_stream_sync
    from pydantic_ai.messages import ModelRequest
    from pydantic_ai.models.bedrock import BedrockConverseModel
    from pydantic_ai.providers.bedrock import BedrockProvider

    trace = {"promptRouter": {"invokedModelId": "probe"}}
    events = _Events([{"metadata": {"usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
                                    "metrics": {"latencyMs": 1}, "trace": trace}}])
    client = boto3.client("bedrock-runtime", region_name="us-east-1", endpoint_url="http://127.0.0.1:9",
                          aws_access_key_id="probe", aws_secret_access_key="probe")
    client.meta.events.register("before-call.bedrock-runtime.ConverseStream",
                                lambda **_: (AWSResponse("http://127.0.0.1:9", 200, {}, None), {"stream": events}))
    model = BedrockConverseModel("amazon.nova-micro-v1:0", provider=BedrockProvider(bedrock_client=client))
    with model_request_stream_sync(model, [ModelRequest.user_text_prompt("probe")]) as stream:
        for _event in stream:
            pass
        return (stream.response.provider_details or {}).get("trace") == trace


def surface() -> set[str]:
    """Today's surface this release has the API for: structured output where BedrockModelProfile has
    ``bedrock_supports_strict_tool_definition`` (the release that sends ``outputConfig`` for NativeOutput and
    ``strict`` on tools), citations where ModelSettings has ``citations``; 1.23 has neither."""
    from pydantic_ai.providers.bedrock import BedrockModelProfile

    from pydantic_ai.settings import ModelSettings

    fields = getattr(BedrockModelProfile, "__dataclass_fields__", None) or BedrockModelProfile.__annotations__
    from pydantic_ai.models.bedrock import BedrockModelSettings

    cache = {"bedrock_cache_instructions", "bedrock_cache_tool_definitions"} <= set(BedrockModelSettings.__annotations__)
    return ({STRUCTURED_OUTPUT} if "bedrock_supports_strict_tool_definition" in fields else set()) | (
        {CITATIONS} if "citations" in ModelSettings.__annotations__ else set()) | ({CACHE_POINTS} if cache else set())


def _model(model_id: str, endpoint: dict) -> Any:
    from pydantic_ai.models.bedrock import BedrockConverseModel
    from pydantic_ai.providers.bedrock import BedrockProvider

    provider = BedrockProvider(base_url=endpoint["endpoint_url"], region_name=endpoint["region"],
                               aws_access_key_id=endpoint["aws_access_key_id"],
                               aws_secret_access_key=endpoint["aws_secret_access_key"])
    assert_endpoint(boto_endpoint(provider.client), endpoint, "BedrockProvider.client")
    return BedrockConverseModel(model_id, provider=provider)


def settings(turn: dict, converse: bool = False, cites: bool | None = None) -> dict:
    """BedrockModelSettings: max_tokens, temperature, tool_choice, thinking as a request field (exact budget), and the
    guardrail as ``bedrock_guardrail_config`` (sent as guardrailConfig as given; for Converse, ``converse``, without
    streamProcessingMode, which Converse's GuardrailConfiguration does not have); the service tier and latency as
    ``bedrock_service_tier`` and ``bedrock_performance_configuration`` (a release without the tier setting ignores it,
    and its shim does not declare ``service_tier``: ``served``); ``citations`` when the conversation sends a document
    with citations enabled (``cites``, else this turn's messages)."""
    options = turn.get("options") or {}
    served = served_options(options)
    guardrail = (converse_twin(served) if converse else served).get("guardrailConfig")
    budget = thinking_budget(options)
    choice = options.get("tool_choice")
    values = {"max_tokens": options.get("max_tokens"), "temperature": None if budget else options.get("temperature"),
              "tool_choice": [choice["name"]] if isinstance(choice, dict) else {"any": "required"}.get(choice, choice),
              "bedrock_additional_model_requests_fields":
                  {"thinking": {"type": "enabled", "budget_tokens": budget}} if budget else None,
              "bedrock_guardrail_config": guardrail, "bedrock_service_tier": served.get("serviceTier"),
              "bedrock_performance_configuration": served.get("performanceConfig"),
              "citations": True if (_cites(turn) if cites is None else cites) else None,
              "bedrock_cache_instructions": _last_marked([control for _text, control in system_blocks(turn.get("system"))],
                                                         "the system prompt's blocks", "bedrock_cache_instructions"),
              "bedrock_cache_tool_definitions": _last_marked([t.get("cache_control") for t in turn.get("tools") or ()],
                                                             "the tools", "bedrock_cache_tool_definitions")}
    return {key: value for key, value in values.items() if value is not None}


def _last_marked(controls: list, what: str, setting: str) -> Any:
    """The setting's value for a cache point after the last of ``controls`` (its TTL, else True), None without one;
    a skip when another than the last is marked: pydantic-ai places its one point after all of them."""
    if not any(controls):
        return None
    if [bool(c) for c in controls] != [False] * (len(controls) - 1) + [True]:
        raise AdapterSkip(f"pydantic-ai places its cache point after all of {what} only ({setting})")
    return controls[-1].get("ttl") or True


def _cites(turn: dict) -> bool:
    """Whether the turn sends a document with citations enabled (pydantic-ai's ``citations`` setting turns them on for
    every document of the request; a tool result's document counts too)."""
    def documents(content: Any) -> Iterator[dict]:
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "document":
                yield block
            elif isinstance(block, dict) and block.get("type") == "tool_result":
                yield from documents(block.get("content"))
    return any((d.get("citations") or {}).get("enabled") for m in turn.get("messages") or ()
               for d in documents(m.get("content")))


def parameters(turn: dict) -> Any:
    """ModelRequestParameters with one ToolDefinition per tool (``strict`` where the tool is; text output allowed);
    ``options.output_format`` as native output (``output_mode="native"`` with its OutputObjectDefinition: the schema,
    name and description NativeOutput gives a model)."""
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.tools import ToolDefinition

    options = turn.get("options") or {}
    tools = [ToolDefinition(name=t["name"], description=t.get("description"), parameters_json_schema=t["input_schema"],
                            **({"strict": True} if t.get("strict") else {})) for t in turn.get("tools") or ()]
    return ModelRequestParameters(function_tools=tools, allow_text_output=True, **native_output(options))


def native_output(options: dict) -> dict:
    """``output_mode`` and ``output_object`` for the turn's output format (nothing without one)."""
    if options.get("output_format") is None:
        return {}
    from pydantic_ai.output import OutputObjectDefinition

    output_config(options)  # the one-line error for a malformed output_format
    wanted = options["output_format"]
    return {"output_mode": "native", "output_object": OutputObjectDefinition(
        json_schema=wanted["schema"], name=wanted.get("name"), description=wanted.get("description"))}


def error(exc: BaseException) -> dict:
    """An error chunk: pydantic-ai's ``provider_error_code`` is Bedrock's code, when it kept one."""
    code = getattr(exc, "provider_error_code", None)
    return {**error_chunk(exc), "code": code, "message": str(exc)} if code else error_chunk(exc)


# ---- stream events and the final response -> chunks ----

def _args(args: Any) -> str:
    return json.dumps(args) if isinstance(args, dict) else args or ""


def _thinking(part: Any, text: str | None, signature: str | None) -> Iterator[dict]:
    if getattr(part, "id", None) in ("redacted_content", "redacted_thinking") and signature:
        yield {"type": "redacted_reasoning", "data": base64.b64encode(signature.encode("utf-8")).decode("ascii")}
        return
    if text:
        yield {"type": "reasoning", "text": text}
    if signature:
        yield {"type": "reasoning", "signature": signature}


def from_event(event: Any, ids: dict[int, str]) -> Iterator[dict]:
    """Chunks for one PartStartEvent / PartDeltaEvent; ``ids`` maps part index -> tool call id."""
    from pydantic_ai.messages import (
        PartDeltaEvent,
        PartStartEvent,
        TextPart,
        TextPartDelta,
        ThinkingPart,
        ThinkingPartDelta,
        ToolCallPart,
        ToolCallPartDelta,
    )

    item = event.part if isinstance(event, PartStartEvent) else event.delta if isinstance(event, PartDeltaEvent) else None
    if isinstance(item, (TextPart, TextPartDelta)):  # a block's citations, Bedrock's own, as pydantic-ai keeps them
        cited = (item.provider_details or {}).get("citations") if getattr(item, "provider_details", None) else None
        yield from ({"type": "citation", "citation": c} for c in cited or () if isinstance(c, dict))
        text = item.content if isinstance(item, TextPart) else item.content_delta
        yield from ([{"type": "text", "text": text}] if text else ())
    elif isinstance(item, ThinkingPart):
        yield from _thinking(item, item.content, item.signature)
    elif isinstance(item, ThinkingPartDelta):
        yield from _thinking(None, item.content_delta, item.signature_delta)
    elif isinstance(item, ToolCallPart) and type(item) is ToolCallPart:  # not a NativeToolCallPart (server side)
        ids[event.index] = item.tool_call_id
        yield {"type": "tool_call", "id": item.tool_call_id, "name": item.tool_name, "input_delta": _args(item.args)}
    elif isinstance(item, ToolCallPartDelta) and event.index in ids:
        yield {"type": "tool_call", "id": ids[event.index], "input_delta": _args(item.args_delta)}


def from_response(response: Any) -> Iterator[dict]:
    """Each tool call's assembled arguments (when they parse), then the stop reason, usage and the metadata the
    response keeps (the trace's invoked model, in ``provider_details["trace"]``)."""
    from pydantic_ai.messages import ToolCallPart

    for part in response.parts:
        if type(part) is ToolCallPart:
            try:
                args = parsed_args(part)
            except (ValueError, AssertionError):
                continue  # never completed: the streamed deltas stand
            yield {"type": "tool_call", "id": part.tool_call_id, "name": part.tool_name, "input": args}
    raw = (response.provider_details or {}).get("finish_reason")
    reason = raw or FINISH_REASONS.get(response.finish_reason)
    yield from ([{"type": "stop", "reason": reason}] if reason else ())
    yield usage(response.usage)
    trace = (response.provider_details or {}).get("trace")
    yield from filter(None, [metadata_chunk({"trace": trace}) if isinstance(trace, dict) else None])


def usage(request_usage: Any) -> dict:
    """A RequestUsage as a usage chunk; its input_tokens include the cache reads and writes (declared)."""
    read, write = request_usage.cache_read_tokens, request_usage.cache_write_tokens
    return {"type": "usage", "input_tokens": request_usage.input_tokens,
            "output_tokens": request_usage.output_tokens, "cache_read_input_tokens": read,
            "cache_write_input_tokens": write}


def parsed_args(part: Any) -> dict:
    """The call's arguments as a dict; ValueError / AssertionError when its JSON does not parse to an object."""
    # Releases before 1.80 have no raise_if_invalid: their args_as_dict() always raises on malformed arguments.
    # From 1.80 it returns {"INVALID_JSON": raw} instead unless asked to raise.
    if "raise_if_invalid" in inspect.signature(part.args_as_dict).parameters:
        return part.args_as_dict(raise_if_invalid=True)
    return part.args_as_dict()
