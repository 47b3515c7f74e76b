"""What a secret looks like: the token formats the scan knows (harness.cassettes.secrets), the decoding of base64
and hex runs it reads through, and the masked sample a finding or a log line shows instead of the secret.

What counts: AWS access key ids, session tokens (``IQoJ``/``FwoG`` and the legacy ``FQoG``/``AQoD``), a bare
40-character secret access key, Bedrock API keys (long- and short-term), SigV4 signatures, real account ids in
ARNs, the values of the AWS credential variables in the environment, and the common tokens of other services:
bearer tokens, OpenAI, Anthropic, GitHub, GitLab, Slack, Stripe, Google, Hugging Face and npm keys, JSON web tokens
and PEM private keys. Our own table, not ``detect-secrets``: its regex plugins know 7 of these 18 formats (no AWS
secret key without a keyword beside it, no session token, Bedrock key, bearer token, current OpenAI or Anthropic
key, fine-grained GitHub token, Google, Hugging Face or npm token), its entropy and keyword plugins flag every
reasoning signature, and it reads five times slower per line.
"""

from __future__ import annotations

import base64
import binascii
import functools
import html
import json
import re
from typing import Iterator
from urllib.parse import unquote_to_bytes

from harness.cassettes import limits

__all__ = ["MAX_RUN_BYTES", "decoded_runs", "env_secrets", "is_base64_run", "masked", "matches", "secret_spans",
           "unescaped"]

# Each names a format its issuer documents, by its fixed prefix; none needs a boundary before it, so a key glued
# after other letters is found too. Its needles: literal text every match of it holds (a JSON web token's second
# part, ``.eyJ``: the base64 of every JSON object starts ``eyJ``, a token's parts are joined by dots, so ``eyJ``
# alone would be in every base64 text of JSON). Bearer tokens count from 20 characters (``Bearer SCRUBBED`` is what scrubbing
# leaves), project-scoped OpenAI keys from 40 (``desk-proj-`` in a sentence is no key). Each pattern runs only on
# data holding one of its literal needles (a bytes search): most values hold none, and one regex per format (or
# one alternation of them all) costs more than the whole rest of the scan.
_PATTERNS = (
    ("AWS access key id", (b"A3T", b"AKIA", b"ASIA", b"ABIA", b"ACCA"),
     rb"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"),
    ("AWS session token", (b"FwoG", b"IQoJ", b"FQoG", b"AQoD"), rb"(?:FwoG|IQoJ|FQoG|AQoD)[A-Za-z0-9+/=]{20,}"),
    ("Bedrock API key", (b"ABSK", b"bedrock-api-key-"), rb"(?:ABSK|bedrock-api-key-)[A-Za-z0-9+/=]{20,}"),
    ("SigV4 signature", (b"Signature=",), rb"Signature=[0-9a-f]{64}"),
    ("AWS account id", (b"arn:aws",), rb"arn:aws[a-z-]*:[a-z0-9-]*:[a-z0-9-]*:(?!111111111111)\d{12}(?!\d)"),
    ("bearer token", (b"earer", b"EARER"), rb"[Bb][Ee][Aa][Rr][Ee][Rr][ \t]+[A-Za-z0-9._~+/-]{20,}=*"),
    ("OpenAI API key", (b"sk-",), rb"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|sk-[A-Za-z0-9]{20}T3BlbkFJ"),
    ("Anthropic API key", (b"sk-ant-",), rb"sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{32,}"),
    ("GitHub token", (b"gh", b"github_pat_"), rb"gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{50,}"),
    ("GitLab token", (b"glpat-",), rb"glpat-[A-Za-z0-9_-]{20}"),
    ("Slack token", (b"xox",), rb"xox[abposr]-[0-9A-Za-z-]{10,}"),
    ("Stripe key", (b"k_live_",), rb"[rs]k_live_[0-9A-Za-z]{20,}"),
    ("Google API key", (b"AIza",), rb"AIza[0-9A-Za-z_-]{35}"),
    ("Hugging Face token", (b"hf_",), rb"hf_[A-Za-z0-9]{30,}"),
    ("npm token", (b"npm_",), rb"npm_[A-Za-z0-9]{36}"),
    ("JSON web token", (b".eyJ",), rb"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ("private key", (b"PRIVATE KEY-----",), rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"
                                            rb"(?:[\s\S]{0,8192}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)?"),
)
_COMPILED = tuple((kind, needles, re.compile(pattern)) for kind, needles, pattern in _PATTERNS)


