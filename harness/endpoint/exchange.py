"""What passes between the loopback server and its responders: the captured request, the planned reply, the
one-method ``Responder`` protocol, and Bedrock's error shape. Both ``server`` and ``responders`` import it, so
neither imports the other's internals (the server builds on the responders, never the reverse).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Protocol

__all__ = ["ERROR_TYPE_SUFFIX", "INVALID_MODEL", "KEPT_RAW_BYTES", "MALFORMED_INPUT", "MAX_BODY_BYTES", "MAX_JSON_DEPTH",
           "CapturedRequest", "Reply", "RequestError", "Responder", "error_reply", "too_large"]

ERROR_TYPE_SUFFIX = ":http://internal.amazon.com/coral/com.amazon.bedrock/"
MALFORMED_INPUT = "Malformed input request, please reformat your input and try again."
INVALID_MODEL = "The provided model identifier is invalid."
# Limits of one request (docs/recording/endpoint.md): room for several of Bedrock's largest images
# (3.75 MB) and documents (4.5 MB) base64-encoded in one body, and nesting deeper than any tool schema, while a
# hostile body costs bounded memory and stack.
MAX_BODY_BYTES = 64 * 1024 * 1024
MAX_JSON_DEPTH = 100
KEPT_RAW_BYTES = 4096  # of a malformed body, kept for the log and the checks; a parsed body keeps only its JSON


@dataclass
class CapturedRequest:
    """One incoming request as the adapter sent it, with what the session made of it."""

    method: str
    path: str
    operation: str  # ConverseStream | Converse | InvokeModelWithResponseStream | "" (not served)
    model_id: str  # percent-decoded
    headers: dict[str, str]
    body_json: Any  # parsed JSON body, None when absent or malformed
    raw_body: bytes = field(default=b"", repr=False)  # while answered; then only a malformed body's first bytes
    malformed: bool = False  # the body is not JSON, nested too deep, or its length is unreadable
    turn: int | None = None  # the turn this request was matched to (None: rejected before matching)
    status: int | None = None  # the HTTP status it was answered with
    problems: list = field(default_factory=list)  # rule problems Bedrock rejects for this model
    warnings: list = field(default_factory=list)  # rule problems no evidence settles for this model (served)
    notes: list = field(default_factory=list)  # problems the cassette shows Bedrock accepting (served as recorded)

    def release(self) -> None:
        """Drop the raw bytes once the request is answered (a recording responder reads them until then): a parsed
        body lives on as its JSON, a malformed one as its first KEPT_RAW_BYTES, for the log and the checks."""
        self.raw_body = self.raw_body[:KEPT_RAW_BYTES] if self.malformed else b""


@dataclass
class Reply:
    """A planned answer: status and headers, then event-stream frames or a JSON body."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    frames: list[bytes] | None = None
    body: bytes = b""
    offsets: list[float] | None = None  # recorded seconds from the response start to each frame
    stream: Iterable[bytes] | None = field(default=None, repr=False)  # body bytes as they arrive (a forwarded
    # upstream stream): written as chunked HTTP piece by piece, never buffered, no delivery faults

    @classmethod
    def json(cls, document: Any, status: int = 200, headers: dict | None = None) -> Reply:
        body = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        return cls(status, {"Content-Type": "application/json", **(headers or {})}, body=body)


class Responder(Protocol):
    """What a session answers: one reply per request routed to the session's current turn."""

    def respond(self, request: CapturedRequest) -> Reply: ...


class RequestError(Exception):
    """A request the session answers with a Bedrock error, without consuming the turn; ``detail`` is logged (as a
    warning; ``expected``: at INFO, an answer the session calls for itself, such as a failure the recording holds or a
    call that outlived its scenario)."""

    def __init__(self, status: int, type: str, message: str, detail: str = "", expected: bool = False):
        super().__init__(message)
        self.status, self.type, self.message, self.detail = status, type, message, detail or message
        self.expected = expected


def too_large(limit: int = MAX_BODY_BYTES) -> Reply:
    """HTTP 413 for a body over the limit (Bedrock's own text for this was never captured)."""
    return error_reply(413, "ValidationException", f"The request body is larger than the limit of {limit} bytes. "
                                                   "Reduce the size of the request and try again.")


def error_reply(status: int, type: str, message: str, **extra: Any) -> Reply:
    """Bedrock's error shape: ``x-amzn-ErrorType`` header and a ``{"message": ...}`` body."""
    return Reply.json({"message": message, **extra}, status, {"x-amzn-ErrorType": type + ERROR_TYPE_SUFFIX})
