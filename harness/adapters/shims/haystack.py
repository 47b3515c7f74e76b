"""The Haystack shim: ``AmazonBedrockChatGenerator.run(messages, tools=..., streaming_callback=...)`` (sync path),
in conversation mode.

The shim keeps Haystack ``ChatMessage``s the way a Haystack application holds them: the scenario's opening
(``from_system``, ``from_user``), then per turn the reply ``ChatMessage`` the generator assembled from its stream
(``run(...)["replies"][0]``, with ``ToolCall``s and ``ReasoningContent``, signature in ``extra``), appended as it
is, then ``from_tool`` messages with the reply's ``ToolCall`` they answer and the ``error`` flag; the closing
``message`` chunk is that reply. Tools are ``Tool``s with the scenario's JSON schema. The generator builds its
boto3 client without an endpoint option, so the endpoint reaches botocore through
``AWS_ENDPOINT_URL_BEDROCK_RUNTIME``, set while the client is created (in ``__init__`` before 8.0.0, in
``warm_up`` after) and restored after, and the client's endpoint is checked. What differs between releases
(reasoning's two shapes, the client, string-only tool results) is in ``haystack_releases``. Every
``StreamingChunk`` the callback receives maps to harness chunks: text, reasoning (text, signature) and
tool-call deltas keyed by the chunk's content-block ``index``, the finish reason mapped back to Bedrock's
names, and ``meta["usage"]``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from haystack.dataclasses import chat_message as haystack_chat_message
from haystack.dataclasses import (
    ChatMessage,
    ImageContent,
    StreamingChunk,
    TextContent,
    ToolCall,
)
from haystack.tools import Tool
from haystack.utils.auth import Secret
from haystack_integrations.common.amazon_bedrock.errors import (
    AmazonBedrockInferenceError,
)
from haystack_integrations.components.generators.amazon_bedrock import (
    AmazonBedrockChatGenerator,
)
from haystack_integrations.components.generators.amazon_bedrock.chat import utils as bedrock_utils

from harness.adapters.shims.common import Shim, assert_endpoint, boto_endpoint, message_chunk
from harness.adapters.shims.haystack_releases import (
    anthropic_reasoning,
    close_generator,
    folded_reasoning,
    meta_reasoning_chunks,
    result_text,
    warmed,
)
from harness.converse.stream import error_chunk
from harness.suite.protocol import OWN_HISTORY

__all__ = ["STOP_REASONS", "HaystackAdapter", "anthropic_content", "chunks_from_streaming_chunk", "make_generator",
           "make_tools", "to_haystack"]

# Haystack's FINISH_REASON_MAPPING is many-to-one (end_turn and stop_sequence -> stop; guardrail_intervened and
# content_filtered -> content_filter): the inverse can pick only one.
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens",
                "content_filter": "content_filtered"}
# Reasoning in meta / extra["reasoning_contents"] (up to 6.5.0, see haystack_releases): only those releases have
# the function that folds it.
REASONING_IN_EXTRA = hasattr(bedrock_utils, "_process_reasoning_contents")
# haystack-ai 2.23.0 on takes a tool result as a string or a list of text and image parts (the type alias names it);
# before, a string only.
RESULT_PARTS = hasattr(haystack_chat_message, "ToolCallResultContentT")


# ---- turn -> Haystack messages and tools ----

def _part(block: dict) -> Any:
    """A user or tool-result content part: text or image; a JSON result part as its JSON text."""
    if "json" in block and "type" not in block:
        return TextContent(text=json.dumps(block["json"]))
    if block.get("type") == "image":
        source = block.get("source") or {}
        return ImageContent(base64_image=source.get("data", ""), mime_type=source.get("media_type"))
    return TextContent(text=block.get("text", ""))


def _calls_by_id(turn: dict, held: list = ()) -> dict[str, ToolCall]:
    """Every tool call in the history, by id: a tool result message carries the call it answers."""
    calls = {call.id: call for message in held for call in message.tool_calls}
    calls.update({block["id"]: ToolCall(tool_name=block["name"], arguments=block.get("input") or {}, id=block["id"])
                  for message in turn["messages"]
                  if message["role"] == "assistant" and isinstance(message["content"], list)
                  for block in message["content"] if block.get("type") == "tool_use"})
    return calls


def _tool_result(content: Any) -> Any:
    """A tool result: a string, the list of its parts, or (before haystack-ai 2.23.0) their texts one per line."""
    if not isinstance(content, list):
        return content if isinstance(content, str) else json.dumps(content)
    return [_part(part) for part in content] if RESULT_PARTS else result_text(content)


def _tool_message(block: dict, calls: dict[str, ToolCall]) -> ChatMessage:
    result = _tool_result(block.get("content", ""))
    origin = calls.get(block["tool_use_id"]) or ToolCall(tool_name="", arguments={}, id=block["tool_use_id"])
    return ChatMessage.from_tool(result, origin=origin, error=bool(block.get("is_error")))


def _user(content: Any, calls: dict[str, ToolCall]) -> list[ChatMessage]:
    """Tool results as tool messages, then the rest as one user message."""
    if isinstance(content, str):
        return [ChatMessage.from_user(content)]
    tools = [_tool_message(block, calls) for block in content if block.get("type") == "tool_result"]
    parts = [_part(block) for block in content if block.get("type") != "tool_result"]
    return tools + ([ChatMessage.from_user(content_parts=parts)] if parts else [])


def _assistant_part(block: dict) -> dict | None:
    """One assistant content entry in ChatMessage's serialized form (from 6.6.0 Haystack has no redacted
    reasoning)."""
    kind = block.get("type")
    if kind == "thinking":
        extra = {"signature": block["signature"]} if block.get("signature") is not None else {}
        return {"reasoning": {"reasoning_text": block.get("thinking", ""), "extra": extra}}
    if kind == "tool_use":
        return {"tool_call": {"tool_name": block["name"], "arguments": block.get("input") or {}, "id": block["id"]}}
    return {"text": block["text"]} if kind == "text" else None


def _assistant(content: Any) -> ChatMessage:
    """An assistant message; ChatMessage.from_dict, since from_assistant takes one reasoning block only."""
    if isinstance(content, str):
        return ChatMessage.from_assistant(content)
    parts = [part for part in map(_assistant_part, content) if part is not None]
    if REASONING_IN_EXTRA:  # up to 6.5.0: one leading reasoning part holds every block
        folded = folded_reasoning(content)
        parts = ([folded] if folded else []) + [part for part in parts if "reasoning" not in part]
    return ChatMessage.from_dict({"role": "assistant", "content": parts, "meta": {}, "name": None})


def to_haystack(turn: dict, held: list = ()) -> list[ChatMessage]:
    """The turn's messages as Haystack chat messages, led by the system prompt when nothing is ``held`` yet."""
    calls = _calls_by_id(turn, held)
    messages = [ChatMessage.from_system(turn["system"])] if turn.get("system") and not held else []
    for message in turn["messages"]:
        if message["role"] == "assistant":
            messages.append(_assistant(message["content"]))
        else:
            messages.extend(_user(message["content"], calls))
    return messages


