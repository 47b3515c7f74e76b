"""Readable Bedrock cassettes: the data model, the YAML file (load/save), its metadata header, and verify.

A cassette is YAML: ``metadata`` (format_version, recorded (not for emulator recordings), source
live|emulator|imported, region, model_id, botocore and harness versions), then ``interactions``, each a ``request`` (method, uri,
headers, the JSON body as structured YAML under ``json``) and a ``response`` (status, headers, and
either ``frames``, one decoded item per event-stream frame (see harness.cassettes.frames), or a JSON body
under ``json``). Loading re-encodes frames with fresh CRCs, byte for byte as recorded; JSON response
bodies are re-encoded compact, as Bedrock sends them. Framing headers (Content-Length,
Transfer-Encoding) are never stored: they belong to whoever replays the body. Only safe YAML is read or
written. The vcrpy serializer and persister built on this live in harness.cassettes.vcr.

Errors: ``CassetteError`` (one line naming the file and location) for anything unreadable;
``harness.cassettes.secrets.SecretFound`` (a ``ValueError`` too) when a recording still holds a secret.
"""

from __future__ import annotations

import base64
import datetime
import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable
from urllib.parse import unquote, urlsplit

import botocore

from harness.version import __version__
from harness.wire import grammar
from harness.cassettes import limits, parsed, servable, views
from harness.cassettes.files import write_atomic
from harness.cassettes.frames import RawFrame, frame_from_doc, frame_to_doc, frames_from_body
from harness.wire.eventstream import Frame
from harness.wire.kinds import kind_of

__all__ = [
    "FORMAT_VERSION",
    "OPERATIONS",
    "STREAM_OPERATIONS",
    "EVENTSTREAM",
    "CassetteError",
    "status_code",
    "RawFrame",
    "Interaction",
    "Cassette",
    "frames_from_body",
    "from_bytes",
    "operation_of",
    "write_atomic",
    "metadata_for",
    "load",
    "from_document",
    "is_cassette",
    "load_checked",
    "loads",
    "parse_bytes",
    "parse_document",
    "read_bytes",
    "read_text",
    "dumps",
    "save",
    "problems",
    "verify",
]

FORMAT_VERSION = 1
OPERATIONS = {
    "converse-stream": "ConverseStream",
    "converse": "Converse",
    "invoke-with-response-stream": "InvokeModelWithResponseStream",
    "invoke": "InvokeModel",
}
STREAM_OPERATIONS = ("ConverseStream", "InvokeModelWithResponseStream")
EVENTSTREAM = "application/vnd.amazon.eventstream"
_HEADER = "# bedrock-harness cassette; read it with `bedrock-harness cassette show FILE`\n"


class CassetteError(ValueError):
    """A cassette that cannot be read; the message is one line naming the file and location."""

    def at(self, path) -> "CassetteError":
        return self if str(self).startswith(f"{path}:") else CassetteError(f"{path}: {self}")


@functools.lru_cache(maxsize=4096)  # read for every request a replay answers
def _operation_and_model(uri: str) -> tuple[str, str]:
    path = urlsplit(uri).path  # the path never raises: a bad host or port is refused when the cassette loads
    rest = path.split("/model/", 1)[1] if "/model/" in path else ""
    model, _, op = rest.rpartition("/")
    return OPERATIONS.get(op, ""), unquote(model)


def operation_of(uri: str) -> str:
    """The Bedrock operation a URI calls (``ConverseStream``...), or "" for anything else."""
    return _operation_and_model(uri)[0]


def _as_bytes(value: Any) -> bytes:
    return b"" if value is None else value if isinstance(value, bytes) else str(value).encode()


def _json_or_none(data: bytes) -> Any:
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None


def _header(headers: dict, name: str) -> str:
    return next((str(v) for k, v in headers.items() if k.lower() == name.lower()), "")


