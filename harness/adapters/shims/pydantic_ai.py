"""pydantic-ai's ``BedrockConverseModel`` as a harness adapter (its ConverseStream path), in conversation mode.

The shim keeps pydantic-ai's message history as an agent run does: the scenario's opening as ``ModelRequest``s
(``SystemPromptPart`` / ``UserPromptPart``; a ``ModelResponse`` when the opening has an assistant message), then
per turn the streamed ``ModelResponse`` the library assembled, then a ``ModelRequest`` of ``ToolReturnPart``s
(``outcome="failed"`` for an error result). Tools become ``ToolDefinition``s, and the request is streamed through
``pydantic_ai.direct.model_request_stream_sync`` (the documented single-request API, which prepares the history
as an agent run does). Part events map back to chunks; the final ``ModelResponse`` gives each tool call's
assembled arguments (when they parse), usage (``input_tokens`` include the cache tokens:
``usage_input_includes_cache``), the stop reason (Bedrock's own, which pydantic-ai keeps in
``provider_details["finish_reason"]``, else its ``finish_reason`` inverted, lossy) and the closing ``message``.
"""

from __future__ import annotations

import base64
import inspect
import json
from collections.abc import Iterator
from typing import Any

from harness.adapters.shims.common import Shim, assert_endpoint, boto_endpoint, message_chunk
from harness.converse.request import system_texts, thinking_budget
from harness.converse.stream import error_chunk
from harness.suite.protocol import FEATURES, OWN_HISTORY, USAGE_INCLUDES_CACHE

__all__ = ["FINISH_REASONS", "PydanticAiAdapter", "anthropic_parts", "error", "from_event", "from_response",
           "importable", "parameters", "parsed_args", "settings", "to_pydantic_ai", "tool_return_part", "usage"]

DISTRIBUTION = "pydantic-ai-slim"
PROVIDER = "bedrock"  # pydantic-ai's provider name for Bedrock, kept on parts whose signatures go back to it
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
    capabilities = FEATURES | {OWN_HISTORY, USAGE_INCLUDES_CACHE}

    def __init__(self) -> None:
        super().__init__()
        importable(self.version)

    def stream(self, turn: dict, endpoint: dict) -> Iterator[dict]:
        """Stream one turn; the library's exception becomes the closing error chunk."""
        from pydantic_ai.direct import model_request_stream_sync

        model = self._model(turn, endpoint)
        history = self.history.turn(turn, lambda messages, held: to_pydantic_ai({**turn, "messages": messages}, held))
        try:
            ids: dict[int, str] = {}
            with model_request_stream_sync(model, list(history), model_settings=settings(turn),
                                           model_request_parameters=parameters(turn)) as stream:
                for event in stream:
                    yield from from_event(event, ids)
                response = stream.response
            yield from from_response(response)
        except Exception as exc:  # noqa: BLE001 - whatever the library raises is the verdict's error
            yield error(exc)
            return
        self.history.assembled(response)  # as an agent run appends it
        yield message_chunk(anthropic_parts(response))

    def _model(self, turn: dict, endpoint: dict) -> Any:
        """The last turn's model when the model id and endpoint are the same (an agent keeps its model)."""
        return self.kept((turn["model_id"], sorted(endpoint.items())), lambda: _model(turn["model_id"], endpoint))


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


def _model(model_id: str, endpoint: dict) -> Any:
    from pydantic_ai.models.bedrock import BedrockConverseModel
    from pydantic_ai.providers.bedrock import BedrockProvider

    provider = BedrockProvider(base_url=endpoint["endpoint_url"], region_name=endpoint["region"],
                               aws_access_key_id=endpoint["aws_access_key_id"],
                               aws_secret_access_key=endpoint["aws_secret_access_key"])
    assert_endpoint(boto_endpoint(provider.client), endpoint, "BedrockProvider.client")
    return BedrockConverseModel(model_id, provider=provider)


