"""The LlamaIndex shim: ``BedrockConverse.stream_chat_with_tools`` (llama-index-llms-bedrock-converse), in
conversation mode.

The shim keeps LlamaIndex ``ChatMessage`` history the way a LlamaIndex application holds it: the scenario's
opening, then per turn the last streamed response's ``message`` (the library's assembled assistant message:
``ThinkingBlock`` / ``TextBlock`` / ``ToolCallBlock``), appended as it is, then ``role=TOOL`` results with
``tool_call_id`` and ``status`` in ``additional_kwargs``; the closing ``message`` chunk is that message. The tools
become ``FunctionTool``s with the scenario's JSON schema.
What the stream exposes maps back (harness.adapters.shims.llama_index_stream, which spans the releases):
``response.delta`` (text) and the reasoning text incrementally, the ``ThinkingBlock`` signature once reasoning is
over, tool calls whole from ``get_tool_calls_from_response`` on the last response, usage from its
``additional_kwargs``. LlamaIndex surfaces no stop reason and no redacted reasoning, so the shim does not declare
those capabilities.

Streaming parity (``non_streaming``): a turn that asks for it also goes through ``chat_with_tools`` (``chat``
without tools) on the same history, once (``max_retries=1``), and closes with each call's ``ChatMessage`` as
pydantic serializes it (``model_dump(mode="json")``, ``native`` chunks). ``llama-index-persisted`` stores the chat
history as JSON (``ChatMessage.model_dump_json`` / ``model_validate_json``) and restores it before every later turn.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Callable

from llama_index.core.base.llms.types import (
    ChatMessage,
    ImageBlock,
    MessageRole,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from llama_index.core.tools import FunctionTool, ToolMetadata
from llama_index.llms.bedrock_converse import BedrockConverse
from pydantic import BaseModel

from harness.adapters.shims.common import Shim, assert_endpoint, boto_endpoint, message_chunk, native_chunk
from harness.adapters.shims.llama_index_stream import ChatStream, anthropic_blocks, llm_fields, tool_choice
from harness.converse.stream import STREAM_ERRORS, error_chunk
from harness.judge.protocol import NON_STREAMING, OWN_HISTORY

__all__ = ["NATIVE_DIFFERENCES", "LlamaIndexAdapter", "LlamaIndexPersistedAdapter", "make_llm", "make_tools", "stored",
           "to_llama_index"]

# Where LlamaIndex's two results differ by design (declared, not compared), each read in its code at 0.15.5.
NATIVE_DIFFERENCES = {
    "additional_kwargs.tool_call_id": "each call fills it from other blocks: stream_chat with the ids of the "
                                      "response's toolUse blocks, chat (_get_content_and_tool_calls) with those of "
                                      "its toolResult blocks, which an assistant reply has none of; the calls' ids "
                                      "are compared in the ToolCallBlocks",
    "additional_kwargs.status": "stream_chat leaves it [] ('Will be populated when tool results come in'), chat "
                                "(_get_content_and_tool_calls) lists the status of the response's toolResult blocks",
    "blocks[*].tool_kwargs as json-text": "llama-index-core types ToolCallBlock.tool_kwargs as 'dict[str, Any] | str' "
                                          "(either form is a ToolCallBlock); up to 0.14.11 stream_chat keeps a "
                                          "streamed call's input as the JSON text it accumulated, chat the parsed "
                                          "dict. The values are still compared",
}


# ---- turn -> LlamaIndex history and tools ----

def _block(block: dict) -> Any:
    """A user or tool-result content block: text or image; a JSON result part as its JSON text."""
    if "json" in block and "type" not in block:
        return TextBlock(text=json.dumps(block["json"]))
    if block.get("type") == "image":
        source = block.get("source") or {}
        return ImageBlock(image=source.get("data", "").encode("ascii"), image_mimetype=source.get("media_type"))
    return TextBlock(text=block.get("text", ""))


def _tool_message(block: dict) -> ChatMessage:
    """A tool result: LlamaIndex's converter reads tool_call_id and status from additional_kwargs."""
    content = block.get("content", "")
    if isinstance(content, list):
        blocks = [_block(part) for part in content]
    else:
        blocks = [TextBlock(text=content if isinstance(content, str) else json.dumps(content))]
    extra = {"tool_call_id": block["tool_use_id"], **({"status": "error"} if block.get("is_error") else {})}
    return ChatMessage(role=MessageRole.TOOL, blocks=blocks, additional_kwargs=extra)


