"""Scrub credentials and per-call noise from recordings; scan anything for secrets that slipped through.

Scrubbers are small pure functions composed in tuples, each idempotent: vcrpy runs its before_record
hooks again on load and on every match. Request scrubbers take and return a ``vcr.request.Request``;
response scrubbers take and return vcrpy's response dict (``status``, ``headers``, ``body.string``).
The scan is the fail-closed backstop: it decodes ``!!binary`` values and base64 runs (also inside JSON
strings and event-stream frames) before matching, and a recording that still holds a secret is refused.
"""

from __future__ import annotations

import base64
import binascii
import copy
import gzip
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import yaml

from harness.wire import eventstream

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
    "scan_file",
    "refuse_request_secrets",
    "refuse_response_secrets",
]

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
    request = copy.deepcopy(request)
    for name in names:
        if name in request.headers:
            del request.headers[name]
    return request


def scrub_authorization(request):
    """The SigV4 access key id, scope date and signature (or a bearer token) in ``Authorization``."""
    if "Authorization" not in request.headers:
        return request
    request = copy.deepcopy(request)
    value = _text(request.headers["Authorization"])
    if value.startswith("AWS4-"):
        value = re.sub(r"Credential=[^/,\s]*", f"Credential={SCRUBBED}", value)
        value = re.sub(rf"(Credential={SCRUBBED}/)\d{{8}}(?=/)", rf"\g<1>{SCRUBBED}", value)
        value = re.sub(r"Signature=[^,\s]*", f"Signature={SCRUBBED}", value)
    else:
        value = f"Bearer {SCRUBBED}" if value.lower().startswith("bearer ") else SCRUBBED
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


def scrub_response_account_ids(response: dict) -> dict:
    """12-digit account ids in ARNs in the response body, inside event-stream frames too."""
    body = (response.get("body") or {}).get("string")
    if not body:
        return response
    raw = body if isinstance(body, bytes) else str(body).encode()
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


# ---------------------------------------------------------------------------------------------- scan

_PATTERNS = (
    ("AWS access key id", re.compile(rb"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])")),
    ("AWS session token", re.compile(rb"(?:FwoG|IQoJ)[A-Za-z0-9+/=]{20,}")),
    ("Bedrock API key", re.compile(rb"ABSK[A-Za-z0-9+/=]{20,}")),
    ("SigV4 signature", re.compile(rb"Signature=[0-9a-f]{64}")),
    ("AWS account id", re.compile(rb"arn:aws[a-z-]*:[a-z0-9-]*:[a-z0-9-]*:(?!111111111111)\d{12}(?!\d)")),
)
_ENV_SECRETS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK")
_TOKEN_HEADERS = ("x-amz-security-token", "authorization")
_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/_-]{16,}={0,2}")
_MAX_DEPTH = 4
_MIN_ENV_SECRET = 12  # shorter values (``testing``) are dummies, and would match everywhere


@dataclass(frozen=True)
class Finding:
    """One secret found: where (a key path, plus how it was decoded) and what kind."""

    location: str
    kind: str
    sample: str

    def __str__(self) -> str:
        return f"{self.location}: {self.kind}" + (f" {self.sample}" if self.sample else "")


class SecretFound(ValueError):
    """A recording still holds a secret; nothing was written."""

    def __init__(self, findings: list[Finding], where: str = "recording"):
        self.findings = findings
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        super().__init__(f"{where}: refusing to write, it holds a secret at {findings[0]}{more}")


def _mask(secret: bytes) -> str:
    text = secret.decode("ascii", "replace")
    return f"{text[:4]}…{text[-2:]}" if len(text) > 8 else "…"


def _env_secrets(env) -> list[tuple[str, bytes]]:
    values = ((name, env.get(name) or "") for name in _ENV_SECRETS)
    return [(name, value.encode()) for name, value in values if len(value) >= _MIN_ENV_SECRET]


def _b64decode(run: bytes) -> bytes | None:
    if run.endswith(b"="):  # padding pins the end, so drop stray leading characters (``id...`` glued on)
        run = run[len(run) % 4 :]
    core = run.rstrip(b"=")
    padded = core + b"=" * (-len(core) % 4)
    for decode in (lambda b: base64.b64decode(b, validate=True), base64.urlsafe_b64decode):
        try:
            return decode(padded)
        except (binascii.Error, ValueError):
            continue
    return None


def _scan_bytes(data: bytes, location: str, env, depth: int = 0) -> Iterator[Finding]:
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(data):
            yield Finding(location, kind, _mask(match.group(0)))
    for name, value in env:
        if value in data:
            yield Finding(location, f"the value of ${name}", "")
    if depth < _MAX_DEPTH:
        for run in _BASE64_RUN.finditer(data):
            decoded = _b64decode(run.group(0))
            if decoded and decoded != run.group(0):
                yield from _scan_bytes(decoded, f"{location} (base64-decoded)", env, depth + 1)


def _token_header(key: str, value: Any, location: str) -> Iterator[Finding]:
    text = _text(value).strip()
    token = text.split(" ", 1)[-1] if text.lower().startswith("bearer ") else text
    if key.lower() in _TOKEN_HEADERS and re.fullmatch(r"[A-Za-z0-9+/=_-]{40,}", token):
        yield Finding(location, f"token in {key}", _mask(token.encode()))


def _walk(value: Any, location: str) -> Iterator[tuple[str, str, Any]]:
    """(location, key, leaf) for every scalar in a parsed YAML/JSON document."""
    if isinstance(value, dict):
        for key, item in value.items():
            for loc, k, leaf in _walk(item, f"{location}.{key}" if location else str(key)):
                yield loc, k if k else str(key), leaf
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _walk(item, f"{location}[{n}]")
    elif isinstance(value, (str, bytes, bytearray)):
        yield location, "", value


def scan(document: Any, environ=None) -> list[Finding]:
    """Every secret in a parsed YAML/JSON document (``!!binary`` and base64 decoded first)."""
    env = _env_secrets(os.environ if environ is None else environ)
    findings: list[Finding] = []
    for location, key, leaf in _walk(document, ""):
        data = leaf if isinstance(leaf, (bytes, bytearray)) else leaf.encode("utf-8", "surrogatepass")
        findings.extend(_token_header(key, leaf, location or "document"))
        findings.extend(_scan_bytes(bytes(data), location or "document", env))
    return list(dict.fromkeys(findings))


def refuse_request_secrets(request):
    """A vcrpy hook: raises SecretFound when a request still holds a credential after scrubbing."""
    findings = scan({"uri": request.uri, "headers": dict(request.headers), "body": request.body or b""})
    if findings:
        raise SecretFound(findings, "recorded request")
    return request


def refuse_response_secrets(response: dict):
    """A vcrpy hook: raises SecretFound when a response still holds a credential after scrubbing."""
    findings = scan({"headers": response.get("headers"), "body": (response.get("body") or {}).get("string")})
    if findings:
        raise SecretFound(findings, "recorded response")
    return response


def scan_file(path: Path, environ=None) -> list[Finding]:
    """Every secret in a YAML/JSON file (gzip too); a file YAML cannot parse is scanned as raw bytes."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        document = yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        document = data
    return scan(document, environ)