def settings(turn: dict) -> dict:
    """BedrockModelSettings: max_tokens, temperature, tool_choice, and thinking as a request field (exact budget)."""
    options = turn.get("options") or {}
    budget = thinking_budget(options)
    choice = options.get("tool_choice")
    values = {"max_tokens": options.get("max_tokens"), "temperature": None if budget else options.get("temperature"),
              "tool_choice": [choice["name"]] if isinstance(choice, dict) else {"any": "required"}.get(choice, choice),
              "bedrock_additional_model_requests_fields":
                  {"thinking": {"type": "enabled", "budget_tokens": budget}} if budget else None}
    return {key: value for key, value in values.items() if value is not None}


def parameters(turn: dict) -> Any:
    """ModelRequestParameters with one ToolDefinition per tool (text output allowed)."""
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.tools import ToolDefinition

    tools = [ToolDefinition(name=t["name"], description=t.get("description"), parameters_json_schema=t["input_schema"])
             for t in turn.get("tools") or ()]
    return ModelRequestParameters(function_tools=tools, allow_text_output=True)


def error(exc: BaseException) -> dict:
    """An error chunk: pydantic-ai's ``provider_error_code`` is Bedrock's code, when it kept one."""
    code = getattr(exc, "provider_error_code", None)
    return {"type": "error", "code": code, "message": str(exc)} if code else error_chunk(exc)


# ---- turn -> pydantic-ai messages ----

def to_pydantic_ai(turn: dict, held: list = ()) -> list:
    """The messages to append to ``held``: system prompt parts lead the first request (when nothing is held yet),
    one ModelResponse per assistant turn; a tool return names the call it answers (from either)."""
    from pydantic_ai.messages import ModelRequest, SystemPromptPart, ToolCallPart

    names = {p.tool_call_id: p.tool_name for m in held for p in getattr(m, "parts", ()) if isinstance(p, ToolCallPart)}
    names.update({b["id"]: b["name"] for m in turn["messages"] for b in _blocks(m["content"])
                  if b.get("type") == "tool_use"})
    history: list = []
    pending = [] if held else [SystemPromptPart(content=text) for text in system_texts(turn.get("system"))]
    for message in turn["messages"]:
        if message["role"] == "assistant":
            history += [ModelRequest(parts=pending)] if pending else []
            history.append(_response(message, turn["model_id"]))
            pending = []
        else:
            pending += [_request_part(block, names) for block in _blocks(message["content"])]
    return history + ([ModelRequest(parts=pending)] if pending else [])


def _blocks(content: Any) -> list[dict]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or ())


def _binary(block: dict) -> Any:
    from pydantic_ai.messages import BinaryContent

    source = block["source"]
    return BinaryContent(data=base64.b64decode(source["data"]), media_type=source["media_type"])


def _request_part(block: dict, names: dict[str, str]) -> Any:
    from pydantic_ai.messages import UserPromptPart

    if block.get("type") == "tool_result":
        content = block.get("content")
        if isinstance(content, list):
            content = [p if isinstance(p, str) else p["text"] if p.get("type") == "text" else
                       _binary(p) if p.get("type") == "image" else p.get("json", p) for p in content]
        return tool_return_part(names.get(block["tool_use_id"], ""), content, block["tool_use_id"],
                                bool(block.get("is_error")))
    if block.get("type") == "image":
        return UserPromptPart(content=[_binary(block)])
    return UserPromptPart(content=block["text"])


def tool_return_part(name: str, content: Any, call_id: str, failed: bool) -> Any:
    """A tool's result as the agent graph records it: a ToolReturnPart, or for a failed call what this release uses."""
    from pydantic_ai.messages import RetryPromptPart, ToolReturnPart

    if not failed:
        return ToolReturnPart(tool_name=name, content=content, tool_call_id=call_id)
    if _has_field(ToolReturnPart, "outcome"):
        return ToolReturnPart(tool_name=name, content=content, tool_call_id=call_id, outcome="failed")
    # Releases before 1.67 have no ToolReturnPart.outcome: a failed call is the RetryPromptPart a tool's ModelRetry
    # records (sent as a toolResult with status 'error', its text followed by "Fix the errors and try again.").
    text = content if isinstance(content, str) else json.dumps(content, default=str)
    return RetryPromptPart(tool_name=name, content=text, tool_call_id=call_id)


