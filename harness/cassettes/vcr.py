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

The secret scan runs once per cassette content, not per request: a loaded file is scanned whole the first time
its bytes are seen (the verdict is kept by their sha256, the values vouched for and the credentials in the
environment: harness.cassettes.parsed), and its interactions are then vouched for; a recorded interaction is
scanned as vcrpy adds it, request and response together (vcrpy runs ``before_record_request`` on every match of a
replayed request too, where nothing is written, so the request's scan waits for the response hook, which vcrpy
runs only on what it adds). Whatever the hooks do, the serializer scans the whole cassette again before it is
written.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import unquote, urlparse

import vcr
from vcr.persisters.filesystem import CassetteNotFoundError, FilesystemPersister
from vcr.request import Request
from vcr.serialize import serialize as vcr_serialize

from harness.cassettes import cassette, limits, parsed, scrub, secrets, tokens
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
_KEPT_SCRUBS = 16  # scrubbed requests remembered per thread: the one being matched, and a cassette's loaded ones


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


class _Vouched(Request):
    """A request loaded from a cassette whose whole file was scanned clean (a copy keeps the class)."""


class _VouchedResponse(dict):
    """A response of such a cassette: the hooks scan neither it nor its request again."""


def _scan_kind(allowed: Iterable[str]) -> bytes:
    """The key of a secret-free verdict beside the file's bytes: what else the scan's answer depends on (the values
    vouched for and the AWS credentials in the environment, hashed with the rest of the key)."""
    digest = hashlib.sha256()
    for value in sorted({a.encode() if isinstance(a, str) else bytes(a) for a in allowed}):
        digest.update(b"allowed\0" + value + b"\0")
    for name, value in tokens.env_secrets(os.environ):
        digest.update(name.encode() + b"\0" + value + b"\0")
    return b"secret-free\0" + digest.digest()


def _interactions(path: str, allowed: tuple) -> tuple[list, dict]:
    """The vcrpy request and response dicts of the cassette at ``path``, and its metadata; SecretFound naming the
    file when it holds a secret. The first time these bytes are read they are scanned whole, and what was built
    from them is kept beside the secret-free verdict (harness.cassettes.parsed): a file read again is neither
    scanned nor parsed, its interactions are read back (``marshal``) as they were built."""
    data = cassette.read_bytes(path)
    kind = _scan_kind(allowed)
    kept = parsed.clean_form(data, kind)
    if kept is not None:
        return kept
    if not parsed.checked_clean(data, kind):  # a verdict without a form: a cache that could not hold the form
        findings = secrets.scan_data(data, allowed=allowed)
        if findings:
            raise secrets.SecretFound(findings, path)
    loaded = cassette.from_bytes(data, path)
    form = [to_http(it) for it in loaded.interactions], loaded.metadata
    parsed.mark_clean(data, form, kind)
    return form


class Persister:
    """vcrpy persister: atomic writes; an unreadable bedrock cassette fails loudly naming the file; a loaded one is
    scanned for secrets once per content (see the module) and its interactions vouched for."""

    def __init__(self, inner=FilesystemPersister):
        self.inner = inner  # e.g. pytest-recording's CombinedPersister, whose extra cassettes are loaded too

    def load_cassette(self, cassette_path, serializer):
        if not isinstance(serializer, Serializer):
            return self.inner.load_cassette(cassette_path, serializer)
        paths = dict.fromkeys(str(p) for p in [cassette_path, *getattr(self.inner, "extra_paths", ())])
        loaded = [_interactions(path, serializer.allowed_secrets) for path in filter(_present, paths)]
        if not loaded:
            raise CassetteNotFoundError(cassette_path)
        pairs = [pair for found, _ in loaded for pair in found]
        return [_Vouched(**q) for q, _ in pairs], [_VouchedResponse(r) for _, r in pairs], loaded[0][1]

    def save_cassette(self, cassette_path, cassette_dict, serializer):
        try:
            text = vcr_serialize(cassette_dict, serializer)
        except scrub.SecretFound as err:
            raise scrub.SecretFound(err.findings, str(cassette_path)) from None
        Path(cassette_path).parent.mkdir(parents=True, exist_ok=True)  # as vcrpy's own persister: the cassette dir
        cassette.write_atomic(Path(cassette_path), text)


def _scrubbed_path(request) -> str:
    return _path_of(request.uri)


@functools.lru_cache(maxsize=256)
def _path_of(uri: str) -> str:
    """A URI's path as matched, once per URI: vcrpy matches each replayed request against every recorded one."""
    return unquote(urlparse(scrub.scrub_uri_account_ids(Request("GET", uri, b"", {})).uri).path)


