"""The LiteLLM shim: ``litellm.completion(model="bedrock/converse/<id>", stream=True)`` over its own httpx client,
in conversation mode.

The shim keeps OpenAI chat messages the way a LiteLLM application holds its history: the scenario's opening
(system, user), then per turn the message ``litellm.stream_chunk_builder`` assembled from the streamed chunks
(``choices[0].message``, appended as it is: ``tool_calls`` with JSON-string arguments, ``thinking_blocks`` with
signatures), then ``role: tool`` results; LiteLLM converts them to Bedrock. Every native ``ModelResponseStream``
chunk goes to the harness as an ``openai_chunk`` (the OpenAI streaming laws are judged on them) and maps to harness
chunks: tool-call deltas keep the OpenAI ``index`` (the id comes only on a call's first delta), finish reasons
map back to Bedrock's names, ``prompt_tokens`` include the cache tokens (``usage_input_includes_cache``). The
closing ``message`` chunk is the assembled message. LiteLLM's httpx client is the shim's, and it refuses any
request to another host than the loopback endpoint.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Iterator
from typing import Any

import httpx

from harness.adapters.shims.common import EndpointRefused, Shim, assert_endpoint, message_chunk
from harness.adapters.shims.litellm_offline import offline, offline_environment
from harness.suite.protocol import FEATURES, OWN_HISTORY, USAGE_INCLUDES_CACHE

__all__ = [
    "STOP_REASONS", "LiteLLMAdapter", "anthropic_message", "chunks_from_stream_chunk", "completion_kwargs",
    "error_chunk", "guarded_client", "to_openai",
]


# LiteLLM's local-only environment (switches, bundled tokenizers), set around its import and every call.
_OFFLINE = offline_environment()
_offline = functools.partial(offline, _OFFLINE)


with _offline():
    import litellm  # the real library: this module is harness.adapters.shims.litellm (absolute import)

litellm.telemetry = False
litellm.suppress_debug_info = True  # else LiteLLM prints help banners to stdout, inside the harness's report
litellm.disable_hf_tokenizer_download = True
litellm.callbacks, litellm.success_callback, litellm.failure_callback = [], [], []

_LITELLM_ERRORS = tuple(litellm.LITELLM_EXCEPTION_TYPES)  # every exception LiteLLM maps a provider error to
# OpenAI finish reasons back to Bedrock's stopReason. LiteLLM's map is many-to-one (end_turn and stop_sequence
# -> stop; guardrail_intervened and content_filtered -> content_filter): the inverse can pick only one.
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens",
                "content_filter": "content_filtered", "function_call": "tool_use"}


# ---- turn -> OpenAI chat format (what litellm.completion takes) ----

def _image_url(block: dict) -> dict:
    source = block.get("source") or {}
    url = f"data:{source.get('media_type')};base64,{source.get('data')}"
    return {"type": "image_url", "image_url": {"url": url}}


def _part(block: dict) -> dict:
    """A user content part: text or image; a JSON result part as its JSON text (OpenAI's tool messages carry text)."""
    if "json" in block and "type" not in block:
        return {"type": "text", "text": json.dumps(block["json"])}
    return _image_url(block) if block.get("type") == "image" else {"type": "text", "text": block.get("text", "")}


def _tool_content(content: Any) -> Any:
    """A tool message's content: a string, a list of OpenAI parts, or an object as its JSON text."""
    if isinstance(content, list):
        return [_part(block) for block in content]
    return content if isinstance(content, str) else json.dumps(content)


def _user(content: Any) -> list[dict]:
    """Tool results become ``role: tool`` messages (OpenAI has no is_error flag); the rest one user message."""
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    tools = [{"role": "tool", "tool_call_id": block["tool_use_id"], "content": _tool_content(block.get("content", ""))}
             for block in content if block.get("type") == "tool_result"]
    parts = [_part(block) for block in content if block.get("type") != "tool_result"]
    return tools + ([{"role": "user", "content": parts}] if parts else [])


def _thinking(block: dict) -> dict:
    if block["type"] == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block["data"]}
    return {"type": "thinking", "thinking": block.get("thinking", ""),
            **({"signature": block["signature"]} if "signature" in block else {})}


def _tool_call(block: dict) -> dict:
    arguments = json.dumps(block.get("input") or {})
    return {"id": block["id"], "type": "function", "function": {"name": block["name"], "arguments": arguments}}


