"""What differs between amazon-bedrock-haystack releases (5.3.0 to 9.x), and the generator's options, in plain data:
importable, and so testable, without Haystack (a reproduction's ``app.py`` is written from them).

- Reasoning. Up to 6.5.0 the integration streams Bedrock's reasoning delta (text, signature or redacted_content) in
  ``StreamingChunk.meta["reasoning_contents"]`` and keeps all of a reply's reasoning blocks, signed or redacted, in
  ONE ``ReasoningContent`` whose ``extra["reasoning_contents"]`` lists them (the texts joined in its
  ``reasoning_text``, "[REDACTED]" for a redacted one); from 6.6.0 it streams ``StreamingChunk.reasoning`` and keeps
  one ``ReasoningContent`` per block with ``extra["signature"]``, and redacted reasoning is dropped.
- The client. Before 8.0.0 ``AmazonBedrockChatGenerator.__init__`` builds the boto3 client and there is no
  ``warm_up`` or ``close``; from 8.0.0 ``warm_up`` builds it and ``close`` closes it.
- Tool results. haystack-ai before 2.23.0 takes a tool result as a string only; from 2.23.0 also as a list of text
  and image parts.
- Structured output. Releases whose generator documents ``generation_kwargs["response_format"]`` (9.0.0; not 5.3.0)
  build Bedrock's outputConfig.textFormat of it; before, the key would go to additionalModelRequestFields.
- Guardrails. Every release (5.3.0 on) takes ``guardrail_config=`` (Bedrock's guardrailConfig, sent as given) and
  validates it at construction: ``streamProcessingMode`` only for a generator built with a ``streaming_callback``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from harness.converse.request import output_config, served_options

__all__ = ["ENDPOINT_VARIABLE", "anthropic_reasoning", "close_generator", "endpoint_variable", "folded_reasoning",
           "generation_kwargs", "guardrail_config", "meta_reasoning_chunks", "response_format", "result_text",
           "warmed"]

ENDPOINT_VARIABLE = "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"
REASONING_TYPES = ("thinking", "redacted_thinking")
Generator = TypeVar("Generator")


@contextlib.contextmanager
def endpoint_variable(url: str) -> Iterator[None]:
    """AWS_ENDPOINT_URL_BEDROCK_RUNTIME set to ``url`` for the duration, then restored."""
    saved = os.environ.get(ENDPOINT_VARIABLE)
    os.environ[ENDPOINT_VARIABLE] = url
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(ENDPOINT_VARIABLE, None)
        else:
            os.environ[ENDPOINT_VARIABLE] = saved


# ---- the generator's generation_kwargs (every release) ----

def generation_kwargs(turn: dict) -> dict:
    """maxTokens / temperature go to inferenceConfig; thinking and a forced tool_choice to the model fields."""
    options = turn.get("options") or {}
    kwargs: dict = {"maxTokens": options.get("max_tokens")}
    if options.get("temperature") is not None:
        kwargs["temperature"] = options["temperature"]
    if options.get("thinking_budget"):
        kwargs["thinking"] = {"type": "enabled", "budget_tokens": options["thinking_budget"]}
    choice = options.get("tool_choice")
    if isinstance(choice, dict):
        kwargs["tool_choice"] = {"type": "tool", "name": choice["name"]}
    elif choice == "any":
        kwargs["tool_choice"] = {"type": "any"}
    return kwargs


def response_format(options: dict) -> dict:
    """``generation_kwargs["response_format"]`` for ``options.output_format``, as the generator documents it (the
    schema as a dict, its name and description), which 9.0.0 builds into outputConfig.textFormat
    (``_prepare_request_params``); nothing without an output format."""
    if options.get("output_format") is None:
        return {}
    output_config(options)  # the one-line error for a malformed output_format
    wanted = options["output_format"]
    return {"response_format": {"schema": wanted["schema"], **{key: wanted[key] for key in ("name", "description")
                                                                if wanted.get(key) is not None}}}


def guardrail_config(options: dict, streaming: bool) -> dict:
    """The generator's ``guardrail_config=`` for ``options.guardrail``: Bedrock's guardrailConfig keys, which the
    generator sends as given. Its constructor refuses ``streamProcessingMode`` unless the generator streams
    (``_validate_guardrail_config(..., streaming=streaming_callback is not None)``), as Converse's
    GuardrailConfiguration has none: a non-streaming generator gets the rest."""
    wire = served_options(options).get("guardrailConfig")
    if wire is None:
        return {}
    return {"guardrail_config": wire if streaming else {k: v for k, v in wire.items() if k != "streamProcessingMode"}}


# ---- the generator's client ----

def warmed(construct: Callable[[], Generator], url: str) -> Generator:
    """The generator ``construct`` makes, its boto3 client built (in ``__init__`` before 8.0.0, in ``warm_up``
    from 8.0.0) while the endpoint variable points at ``url``: the generator has no endpoint option."""
    with endpoint_variable(url):
        generator = construct()
        if hasattr(generator, "warm_up"):
            generator.warm_up()
    return generator


def close_generator(generator: Any) -> None:
    """The generator's ``close`` (8.0.0 on); before 8.0.0 it has none, so its boto3 client is closed."""
    if hasattr(generator, "close"):
        generator.close()
    elif getattr(generator, "client", None) is not None:
        generator.client.close()