def path_matcher(r1, r2) -> None:
    """vcrpy matcher: the same path once percent-encoding is undone (``%3A`` vs ``:`` in model ids)."""
    a, b = _scrubbed_path(r1), _scrubbed_path(r2)
    if a != b:
        raise AssertionError(f"path {a} != {b}")


@functools.lru_cache(maxsize=256)
def _meaning(body: bytes) -> Any:
    """``semantic_body``, once per body: vcrpy matches a replayed request against each recorded one several times."""
    return semantic_body(body)


def body_matcher(r1, r2) -> None:
    """vcrpy matcher: the same JSON body, ignoring key order and volatile fields (bytes when not JSON)."""
    a, b = _meaning(_bytes(r1.body)), _meaning(_bytes(r2.body))
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


class _Refusal:
    """The hooks' secret check: ``request`` (a ``before_record_request`` hook) only remembers the scrubbed request;
    ``response`` (``before_record_response``, which vcrpy runs only on an interaction it adds: recorded, or loaded)
    scans it with the response, unless both were vouched for on load. Each refusal is also kept in ``refused``
    (the SDK may swallow the raise)."""

    def __init__(self, allowed: tuple, refused: list | None):
        self.allowed, self.refused, self._pending = allowed, refused, threading.local()

    def __deepcopy__(self, memo):  # pytest-recording copies the config: its hooks must stay these, as functions do
        return self

    def scrub(self, request):
        """``scrub.scrub_request``, once per request content: vcrpy filters a replayed request (a fresh copy each
        time) four times."""
        seen = (request.method, request.uri, request.body, tuple(request.headers.items()))
        kept = self._pending.__dict__.setdefault("scrubbed", {})
        if seen not in kept:
            if len(kept) >= _KEPT_SCRUBS:
                del kept[next(iter(kept))]
            kept[seen] = scrub.scrub_request(request)
        return kept[seen]

    def request(self, request):
        self._pending.request = request  # vcrpy's append runs this hook, then the response's, on one thread
        return request

    def response(self, response):
        request, self._pending.request = getattr(self._pending, "request", None), None
        if isinstance(response, _VouchedResponse) and isinstance(request, _Vouched):
            return response
        try:
            if request is not None:
                scrub.refuse_request_secrets(request, self.allowed)
            return scrub.refuse_response_secrets(response, self.allowed)
        except scrub.SecretFound as err:
            if self.refused is not None:
                self.refused.append(err)
            raise


def vcr_config(allowed_secrets: Iterable[str] = (), refused: list | None = None, **overrides) -> dict:
    """VCR options for Bedrock cassettes (pytest-recording's ``vcr_config``); record mode left to the caller.

    ``allowed_secrets``: secret-shaped values the user vouches for; ``refused``: a list that collects every
    SecretFound the hooks raise (boto3 reports them only as a connection error)."""
    refusal = _Refusal(tuple(allowed_secrets), refused)
    return {
        "serializer": SERIALIZER,
        "match_on": MATCH_ON,
        "before_record_request": (refusal.scrub, refusal.request),
        "before_record_response": (scrub.scrub_response, refusal.response),
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
    return register(_VCR(**options), source, allowed_secrets)


class _VCR(vcr.VCR):
    """vcrpy's VCR, whose cassette contexts undo their patches even when the save on exit raises."""

    def use_cassette(self, path=None, **kwargs):
        found = super().use_cassette(path, **kwargs)
        return _Unpatching(found) if path is None or isinstance(path, (str, os.PathLike)) else found


class _Unpatching:
    """A vcrpy cassette context whose patches are undone however it exits. vcrpy saves the cassette before it
    undoes its patches, so a save that raises (a refused secret, a full disk) leaves boto3's connections patched
    until the context is garbage-collected: kept alive by the exception's traceback (pytest keeps a failed test's
    as ``sys.last_traceback``), every later call in the process would go to that cassette."""

    def __init__(self, context):
        self.context = context

    def __enter__(self):
        return self.context.__enter__()

    def __exit__(self, *exc_info):
        try:
            return self.context.__exit__(*exc_info)
        finally:
            patches = getattr(self.context, "_CassetteContextDecorator__finish", None)  # vcrpy's patch generator
            if patches is not None:
                patches.close()  # suspended at its yield when the save raised: its ExitStack unwinds now


def use_cassette(path, record_mode: str = "none", source: str | None = None, allowed_secrets: Iterable[str] = (),
                 refused: list | None = None, **overrides):
    """Record or replay every Bedrock call inside the ``with`` block in the cassette at ``path``."""
    return make_vcr(record_mode, source=source, allowed_secrets=allowed_secrets,
                    refused=refused).use_cassette(str(path), **overrides)