@dataclass(frozen=True)
class Interaction:
    """One recorded request/response pair; ``frames`` is set for event-stream responses."""

    method: str
    uri: str
    request_headers: dict
    request_body: bytes
    status: int
    reason: str = ""
    response_headers: dict = field(default_factory=dict)
    frames: tuple | None = None
    body: bytes = b""  # the response body when it is not an event stream
    # Each frame's bytes, when the cassette was read back from its clean check (``load_checked``); else encoded anew
    wire: tuple[bytes, ...] | None = field(default=None, compare=False, repr=False)

    @property
    def operation(self) -> str:
        return _operation_and_model(self.uri)[0]

    @property
    def model_id(self) -> str:
        return _operation_and_model(self.uri)[1]

    @property
    def request_json(self) -> Any:
        return _json_or_none(self.request_body)

    @property
    def response_json(self) -> Any:
        return None if self.frames is not None else _json_or_none(self.body)

    def frame_bytes(self) -> list[bytes]:
        """Each frame's bytes as replayed (re-encoded with valid CRCs); the interaction must hold frames."""
        return list(self.wire) if self.wire is not None else [f.encode() for f in self.frames]

    def response_body(self) -> bytes:
        """The response body bytes as replayed (frames re-encoded with valid CRCs)."""
        return b"".join(self.frame_bytes()) if self.frames is not None else self.body


@dataclass(frozen=True)
class Cassette:
    """A loaded cassette: where it came from, its metadata header, its interactions."""

    path: Path | None
    metadata: dict
    interactions: tuple[Interaction, ...]


# ------------------------------------------------------------------ Interaction <-> YAML document


def _body_doc(body: bytes, prefer_json: bool) -> dict:
    parsed = _json_or_none(body) if prefer_json else None
    if parsed is not None:
        return {"json": parsed}
    try:
        return {"body": body.decode("utf-8")} if body else {}
    except UnicodeDecodeError:
        return {"body_base64": base64.b64encode(body).decode()}


def _interaction_doc(it: Interaction) -> dict:
    request = {"method": it.method, "uri": it.uri, "headers": it.request_headers, **_body_doc(it.request_body, True)}
    response = {"status": {"code": it.status, "message": it.reason}, "headers": it.response_headers}
    if it.frames is not None:
        response["frames"] = [frame_to_doc(f) for f in it.frames]
    else:
        response.update(_body_doc(it.body, _header(it.response_headers, "content-type").endswith("json")
                                  or _json_or_none(it.body) is not None))
    return {"request": request, "response": response}


def _body_from_doc(doc: dict, compact: bool, what: str) -> bytes:
    if "json" in doc:
        style = {"separators": (",", ":"), "ensure_ascii": False} if compact else {}
        size = limits.json_size(doc["json"], limits.MAX_BODY_BYTES, ensure_ascii=not compact)
        if size > limits.MAX_BODY_BYTES:  # said before it is serialized: aliases can make it gigabytes
            raise CassetteError(f"{what} body of more than {limits.MAX_BODY_BYTES} bytes once serialized, over the "
                                f"limit of {limits.MAX_BODY_BYTES}")
        body = json.dumps(doc["json"], **style).encode()
    elif "body_base64" in doc:
        body = base64.b64decode(doc["body_base64"], validate=True)
    else:
        body = _as_bytes(doc.get("body"))
    if len(body) > limits.MAX_BODY_BYTES:
        raise CassetteError(f"{what} body of {len(body)} bytes is over the limit of {limits.MAX_BODY_BYTES}")
    if "json" not in doc:
        limits.check_json_text(body, f"{what} body")
    return body


def _frames_from_doc(items: Any, where: str) -> tuple[Frame, ...]:
    if not isinstance(items, list):
        raise CassetteError(f"{where}: response.frames is {kind_of(items)}, not a list")
    if len(items) > limits.MAX_FRAMES:
        raise CassetteError(f"{where}: {len(items)} frames, over the limit of {limits.MAX_FRAMES} per interaction")
    frames, built = [], {}  # an item aliased many times (YAML shares it) is read once
    for k, item in enumerate(items):
        frame = built.get(id(item))
        if frame is None:
            try:
                frame = built[id(item)] = frame_from_doc(item)
            except (KeyError, TypeError, ValueError, AttributeError) as err:
                raise CassetteError(f"{where}, frame {k}: unreadable frame item ({type(err).__name__}: {err})") \
                    from None
        frames.append(frame)
    return tuple(frames)


def _mapping(doc: Any, name: str, where: str, optional: bool = False) -> dict:
    if optional and doc is None:
        return {}
    if not isinstance(doc, dict):
        raise CassetteError(f"{where}: {name} is {kind_of(doc)}, not a mapping")
    return doc


def _text(value: Any, name: str, where: str) -> str:
    if not isinstance(value, str):
        raise CassetteError(f"{where}: {name} is {kind_of(value)}, not a string")
    return value


