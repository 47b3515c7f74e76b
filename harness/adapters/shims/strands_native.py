"""What the strands shims report of strands' own objects: the assembled ``Message`` in Anthropic format (the
``message`` chunk), as strands' session store serializes it (the ``native`` chunks), and stored and restored as
strands' session managers do it (the ``strands-persisted`` variant).

Nothing is repaired: a block of more than one kind, or a reasoning block holding more than strands writes
(``reasoningText`` with ``text`` / ``signature``, or ``redactedContent``), is passed on as strands holds it, a
``toolUse`` input stays what strands holds (text stays text), and empty text stays.
"""

from __future__ import annotations

import base64
import json
from typing import Any

__all__ = ["DIFFERENCES", "anthropic_blocks", "dump", "load", "native"]

# Where the message strands assembles from ConverseStream and the one from Converse may differ: none. Both paths end
# in the same process_stream (BedrockModel._stream hands converse's response to convert_non_streaming_to_streaming),
# so every difference is a finding.
DIFFERENCES: dict[str, str] = {}
_TEXT = (frozenset({"text"}), frozenset({"signature"}), frozenset({"text", "signature"}))


def native(message: dict | None) -> Any:
    """A strands ``Message`` as its session store writes it (``encode_bytes_values``: bytes as base64 objects)."""
    from strands.types.session import encode_bytes_values

    if message is None:
        raise ValueError("stream_messages ended without a message")
    return encode_bytes_values(message)


SESSION, AGENT = "harness", "agent"  # the ids of the one session and agent the store holds


def dump(messages: list) -> str:
    """The history as strands' session managers store it: each ``SessionMessage.from_message(m, i).to_dict()``."""
    from strands.types.session import SessionMessage

    return json.dumps([SessionMessage.from_message(m, i).to_dict() for i, m in enumerate(messages)],
                      ensure_ascii=False)


def load(text: str) -> list:
    """The history back as strands' ``FileSessionManager`` restores an agent: each stored message written to its
    session folder (``create_message``), read back (``list_messages``), ``to_message()``, then the manager's own
    ``_fix_broken_tool_use`` of the restored list (``RepositorySessionManager.initialize`` repairs every restored
    history so)."""
    import tempfile

    from strands.session.file_session_manager import FileSessionManager
    from strands.types.session import SessionAgent, SessionMessage

    with tempfile.TemporaryDirectory(prefix="strands-session-") as folder:
        manager = FileSessionManager(session_id=SESSION, storage_dir=folder)
        manager.create_agent(SESSION, SessionAgent.from_dict({"agent_id": AGENT, "state": {},
                                                              "conversation_manager_state": {}}))
        for stored in json.loads(text):
            manager.create_message(SESSION, AGENT, SessionMessage.from_dict(stored))
        restored = [message.to_message() for message in manager.list_messages(SESSION, AGENT)]
        return manager._fix_broken_tool_use(restored)


def anthropic_blocks(content: list[dict]) -> list[dict]:
    """Converse-shaped content blocks as Anthropic blocks; one strands has no counterpart for stays as it is."""
    return [_anthropic(block) for block in content]


def _anthropic(block: dict) -> dict:
    if set(block) == {"text"}:
        return {"type": "text", "text": block["text"]}
    if set(block) == {"toolUse"} and isinstance(block["toolUse"], dict):
        return _tool_use(block["toolUse"])
    cited = block.get("citationsContent") if set(block) == {"citationsContent"} else None
    if isinstance(cited, dict) and set(cited) == {"citations", "content"} and all(
            isinstance(part, dict) and set(part) == {"text"} for part in cited["content"]):
        return {"type": "text", "text": "".join(part["text"] for part in cited["content"]),
                "citations": cited["citations"]}
    reasoning = block.get("reasoningContent") if set(block) == {"reasoningContent"} else None
    if isinstance(reasoning, dict) and set(reasoning) == {"redactedContent"}:
        return {"type": "redacted_thinking", "data": base64.b64encode(reasoning["redactedContent"]).decode()}
    text = reasoning.get("reasoningText") if isinstance(reasoning, dict) and set(reasoning) == {"reasoningText"} else None
    if isinstance(text, dict) and frozenset(text) in _TEXT:
        return {"type": "thinking", **({"thinking": text["text"]} if "text" in text else {}),
                **({"signature": text["signature"]} if "signature" in text else {})}
    return dict(block)


def _tool_use(use: dict) -> dict:
    """A toolUse as a tool_use block, each field strands holds under its Anthropic name (none made up)."""
    names = {"toolUseId": "id", "name": "name", "input": "input"}
    return {"type": "tool_use", **{names.get(key, key): value for key, value in use.items()}}