def _user(content: Any) -> list[ChatMessage]:
    """Tool results as TOOL messages, then the rest of the content as one USER message."""
    if isinstance(content, str):
        return [ChatMessage(role=MessageRole.USER, content=content)]
    tools = [_tool_message(block) for block in content if block.get("type") == "tool_result"]
    rest = [_block(block) for block in content if block.get("type") != "tool_result"]
    return tools + ([ChatMessage(role=MessageRole.USER, blocks=rest)] if rest else [])


def _assistant_block(block: dict) -> Any:
    """An assistant block; LlamaIndex has no type for redacted thinking, so it has no counterpart."""
    kind = block.get("type")
    if kind == "thinking":
        extra = {"signature": block["signature"]} if block.get("signature") is not None else {}
        return ThinkingBlock(content=block.get("thinking", ""), additional_information=extra)
    if kind == "tool_use":
        return ToolCallBlock(tool_call_id=block["id"], tool_name=block["name"], tool_kwargs=block.get("input") or {})
    return TextBlock(text=block["text"]) if kind == "text" else None


def _assistant(content: Any) -> ChatMessage:
    if isinstance(content, str):
        return ChatMessage(role=MessageRole.ASSISTANT, content=content)
    blocks = [_assistant_block(block) for block in content]
    return ChatMessage(role=MessageRole.ASSISTANT, blocks=[block for block in blocks if block is not None])


def to_llama_index(turn: dict, held: list = ()) -> list[ChatMessage]:
    """The turn's messages as LlamaIndex chat history, led by the system prompt when nothing is ``held`` yet."""
    system = turn.get("system") and not held
    history = [ChatMessage(role=MessageRole.SYSTEM, content=turn["system"])] if system else []
    for message in turn["messages"]:
        if message["role"] == "assistant":
            history.append(_assistant(message["content"]))
        else:
            history.extend(_user(message["content"]))
    return history


def _schema_model(name: str, schema: dict) -> type[BaseModel]:
    """A pydantic model whose JSON schema is exactly the tool's (ToolMetadata takes a model, not a schema)."""

    class Schema(BaseModel):
        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict:
            return json.loads(json.dumps(schema))

    Schema.__name__ = f"{name}_schema"
    return Schema


def _never_called(**kwargs: Any) -> None:
    raise RuntimeError("the harness executes no tools")


def make_tools(turn: dict) -> list[FunctionTool]:
    """The turn's Anthropic-format tools as FunctionTools carrying their JSON schemas."""
    return [FunctionTool(fn=_never_called, metadata=ToolMetadata(
        name=tool["name"], description=tool.get("description", ""),
        fn_schema=_schema_model(tool["name"], tool["input_schema"]))) for tool in turn.get("tools") or ()]


def make_llm(turn: dict, endpoint: dict, max_retries: int | None = None) -> BedrockConverse:
    """A BedrockConverse with the turn's fields (``llm_fields``) pointed at ``endpoint``; ``max_retries`` (botocore's
    attempts and its own) when given, else its default."""
    kwargs = {"max_retries": max_retries} if max_retries is not None else {}
    llm = BedrockConverse(**llm_fields(turn), region_name=endpoint["region"], endpoint_url=endpoint["endpoint_url"],
                          aws_access_key_id=endpoint["aws_access_key_id"],
                          aws_secret_access_key=endpoint["aws_secret_access_key"], **kwargs)
    assert_endpoint(boto_endpoint(llm._client), endpoint, "BedrockConverse's client")  # no public accessor
    return llm