def status_code(value: Any) -> int | None:
    """An HTTP status code as recorded: a whole number (PyYAML reads ``200``; ``"200"`` is taken too), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).strip().isdigit():
        return None
    return int(value)


def _code(value: Any, where: str) -> int:
    code = status_code(value)
    if code is None:
        raise CassetteError(f"{where}: response.status.code is {kind_of(value)}, not a whole number")
    return code


def _uri(value: Any, where: str) -> str:
    """The request URI, refused when it is not one (an unclosed IPv6 bracket, a port past 65535)."""
    if not isinstance(value, str):
        raise CassetteError(f"{where}: request.uri is {kind_of(value)}")
    try:
        urlsplit(value).port  # noqa: B018 - reading the port is what checks it
    except ValueError as err:
        raise CassetteError(f"{where}: request.uri {value[:80]!r} is not a URL ({err})") from None
    return value


def _interaction_from_doc(doc: Any, where: str) -> Interaction:
    doc = _mapping(doc, "the interaction", where)
    req, resp = _mapping(doc.get("request"), "request", where), _mapping(doc.get("response"), "response", where)
    status = _mapping(resp.get("status"), "response.status", where)
    uri = _uri(req.get("uri"), where)
    try:
        frames = _frames_from_doc(resp["frames"], where) if "frames" in resp else None
        return Interaction(_text(req.get("method"), "request.method", where), uri,
                           dict(_mapping(req.get("headers"), "request.headers", where, optional=True)),
                           _body_from_doc(req, False, "request"), _code(status.get("code"), where),
                           str(status.get("message") or ""),
                           dict(_mapping(resp.get("headers"), "response.headers", where, optional=True)), frames,
                           b"" if frames is not None else _body_from_doc(resp, True, "response"))
    except CassetteError as err:
        raise err if str(err).startswith(where) else CassetteError(f"{where}: {err}") from None
    except limits.LimitError as err:
        raise CassetteError(f"{where}: {err}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise CassetteError(f"{where}: malformed ({type(err).__name__}: {err})") from None


# --------------------------------------------------------------------------------- metadata


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _hostname(uri: str) -> str:
    try:
        return urlsplit(uri).hostname or ""
    except ValueError:
        return ""


def _region(it: Interaction) -> str | None:
    host = re.match(r"bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com", _hostname(it.uri))
    scope = re.search(r"Credential=[^/]*/[^/]*/([a-z0-9-]+)/", _header(it.request_headers, "authorization"))
    return (host or scope).group(1) if host or scope else None


def metadata_for(interactions, given: dict | None = None, source: str | None = None) -> dict:
    """The metadata header: format version, recorded date (not for the emulator), source, region, model id, versions.

    An emulator recording is a function of the scenario and the versions: without a date, recording it
    again gives the same bytes.
    """
    first = interactions[0] if interactions else None
    live = bool(first) and _hostname(first.uri).endswith(".amazonaws.com")
    given = given or {}
    source = given.get("source") or source or ("live" if live else "emulator")
    base = {"format_version": FORMAT_VERSION, "recorded": None if source == "emulator" else _now(), "source": source,
            "region": _region(first) if first else None, "model_id": first.model_id if first else None,
            "botocore": botocore.__version__, "harness": __version__}
    merged = {**base, **given, "format_version": FORMAT_VERSION}
    return {k: v for k, v in merged.items() if k != "recorded" or v is not None}


# ------------------------------------------------------------------------------------- YAML


@functools.cache
def _dumper() -> type:
    """The YAML writer: block style; multi-line strings as literal blocks; never a Python tag, never an alias (made
    on the first write: reading, from the parsed-YAML cache, needs no PyYAML)."""
    import yaml

    class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
        def ignore_aliases(self, data) -> bool:
            return True

    _Dumper.add_representer(str, _represent_str)
    return _Dumper


# Characters YAML would normalise (NEL, line/paragraph separators, CR) or cannot print: keep them escaped.
_ESCAPE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")


def _represent_str(dumper, value: str):
    multiline = "\n" in value.strip("\n") and len(value) > 40
    style = '"' if _ESCAPE.search(value) else "|" if multiline else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def dumps(cassette: Cassette, allowed: Iterable[str] = ()) -> str:
    """The cassette as YAML text; raises SecretFound (writing nothing) if a secret not ``allowed`` is inside."""
    doc = {"metadata": cassette.metadata, "interactions": [_interaction_doc(i) for i in cassette.interactions]}
    import yaml

    from harness.cassettes import secrets  # only a cassette written is scanned: a replay reads, never writes

    text = _HEADER + yaml.dump(doc, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=110)
    findings = secrets.scan_both(doc, text.encode("utf-8", "surrogatepass"), allowed=allowed)
    if findings:
        raise secrets.SecretFound(findings, str(cassette.path or "cassette"))
    return text


def _yaml_error(err) -> str:
    mark = getattr(err, "problem_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    return f"{where}broken YAML: {getattr(err, 'problem', None) or err}".replace("\n", " ")


def _document(parse: Callable[[], Any], name) -> Any:
    """``parse()``'s YAML document; CassetteError with the one line every reader gives (``name: where: what``)."""
    try:
        return parse()
    except limits.yaml_errors() as err:  # PyYAML's error, once it is loaded
        raise CassetteError(f"{name}: {_yaml_error(err)}") from None
    except limits.LimitError as err:
        raise CassetteError(f"{name}: {err}") from None
    except UnicodeDecodeError as err:
        raise CassetteError(f"{name}: cannot read ({err.__class__.__name__}: {err})") from None