def _shadows() -> dict[bytes, frozenset[int]]:
    """Per needle, the formats (their index in _COMPILED) to search when one search for every needle at once finds it:
    its own, and those of every needle it could hide from that search, which resumes after each find: one inside it
    (or starting where it starts), or one beginning inside it and ending past it."""
    kinds = [(needle, n) for n, (_, needles, _) in enumerate(_COMPILED) for needle in needles]
    return {found: frozenset(n for other, n in kinds if other == found or other in found or any(
        found[k:] == other[: len(found) - k] for k in range(1, len(found)))) for found, _ in kinds}


_SHADOWS = _shadows()
# Every needle in one search, the longest first where two start alike: C finds them in a fifth of the time the
# needles take one by one, in text that holds none or a few.
_NEEDLES = re.compile(b"|".join(re.escape(n) for n in sorted(_SHADOWS, key=len, reverse=True)))
# A secret access key: a run of exactly 40 characters of base64's alphabet, with upper and lower case letters and a
# digit (hex digests have no capitals; base64 blobs are longer, so no run inside one is bounded like this). A ``=``
# may follow (``key=`` pairs): no base64 text of 40 characters ends in padding.
_SECRET_KEY = re.compile(rb"[A-Za-z0-9+/]{40,}")  # every maximal run; one of exactly 40 is the key (see matches)
_CLASSES = (re.compile(rb"[A-Z]"), re.compile(rb"[a-z]"), re.compile(rb"[0-9]"))
_ENV_SECRETS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK")
_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX_RUN = re.compile(rb"(?<![0-9a-fA-F])[0-9a-fA-F]{32,}(?![0-9a-fA-F])")  # no repeated group: sre stacks those
# Hex bytes with a separator (a space, colon, comma or dash) or a 0x / \x before each, 16 or more: ``41 4b 49 41``,
# ``41:4b``, ``0x41,0x4b``, ``\x41\x4b`` (what a hex dump or a byte-array literal shows).
_HEX_SPACED = re.compile(rb"(?:(?:0x|\\x)?[0-9a-fA-F]{2}(?:, ?|[ :-]|(?=\\x|0x))){15,}(?:0x|\\x)?[0-9a-fA-F]{2}"
                         rb"(?![0-9a-fA-F])")
