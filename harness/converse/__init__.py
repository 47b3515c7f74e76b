"""converse: the full implementation: the reference Bedrock adapter (ConverseStream, Converse, and the
Anthropic-native InvokeModelWithResponseStream path). An ordinary adapter: it imports nothing of the harness
but ``harness.version`` (and may use ``harness.wire`` helpers), so it runs in any application. It is built from
pure stages a test can drive one at a time:

    turn ──build_request──► boto3 kwargs ──converse_stream──► events ──chunks_from_events──► chunks
         (tools, history)                                     response ──chunks_from_response──► chunks
"""

from harness.converse.adapter import (
    ConverseAdapter,
    InvokeAdapter,
    conversation_reference,
    conversation_reference_invoke,
    make_client,
)
from harness.converse.conversation import Conversation, assemble_message, message_chunk
from harness.converse.errors import BedrockResponseError, TurnError
from harness.converse.history import canonical_messages, to_converse_messages
from harness.converse.invoke import (
    build_invoke_body,
    build_invoke_request,
    chunks_from_invoke_events,
)
from harness.converse.request import build_request
from harness.converse.stream import chunks_from_events, chunks_from_response
from harness.converse.tools import anthropic_tools, tool_config

__all__ = [
    "BedrockResponseError",
    "Conversation",
    "ConverseAdapter",
    "InvokeAdapter",
    "TurnError",
    "anthropic_tools",
    "assemble_message",
    "build_invoke_body",
    "build_invoke_request",
    "build_request",
    "canonical_messages",
    "chunks_from_events",
    "chunks_from_invoke_events",
    "chunks_from_response",
    "conversation_reference",
    "conversation_reference_invoke",
    "make_client",
    "message_chunk",
    "to_converse_messages",
    "tool_config",
]