def parse_document(text: str, name) -> Any:
    """Safe YAML within the limits; CassetteError with the one line every reader gives (``name: where: what``)."""
    return _document(lambda: limits.load_yaml(text), name)


def parse_bytes(data: bytes, name) -> Any:
    """``parse_document`` of UTF-8 ``data``, parsed once (``harness.cassettes.parsed``): a second reader of the same
    file in one command (scan's verify, then its secrets) reads the kept document."""
    return _document(lambda: parsed.load_yaml_bytes(data), name)


def is_cassette(doc: Any) -> bool:
    """Whether a parsed document says it is a bedrock-harness cassette (its metadata has a format_version)."""
    return isinstance(doc, dict) and isinstance(doc.get("metadata"), dict) and "format_version" in doc["metadata"]


def _parse(text: str, path) -> Cassette:
    return from_document(parse_document(text, str(path or "cassette")), path)


def from_document(doc: Any, path) -> Cassette:
    """A parsed YAML document as a Cassette (CassetteError naming ``path`` and the location)."""
    name = str(path or "cassette")
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    if not isinstance(meta, dict) or "format_version" not in meta:
        raise CassetteError(f"{name}: not a bedrock-harness cassette (no metadata.format_version); "
                            "convert foreign cassettes with `bedrock-harness cassette import`")
    if meta["format_version"] != FORMAT_VERSION or not isinstance(doc.get("interactions"), list):
        raise CassetteError(f"{name}: unsupported format_version {meta['format_version']!r} or no interactions list")
    with limits.without_gc():
        items = [_interaction_from_doc(d, f"{name}: interaction {n}") for n, d in enumerate(doc["interactions"])]
    return Cassette(Path(path) if path else None, meta, tuple(items))


def _where(cassette: Cassette, n: int, k: int | None = None) -> str:
    it = cassette.interactions[n]
    frame = "" if k is None else f", frame {k}" + (f" ({it.frames[k].type})" if it.frames[k].type else "")
    return f"{cassette.path or 'cassette'}: interaction {n} ({it.operation or it.method}){frame}"


def _frame_problems(cassette: Cassette) -> list[str]:
    found: dict[int, str | None] = {}  # by frame: one aliased item is one frame object, checked once

    def problem_of(frame) -> str | None:
        if id(frame) not in found:
            found[id(frame)] = servable.frame_item_problem(frame)
        return found[id(frame)]

    return [f"{_where(cassette, n, k)}: {problem}"
            for n, it in enumerate(cassette.interactions) for k, f in enumerate(it.frames or ())
            for problem in [problem_of(f)] if problem]


def loads(text: str, path: Path | str | None = None) -> Cassette:
    """Parse cassette text (CassetteError naming ``path`` and the location on anything unreadable)."""
    return _frames_checked(_parse(text, path))


def _frames_checked(cassette: Cassette) -> Cassette:
    problems = _frame_problems(cassette)
    if problems:
        raise CassetteError(problems[0])
    return cassette


def read_bytes(path) -> bytes:
    """A file's bytes as every reader reads them (within the file limit; gzip, bz2 or xz decompressed, UTF-16 or
    UTF-32 as UTF-8: harness.cassettes.views.plain); CassetteError naming it."""
    try:
        return views.plain(limits.read_file(path))
    except limits.LimitError as err:
        raise CassetteError(f"{path}: {err}") from None
    except OSError as err:
        raise CassetteError(f"{path}: cannot read ({err.__class__.__name__}: {err})") from None


def read_text(path) -> str:
    """A file's text as every reader reads it (``read_bytes``), else UTF-8; CassetteError naming it."""
    data = read_bytes(path)
    return _document(lambda: data.decode("utf-8"), path)