def _blocks(content: list, *kinds: str) -> list[dict]:
    return [block for block in content if block.get("type") in kinds]


def _assistant(content: Any) -> dict:
    """One assistant message: text as its content, thinking_blocks / reasoning_content, tool_calls."""
    if isinstance(content, str):
        return {"role": "assistant", "content": content}
    by_type = functools.partial(_blocks, content)
    message: dict = {"role": "assistant", "content": "".join(b["text"] for b in by_type("text")) or None}
    thinking = [_thinking(block) for block in by_type("thinking", "redacted_thinking")]
    if thinking:
        message["thinking_blocks"] = thinking
        message["reasoning_content"] = "".join(b.get("thinking", "") for b in by_type("thinking"))
    if by_type("tool_use"):
        message["tool_calls"] = [_tool_call(block) for block in by_type("tool_use")]
    return message


def to_openai(turn: dict, held: list = ()) -> list[dict]:
    """The turn's messages as OpenAI chat messages, led by the system prompt when nothing is ``held`` yet."""
    messages = [{"role": "system", "content": turn["system"]}] if turn.get("system") and not held else []
    for message in turn["messages"]:
        if message["role"] == "assistant":
            messages.append(_assistant(message["content"]))
        else:
            messages.extend(_user(message["content"]))
    return messages


def _tool_choice(choice: Any) -> Any:
    if isinstance(choice, dict):
        return {"type": "function", "function": {"name": choice["name"]}}
    return {"any": "required"}.get(choice, choice)


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
                                                             "parameters": t["input_schema"]}} for t in turn["tools"]]
    # auto is Bedrock's default: left out, as an app writes it (LiteLLM refuses any tool_choice for a model outside
    # its allow-list unless told to drop it)
    if options.get("tool_choice") not in (None, "auto") and turn.get("tools"):
        kwargs["tool_choice"] = _tool_choice(options["tool_choice"])
    if options.get("temperature") is not None:
        kwargs["temperature"] = options["temperature"]
    if options.get("thinking_budget"):
        kwargs["thinking"] = {"type": "enabled", "budget_tokens": options["thinking_budget"]}
    return kwargs


# ---- ModelResponseStream -> harness chunks ----

def _get(obj: Any, key: str) -> Any:
    """A field of a LiteLLM pydantic object or TypedDict alike."""
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def _reasoning_chunks(delta: Any) -> Iterator[dict]:
    """thinking_blocks carry text, signature and redacted data; reasoning_content alone only text."""
    blocks = _get(delta, "thinking_blocks")
    if not blocks:
        text = _get(delta, "reasoning_content")
        yield from ([{"type": "reasoning", "text": text}] if text else ())
        return
    for block in blocks:
        if _get(block, "type") == "redacted_thinking":
            data = _get(block, "data")
            yield {"type": "redacted_reasoning",
                   "data": base64.b64encode(data).decode("ascii") if isinstance(data, bytes) else data}
            continue
        if _get(block, "thinking"):
            yield {"type": "reasoning", "text": _get(block, "thinking")}
        if _get(block, "signature"):
            yield {"type": "reasoning", "signature": _get(block, "signature")}


def _tool_chunk(call: Any) -> dict:
    """One tool-call delta: the index always, the id and name when this delta carries them."""
    function = _get(call, "function")
    chunk = {"type": "tool_call", "index": _get(call, "index"), "input_delta": _get(function, "arguments") or ""}
    for key, value in (("id", _get(call, "id")), ("name", _get(function, "name"))):
        if value:
            chunk[key] = value
    return chunk


def _usage_chunk(usage: Any) -> dict:
    """LiteLLM's prompt_tokens include both cache counts (OpenAI's convention, declared); Bedrock's do not."""
    read, write = _get(usage, "cache_read_input_tokens") or 0, _get(usage, "cache_creation_input_tokens") or 0
    return {"type": "usage", "input_tokens": _get(usage, "prompt_tokens") or 0,
            "output_tokens": _get(usage, "completion_tokens") or 0,
            "cache_read_input_tokens": read, "cache_write_input_tokens": write}


