"""What the langchain-aws shim reports of LangChain's own objects: the assembled ``AIMessage`` in Anthropic format (the
``message`` chunk), in LangChain's serialization (the ``native`` chunks), and stored and restored the way a LangGraph
checkpointer stores a conversation (the ``langchain-aws-persisted`` variant).

Nothing is repaired: a tool input the message keeps as argument text stays text, a block of a type the mapping does
not know (or a reasoning block holding more than LangChain's ``text`` / ``signature`` / ``redacted_content``) is
passed on as LangChain holds it, and empty text stays.
"""

from __future__ import annotations

import base64
from typing import Any

__all__ = ["anthropic_message", "dump", "load", "native", "sent"]

_REASONING = (frozenset({"text"}), frozenset({"signature"}), frozenset({"text", "signature"}),
              frozenset({"redacted_content"}))


def native(message: Any) -> dict:
    """An AIMessage in LangChain's own serialization, ``message_to_dict`` (``{"type": "ai", "data": ...}``)."""
    from langchain_core.messages import message_to_dict

    return message_to_dict(message)


def sent(message: Any, model_id: str) -> list:
    """The message as langchain-aws sends it back to ``model_id``: its own ``_messages_to_bedrock`` (the Converse
    messages; releases before the model-aware one take the messages alone). It is handed a copy: the formatter edits
    what it is given (it strips the trailing whitespace of a last assistant message's text in place), and this message
    is the one the history keeps."""
    import copy
    import inspect

    from langchain_aws.chat_models.bedrock_converse import _messages_to_bedrock

    takes_model = "model_id" in inspect.signature(_messages_to_bedrock).parameters
    return _messages_to_bedrock([copy.deepcopy(message)], **({"model_id": model_id} if takes_model else {}))[0]


def dump(messages: list) -> tuple[str, bytes]:
    """The history as a LangGraph checkpointer stores its ``messages`` channel: the saver's own serializer's
    ``dumps_typed`` of the list (``InMemorySaver().serde``, the ``JsonPlusSerializer`` every saver defaults to;
    ``InMemorySaver.put`` stores each channel value so)."""
    return _serializer().dumps_typed(messages)


def load(stored: tuple[str, bytes]) -> list:
    """The history back from its stored form, as the saver restores a channel: ``serde.loads_typed``."""
    return _serializer().loads_typed(stored)


def _serializer() -> Any:
    from langgraph.checkpoint.memory import InMemorySaver

    return InMemorySaver().serde


def anthropic_message(message: Any) -> list[dict]:
    """The AIMessage's content blocks in order, each ``tool_use`` with the name and args of its ``tool_calls`` entry
    (langchain-aws sends those: ``_upsert_tool_calls_to_bedrock_content``), then the calls without a content block
    (appended the same way)."""
    calls = {call.get("id"): call for call in message.tool_calls}
    content = message.content
    blocks = [_anthropic(block, calls) for block in ([content] if isinstance(content, str) else content)]
    seen = {block.get("id") for block in blocks if block.get("type") == "tool_use"}
    return blocks + [{"type": "tool_use", "id": cid, "name": call["name"], "input": call["args"]}
                     for cid, call in calls.items() if cid not in seen]


def _anthropic(block: Any, calls: dict) -> dict:
    if isinstance(block, str):
        return {"type": "text", "text": block}
    kind = block.get("type")
    if kind == "text" and "text" in block:
        return {"type": "text", "text": block["text"]}
    if kind == "reasoning_content" and _plain(block.get("reasoning_content")):
        return _reasoning(block["reasoning_content"])
    if kind == "tool_use" and block.get("id") in calls:
        call = calls[block["id"]]
        return {"type": "tool_use", "id": block["id"], "name": call["name"], "input": call["args"]}
    return dict(block)  # anything else (a tool_use without its call: the input as held) as LangChain holds it


def _plain(reasoning: Any) -> bool:
    """A reasoning dict of exactly the fields langchain-aws writes (anything else is passed on whole)."""
    return isinstance(reasoning, dict) and frozenset(reasoning) in _REASONING


def _reasoning(reasoning: dict) -> dict:
    if "redacted_content" in reasoning:
        return {"type": "redacted_thinking", "data": base64.b64encode(bytes(reasoning["redacted_content"])).decode()}
    return {"type": "thinking", **({"thinking": reasoning["text"]} if "text" in reasoning else {}),
            **({"signature": reasoning["signature"]} if "signature" in reasoning else {})}
