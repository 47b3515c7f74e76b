"""Record and replay Bedrock calls through vcrpy + boto3, in the readable cassette format.

Plain vcrpy (``offline_credentials``: dummy AWS keys when none are configured; the pytest plugin gives a whole
session the same)::

    from harness.cassettes.vcr import make_vcr, offline_credentials
    with offline_credentials(), make_vcr().use_cassette("cassettes/chat.yaml"):
        client = boto3.client("bedrock-runtime")
        client.converse_stream(...)

pytest-recording (the plugin registers the serializer, persister and matchers)::

    @pytest.fixture(scope="module")
    def vcr_config():
        return harness.cassettes.vcr.vcr_config()

Replay is offline by default (record mode ``none``); a misspelled record mode raises ``ValueError``.
Requests match on method, path (``%3A`` and ``:`` alike) and the JSON body (key order and volatile
fields ignored). Scrubbing runs on record, on load and on match; a recording holding a secret is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable
from urllib.parse import unquote, urlparse

import vcr
from vcr.persisters.filesystem import CassetteNotFoundError, FilesystemPersister
from vcr.request import Request
from vcr.serialize import serialize as vcr_serialize

from harness.cassettes import cassette, limits

from harness.cassettes import scrub
from harness.cassettes.cassette import Cassette, Interaction
from harness.cassettes.match import VOLATILE_BODY_FIELDS, difference, same_body, semantic_body
from harness.cassettes.offline import offline_credentials

__all__ = [
    "SERIALIZER",
    "MATCH_ON",
    "VOLATILE_BODY_FIELDS",
    "Serializer",
    "Persister",
    "from_http",
    "to_http",
    "path_matcher",
    "body_matcher",
    "same_body",
    "register",
    "vcr_config",
    "make_vcr",
    "offline_credentials",
    "use_cassette",
]

SERIALIZER = "bedrock"
MATCH_ON = ("method", "bedrock_path", "bedrock_body")
_FRAMING_HEADERS = ("content-length", "transfer-encoding")  # derived from the body on every replay


def _values(value: Any) -> list[str]:
    items = value if isinstance(value, (list, tuple)) else [value]
    return [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in items]


def _headers(headers: dict | None, single: bool) -> dict:
    """Header values as str (one value stays a plain string), without the framing headers, sorted by name.

    Sorted because vcrpy collects a response's headers through a set: their order changes from run to run.
    """
    out = {}
    for name, value in sorted((headers or {}).items(), key=lambda item: item[0].lower()):
        values = _values(value)
        if name.lower() not in _FRAMING_HEADERS and values:
            out[name] = values[0] if single or len(values) == 1 else values
    return out


def _is_stream(status: int, headers: dict, uri: str) -> bool:
    content_type = next((str(v) for k, v in headers.items() if k.lower() == "content-type"), "")
    if content_type:
        return content_type.startswith(cassette.EVENTSTREAM)
    return status < 300 and cassette.operation_of(uri) in cassette.STREAM_OPERATIONS


def _bytes(value: Any) -> bytes:
    return b"" if value is None else value if isinstance(value, bytes) else str(value).encode()


def from_http(request: dict, response: dict) -> Interaction:
    """An Interaction from vcrpy's request/response dicts, scrubbed (idempotently) on the way in."""
    headers = _headers(request.get("headers"), True)
    req = Request(request["method"], request["uri"], _bytes(request.get("body")), headers)
    req, resp = scrub.scrub_request(req), scrub.scrub_response(response)
    status, headers = int(resp["status"]["code"]), _headers(resp.get("headers"), False)
    body = _bytes((resp.get("body") or {}).get("string"))
    frames = cassette.frames_from_body(body) if _is_stream(status, headers, req.uri) else None
    return Interaction(req.method, req.uri, _headers(dict(req.headers), True), _bytes(req.body), status,
                       str(resp["status"].get("message") or ""), headers, frames, b"" if frames is not None else body)


def to_http(it: Interaction) -> tuple[dict, dict]:
    """vcrpy's request/response dicts; Content-Length fits the re-encoded body, no Transfer-Encoding."""
    body = it.response_body()
    headers = {k: _values(v) for k, v in it.response_headers.items() if k.lower() not in _FRAMING_HEADERS}
    headers["Content-Length"] = [str(len(body))]
    request = {"method": it.method, "uri": it.uri, "body": it.request_body or None,
               "headers": {k: _values(v) for k, v in it.request_headers.items()}}
    return request, {"status": {"code": it.status, "message": it.reason}, "headers": headers, "body": {"string": body}}


class Serializer:
    """vcrpy serializer (registered as "bedrock"): vcrpy's cassette dict <-> the readable YAML."""

    def __init__(self, source: str | None = None, allowed_secrets: Iterable[str] = ()):
        self.source = source  # live | emulator | imported; None infers it from the host
        self.allowed_secrets = tuple(allowed_secrets)  # secret-shaped values the user vouches for

    def serialize(self, data: dict) -> str:
        interactions = tuple(from_http(i["request"], i["response"]) for i in data["interactions"])
        metadata = cassette.metadata_for(interactions, data.get("metadata"), self.source)
        return cassette.dumps(Cassette(None, metadata, interactions), self.allowed_secrets)

    def deserialize(self, text: str) -> dict:
        loaded = cassette.loads(text)
        pairs = [to_http(it) for it in loaded.interactions]
        return {"version": 1, "interactions": [{"request": q, "response": r} for q, r in pairs],
                "metadata": loaded.metadata}


