"""What the suite drives: the adapter protocol, the capability vocabulary, and an adapter's own failures.

An adapter is any object with ``name``, ``version``, ``capabilities`` (a subset of ``CAPABILITIES``) and one
method, ``stream(turn, endpoint)``, yielding stream chunks (see docs/adapters/index.md, "Your own adapter"): the
chunk, turn and hello are defined by the JSON Schemas in harness/suite/schemas (harness.suite.contract validates
against them).

An exception an adapter raises is a finding about the scenario (the runner records it as a closing error
chunk), except ``AdapterFailure``: the adapter itself broke (a subprocess crashed, hung, wrote garbage or
broke the protocol), so the scenario's verdict is ``error`` (``AdapterSkip``: ``skip``) with that message.
Two capabilities are not features but declarations about the adapter: ``own_history`` (conversation mode: the
adapter keeps its conversation and sends the assistant message its library assembled; the docs, "Conversation
mode") and ``usage_input_includes_cache`` (its ``input_tokens`` count cache reads and writes, which Bedrock's
``inputTokens`` does not) and ``non_streaming`` (a turn carrying ``"non_streaming": true``, as the harness's replay
sends them, also runs through the library's non-streaming call on the same content, and the adapter reports the
message its library built on each path as a closing ``native`` chunk: ``{"type": "native", "path": "stream" | "converse", "message": ...}``, or ``"error"`` when that path
raised; the harness compares the two). ``FEATURES`` is everything else: what a full implementation does all of;
``SERVED`` are today's features of how a request is served (service tier, guardrail, response fields and metadata),
which the reference declares and a library declares where it has the API.
``harness.adapters`` re-exports all of these for adapter authors.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

__all__ = ["CAPABILITIES", "DECLARATIONS", "FEATURES", "NATIVE_PATHS", "NON_STREAMING", "OWN_HISTORY", "SERVED",
           "SURFACE_FEATURES", "TURN_TIMEOUT",
           "USAGE_INCLUDES_CACHE", "Adapter", "AdapterFailure", "AdapterSkip"]

TURN_TIMEOUT = 60.0  # seconds one turn of an adapter may take by default (--timeout, --bedrock-timeout)

FEATURES = frozenset({
    "text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature", "redacted_reasoning", "usage",
    "cache_usage", "stop_reason", "round_trip", "errors", "streaming",
})
# Today's surface that not every library reaches (issue 28): cache points placed where the turn asks (system, a
# message's block, a tool; TTL 5m or 1h), usage's cacheDetails per TTL surfaced, structured output (outputConfig's
# JSON schema, strict tools), images and documents in tool results sent back as their own blocks
# (tool_result_media), citation chunks surfaced and the cited answer sent back as citationsContent (citations). A
# scenario requiring one is skipped for an adapter without it; a shim declares one where it drives its library's API.
SURFACE_FEATURES = frozenset({"cache_points", "cache_details", "structured_output", "tool_result_media", "citations"})
FEATURES = FEATURES | SURFACE_FEATURES
# How a request is served and what the service reports of it (bedrock-wire.md §13): features a library has only where
# it has the API, so they are not in FEATURES (which every shim starts from); a scenario needing one requires it.
SERVED = frozenset({
    "service_tier",  # sends the options service_tier and latency (serviceTier, performanceConfig)
    "guardrail",  # sends the option guardrail (guardrailConfig, streamProcessingMode included)
    "response_fields",  # sends response_field_paths and surfaces messageStop's additionalModelResponseFields
    "response_metadata",  # surfaces metadata's invoked model, service tier and latency (a ``metadata`` chunk)
})
OWN_HISTORY = "own_history"  # conversation mode: turn N >= 1 carries only the new messages
USAGE_INCLUDES_CACHE = "usage_input_includes_cache"  # input_tokens include cache read + write tokens
NON_STREAMING = "non_streaming"  # each turn also through the library's non-streaming call: streaming parity
NATIVE_PATHS = ("stream", "converse")  # the ``path`` of a native chunk: which call built the message
DECLARATIONS = frozenset({OWN_HISTORY, USAGE_INCLUDES_CACHE, NON_STREAMING})
CAPABILITIES = FEATURES | SERVED | DECLARATIONS


class AdapterFailure(RuntimeError):
    """The adapter itself failed, not the scenario: the scenario's verdict is ``status`` with this message."""

    status = "error"


class AdapterSkip(AdapterFailure):
    """The adapter declined the scenario (a subprocess answered ``skip``), with its reason."""

    status = "skip"


@runtime_checkable
class Adapter(Protocol):
    """What the runner drives: identity, declared capabilities, and one streaming method."""

    name: str
    version: str
    capabilities: frozenset[str]

    def stream(self, turn: dict, endpoint: dict) -> Iterator[dict]:
        """Yield the stream chunks of one turn against ``endpoint``."""
        ...