_HEX_DIGITS = re.compile(rb"(?:0x|\\x)?([0-9a-fA-F]{2})")
# What the two hex patterns need before they can match, found in C on the text with every hex digit made an ``h``
# (each search is a tenth of the pattern's own over base64 text or JSON, where hex digits are everywhere and neither
# pattern matches): a run of 32 hex digits; and 15 hex pairs each followed by a separator, since every repetition of
# the spaced pattern is a pair ending in one of ", :-" or standing before the next one's 0x or \x.
_HEX_MARKS = bytes.maketrans(b"0123456789abcdefABCDEFh", b"h" * 22 + b".")
_HEX_32 = b"h" * 32
_PAIR_ENDS = (b"hh,", b"hh ", b"hh:", b"hh-", b"hhhx", b"hh\\x")  # "hhhx": a pair, then 0x (its 0 made an h)
_JSON_ESCAPE = re.compile(rb"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[/\\\"bfnrt])")
_HTML_ENTITY = re.compile(rb"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
MAX_RUN_BYTES = limits.MAX_BODY_BYTES  # a base64 or hex run longer than any body a reader accepts
_MIN_ENV_SECRET = 12  # shorter values (``testing``) are dummies, and would match everywhere
# No pattern above matches fewer bytes than this (the shortest: an environment value; tests/test_secrets.py checks
# every pattern's shortest match), nor is any run shorter than a base64 one decoded.
SHORTEST_MATCH = _MIN_ENV_SECRET
_SHORTEST_RUN = 16


def masked(secret: bytes) -> str:
    """A sample of a secret that does not give it away: its first four and last two characters."""
    text = secret.decode("ascii", "replace")
    return f"{text[:4]}…{text[-2:]}" if len(text) > 8 else "…"


def env_secrets(env) -> list[tuple[str, bytes]]:
    """(variable name, value) of each AWS credential variable in ``env`` long enough to be a real secret."""
    values = ((name, env.get(name) or "") for name in _ENV_SECRETS)
    return [(name, value.encode()) for name, value in values if len(value) >= _MIN_ENV_SECRET]


def _json_escape(match: re.Match) -> bytes:
    text = match.group(0)
    if text[1:2] in b"u":
        return json.loads(b'"' + text + b'"').encode("utf-8", "surrogatepass")  # a surrogate pair joins
    return json.loads(b'"' + text + b'"').encode() if text[1:2] in b"bfnrt" else text[1:]


def _html_entity(match: re.Match) -> bytes:
    return html.unescape(match.group(0).decode("ascii")).encode("utf-8", "surrogatepass")


def unescaped(data: bytes) -> bytes:
    """``data`` with JSON escapes (``\\u0041``, ``\\/``), HTML entities (``&#65;``, ``&#x41;``, ``&amp;``) and percent
    escapes (``%41``) undone, each kind once (a scan reads the result again, so an escape of an escape is undone
    too); line breaks stay where they were."""
    if b"\\" in data:
        data = _JSON_ESCAPE.sub(_json_escape, data)
    if b"&" in data:
        data = _HTML_ENTITY.sub(_html_entity, data)
    return unquote_to_bytes(data) if b"%" in data else data


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


_SHORT_RUN = 256  # runs this short are decoded once each (a stream repeats its event and content type in every frame)
_b64decode_short = functools.lru_cache(maxsize=4096)(_b64decode)


def _decoded(run: re.Match) -> bytes | None:
    """A base64 or hex run's decoded bytes; None when it does not decode to something else, or is longer than
    MAX_RUN_BYTES: such a run is read as it is but not decoded, since no reader takes a body that long (verify,
    import and serve refuse the file) and decoding it cost the scan of a 40 MB body minutes."""
    text = run.group(0)
    if len(text) > MAX_RUN_BYTES:
        return None
    if run.re is _HEX_RUN:
        return bytes.fromhex(text[: len(text) // 2 * 2].decode())
    decoded = (_b64decode_short if len(text) <= _SHORT_RUN else _b64decode)(text)
    return decoded if decoded != text else None


def _runs(data: bytes, known: set[str] | frozenset = frozenset()) -> Iterator[tuple[re.Match, str, bytes]]:
    """(run, "base64" or "hex", decoded bytes) of every run of ``data`` that decodes (``_decoded``), hex with
    separators too; a base64 run whose text is in ``known`` is left out."""
    if len(data) < _SHORTEST_RUN:
        return
    marked = data.translate(_HEX_MARKS)
    for pattern, how in ((_BASE64_RUN, "base64"), (_HEX_RUN, "hex")):
        if pattern is _HEX_RUN and _HEX_32 not in marked:
            continue
        for run in pattern.finditer(data):
            if run.end() - run.start() > MAX_RUN_BYTES:  # not decoded (``_decoded``): told before it is copied out
                continue
            if known and pattern is _BASE64_RUN and run.group(0).decode("ascii") in known:
                continue
            decoded = _decoded(run)
            if decoded:
                yield run, how, decoded
    spaced = len(data) >= 47 and sum(map(marked.count, _PAIR_ENDS)) >= 15
    for run in _HEX_SPACED.finditer(data) if spaced else ():
        if run.end() - run.start() <= MAX_RUN_BYTES:
            yield run, "hex", bytes.fromhex(b"".join(_HEX_DIGITS.findall(run.group(0))).decode())


def decoded_runs(data: bytes, known: set[str] | frozenset = frozenset()) -> Iterator[tuple[str, bytes]]:
    """("base64" or "hex", decoded bytes) of every run of ``data`` that decodes so (``_decoded``), but for a base64
    run whose text is in ``known`` (what the caller has decoded and read already: see ``is_base64_run``)."""
    return ((how, decoded) for _, how, decoded in _runs(data, known))


def is_base64_run(text: bytes) -> bool:
    """Whether ``text`` is one whole base64 run: ``decoded_runs`` of it gives exactly its own decoding as base64
    (and perhaps hex runs inside it), so what reads it has read any run of the same text."""
    return len(text) >= _SHORTEST_RUN and _BASE64_RUN.fullmatch(text) is not None


def _wrapped_tail(data: bytes, match: re.Match) -> bool:
    """Whether a 40-character run is the last line of base64 wrapped over lines (``!!binary |``), not a key."""
    start = data.rfind(b"\n", 0, match.start()) + 1
    if data[start : match.start()].strip() or not start:
        return False
    above = data[data.rfind(b"\n", 0, start - 1) + 1 : start].strip()
    return bool(re.fullmatch(rb"[A-Za-z0-9+/]{40,}", above)) and len(above) > len(match.group(0))


def _random(token: bytes) -> bool:
    """Whether a token mixes at least two of upper case, lower case and digits, as random ones do (placeholders
    such as ``Bearer test_aws_authorization`` do not)."""
    return sum(1 for c in _CLASSES if c.search(token)) >= 2


_NEEDLE_SEARCH = 1024  # past this many bytes, one `in` test per needle beats the alternation's scan (2x at 5 MB)


def _needles_in(data: bytes) -> set[bytes]:
    """Needles ``data`` holds: what one search for every needle at once finds (short data), or every needle it holds
    (long data), a superset, so the formats searched (their shadows) are the same or more."""
    if len(data) > _NEEDLE_SEARCH:
        return {needle for needle in _SHADOWS if needle in data}
    return set(_NEEDLES.findall(data))


def matches(data: bytes, env) -> Iterator[tuple[int, str, bytes]]:
    """(offset, kind, value) of every secret in ``data`` as it is."""
    if len(data) < SHORTEST_MATCH:  # a stream's short deltas, event types: most values of a big recording
        return
    found = _needles_in(data)
    searched = frozenset().union(*map(_SHADOWS.__getitem__, found)) if found else ()
    for n, (kind, _, pattern) in enumerate(_COMPILED):
        if n not in searched:  # none of its needles is in data
            continue
        for m in pattern.finditer(data):
            if kind != "bearer token" or _random(m.group(0)[7:]):
                yield m.start(), kind, m.group(0)
    yield from ((m.start(), "AWS secret access key", m.group(0)) for m in _SECRET_KEY.finditer(data)
                if m.end() - m.start() == 40
                if all(c.search(m.group(0)) for c in _CLASSES) and not _wrapped_tail(data, m))
    for name, value in env:
        at = data.find(value)
        if at >= 0:
            yield at, f"the value of ${name}", b""


def secret_spans(data: bytes, env) -> list[tuple[int, int]]:
    """Where ``data`` holds a secret: each match, each value of ``env``, and each base64 or hex run whose decoding
    holds one; sorted, overlapping spans merged."""
    spans = [(at, at + len(value)) for at, _, value in matches(data, env) if value]
    spans += [(m.start(), m.end()) for _, value in env for m in re.finditer(re.escape(value), data)]
    spans += [run.span() for run, _, decoded in _runs(data) if next(matches(decoded, env), None)]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
