"""Scrub credentials and per-call noise from recordings (the scan behind them: harness.cassettes.secrets).

Scrubbers are small pure functions composed in tuples, each idempotent: vcrpy runs its before_record
hooks again on load and on every match. Request scrubbers take and return a ``vcr.request.Request``;
response scrubbers take and return vcrpy's response dict (``status``, ``headers``, ``body.string``).
The scan's names are re-exported here, beside the scrubbers the recorder hooks run before it: imported when first
asked for, so what only scrubs account ids (a replay's matcher, a log line) never compiles the scan's patterns.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from typing import TYPE_CHECKING, Any

from harness.wire import eventstream

if TYPE_CHECKING:  # re-exported at first use (__getattr__ below)
    from harness.cassettes.secrets import (
        Finding,
        SecretFound,
        refuse_request_secrets,
        refuse_response_secrets,
        scan,
        scan_data,
        scan_file,
        scan_text,
    )

__all__ = [
    "ACCOUNT_PLACEHOLDER",
    "REQUEST_SCRUBBERS",
    "RESPONSE_SCRUBBERS",
    "scrub_request",
    "scrub_response",
    "scrub_account_ids",
    "Finding",
    "SecretFound",
    "scan",
    "scan_data",
    "scan_file",
    "scan_text",
    "refuse_request_secrets",
    "refuse_response_secrets",
]

def __getattr__(name: str):
    if name in __all__:  # a name of __all__ not defined here is the scan's
        from harness.cassettes import secrets

        return getattr(secrets, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


ACCOUNT_PLACEHOLDER = "111111111111"
SCRUBBED = "SCRUBBED"
# An ARN's account field, with `:` raw or percent-encoded (model ids in URI paths are encoded).
_ARN_ACCOUNT = re.compile(r"(arn(?::|%3A)aws[a-z-]*(?::|%3A)[a-z0-9-]*(?::|%3A)[a-z0-9-]*(?::|%3A))\d{12}(?!\d)", re.I)
# A bare 12-digit path segment in a URI (`/`, `:` and their encodings delimit it).
_URI_ACCOUNT = re.compile(r"(/|:|%3A|%2F)\d{12}(?=/|:|%3A|%2F|$)", re.I)
_LOOPBACK_PORT = re.compile(r"^(https?://(?:127\.0\.0\.1|localhost|\[::1\])):\d+(?=/|$)")
_VOLATILE_REQUEST_HEADERS = ("X-Amz-Date", "amz-sdk-invocation-id", "amz-sdk-request", "User-Agent", "X-Amzn-Trace-Id")


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, (bytes, bytearray)) else str(value)


def scrub_account_ids(text: str) -> str:
    """12-digit account ids inside ARNs -> 111111111111."""
    return _ARN_ACCOUNT.sub(lambda m: m.group(1) + ACCOUNT_PLACEHOLDER, text)


def _without_headers(request, names):
    if not any(name in request.headers for name in names):
        return request  # vcrpy runs the scrubbers on every match: a copy only where one changes something
    request = copy.deepcopy(request)
    for name in names:
        if name in request.headers:
            del request.headers[name]
    return request


def scrub_authorization(request):
    """The SigV4 access key id, scope date and signature (or a bearer token) in ``Authorization``."""
    if "Authorization" not in request.headers:
        return request
    given = request.headers["Authorization"]
    value = _text(given)
    if value.startswith("AWS4-"):
        value = re.sub(r"Credential=[^/,\s]*", f"Credential={SCRUBBED}", value)
        value = re.sub(rf"(Credential={SCRUBBED}/)\d{{8}}(?=/)", rf"\g<1>{SCRUBBED}", value)
        value = re.sub(r"Signature=[^,\s]*", f"Signature={SCRUBBED}", value)
    else:
        value = f"Bearer {SCRUBBED}" if value.lower().startswith("bearer ") else SCRUBBED
    if value == given:
        return request  # scrubbed already (a loaded recording)
    request = copy.deepcopy(request)
    request.headers["Authorization"] = value
    return request


def drop_security_token(request):
    """``X-Amz-Security-Token``: the session token."""
    return _without_headers(request, ("X-Amz-Security-Token",))


def drop_volatile_request_headers(request):
    """``X-Amz-Date``, ``amz-sdk-invocation-id``, ``amz-sdk-request`` (retry counter), ``User-Agent``: per call."""
    return _without_headers(request, _VOLATILE_REQUEST_HEADERS)


def scrub_uri_account_ids(request):
    """12-digit account ids in the URI, e.g. in an inference-profile ARN model id -> 111111111111."""
    uri = _URI_ACCOUNT.sub(lambda m: m.group(1) + ACCOUNT_PLACEHOLDER, scrub_account_ids(request.uri))
    if uri == request.uri:
        return request
    request = copy.deepcopy(request)
    request.uri = uri
    return request


def scrub_body_account_ids(request):
    """12-digit account ids in ARNs inside the request body (e.g. JSON naming an inference profile)."""
    body = request.body
    if not isinstance(body, (bytes, str)) or not _ARN_ACCOUNT.search(_text(body)):
        return request
    request = copy.deepcopy(request)
    request.body = scrub_account_ids(_text(body)).encode()
    return request


def drop_loopback_port(request):
    """The port of a loopback endpoint (127.0.0.1, localhost): a free port, new on every run."""
    uri = _LOOPBACK_PORT.sub(r"\1", request.uri)
    if uri == request.uri:
        return request
    request = copy.deepcopy(request)
    request.uri = uri
    return request


REQUEST_SCRUBBERS = (
    scrub_authorization,
    drop_security_token,
    drop_volatile_request_headers,
    scrub_uri_account_ids,
    scrub_body_account_ids,
    drop_loopback_port,
)


def scrub_request(request):
    """Apply every request scrubber (a vcrpy ``before_record_request`` hook)."""
    for scrubber in REQUEST_SCRUBBERS:
        request = scrubber(request)
    return request


def drop_request_id(response: dict) -> dict:
    """``x-amzn-RequestId``: unique per call."""
    headers = response.get("headers") or {}
    kept = {k: v for k, v in headers.items() if k.lower() not in ("x-amzn-requestid", "x-amz-request-id")}
    return response if len(kept) == len(headers) else {**response, "headers": kept}


def _scrub_frame(frame: eventstream.Frame) -> eventstream.Frame:
    text = frame.payload.decode("utf-8", "replace")
    body = json.loads(text) if text.startswith("{") else None
    inner = body.get("bytes") if isinstance(body, dict) else None
    if isinstance(inner, str):  # InvokeModelWithResponseStream: the model's event is base64 inside
        decoded = base64.b64decode(inner).decode("utf-8", "replace")
        if _ARN_ACCOUNT.search(decoded):
            new = base64.b64encode(scrub_account_ids(decoded).encode()).decode()
            text = text.replace(inner, new)
    return eventstream.Frame(frame.headers, scrub_account_ids(text).encode())


def _scrub_stream(body: bytes) -> bytes:
    try:
        frames = eventstream.decode_frames(body)
        scrubbed = [_scrub_frame(f) for f in frames]
    except Exception:  # not a clean stream: leave it to the scan, which fails closed
        return body
    return body if scrubbed == frames else b"".join(f.encode() for f in scrubbed)


def _may_hold_account_id(raw: bytes) -> bool:
    """Whether a body may hold an ARN's account id: its case-folded bytes name ``arn:aws`` (or ``arn%3Aaws``, where
    ``_ARN_ACCOUNT`` starts), or it carries base64 (InvokeModel's ``bytes``), where one may hide. Substring searches:
    the regex over a body of megabytes costs a tenth of a second per 2 MB."""
    folded = raw.lower()
    return b"arn:aws" in folded or b"arn%3aaws" in folded or b'"bytes"' in raw


def scrub_response_account_ids(response: dict) -> dict:
    """12-digit account ids in ARNs in the response body, inside event-stream frames too."""
    body = (response.get("body") or {}).get("string")
    if not body:
        return response
    raw = body if isinstance(body, bytes) else str(body).encode()
    if not _may_hold_account_id(raw):
        return response  # as on most loads: vcrpy runs this on every interaction of a cassette it loads
    if raw[:1] == b"\x00":  # event stream: rewrite payloads, never the binary framing
        new = _scrub_stream(raw)
    else:
        new = scrub_account_ids(raw.decode("utf-8", "replace")).encode() if _ARN_ACCOUNT.search(_text(raw)) else raw
    return response if new == raw else {**response, "body": {**response["body"], "string": new}}


def drop_response_date(response: dict) -> dict:
    """``Date``: the time of the call (a live cassette's metadata says when it was recorded)."""
    headers = response.get("headers") or {}
    kept = {k: v for k, v in headers.items() if k.lower() != "date"}
    return response if len(kept) == len(headers) else {**response, "headers": kept}


RESPONSE_SCRUBBERS = (drop_request_id, drop_response_date, scrub_response_account_ids)


def scrub_response(response: dict) -> dict:
    """Apply every response scrubber (a vcrpy ``before_record_response`` hook)."""
    for scrubber in RESPONSE_SCRUBBERS:
        response = scrubber(response)
    return response
