"""What the pydantic-ai shims report of pydantic-ai's own objects: the assembled ``ModelResponse`` in Anthropic format
(the ``message`` chunk), in pydantic-ai's serialization (the ``native`` chunks), and stored and restored as
pydantic-ai documents it (the ``pydantic-ai-persisted`` variant).

Nothing is repaired: a tool call's input is ``ToolCallPart.args`` as the part holds it (the stream's JSON text stays
text, for the harness to judge; pydantic-ai converts it only when it sends it, ``args_as_dict()``), empty text stays,
and a part of a kind the mapping does not know is passed on with all its fields. Server-side (native) tool parts ran inside Bedrock and have no client block: they are left out.
"""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

from harness.adapters.shims.common import jsonable

__all__ = ["DIFFERENCES", "VOCABULARY", "REDACTED", "anthropic_parts", "dump", "load", "native"]

REDACTED = ("redacted_content", "redacted_thinking")  # ThinkingPart.id of redacted reasoning (signature: the blob)
# Where the ModelResponse from the stream and the one from the non-streamed request legitimately differ, from
# pydantic-ai's documentation and code (listed in certification/pydantic-ai.md).
# The library's own types that cannot hold what a declared judgement asks (harness.judge.grade), read in
# pydantic-ai-slim (ToolCallPart since 0.0.x; its BaseToolCallPart in 2.x).
VOCABULARY = {"arguments-as-object": "pydantic_ai.messages.ToolCallPart.args: str | dict[str, Any] | None"}
DIFFERENCES = {
    "timestamp": "ModelResponse.timestamp: 'the timestamp when the response was received locally', one per call",
    "parts[*].timestamp": "NativeToolReturnPart.timestamp: when pydantic-ai built the part, one per call",
    "provider_response_id": "the request id of each HTTP response (_process_response and the streamed response read "
                            "it from botocore's ResponseMetadata.RequestId)",
    "parts[*].args as json-text": "ToolCallPart.args is 'stored either as a JSON string or a Python dictionary depending on how "
                     "data was received' (the stream's text, Converse's object); args_as_dict() reads both, and it is "
                     "what BedrockConverseModel._map_tool_call sends",
}


def native(response: Any) -> dict:
    """A ModelResponse as pydantic-ai serializes messages (``ModelMessagesTypeAdapter``, JSON mode)."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    if response is None:
        raise ValueError("the stream ended without a response")
    return ModelMessagesTypeAdapter.dump_python([response], mode="json")[0]


def dump(messages: list) -> str:
    """The history as pydantic-ai's docs store it: ``ModelMessagesTypeAdapter.dump_json(messages)``."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return ModelMessagesTypeAdapter.dump_json(messages).decode()


def load(text: str) -> list:
    """The history back from its stored form: ``ModelMessagesTypeAdapter.validate_json(text)``."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return ModelMessagesTypeAdapter.validate_json(text)


def anthropic_parts(response: Any) -> list[dict]:
    """The response's parts in order as Anthropic blocks; server-side (native) tool parts are left out."""
    return [block for block in map(_anthropic, response.parts) if block is not None]


def _anthropic(part: Any) -> dict | None:
    from pydantic_ai.messages import TextPart, ThinkingPart, ToolCallPart

    if type(part) is TextPart:
        return {"type": "text", "text": part.content}
    if type(part) is ThinkingPart and part.id in REDACTED:
        data = None if part.signature is None else base64.b64encode(part.signature.encode()).decode()
        return {"type": "redacted_thinking", "data": data}
    if type(part) is ThinkingPart:
        return {"type": "thinking", "thinking": part.content, **({} if part.signature is None else
                                                                 {"signature": part.signature})}
    if type(part) is ToolCallPart:
        return {"type": "tool_use", "id": part.tool_call_id, "name": part.tool_name, "input": part.args}
    if "Native" in type(part).__name__ or "Builtin" in type(part).__name__:
        return None  # ran inside Bedrock (NativeToolCallPart / NativeToolReturnPart; Builtin* before 1.44)
    return _as_serialized(part)


def _as_serialized(part: Any) -> dict:
    """A part of another kind with all its fields (parts are dataclasses), its ``part_kind`` as the block type."""
    return {"type": getattr(part, "part_kind", type(part).__name__), **jsonable(dataclasses.asdict(part))}