def _never_called(**kwargs: Any) -> None:
    raise RuntimeError("the harness executes no tools")


def make_tools(turn: dict) -> list[Tool]:
    """The turn's Anthropic-format tools as Haystack Tools."""
    return [Tool(name=tool["name"], description=tool.get("description", ""), parameters=tool["input_schema"],
                 function=_never_called) for tool in turn.get("tools") or ()]


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


def make_generator(turn: dict, endpoint: dict) -> AmazonBedrockChatGenerator:
    """A warmed-up generator whose boto3 client points at ``endpoint``.

    The region goes in as a ``Secret``: releases before 6.12.0 take only a Secret there (they call
    ``resolve_value`` on it), later ones a Secret or a string.
    """
    generator = warmed(lambda: AmazonBedrockChatGenerator(
        model=turn["model_id"], aws_access_key_id=Secret.from_token(endpoint["aws_access_key_id"]),
        aws_secret_access_key=Secret.from_token(endpoint["aws_secret_access_key"]), aws_session_token=None,
        aws_region_name=Secret.from_token(endpoint["region"]), aws_profile_name=None,
        generation_kwargs=generation_kwargs(turn)), endpoint["endpoint_url"])
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
    chunk = error_chunk(cause) if cause is not None else {"type": "error", "code": type(exc).__name__}
    return {**chunk, "message": str(exc)}


class HaystackAdapter(Shim):
    """Haystack's AmazonBedrockChatGenerator (amazon-bedrock-haystack), sync run with a streaming callback."""

    name = "haystack"
    distribution = "amazon-bedrock-haystack"
    extra = "haystack"
    # Redacted reasoning streams, assembles and goes back only up to 6.5.0 (see REASONING_IN_EXTRA).
    capabilities = frozenset({
        "text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature", "usage", "cache_usage",
        "stop_reason", "round_trip", "errors", "streaming", OWN_HISTORY,
    } | ({"redacted_reasoning"} if REASONING_IN_EXTRA else set()))

    def stream(self, turn: dict, endpoint: dict) -> Iterator[dict]:
        """Run one turn; the callback's chunks in order, then the run's failure (an error chunk, or re-raised), or
        the reply ``ChatMessage`` (kept for the next turn).

        ``run`` returns only when the stream is over, so the chunks are relayed after it, in the order and
        granularity the callback saw them; a failure still comes after every chunk delivered before it.
        """
        received: list[StreamingChunk] = []
        generator = make_generator(turn, endpoint)
        history = self.history.turn(turn, lambda messages, held: to_haystack({**turn, "messages": messages}, held))
        failure: dict | None = None
        raised: Exception | None = None
        replies: list[ChatMessage] = []
        try:
            replies = generator.run(list(history), tools=make_tools(turn) or None,
                                    streaming_callback=received.append)["replies"]
        except AmazonBedrockInferenceError as exc:
            failure = _inference_error(exc)
        except Exception as exc:  # noqa: BLE001 - relayed below, after the chunks the callback already got
            raised = exc
        finally:
            close_generator(generator)
        for chunk in received:
            yield from chunks_from_streaming_chunk(chunk)
        if failure is not None:
            yield failure
        if raised is not None:
            raise raised
        if replies:
            self.history.assembled(replies[0])  # as a Haystack app (or its Agent) appends the reply
            yield message_chunk(anthropic_content(replies[0]))


# ---- the reply ChatMessage -> Anthropic format (the closing message chunk) ----

def anthropic_content(reply: ChatMessage) -> list[dict]:
    """The reply's content in order (``to_dict``, its public serialization) as Anthropic blocks; empty text out."""
    return [block for part in reply.to_dict()["content"] for block in _anthropic(part)]


def _anthropic(part: dict) -> list[dict]:
    if "text" in part:
        return [{"type": "text", "text": part["text"]}] if part["text"] else []
    if "reasoning" in part:
        return anthropic_reasoning(part["reasoning"])
    if "tool_call" in part:
        call = part["tool_call"]
        return [{"type": "tool_use", "id": call.get("id"), "name": call.get("tool_name"),
                 "input": call.get("arguments")}]
    return [dict(part)]  # shown, never dropped