# ---- reasoning, releases up to 6.5.0 ----

def _b64(data: Any) -> Any:
    return base64.b64encode(data).decode("ascii") if isinstance(data, bytes) else data


def meta_reasoning_chunks(meta: dict) -> Iterator[dict]:
    """Harness chunks for the reasoning deltas in ``meta["reasoning_contents"]`` (up to 6.5.0; none after)."""
    for entry in meta.get("reasoning_contents") or ():
        index, delta = entry["index"], entry["reasoning_content"]
        if delta.get("text"):
            yield {"type": "reasoning", "index": index, "text": delta["text"]}
        if delta.get("signature"):
            yield {"type": "reasoning", "index": index, "signature": delta["signature"]}
        if delta.get("redacted_content") is not None:
            yield {"type": "redacted_reasoning", "index": index, "data": _b64(delta["redacted_content"])}


def _folded_entry(block: dict) -> dict:
    if block["type"] == "redacted_thinking":
        return {"reasoning_content": {"redacted_content": base64.b64decode(block["data"])}}
    return {"reasoning_content": {"reasoning_text": {"text": block.get("thinking", ""),
                                                     "signature": block.get("signature")}}}


def folded_reasoning(content: list[dict]) -> dict | None:
    """Up to 6.5.0: the Anthropic reasoning blocks of ``content`` as one serialized ChatMessage reasoning part,
    the way the integration assembles a reply (None when there are none)."""
    blocks = [block for block in content if block.get("type") in REASONING_TYPES]
    if not blocks:
        return None
    text = "".join(block.get("thinking", "") if block["type"] == "thinking" else "[REDACTED]" for block in blocks)
    return {"reasoning": {"reasoning_text": text,
                          "extra": {"reasoning_contents": [_folded_entry(block) for block in blocks]}}}


# ---- reasoning, either shape ----

def _thinking(text: Any, signature: Any) -> dict:
    return {"type": "thinking", "thinking": text or "", **({"signature": signature} if signature else {})}


def _unfolded(entry: dict) -> dict:
    if "redacted_content" in entry:
        return {"type": "redacted_thinking", "data": _b64(entry["redacted_content"])}
    text = entry.get("reasoning_text") or {}
    return _thinking(text.get("text"), text.get("signature"))


def anthropic_reasoning(reasoning: dict) -> list[dict]:
    """A serialized ReasoningContent as Anthropic blocks: each block it lists (up to 6.5.0), or itself (6.6.0 on)."""
    extra = reasoning.get("extra") or {}
    if "reasoning_contents" in extra:
        return [_unfolded(entry["reasoning_content"]) for entry in extra["reasoning_contents"]]
    return [_thinking(reasoning.get("reasoning_text"), extra.get("signature"))]


# ---- tool results, haystack-ai before 2.23.0 ----

def _part_text(block: dict) -> str:
    if "json" in block and "type" not in block:
        return json.dumps(block["json"])
    if block.get("type") == "image":
        raise ValueError("haystack-ai before 2.23.0 takes a tool result as a string only: an image result part "
                         "cannot be sent")
    return block.get("text", "")


def result_text(content: list[dict]) -> str:
    """A tool result's parts as the one string haystack-ai before 2.23.0 takes: their texts, one per line (a JSON
    part as its JSON text)."""
    return "\n".join(_part_text(block) for block in content)
