"""Conversation mode: the adapter keeps the history and appends the assistant message it assembled itself.

``assemble_message(chunks)`` is the reference's own assembly of a streamed turn into an Anthropic-format
assistant message (blocks in stream order, keyed by their ``index``: text and reasoning deltas joined, the
signature kept as sent, tool input parsed from its joined deltas, ``""`` as ``{}``, a cut-off call left out). ``Conversation`` holds
one conversation: each turn's new messages are appended after the previous turn's assembled message, and the
whole history is sent. A turn's ``conversation`` names the conversation; a new value starts afresh.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from harness.converse.errors import TurnError

__all__ = ["Conversation", "assemble_message", "message_chunk"]


def _text(block: dict, chunk: Mapping) -> None:
    block["text"] += chunk.get("text") or ""


def _citation(block: dict, chunk: Mapping) -> None:
    block.setdefault("citations", []).append(copy.deepcopy(chunk.get("citation")))


def _thinking(block: dict, chunk: Mapping) -> None:
    block["thinking"] += chunk.get("text") or ""
    if chunk.get("signature") is not None:
        block["signature"] = chunk["signature"]


def _tool_use(block: dict, chunk: Mapping) -> None:
    if "input" in chunk:
        block["input"] = copy.deepcopy(chunk["input"])
    else:
        block["_deltas"].append(chunk.get("input_delta") or "")


_NEW = {
    "text": lambda chunk: {"type": "text", "text": ""},
    "citation": lambda chunk: {"type": "text", "text": ""},  # the text block it cites, which its text then fills
    "reasoning": lambda chunk: {"type": "thinking", "thinking": "", "signature": None},
    "redacted_reasoning": lambda chunk: {"type": "redacted_thinking", "data": chunk.get("data")},
    "tool_call": lambda chunk: {"type": "tool_use", "id": chunk.get("id"), "name": chunk.get("name"), "_deltas": []},
}
_ADD = {"text": _text, "citation": _citation, "reasoning": _thinking, "redacted_reasoning": lambda block, chunk: None, "tool_call": _tool_use}


def _finished(block: dict) -> dict | None:
    """The block as sent back: tool input parsed (``""`` is ``{}``), unsigned reasoning without a signature.

    A call whose input never became valid JSON (cut off by ``max_tokens``) is left out: it cannot be executed,
    and Bedrock refuses a ``toolUse`` whose input is not an object.
    """
    if block["type"] == "tool_use" and "_deltas" in block:
        raw = "".join(block.pop("_deltas"))
        if "input" not in block:
            try:
                block["input"] = json.loads(raw) if raw.strip() else {}
            except ValueError:
                return None
    if block["type"] == "thinking" and block["signature"] is None:
        del block["signature"]
    return None if block["type"] == "text" and not block["text"] else block


def _key(n: int, chunk: Mapping) -> Any:
    """The block a chunk belongs to: its ``index`` (a call without one: its id); each redacted blob is its own."""
    kind, index = chunk.get("type"), chunk.get("index")
    if kind == "redacted_reasoning":
        return n
    if kind == "citation":  # it belongs to the text block of its index
        return ("text", index)
    return (kind, chunk.get("id") if index is None and kind == "tool_call" else index)


def assemble_message(chunks: Iterable[Mapping]) -> dict:
    """The assistant message of a turn's chunks: one block per streamed block, in stream order."""
    blocks: dict[Any, dict] = {}
    for n, chunk in enumerate(chunks):
        kind = chunk.get("type")
        if kind in _NEW:
            block = blocks.setdefault(_key(n, chunk), _NEW[kind](chunk))
            _ADD[kind](block, chunk)
    content = [_finished(block) for block in blocks.values()]
    return {"role": "assistant", "content": [block for block in content if block is not None]}


def message_chunk(message: Mapping) -> dict:
    """The closing chunk reporting the assembled message (the harness compares it with what was streamed)."""
    return {"type": "message", "message": copy.deepcopy(dict(message))}


class Conversation:
    """One conversation as the adapter keeps it: the history so far and the last assembled assistant message."""

    def __init__(self) -> None:
        self.id: Any = None
        self.messages: list[dict] = []
        self.assistant: dict | None = None

    def history(self, turn: Mapping) -> dict:
        """``turn`` with the whole history: what came before, the assembled message, then the turn's messages."""
        if "conversation" not in turn:
            raise TurnError("turn has no 'conversation' (an adapter that owns its history needs the id naming "
                            "the conversation; a new id starts afresh)")
        if turn["conversation"] != self.id:
            self.id, self.messages, self.assistant = turn["conversation"], [], None
        if self.assistant is not None:
            self.messages.append(self.assistant)
            self.assistant = None
        self.messages.extend(copy.deepcopy(list(turn.get("messages") or ())))
        return {**turn, "messages": copy.deepcopy(self.messages)}

    def stream(self, turn: Mapping, send: Callable[[dict], Iterable[dict]],
               assemble: Callable[[list[dict]], dict] = assemble_message) -> Iterator[dict]:
        """Send the whole history, yield the chunks, then assemble and report the assistant message."""
        chunks = []
        for chunk in send(self.history(turn)):
            chunks.append(chunk)
            yield chunk
        if not any(chunk.get("type") == "error" for chunk in chunks):  # a failed turn has no message to go on with
            self.assistant = assemble(chunks)
            yield message_chunk(self.assistant)