def load(path) -> Cassette:
    """Read a cassette file (CassetteError naming the file and location on anything unreadable); its YAML is parsed
    once (``harness.cassettes.parsed``)."""
    return _loaded(read_bytes(path), path)


def from_bytes(data: bytes, path) -> Cassette:
    """``load`` of a file's bytes already read (``read_bytes``)."""
    return _loaded(data, path)


def _loaded(data: bytes, path) -> Cassette:
    return _frames_checked(from_document(_document(lambda: parsed.load_yaml_bytes(data), path), path))


def _grammar_problems(cassette: Cassette, n: int) -> list[str]:
    it = cassette.interactions[n]
    if it.frames is None or it.status >= 300:
        return []
    found = grammar.stream_problems(it.operation, it.frames)
    return [f"{_where(cassette, n, k)}: {problem}" if k is not None else f"{_where(cassette, n)}: {problem}"
            for k, problem in found]


def _serving_problems(cassette: Cassette, n: int) -> list[str]:
    it = cassette.interactions[n]
    found = [servable.status_problem(it.status, it.frames is not None), *servable.header_problems(it.response_headers)]
    return [f"{_where(cassette, n)}: {problem}" for problem in found if problem]


def problems(cassette: Cassette) -> list[str]:
    """Every problem in a parsed cassette (frame items, CRCs, what serve cannot send, the event grammar and what
    botocore cannot parse), each naming file and location: the one verdict every reader gives."""
    return _frame_problems(cassette) + [p for n in range(len(cassette.interactions))
                                        for p in _serving_problems(cassette, n) + _grammar_problems(cassette, n)]


def load_checked(path) -> Cassette:
    """``load``, and a CassetteError too for the first problem ``verify`` would report (grammar included); the
    same bytes found clean before by the same code are not checked again, and what was built from them then is
    read back instead of being built again (``parsed.clean_form``)."""
    data = read_bytes(path)
    kept = parsed.clean_form(data)
    if kept is not None:
        try:
            return _from_form(kept, path)
        except (TypeError, ValueError):  # a form written by hand into the cache: build it from the file instead
            pass
    loaded = _loaded(data, path)
    if parsed.checked_clean(data):
        return loaded
    found = problems(loaded)
    if found:
        more = f" (and {len(found) - 1} more; see `bedrock-harness cassette verify`)" if len(found) > 1 else ""
        raise CassetteError(found[0] + more)
    parsed.mark_clean(data, _form(loaded))
    return loaded


def _form(cassette: Cassette) -> tuple:
    """A checked cassette in core types only (what marshal holds), each frame with its bytes: ``_from_form``'s
    input. The clean mark it is kept in names this module's source, so a changed form is never read."""
    return cassette.metadata, tuple(
        (it.method, it.uri, it.request_headers, it.request_body, it.status, it.reason, it.response_headers, it.body,
         None if it.frames is None else tuple((f.headers, f.payload, getattr(f, "raw", None), getattr(f, "note", ""))
                                              for f in it.frames),
         None if it.frames is None else tuple(it.frame_bytes()))
        for it in cassette.interactions)


def _from_form(form: tuple, path) -> Cassette:
    metadata, items = form
    interactions = []
    for method, uri, request_headers, request_body, status, reason, response_headers, body, frames, wire in items:
        built = None if frames is None else tuple(
            Frame(headers, payload) if raw is None else RawFrame(headers, payload, raw=raw, note=note)
            for headers, payload, raw, note in frames)
        interactions.append(Interaction(method, uri, request_headers, request_body, status, reason, response_headers,
                                        built, body, wire))
    return Cassette(Path(path) if path else None, metadata, tuple(interactions))


def verify(path) -> list[str]:
    """Every problem in a cassette file (reading, YAML, limits, then what ``problems`` finds), each naming file and
    location."""
    try:
        cassette = _parse(read_text(path), path)
    except CassetteError as err:
        return [str(err)]
    return problems(cassette)


def save(path, cassette: Cassette, overwrite: bool = False, allowed: Iterable[str] = ()) -> Path:
    """Write atomically; refuses an existing file unless ``overwrite``, and a secret not ``allowed`` always."""
    path = Path(path)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path}: exists; refusing to overwrite it")
    from harness.cassettes import secrets

    try:
        text = dumps(cassette, allowed)
    except secrets.SecretFound as err:
        raise secrets.SecretFound(err.findings, str(path)) from None
    write_atomic(path, text)
    return path