def _present(path: str) -> bool:
    """vcrpy treats a missing or empty cassette file as "not recorded yet" (one past the size limit is there, and
    loading it says so)."""
    if not Path(path).is_file():
        return False
    try:
        return bool(limits.read_file(path).strip())
    except limits.LimitError:
        return True


class Persister:
    """vcrpy persister: atomic writes; an unreadable bedrock cassette fails loudly naming the file."""

    def __init__(self, inner=FilesystemPersister):
        self.inner = inner  # e.g. pytest-recording's CombinedPersister, whose extra cassettes are loaded too

    def load_cassette(self, cassette_path, serializer):
        if not isinstance(serializer, Serializer):
            return self.inner.load_cassette(cassette_path, serializer)
        paths = dict.fromkeys(str(p) for p in [cassette_path, *getattr(self.inner, "extra_paths", ())])
        loaded = [cassette.load(p) for p in paths if _present(p)]
        if not loaded:
            raise CassetteNotFoundError(cassette_path)
        pairs = [to_http(it) for c in loaded for it in c.interactions]
        return [Request(**q) for q, _ in pairs], [r for _, r in pairs], loaded[0].metadata

    def save_cassette(self, cassette_path, cassette_dict, serializer):
        try:
            text = vcr_serialize(cassette_dict, serializer)
        except scrub.SecretFound as err:
            raise scrub.SecretFound(err.findings, str(cassette_path)) from None
        Path(cassette_path).parent.mkdir(parents=True, exist_ok=True)  # as vcrpy's own persister: the cassette dir
        cassette.write_atomic(Path(cassette_path), text)


def _scrubbed_path(request) -> str:
    return unquote(urlparse(scrub.scrub_uri_account_ids(request).uri).path)


def path_matcher(r1, r2) -> None:
    """vcrpy matcher: the same path once percent-encoding is undone (``%3A`` vs ``:`` in model ids)."""
    a, b = _scrubbed_path(r1), _scrubbed_path(r2)
    if a != b:
        raise AssertionError(f"path {a} != {b}")


def body_matcher(r1, r2) -> None:
    """vcrpy matcher: the same JSON body, ignoring key order and volatile fields (bytes when not JSON)."""
    a, b = semantic_body(_bytes(r1.body)), semantic_body(_bytes(r2.body))
    if a != b:
        raise AssertionError(difference(a, b))


def register(recorder: vcr.VCR, source: str | None = None, allowed_secrets: Iterable[str] = ()) -> vcr.VCR:
    """Teach a VCR the "bedrock" serializer, the matchers and the persister; returns it."""
    recorder.register_serializer(SERIALIZER, Serializer(source, allowed_secrets))
    recorder.register_matcher("bedrock_path", path_matcher)
    recorder.register_matcher("bedrock_body", body_matcher)
    if not isinstance(recorder.persister, Persister):
        recorder.register_persister(Persister(recorder.persister))
    return recorder


def _refusing(hook: Callable, allowed: tuple, refused: list | None) -> Callable:
    """``hook`` with the allow-list; each refusal is also kept in ``refused`` (the SDK may swallow the raise)."""
    def check(item):
        try:
            return hook(item, allowed)
        except scrub.SecretFound as err:
            if refused is not None:
                refused.append(err)
            raise
    return check


def vcr_config(allowed_secrets: Iterable[str] = (), refused: list | None = None, **overrides) -> dict:
    """VCR options for Bedrock cassettes (pytest-recording's ``vcr_config``); record mode left to the caller.

    ``allowed_secrets``: secret-shaped values the user vouches for; ``refused``: a list that collects every
    SecretFound the hooks raise (boto3 reports them only as a connection error)."""
    allowed = tuple(allowed_secrets)
    return {
        "serializer": SERIALIZER,
        "match_on": MATCH_ON,
        "before_record_request": (scrub.scrub_request, _refusing(scrub.refuse_request_secrets, allowed, refused)),
        "before_record_response": (scrub.scrub_response, _refusing(scrub.refuse_response_secrets, allowed, refused)),
        # A call that fails (a refused secret included) leaves no partial cassette behind; this also spares
        # vcrpy saving from __exit__, where a refused save would leave its patches in place.
        "record_on_exception": False,
        "path_transformer": vcr.VCR.ensure_suffix(".yaml"),
        **overrides,
    }


def make_vcr(record_mode: str = "none", cassette_dir=None, source: str | None = None,
             allowed_secrets: Iterable[str] = (), refused: list | None = None, **overrides) -> vcr.VCR:
    """A VCR for Bedrock cassettes; replay-only unless ``record_mode`` says otherwise (checked loudly)."""
    options = vcr_config(allowed_secrets, refused, record_mode=record_mode,
                         cassette_library_dir=cassette_dir and str(cassette_dir), **overrides)
    return register(vcr.VCR(**options), source, allowed_secrets)


def use_cassette(path, record_mode: str = "none", source: str | None = None, allowed_secrets: Iterable[str] = (),
                 refused: list | None = None, **overrides):
    """Record or replay every Bedrock call inside the ``with`` block in the cassette at ``path``."""
    return make_vcr(record_mode, source=source, allowed_secrets=allowed_secrets,
                    refused=refused).use_cassette(str(path), **overrides)