def chunks_from_stream_chunk(chunk: Any) -> Iterator[dict]:
    """Harness chunks for one ``ModelResponseStream``: reasoning, text, tool deltas, stop, usage."""
    for choice in _get(chunk, "choices") or ():
        delta = _get(choice, "delta")
        if delta is not None:
            yield from _reasoning_chunks(delta)
            if _get(delta, "content"):
                yield {"type": "text", "text": _get(delta, "content")}
            yield from (_tool_chunk(call) for call in _get(delta, "tool_calls") or ())
        if _get(choice, "finish_reason"):
            reason = _get(choice, "finish_reason")
            yield {"type": "stop", "reason": STOP_REASONS.get(reason, reason)}
    if _get(chunk, "usage"):
        yield _usage_chunk(_get(chunk, "usage"))


def error_chunk(exc: Exception) -> dict:
    """An error chunk: Bedrock's error type when LiteLLM kept the response's x-amzn-errortype header, else the
    LiteLLM exception's class (in-stream exceptions carry their Bedrock type only inside the message text)."""
    headers = getattr(exc, "litellm_response_headers", None) or {}
    code = (headers.get("x-amzn-errortype") or "").split(":")[0]
    return {"type": "error", "code": code or type(exc).__name__, "message": str(exc)}


class LiteLLMAdapter(Shim):
    """LiteLLM's Bedrock Converse provider (``bedrock/converse/...``) in streaming mode, history kept by the shim."""

    name = "litellm"
    distribution = "litellm"
    extra = "litellm"
    capabilities = FEATURES | {OWN_HISTORY, USAGE_INCLUDES_CACHE}

    def stream(self, turn: dict, endpoint: dict) -> Iterator[dict]:
        """Stream one turn through ``litellm.completion``; a LiteLLM exception becomes the closing error chunk."""
        client = self.kept(sorted(endpoint.items()), lambda: guarded_client(endpoint))
        history = self.history.turn(turn, lambda messages, held: to_openai({**turn, "messages": messages}, held))
        native: list = []
        with _offline():
            try:
                for chunk in litellm.completion(**completion_kwargs(turn, endpoint, list(history)), client=client):
                    native.append(chunk)
                    yield {"type": "openai_chunk", "chunk": chunk.model_dump(mode="json", exclude_none=True)}
                    yield from chunks_from_stream_chunk(chunk)
            except _LITELLM_ERRORS as exc:
                _raise_refusal(exc)
                yield error_chunk(exc)
                return
            built = litellm.stream_chunk_builder(native, messages=list(history)) if native else None
        if built is not None:
            message = built.choices[0].message
            self.history.assembled(message)  # appended as LiteLLM's docs do: messages.append(response_message)
            yield message_chunk(anthropic_message(message))


def _raise_refusal(exc: BaseException) -> None:
    """Re-raise the guard's refusal that LiteLLM wrapped in one of its own errors (an adapter failure, no finding)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, EndpointRefused):
            raise seen
        seen = seen.__cause__ or seen.__context__


# ---- the assembled message -> Anthropic format (the closing message chunk) ----

def anthropic_message(message: Any) -> list[dict]:
    """thinking_blocks (else reasoning_content, unsigned), then the text, then each tool call (arguments parsed;
    the raw text when they do not)."""
    blocks = [_thinking_block(block) for block in _get(message, "thinking_blocks") or ()]
    reasoning = _get(message, "reasoning_content")
    blocks += [{"type": "thinking", "thinking": reasoning}] if not blocks and reasoning else []
    text = _get(message, "content")
    blocks += [{"type": "text", "text": text}] if isinstance(text, str) and text else []
    return blocks + [_tool_use(call) for call in _get(message, "tool_calls") or ()]


def _thinking_block(block: Any) -> dict:
    if _get(block, "type") == "redacted_thinking":
        data = _get(block, "data")
        return {"type": "redacted_thinking", "data": base64.b64encode(data).decode() if isinstance(data, bytes) else data}
    signature = _get(block, "signature")
    return {"type": "thinking", "thinking": _get(block, "thinking") or "", **({"signature": signature} if signature else {})}


def _tool_use(call: Any) -> dict:
    function = _get(call, "function")
    arguments = _get(function, "arguments")
    try:
        parsed = json.loads(arguments) if arguments else {}
    except ValueError:
        parsed = arguments
    return {"type": "tool_use", "id": _get(call, "id"), "name": _get(function, "name"), "input": parsed}
