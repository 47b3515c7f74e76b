"""LlamaIndex's ChatResponse stream folded into harness chunks, and its assembled ChatMessage in Anthropic format.

Library-free on purpose: blocks are told apart by their ``block_type`` ("text", "thinking", "tool_call" at every
llama-index-core release the shim supports), so CI, which installs no LlamaIndex, tests the branches each release
of llama-index-llms-bedrock-converse needs with objects shaped like that release's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from harness.converse.request import served_options
from harness.converse.stream import metadata_chunk

__all__ = ["ChatStream", "anthropic_blocks", "guardrail", "llm_fields", "tool_choice"]


def _blocks(response: Any, kind: str) -> list:
    return [block for block in response.message.blocks if getattr(block, "block_type", None) == kind]


def _thinking(response: Any) -> Any:
    thinking = _blocks(response, "thinking")
    return thinking[-1] if thinking else None


def _signature(response: Any) -> str | None:
    thinking = _thinking(response)
    return ((thinking.additional_information or {}).get("signature") or None) if thinking else None


def llm_fields(turn: dict) -> dict:
    """BedrockConverse's fields for the turn: model, max_tokens, thinking, the guardrail (``guardrail``) and, with
    thinking on, temperature 1 (the only value Bedrock allows, and BedrockConverse cannot leave temperature unset)."""
    options = turn.get("options") or {}
    budget, temperature = options.get("thinking_budget"), options.get("temperature")
    fields: dict = {"model": turn["model_id"], "max_tokens": options.get("max_tokens") or 512}
    fields.update({"thinking": {"type": "enabled", "budget_tokens": budget}} if budget else {})
    fields.update(guardrail(options))
    if temperature is not None or budget:
        fields["temperature"] = 1.0 if temperature is None else temperature
    return fields


def guardrail(options: dict) -> dict:
    """BedrockConverse's guardrail fields for the turn's guardrail: guardrail_identifier, guardrail_version, trace and
    guardrail_stream_processing_mode (which converse_with_retry sends on ConverseStream only)."""
    wire = served_options(options).get("guardrailConfig") or {}
    fields = {"guardrail_identifier": wire.get("guardrailIdentifier"), "guardrail_version": wire.get("guardrailVersion"),
              "trace": wire.get("trace"), "guardrail_stream_processing_mode": wire.get("streamProcessingMode")}
    return {key: value for key, value in fields.items() if value is not None}


def tool_choice(choice: Any) -> dict:
    """stream_chat_with_tools keywords: tool_required for "any", for one tool Bedrock's own ``{"tool": {"name"}}``
    (the ``Optional[dict]`` every release declares: a bare name is wrapped only from 0.14.3 on, older releases
    send it to Bedrock as it is)."""
    if isinstance(choice, dict):
        return {"tool_choice": {"tool": {"name": choice["name"]}}}
    return {"tool_required": True} if choice == "any" else {}


class ChatStream:
    """Folds one ChatResponse stream into chunks.

    Text and reasoning text go out as they arrive, the reasoning signature once other content starts. LlamaIndex
    streams no tool-input deltas: a call is whole only in the last response (``get_tool_calls_from_response``).
    So from the first ToolCallBlock on, the chunks are held in stream order with a placeholder per call, and
    ``close`` fills the placeholders with the whole calls; ``abort`` (the stream failed) drops them.
    """

    def __init__(self) -> None:
        self.last: Any = None
        self.thought = ""  # the reasoning text the last response's ThinkingBlock held
        self.signed: str | None = None
        self.calls = 0
        self.held: list[dict | int] | None = None  # None until the first tool call; ints are call positions

    def feed(self, response: Any) -> list[dict]:
        """The chunks to yield now for one streamed response."""
        out: list = []
        reasoning = self._reasoning(response)
        self.last, calls = response, len(_blocks(response, "tool_call"))
        if reasoning:
            out.append({"type": "reasoning", "text": reasoning})
        if response.delta or calls > self.calls:
            out.extend(self.sign())
        if calls > self.calls:
            self.held = [] if self.held is None else self.held
            out.extend(range(self.calls, calls))
            self.calls = calls
        if response.delta:
            out.append({"type": "text", "text": response.delta})
        return self._release(out)

    def _reasoning(self, response: Any) -> str:
        """The response's new reasoning text: ``additional_kwargs["thinking_delta"]`` where the release reports it
        (from 0.12.3 on); 0.12.1 and 0.12.2 report none, their ThinkingBlock only grows by it, so the new text is
        what the block grew by."""
        before, thinking = self.thought, _thinking(response)
        self.thought = (thinking.content or "") if thinking else ""
        if "thinking_delta" in response.additional_kwargs:
            return response.additional_kwargs["thinking_delta"] or ""
        return self.thought[len(before):] if self.thought.startswith(before) else ""

    def _release(self, out: list) -> list[dict]:
        if self.held is None:
            return out
        self.held.extend(out)
        return []

    def sign(self) -> list[dict]:
        signature = _signature(self.last) if self.last is not None else None
        if not signature or signature == self.signed:
            return []
        self.signed = signature
        return [{"type": "reasoning", "signature": signature}]

    def close(self, llm: Any) -> Iterator[dict]:
        """The held chunks with each call whole (its id as LlamaIndex gives it), then usage, then what the metadata
        event reports of how the request was served (the last response's ``raw``)."""
        if self.last is None:
            return
        tail = self._release(self.sign())
        calls = llm.get_tool_calls_from_response(self.last, error_on_no_tool_call=False)
        for item in [*(self.held or ()), *tail]:
            if isinstance(item, int):
                call = calls[item]
                yield {"type": "tool_call", "id": call.tool_id, "name": call.tool_name, "input": call.tool_kwargs}
            else:
                yield item
        usage = self.last.additional_kwargs
        if "prompt_tokens" in usage:
            yield {"type": "usage", "input_tokens": usage["prompt_tokens"], "output_tokens": usage["completion_tokens"],
                   "cache_read_input_tokens": usage.get("cache_read_input_tokens") or 0,
                   "cache_write_input_tokens": usage.get("cache_creation_input_tokens") or 0}
        raw = getattr(self.last, "raw", None)  # the metadata event the usage response was made from
        served = metadata_chunk(raw["metadata"]) if isinstance(raw, dict) and isinstance(raw.get("metadata"), dict) else None
        yield from [served] if served else ()

    def abort(self) -> list[dict]:
        """The held chunks without the calls, which never completed."""
        return [item for item in self.held or () if not isinstance(item, int)]


# ---- the assembled ChatMessage -> Anthropic format (the closing message chunk) ----

def anthropic_blocks(message: Any) -> list[dict]:
    """The message's blocks in order as Anthropic blocks, as the message holds them: a ToolCallBlock's
    ``tool_kwargs`` as they are (the raw JSON text up to 0.14.11, which the library parses only when it sends the
    block back), a ThinkingBlock's signature when it has one (the library sends none otherwise), a block of
    another kind as its own fields."""
    return [_anthropic(block) for block in message.blocks]


def _anthropic(block: Any) -> dict:
    kind = getattr(block, "block_type", None)
    if kind == "text":
        return {"type": "text", "text": block.text}
    if kind == "thinking":
        signature = (block.additional_information or {}).get("signature")
        return {"type": "thinking", "thinking": block.content, **({"signature": signature} if signature else {})}
    if kind == "tool_call":
        return {"type": "tool_use", "id": block.tool_call_id, "name": block.tool_name, "input": block.tool_kwargs}
    fields = block.model_dump(mode="json") if hasattr(block, "model_dump") else dict(vars(block))
    return {"type": kind or type(block).__name__, **fields}  # shown, never dropped
