"""The secret scan: the fail-closed backstop behind scrubbing, for recordings and for any YAML/JSON file.

Two readings, so a secret has nowhere to hide. The parsed document: every value (``!!binary`` decoded), keyed by
its path, and what a client reads of it (harness.cassettes.views: a stream's deltas and a message's blocks
joined, bodies decoded by their Content-Encoding, every gzip member, UTF-16). The raw text: YAML comments and
mapping keys too, once as written, once with percent, JSON (``\\/``) and ``\\u`` escapes undone, and once with line
breaks and indentation removed (base64 wrapped at any width, a plain scalar split across lines). In both, base64
and hex runs are decoded, compressed bytes decompressed, and scanned again, within one decompression budget per
scan: past it, the scan reports what it could not read instead of passing it. What counts is in
harness.cassettes.tokens. A value the user vouches for (``allowed``) is not reported.
"""

from __future__ import annotations

import bisect
import json
from array import array
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Iterator

from harness.cassettes import limits, parsed, tokens, views

__all__ = ["Finding", "SecretFound", "refuse_request_secrets", "refuse_response_secrets", "scan", "scan_both",
           "scan_data", "scan_file", "scan_text"]

_TOKEN_HEADERS = ("x-amz-security-token", "authorization")
_MAX_DEPTH = 4
_MEMO_BYTES, _MEMO_VALUES = 256, 200_000  # values this short are scanned once each, up to this many (~50 MB)


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


@dataclass
class _Memo:
    """What a file's scan remembers of short values: (value, depth) -> what it held, for a value seen twice; the
    hash of the key of one seen once (the memo does not keep the value and its findings until it repeats)."""

    found: dict = field(default_factory=dict)
    once: set = field(default_factory=set)
    runs: set = field(default_factory=set)  # the document's values that are one whole base64 run, each read


class _Scanner:
    """One scan: the secrets of the environment, and the decompression budget its readings share."""

    def __init__(self, environ, memo: "_Memo | None" = None):
        self.env = tokens.env_secrets(os.environ if environ is None else environ)
        self.budget = views.Budget()
        self.memo = _Memo() if memo is None else memo  # shared by a file's two passes

    def data(self, data: bytes, location: str, depth: int = 0) -> Iterator[Finding]:
        """Every secret in ``data``, as it is, in each reading of it, and in its base64 and hex runs decoded; a short
        value seen twice is scanned at most twice per file however often it repeats (a stream's event types, a
        padding the raw-text pass decodes again). A value seen once costs the memo the hash of its key, not the
        value and its findings: most values of a big stream (each frame's base64 text) are seen once."""
        key, memo = (data, depth), self.memo
        if len(data) > _MEMO_BYTES or (key not in memo.found and len(memo.found) >= _MEMO_VALUES):
            yield from self._data(data, location, depth)
            return
        if key not in memo.found:
            if hash(key) not in memo.once:  # a first sighting (or a hash collision): scanned, not memoized
                if len(memo.once) < _MEMO_VALUES:
                    memo.once.add(hash(key))
                yield from self._data(data, location, depth)
                return
            memo.found[key] = tuple(self._data(data, "", depth))
        yield from (replace(f, location=location + f.location) for f in memo.found[key])

    def _data(self, data: bytes, location: str, depth: int) -> Iterator[Finding]:
        for _, kind, value in tokens.matches(data, self.env):
            yield Finding(location, kind, tokens.masked(value) if value else "", value)
        plain = tokens.unescaped(data) if depth < _MAX_DEPTH else data
        if plain != data:  # JSON, HTML or percent escapes: read as what they stand for
            yield from self.data(plain, f"{location} (unescaped)", depth + 1)
        if depth < _MAX_DEPTH:
            yield from self.readings(views.readings(data, self.budget), location, depth)
            for how, decoded in tokens.decoded_runs(data):
                yield from self.data(decoded, f"{location} ({how}-decoded)", depth + 1)

    def readings(self, found: Iterable[tuple[str, Any]], location: str, depth: int) -> Iterator[Finding]:
        """The secrets of each (how, reading); a reading past the budget is a finding (fail closed)."""
        for how, view in found:
            if isinstance(view, limits.LimitError):
                yield Finding(f"{location} ({how})", f"cannot be scanned: {view}", "")
            else:
                data = view if isinstance(view, bytes) else view.encode("utf-8", "surrogatepass")
                yield from self.data(data, f"{location} ({how})", depth + 1)
                yield from self.json(data, f"{location} ({how})", depth + 1)

    def json(self, data: bytes, location: str, depth: int) -> Iterator[Finding]:
        """A reading that is JSON (a decompressed Converse answer) read as a client reads its parts: joined."""
        parsed = _json_or_bytes(data) if depth < _MAX_DEPTH and data.lstrip()[:1] in (b"{", b"[") else None
        for where, _, value in _walk(parsed) if isinstance(parsed, (dict, list)) else ():
            if isinstance(value, (dict, list)):
                yield from self.readings(views.joined(value, self.budget), f"{location} {where}".rstrip(), depth)