def _has_field(cls: type, name: str) -> bool:
    return name in getattr(cls, "__dataclass_fields__", {})


def _response(message: dict, model_id: str) -> Any:
    from pydantic_ai.messages import ModelResponse

    return ModelResponse(parts=[_response_part(b) for b in _blocks(message["content"])], model_name=model_id,
                         provider_name=PROVIDER)


def _response_part(block: dict) -> Any:
    from pydantic_ai.messages import TextPart, ThinkingPart, ToolCallPart

    kind = block.get("type")
    if kind == "thinking":
        return ThinkingPart(content=block.get("thinking", ""), signature=block.get("signature"), provider_name=PROVIDER)
    if kind == "redacted_thinking":  # pydantic-ai holds the opaque blob as text in `signature`
        return ThinkingPart(content="", id="redacted_content", provider_name=PROVIDER,
                            signature=base64.b64decode(block["data"]).decode("utf-8"))
    if kind == "tool_use":
        return ToolCallPart(tool_name=block["name"], args=block.get("input") or {}, tool_call_id=block["id"])
    return TextPart(content=block["text"])


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
    if isinstance(item, (TextPart, TextPartDelta)):
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
    """Each tool call's assembled arguments (when they parse), then the stop reason and usage."""
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


def usage(request_usage: Any) -> dict:
    """A RequestUsage as a usage chunk; its input_tokens include the cache reads and writes (declared)."""
    read, write = request_usage.cache_read_tokens, request_usage.cache_write_tokens
    return {"type": "usage", "input_tokens": request_usage.input_tokens,
            "output_tokens": request_usage.output_tokens, "cache_read_input_tokens": read,
            "cache_write_input_tokens": write}


# ---- the assembled ModelResponse -> Anthropic format (the closing message chunk) ----

def anthropic_parts(response: Any) -> list[dict]:
    """The response's parts in order as Anthropic blocks; empty text and server-side tool parts are left out."""
    return [block for block in map(_anthropic, response.parts) if block is not None]


def _anthropic(part: Any) -> dict | None:
    from pydantic_ai.messages import TextPart, ThinkingPart, ToolCallPart

    if isinstance(part, TextPart):
        return {"type": "text", "text": part.content} if part.content else None
    if isinstance(part, ThinkingPart) and part.id in ("redacted_content", "redacted_thinking"):
        return {"type": "redacted_thinking", "data": base64.b64encode((part.signature or "").encode()).decode()}
    if isinstance(part, ThinkingPart):
        return {"type": "thinking", "thinking": part.content, **({"signature": part.signature} if part.signature else {})}
    if type(part) is ToolCallPart:
        return {"type": "tool_use", "id": part.tool_call_id, "name": part.tool_name, "input": _input(part)}
    return None  # a server-side (native) tool call or return: it ran inside Bedrock, no client block to report


def _input(part: Any) -> Any:
    """The arguments as pydantic-ai sends them (``args_as_dict``); the raw text when they do not parse."""
    try:
        return parsed_args(part)
    except (ValueError, AssertionError):
        return part.args


def parsed_args(part: Any) -> dict:
    """The call's arguments as a dict; ValueError / AssertionError when its JSON does not parse to an object."""
    # Releases before 1.80 have no raise_if_invalid: their args_as_dict() always raises on malformed arguments.
    # From 1.80 it returns {"INVALID_JSON": raw} instead unless asked to raise.
    if "raise_if_invalid" in inspect.signature(part.args_as_dict).parameters:
        return part.args_as_dict(raise_if_invalid=True)
    return part.args_as_dict()
