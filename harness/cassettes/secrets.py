"""The secret scan: the fail-closed backstop behind scrubbing, for recordings and for any YAML/JSON file.

Two readings, so a secret has nowhere to hide. The parsed document: every value (``!!binary`` decoded), keyed by
its path. The raw text: YAML comments and mapping keys too, once as written, once with percent, JSON (``\\/``)
and ``\\u`` escapes undone, and once with line breaks and indentation removed (base64 wrapped at any width, a
plain scalar split across lines). In both, base64 and hex runs are decoded and scanned again. What counts:
AWS access key ids, session tokens (``IQoJ``/``FwoG`` and the legacy ``FQoG``/``AQoD``), a bare 40-character
secret access key, Bedrock API keys, SigV4 signatures, real account ids in ARNs, and the values of the AWS
credential variables in the environment. A value the user vouches for (``allowed``) is not reported.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator
from urllib.parse import unquote_to_bytes

import yaml

from harness.cassettes import limits

__all__ = ["Finding", "SecretFound", "refuse_request_secrets", "refuse_response_secrets", "scan", "scan_both",
           "scan_file", "scan_text"]

_PATTERNS = (
    ("AWS access key id", re.compile(rb"A(?<![A-Z0-9]A)(?:KIA|SIA)[A-Z0-9]{16}(?![A-Z0-9])")),
    ("AWS session token", re.compile(rb"(?:FwoG|IQoJ|FQoG|AQoD)[A-Za-z0-9+/=]{20,}")),
    ("Bedrock API key", re.compile(rb"ABSK[A-Za-z0-9+/=]{20,}")),
    ("SigV4 signature", re.compile(rb"Signature=[0-9a-f]{64}")),
    ("AWS account id", re.compile(rb"arn:aws[a-z-]*:[a-z0-9-]*:[a-z0-9-]*:(?!111111111111)\d{12}(?!\d)")),
)
# A secret access key: a run of exactly 40 characters of base64's alphabet, with upper and lower case letters and a
# digit (hex digests have no capitals; base64 blobs are longer, so no run inside one is bounded like this).
_SECRET_KEY = re.compile(rb"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])")
_CLASSES = (re.compile(rb"[A-Z]"), re.compile(rb"[a-z]"), re.compile(rb"[0-9]"))
_ENV_SECRETS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK")
_TOKEN_HEADERS = ("x-amz-security-token", "authorization")
_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX_RUN = re.compile(rb"(?<![0-9a-fA-F])[0-9a-fA-F]{32,}(?![0-9a-fA-F])")  # no repeated group: sre stacks those
_MAX_DEPTH = 4
_MIN_ENV_SECRET = 12  # shorter values (``testing``) are dummies, and would match everywhere
_JSON_ESCAPE = re.compile(rb"\\(?:u[0-9a-fA-F]{4}|[/\\\"bfnrt])")
_LINE_BREAK = re.compile(rb"[ \t]*\r?\n[ \t]*(?:#[ \t]*)?")


@dataclass(frozen=True)
class Finding:
    """One secret found: where (a key path or a line, plus how it was decoded), what kind, a masked sample."""

    location: str
    kind: str
    sample: str
    value: bytes = field(default=b"", repr=False, compare=False)  # the secret itself, for the allow-list only

    def __str__(self) -> str:
        return f"{self.location}: {self.kind}" + (f" {self.sample}" if self.sample else "")


class SecretFound(ValueError):
    """A recording still holds a secret; nothing was written."""

    def __init__(self, findings: list[Finding], where: str = "recording"):
        self.findings = findings
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        super().__init__(f"{where}: refusing to write, it holds a secret at {findings[0]}{more}; if that value is "
                         "no secret, allow it (`--allow-secret VALUE`)")


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


def _decoded_runs(data: bytes) -> Iterator[tuple[str, bytes]]:
    for run in _BASE64_RUN.finditer(data):
        decoded = _b64decode(run.group(0))
        if decoded and decoded != run.group(0):
            yield "base64", decoded
    for run in _HEX_RUN.finditer(data):
        text = run.group(0)
        yield "hex", bytes.fromhex(text[: len(text) // 2 * 2].decode())


def _wrapped_tail(data: bytes, match: re.Match) -> bool:
    """Whether a 40-character run is the last line of base64 wrapped over lines (``!!binary |``), not a key."""
    start = data.rfind(b"\n", 0, match.start()) + 1
    if data[start : match.start()].strip() or not start:
        return False
    above = data[data.rfind(b"\n", 0, start - 1) + 1 : start].strip()
    return bool(re.fullmatch(rb"[A-Za-z0-9+/]{40,}", above)) and len(above) > len(match.group(0))


def _matches(data: bytes, env) -> Iterator[tuple[int, str, bytes]]:
    """(offset, kind, value) of every secret in ``data`` as it is."""
    for kind, pattern in _PATTERNS:
        yield from ((m.start(), kind, m.group(0)) for m in pattern.finditer(data))
    yield from ((m.start(), "AWS secret access key", m.group(0)) for m in _SECRET_KEY.finditer(data)
                if all(c.search(m.group(0)) for c in _CLASSES) and not _wrapped_tail(data, m))
    for name, value in env:
        at = data.find(value)
        if at >= 0:
            yield at, f"the value of ${name}", b""


def _scan_bytes(data: bytes, location: str, env, depth: int = 0) -> Iterator[Finding]:
    for _, kind, value in _matches(data, env):
        yield Finding(location, kind, _mask(value) if value else "", value)
    if depth < _MAX_DEPTH:
        for how, decoded in _decoded_runs(data):
            yield from _scan_bytes(decoded, f"{location} ({how}-decoded)", env, depth + 1)


def _token_header(key: str, value: Any, location: str) -> Iterator[Finding]:
    text = value.decode("utf-8", "replace") if isinstance(value, (bytes, bytearray)) else str(value)
    token = text.strip().split(" ", 1)[-1] if text.strip().lower().startswith("bearer ") else text.strip()
    if key.lower() in _TOKEN_HEADERS and re.fullmatch(r"[A-Za-z0-9+/=_-]{40,}", token):
        yield Finding(location, f"token in {key}", _mask(token.encode()), token.encode())


def _walk(document: Any) -> Iterator[tuple[str, str, Any]]:
    """(location, key, leaf) for every scalar in a parsed YAML/JSON document; a collection shared through YAML
    aliases is walked once, so an alias bomb costs what its text does."""
    seen: set[int] = set()
    stack = [(document, "", "")]
    while stack:
        value, location, key = stack.pop()
        if isinstance(value, (dict, list)):
            if id(value) in seen:
                continue
            seen.add(id(value))
            items = value.items() if isinstance(value, dict) else enumerate(value)
            children = [(item, f"{location}.{k}" if location else str(k), str(k)) if isinstance(value, dict)
                        else (item, f"{location}[{k}]", key) for k, item in items]
            stack.extend(reversed(children))
        elif isinstance(value, (str, bytes, bytearray)):
            yield location, key, value


def _allowed(findings: Iterable[Finding], allowed: Iterable[str | bytes]) -> list[Finding]:
    vouched = {a.encode() if isinstance(a, str) else bytes(a) for a in allowed}
    return list(dict.fromkeys(f for f in findings if not (f.value and f.value in vouched)))


def scan(document: Any, environ=None, allowed: Iterable[str | bytes] = ()) -> list[Finding]:
    """Every secret in a parsed YAML/JSON document (``!!binary``, base64 and hex decoded first)."""
    env = _env_secrets(os.environ if environ is None else environ)
    findings: list[Finding] = []
    for location, key, leaf in _walk(document):
        data = leaf if isinstance(leaf, (bytes, bytearray)) else leaf.encode("utf-8", "surrogatepass")
        findings.extend(_token_header(key, leaf, location or "document"))
        findings.extend(_scan_bytes(bytes(data), location or "document", env))
    return _allowed(findings, allowed)


def _unescaped(data: bytes) -> bytes:
    """Percent, JSON (``\\/``, ``\\"``) and ``\\uXXXX`` escapes undone (line breaks stay where they were)."""
    def json_escape(match: re.Match) -> bytes:
        text = match.group(0)
        if text[1:2] == b"u":
            return chr(int(text[2:], 16)).encode("utf-8", "surrogatepass")
        return json.loads(b'"' + text + b'"').encode() if text[1:2] in b"bfnrt" else text[1:]
    return unquote_to_bytes(_JSON_ESCAPE.sub(json_escape, data))


def _unwrapped(data: bytes) -> tuple[bytes, list[int]]:
    """The text with every line break, the indentation around it and a comment marker after it removed, and
    where each original line starts in that text."""
    starts, out, at = [], [], 0
    for line in _LINE_BREAK.split(data):
        starts.append(at)
        out.append(line)
        at += len(line)
    return b"".join(out), starts


def scan_text(data: bytes, environ=None, allowed: Iterable[str | bytes] = ()) -> list[Finding]:
    """Every secret in raw text (comments and keys included): as written, unescaped, and unwrapped."""
    env = _env_secrets(os.environ if environ is None else environ)
    findings: list[Finding] = []
    for how, text in (("", data), (", unescaped", _unescaped(data))):
        lines = [0] + [m.end() for m in re.finditer(rb"\n", text)]
        for at, kind, value in _matches(text, env):
            findings.append(Finding(f"line {bisect.bisect(lines, at)}{how}", kind, _mask(value) if value else "", value))
    joined, starts = _unwrapped(_unescaped(data))
    for at, kind, value in _matches(joined, env):
        findings.append(Finding(f"line {bisect.bisect(starts, at)} (lines joined)", kind,
                                _mask(value) if value else "", value))
    for how, decoded in _decoded_runs(joined):
        findings.extend(_scan_bytes(decoded, f"raw text ({how}-decoded)", env, 1))
    return _allowed(findings, allowed)


def _merged(parsed: list[Finding], raw: list[Finding]) -> list[Finding]:
    """The parsed document's findings (named by key path), then what only the raw text showed."""
    known = {(f.kind, f.value) for f in parsed}
    extra = {}
    for finding in raw:
        extra.setdefault((finding.kind, finding.value), finding)
    return parsed + [f for k, f in extra.items() if k not in known]


def scan_both(document: Any, text: bytes, environ=None, allowed: Iterable[str | bytes] = ()) -> list[Finding]:
    """The secrets of a parsed document (named by key path), then those only its raw ``text`` shows."""
    parsed = scan(document, environ, allowed) if document is not None else []
    return _merged(parsed, scan_text(text, environ, allowed))


def scan_file(path: Path, environ=None, allowed: Iterable[str | bytes] = ()) -> list[Finding]:
    """Every secret in a YAML/JSON file (gzip too): its parsed values, and its raw text (see the module)."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = limits.gunzip(data)
    try:
        document = limits.load_yaml(data.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError, limits.LimitError):
        document = None  # the raw text still reads every byte
    return scan_both(document, data, environ, allowed)


def _json_or_bytes(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return body


def refuse_request_secrets(request, allowed: Iterable[str | bytes] = ()):
    """A vcrpy hook: raises SecretFound when a request still holds a credential after scrubbing."""
    body = request.body if isinstance(request.body, bytes) else str(request.body or "").encode()
    findings = scan({"uri": request.uri, "headers": dict(request.headers), "body": _json_or_bytes(body)},
                    allowed=allowed)
    findings = _merged(findings, [_named(f, "body") for f in scan_text(body, allowed=allowed)])
    if findings:
        raise SecretFound(findings, "recorded request")
    return request


def refuse_response_secrets(response: dict, allowed: Iterable[str | bytes] = ()):
    """A vcrpy hook: raises SecretFound when a response still holds a credential after scrubbing."""
    findings = scan({"headers": response.get("headers"), "body": (response.get("body") or {}).get("string")},
                    allowed=allowed)
    if findings:
        raise SecretFound(findings, "recorded response")
    return response


def _named(finding: Finding, where: str) -> Finding:
    return Finding(f"{where} {finding.location}", finding.kind, finding.sample, finding.value)