def _token_header(key: str, value: Any, location: str) -> Iterator[Finding]:
    text = value.decode("utf-8", "replace") if isinstance(value, (bytes, bytearray)) else str(value)
    token = text.strip().split(" ", 1)[-1] if text.strip().lower().startswith("bearer ") else text.strip()
    if key.lower() in _TOKEN_HEADERS and re.fullmatch(r"[A-Za-z0-9+/=_-]{40,}", token):
        yield Finding(location, f"token in {key}", tokens.masked(token.encode()), token.encode())


def _walk(document: Any) -> Iterator[tuple[str, str, Any]]:
    """(location, key, value) for every collection and scalar in a parsed YAML/JSON document; a collection shared
    through YAML aliases is walked once, so an alias bomb costs what its text does."""
    seen: set[int] = set()
    stack = [iter([(document, "", "")])]
    while stack:
        child = next(stack[-1], None)
        if child is None:  # that collection has no more
            stack.pop()
            continue
        value, location, key = child
        if isinstance(value, (dict, list)):
            if id(value) in seen:
                continue
            seen.add(id(value))
            yield location, key, value
            stack.append(_children(value, location, key))
        elif isinstance(value, (str, bytes, bytearray)):
            yield location, key, value


def _children(value: dict | list, location: str, key: str) -> Iterator[tuple[Any, str, str]]:
    """(child, its location, its key) of a collection, one at a time: a stream of 100,000 frames is not listed."""
    if isinstance(value, dict):
        return ((item, f"{location}.{k}" if location else str(k), str(k)) for k, item in value.items())
    return ((item, f"{location}[{n}]", key) for n, item in enumerate(value))


def _allowed(findings: Iterable[Finding], allowed: Iterable[str | bytes]) -> list[Finding]:
    vouched = {a.encode() if isinstance(a, str) else bytes(a) for a in allowed}
    return list(dict.fromkeys(f for f in findings if not (f.value and f.value in vouched)))


def scan(document: Any, environ=None, allowed: Iterable[str | bytes] = ()) -> list[Finding]:
    """Every secret in a parsed YAML/JSON document (``!!binary``, base64 and hex decoded, compressed bodies
    decompressed), and in what a client reads of it (harness.cassettes.views: streams assembled, blocks joined)."""
    return _allowed(_document(document, _Scanner(environ)), allowed)


def _document(document: Any, scanner: _Scanner) -> list[Finding]:
    direct: list[Finding] = []
    derived: list[Finding] = []
    for location, key, value in _walk(document):
        where = location or "document"
        if isinstance(value, (dict, list)):
            derived.extend(scanner.readings(views.joined(value, scanner.budget), where, 0))
            continue
        data = value if isinstance(value, (bytes, bytearray)) else value.encode("utf-8", "surrogatepass")
        found = list(scanner.data(bytes(data), where))
        if isinstance(value, str) and tokens.is_base64_run(data):
            scanner.memo.runs.add(value)  # its decoding was read just now (depth 1), as the raw text's would be
        direct.extend(found or _token_header(key, value, where))
    return _merged(direct, derived)


def _unescaped(data: bytes) -> bytes:
    """Percent, JSON and HTML escapes undone (harness.cassettes.tokens.unescaped)."""
    return tokens.unescaped(data)


def _line_breaks(data: bytes) -> Iterator[tuple[int, int]]:
    """The spans ``re.finditer(rb"[ \\t]*\\r?\\n[ \\t]*(?:#[ \\t]*)?", data)`` gives (a line break with the blanks
    around it and a comment marker after it), found from each newline: the regex, whose match may start anywhere,
    tries every position of a long line."""
    end, size = 0, len(data)
    at = data.find(b"\n")
    while at >= 0:
        start = at - 1 if at > end and data[at - 1] == 13 else at  # a \r before the \n
        while start > end and data[start - 1] in (9, 32):
            start -= 1
        stop = at + 1
        while stop < size and data[stop] in (9, 32):
            stop += 1
        if stop < size and data[stop] == 35:  # "#"
            stop += 1
            while stop < size and data[stop] in (9, 32):
                stop += 1
        yield start, stop
        end = stop
        at = data.find(b"\n", stop)