class LlamaIndexAdapter(Shim):
    """LlamaIndex's BedrockConverse LLM, streaming through stream_chat_with_tools (stream_chat without tools)."""

    name = "llama-index"
    distribution = "llama-index-llms-bedrock-converse"
    extra = "llama-index"
    capabilities = frozenset({
        "text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature", "usage", "cache_usage",
        "round_trip", "errors", "streaming", OWN_HISTORY, NON_STREAMING,
        # how a request is served: the guardrail (BedrockConverse's guardrail fields) and the metadata event's
        # invoked model, tier and latency (the last ChatResponse's raw, the metadata event as botocore gave it)
        "guardrail", "response_metadata",
    })
    native_differences = NATIVE_DIFFERENCES
    # Read in llama-index-core (0.14.8 and 0.14.25): a ToolCallBlock may hold a call's arguments as JSON text.
    vocabulary = {"arguments-as-object": "llama_index.core.base.llms.types.ToolCallBlock.tool_kwargs: "
                                         "dict[str, Any] | str"}

    def stream(self, turn: dict, endpoint: dict) -> Iterator[dict]:
        """Stream one turn; a botocore error (LlamaIndex passes them through) becomes the closing error chunk. When
        the turn asks, the same history then goes through chat_with_tools (chat), and each call's message closes
        the turn as a ``native`` chunk."""
        llm, tools = make_llm(turn, endpoint), make_tools(turn)
        history = list(self.history.turn(turn, lambda messages, held: to_llama_index({**turn, "messages": messages},
                                                                                     held)))
        choice = (turn.get("options") or {}).get("tool_choice")
        state, call = ChatStream(), _Calls(llm, tools, choice)
        failure = yield from _streamed(state, llm, lambda: call.stream(history))
        if failure is None and state.last is not None:
            self.history.assembled(state.last.message)  # as an app appends response.message to its chat history
            yield message_chunk(anthropic_blocks(state.last.message))
        if turn.get("non_streaming"):
            model = turn["model_id"]
            yield native_chunk("stream", lambda: _dumped(state.last), failure, lambda: _sent(state.last, model))
            # One attempt: the second call checks what the first built; retrying a throttled twin adds only sleeps.
            twin = _Calls(make_llm(turn, endpoint, max_retries=1), tools, choice)
            whole, error = twin.attempt(history)
            yield native_chunk("converse", lambda: _dumped(whole), error, lambda: _sent(whole, model))


class _Calls:
    """The two calls of one turn on the same history: streamed and whole, with tools or without."""

    def __init__(self, llm: BedrockConverse, tools: list[FunctionTool], choice: Any) -> None:
        self.llm, self.tools, self.choice = llm, tools, tool_choice(choice)

    def stream(self, history: list[ChatMessage]) -> Iterator[Any]:
        if not self.tools:
            return self.llm.stream_chat(list(history))
        return self.llm.stream_chat_with_tools(self.tools, chat_history=list(history), allow_parallel_tool_calls=True,
                                               **self.choice)

    def whole(self, history: list[ChatMessage]) -> Any:
        if not self.tools:
            return self.llm.chat(list(history))
        return self.llm.chat_with_tools(self.tools, chat_history=list(history), allow_parallel_tool_calls=True,
                                        **self.choice)

    def attempt(self, history: list[ChatMessage]) -> tuple[Any, BaseException | None]:
        """(the whole call's response, None), or (None, what it raised)."""
        try:
            return self.whole(history), None
        except Exception as exc:  # noqa: BLE001 - the non-streamed call's failure is its outcome
            return None, exc


def _streamed(state: ChatStream, llm: BedrockConverse, responses: Callable[[], Iterator[Any]]) -> Iterator[dict]:
    """The stream's chunks; returns the botocore error it ended in (None when it completed)."""
    try:
        for response in responses():
            yield from state.feed(response)
    except STREAM_ERRORS as exc:
        yield from state.abort()
        yield error_chunk(exc)
        return exc
    yield from state.close(llm)
    return None


def _sent(response: Any, model_id: str) -> Any:
    """A ChatResponse's message as LlamaIndex sends it back to ``model_id``: its own messages_to_converse_messages."""
    from llama_index.llms.bedrock_converse.utils import messages_to_converse_messages

    return messages_to_converse_messages([response.message], model=model_id)[0]


def _dumped(response: Any) -> Any:
    """A ChatResponse's message as pydantic serializes it (``model_dump(mode="json")``), None without a response."""
    return None if response is None else response.message.model_dump(mode="json")


def stored() -> tuple[Callable[[list], str], Callable[[str], list]]:
    """(dump, load) of a LlamaIndex chat history as JSON text: each ``ChatMessage`` as its ``model_dump_json()``,
    restored with ``ChatMessage.model_validate_json``."""

    def dump(messages: list) -> str:
        return json.dumps([message.model_dump_json() for message in messages])

    def load(text: str) -> list:
        return [ChatMessage.model_validate_json(item) for item in json.loads(text)]

    return dump, load


class LlamaIndexPersistedAdapter(LlamaIndexAdapter):
    """``llama-index-persisted``: ``llama-index``, its chat history stored as JSON and restored before every later
    turn."""

    name = "llama-index-persisted"

    def store(self) -> tuple[Callable[[list], str], Callable[[str], list]]:
        return stored()
