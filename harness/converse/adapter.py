"""The reference adapters: ``reference`` (ConverseStream) and ``reference-invoke`` (InvokeModelWithResponseStream).

Each runs stateless (the caller hands it the whole history every turn) or, made with ``conversation=True``
(registered as ``reference-conversation`` and ``reference-invoke-conversation``), in conversation mode: it
declares ``own_history``, keeps the history itself and sends back the assistant message it assembled.
``reference`` also declares ``non_streaming``: a turn that asks for it (``turn["non_streaming"]``, set by the
harness's replay) goes through ``converse`` too, on the same request, and closes with the message assembled from
each call (``native`` chunks), which the harness holds equal.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import boto3
from botocore import UNSIGNED
from botocore.config import Config
from botocore.exceptions import ClientError, ConnectionError, HTTPClientError

from harness.version import __version__
from harness.converse.conversation import Conversation, assemble_message
from harness.converse.invoke import build_invoke_request, chunks_from_invoke_events
from harness.converse.request import build_request, converse_twin, streams_tool_use
from harness.converse.stream import (
    chunks_from_events,
    chunks_from_response,
    error_chunk,
)

__all__ = ["NON_STREAMING", "OWN_HISTORY", "ConverseAdapter", "InvokeAdapter", "conversation_reference",
           "conversation_reference_invoke", "make_client", "native_chunk"]

# Failures before the stream starts that an application sees as an error chunk (Bedrock's 4xx/5xx after
# retries, a dropped connection); a botocore ParamValidationError is a bug and still raises.
PRE_STREAM_ERRORS = (ClientError, HTTPClientError, ConnectionError)
_LOCK = threading.Lock()
KEPT_CLIENTS = 4
OWN_HISTORY = "own_history"  # the capability of conversation mode (harness.judge.protocol.OWN_HISTORY)
NON_STREAMING = "non_streaming"  # each turn through both calls (harness.judge.protocol.NON_STREAMING)
# How a request is served, and what the service reports of it (harness.judge.protocol.SERVED): ConverseStream's.
SERVED = frozenset({"service_tier", "guardrail", "response_fields", "response_metadata"})


@functools.cache
def _session() -> boto3.session.Session:
    """One shared session: loading the service model once makes each client ~10x cheaper."""
    return boto3.session.Session()


def make_client(endpoint: dict | None = None, *, max_attempts: int = 3, validate: bool = True) -> Any:
    """A ``bedrock-runtime`` client for an endpoint dict; absent keys fall back to boto3's defaults (real AWS). An
    endpoint that says ``"unsigned": True`` reads no signature (a replay's loopback): the requests go unsigned.
    ``validate=False``: botocore does not check the parameters against the service model before sending them (for
    a request it checked already)."""
    endpoint = endpoint or {}
    retries = {"mode": "standard", "total_max_attempts": max_attempts}
    signing = {"signature_version": UNSIGNED} if endpoint.get("unsigned") else {}
    config = Config(retries=retries, connect_timeout=10, read_timeout=120, parameter_validation=validate, **signing)
    with _LOCK:  # creating clients from one session is not thread-safe; using them is
        return _session().client(
            "bedrock-runtime", endpoint_url=endpoint.get("endpoint_url"), region_name=endpoint.get("region"),
            aws_access_key_id=endpoint.get("aws_access_key_id"),
            aws_secret_access_key=endpoint.get("aws_secret_access_key"),
            aws_session_token=endpoint.get("aws_session_token"), config=config)


class _BedrockAdapter:
    """Client handling shared by both adapters: one client per endpoint, or the one the caller gave."""

    name = "?"
    version = __version__
    # Every feature of the protocol (harness.judge.protocol.FEATURES; a test holds them equal): this is the full
    # implementation. Spelled out because the reference imports nothing of the harness but wire helpers.
    capabilities = frozenset({
        "text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature", "redacted_reasoning", "usage",
        "cache_usage", "stop_reason", "round_trip", "errors", "streaming",
    })
    SURFACE = frozenset({"cache_points", "cache_details", "structured_output", "tool_result_media",
                         "citations"})  # harness.judge.protocol's SURFACE_FEATURES

    def __init__(self, client: Any = None, *, max_attempts: int = 3, conversation: bool = False):
        self._client, self._max_attempts, self._clients = client, max_attempts, {}
        self.conversation = Conversation() if conversation else None
        if conversation:
            self.name, self.capabilities = f"{type(self).name}-conversation", self.capabilities | {OWN_HISTORY}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} {self.version}>"

    def client(self, endpoint: dict | None, max_attempts: int | None = None, validate: bool = True) -> Any:
        """The client for ``endpoint`` (and ``max_attempts``, default the adapter's; ``validate``: make_client's),
        created once; only the last few clients are kept."""
        if self._client is not None:
            return self._client
        attempts = self._max_attempts if max_attempts is None else max_attempts
        key = (tuple(sorted((endpoint or {}).items())), attempts, validate)
        if key not in self._clients:
            # A run moves from endpoint to endpoint (a loopback server per scenario): keeping every client
            # would keep every pooled connection, and memory would grow with the number of scenarios.
            while len(self._clients) >= KEPT_CLIENTS:
                self._clients.pop(next(iter(self._clients)))
            self._clients[key] = make_client(endpoint, max_attempts=attempts, validate=validate)
        return self._clients[key]

    def stream(self, turn: dict, endpoint: dict | None = None) -> Iterator[dict]:
        """Stream chunks for one turn; in conversation mode ``turn`` holds only the new messages."""
        yield from self._converse_on(turn, lambda full: self._stream(full, endpoint))

    def assemble(self, chunks: list[dict]) -> dict:
        """The assistant message this adapter sends back in conversation mode (its own assembly)."""
        return assemble_message(chunks)

    def _stream(self, turn: dict, endpoint: dict | None) -> Iterator[dict]:
        raise NotImplementedError

    def _converse_on(self, turn: dict, send: Callable[[dict], Iterable[dict]]) -> Iterator[dict]:
        """``send(turn)`` as it is (stateless), or with the conversation's whole history (conversation mode)."""
        if self.conversation is None:
            return iter(send(turn))
        return self.conversation.stream(turn, send, self.assemble)

    def _run(self, call: Callable[..., dict], request: dict, member: str | None,
             to_chunks: Callable[[Any], Iterable[dict]]) -> Iterator[dict]:
        try:
            response = call(**request)
        except PRE_STREAM_ERRORS as exc:
            yield error_chunk(exc)
            return
        body = response[member] if member else response
        try:
            yield from to_chunks(body)
        finally:
            if member:
                body.close()


class ConverseAdapter(_BedrockAdapter):
    """The reference implementation over ConverseStream (and non-streaming Converse)."""

    name = "reference"
    capabilities = _BedrockAdapter.capabilities | _BedrockAdapter.SURFACE | {NON_STREAMING} | SERVED

    def _stream(self, turn: dict, endpoint: dict | None) -> Iterator[dict]:
        """Chunks for one whole-history turn through ``converse_stream``; when the turn asks, then the message
        assembled from it and from ``converse`` on the same request (``native`` chunks: streaming parity)."""
        request, streamed = build_request(turn), []
        for chunk in self._run(*self.calls(request, endpoint, chunks_from_events, chunks_from_response)):
            streamed.append(chunk)
            yield chunk
        if not turn.get("non_streaming"):
            return
        yield native_chunk("stream", streamed)
        # A model whose tools go through Converse alone (rule 38) answered the one call both paths make.
        whole = (self._whole(converse_twin(request), endpoint, chunks_from_response) if streams_tool_use(request)
                 else streamed)
        yield native_chunk("converse", whole)

    def calls(self, request: dict, endpoint: dict | None, stream_chunks: Callable, whole_chunks: Callable) -> tuple:
        """``_run``'s call, request, member and chunker: ``converse_stream``, or ``converse`` for a model that refuses
        tool use in streaming mode (Writer Palmyra, rule 38), whose tool calls Bedrock serves only there (with
        Converse's own guardrail config)."""
        if streams_tool_use(request):
            return self.client(endpoint).converse_stream, request, "stream", stream_chunks
        return self.client(endpoint).converse, converse_twin(request), None, whole_chunks

    def _whole(self, request: dict, endpoint: dict | None, to_chunks: Callable[[Any], Iterable[dict]]) -> list[dict]:
        """The chunks of ``converse`` on the same request; what it raises is its closing error chunk."""
        try:
            # One attempt: the second call checks what the first built; retrying a throttled twin adds only sleeps.
            # Not validated again: botocore checked this request before the stream's call went out (a request it
            # refuses raises there, and no twin is sent), and Converse's input shape is ConverseStream's but for
            # the guardrail member converse_twin rewrites (tests/test_converse_adapter.py holds them equal).
            return list(self._run(self._twin_client(endpoint).converse, request, None, to_chunks))
        except Exception as exc:  # noqa: BLE001 - the twin's failure is its outcome, compared with the stream's
            return [error_chunk(exc)]

    def _twin_client(self, endpoint: dict | None) -> Any:
        """The twin's client: one attempt, no parameter check; a subclass's own ``client`` (a wrapped or a fake
        one) is asked as before, for one attempt."""
        if type(self).client is not _BedrockAdapter.client:
            return self.client(endpoint, max_attempts=1)
        return self.client(endpoint, max_attempts=1, validate=False)

    def converse(self, turn: dict, endpoint: dict | None = None) -> Iterator[dict]:
        """Chunks through non-streaming ``converse`` that normalize like ``stream``'s: whole blocks, ``input`` not deltas."""
        yield from self._converse_on(turn, lambda full: self._converse(full, endpoint))

    def _converse(self, turn: dict, endpoint: dict | None) -> Iterator[dict]:
        request = converse_twin(build_request(turn))
        yield from self._run(self.client(endpoint).converse, request, None, chunks_from_response)


class InvokeAdapter(_BedrockAdapter):
    """The reference implementation over InvokeModelWithResponseStream (Anthropic Messages bodies)."""

    name = "reference-invoke"
    # The surface features stay out: the Anthropic-native request is not judged, and its stream has no cacheDetails.

    def _stream(self, turn: dict, endpoint: dict | None) -> Iterator[dict]:
        """Chunks for one whole-history turn through ``invoke_model_with_response_stream``."""
        request = build_invoke_request(turn)
        yield from self._run(self.client(endpoint).invoke_model_with_response_stream, request, "body",
                             chunks_from_invoke_events)


def native_chunk(path: str, chunks: list[dict]) -> dict:
    """The message one call's chunks assemble into, or the error it ended in."""
    failed = next((chunk for chunk in chunks if chunk.get("type") == "error"), None)
    if failed is not None:
        return {"type": "native", "path": path, "error": f"{failed.get('code')}: {failed.get('message')}"}
    return {"type": "native", "path": path, "message": assemble_message(chunks)}


def conversation_reference() -> ConverseAdapter:
    """``reference-conversation``: the reference over ConverseStream in conversation mode."""
    return ConverseAdapter(conversation=True)


def conversation_reference_invoke() -> InvokeAdapter:
    """``reference-invoke-conversation``: the reference over InvokeModelWithResponseStream in conversation mode."""
    return InvokeAdapter(conversation=True)