def _unwrapped(data: bytes) -> tuple[bytes, array]:
    """The text with every line break, the indentation around it and a comment marker after it removed, and
    where each original line starts in that text."""
    # Grown in one buffer, not joined from a list of the lines: a big file's list would be several times its size.
    out, starts, end = bytearray(), array("q", [0]), 0
    for start, stop in _line_breaks(data):
        out += data[end:start]
        end = stop
        starts.append(len(out))
    out += data[end:]
    return bytes(out), starts


def scan_text(data: bytes, environ=None, allowed: Iterable[str | bytes] = ()) -> list[Finding]:
    """Every secret in raw text (comments and keys included): as written, unescaped, unwrapped, and read as
    harness.cassettes.views reads bytes (a compressed file, an event stream)."""
    return _allowed(_text(data, _Scanner(environ)), allowed)


def _line_starts(text: bytes) -> array:
    """Where each line of ``text`` starts (8 bytes a line: a list of ints would hold 36)."""
    starts, at = array("q", [0]), text.find(b"\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find(b"\n", at + 1)
    return starts


def _text(data: bytes, scanner: _Scanner) -> list[Finding]:
    env = scanner.env
    findings: list[Finding] = []
    unescaped = _unescaped(data)
    for how, text in (("", data),) + (((", unescaped", unescaped),) if unescaped != data else ()):
        lines = _line_starts(text)
        for at, kind, value in tokens.matches(text, env):
            findings.append(Finding(f"line {bisect.bisect(lines, at)}{how}", kind, tokens.masked(value) if value else "", value))
    joined, starts = _unwrapped(unescaped)
    for at, kind, value in tokens.matches(joined, env):
        if kind == "bearer token":
            continue  # a bearer token is one word: joined, ``Bearer SCRUBBED`` and the next line's key would be one
        findings.append(Finding(f"line {bisect.bisect(starts, at)} (lines joined)", kind,
                                tokens.masked(value) if value else "", value))
    # A run that is the whole of a value the document's scan read decodes to the same bytes, read at the same
    # depth: its findings are the document's (which _merged keeps), so it is not decoded and read again.
    for how, decoded in tokens.decoded_runs(joined, scanner.memo.runs):
        findings.extend(scanner.data(decoded, f"raw text ({how}-decoded)", 1))
    findings.extend(scanner.readings(views.readings(data, scanner.budget), "raw text", 0))
    return findings


def _merged(parsed: list[Finding], raw: list[Finding]) -> list[Finding]:
    """The parsed document's findings (named by key path), then what only the raw text showed."""
    known = {(f.kind, f.value) for f in parsed}
    extra = {}
    for finding in raw:
        extra.setdefault((finding.kind, finding.value), finding)
    return parsed + [f for k, f in extra.items() if k not in known]


def scan_both(document: Any, text: bytes, environ=None, allowed: Iterable[str | bytes] = ()) -> list[Finding]:
    """The secrets of a parsed document (named by key path), then those only its raw ``text`` shows."""
    memo = _Memo()  # what the two passes share: short values scanned (each keeps its own budget)
    parsed = _document(document, _Scanner(environ, memo)) if document is not None else []
    return _allowed(_merged(parsed, _text(text, _Scanner(environ, memo))), allowed)


def scan_file(path: Path, environ=None, allowed: Iterable[str | bytes] = ()) -> list[Finding]:
    """Every secret in a YAML/JSON file (gzip, bz2, xz, UTF-16 and UTF-32 too): its parsed values, and its raw text
    (see the module); LimitError for what is no regular file, or past the file or decompression limits."""
    return scan_data(views.plain(limits.read_file(path)), environ, allowed)


def scan_data(data: bytes, environ=None, allowed: Iterable[str | bytes] = ()) -> list[Finding]:
    """``scan_file`` of a file's bytes already read (``views.plain``)."""
    try:
        document = parsed.load_yaml_bytes(data)  # the document scan's verify just parsed, when it did
    except (UnicodeDecodeError, limits.LimitError, *limits.yaml_errors()):
        document = _json_lines(data)  # decoded events, one per line (as `import` reads them); else the raw text
    return scan_both(document, data, environ, allowed)


def _json_lines(data: bytes) -> list | None:
    try:
        return [json.loads(line) for line in data.splitlines() if line.strip()]
    except (ValueError, RecursionError):
        return None


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
