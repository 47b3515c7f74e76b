"""Convert foreign cassettes into the bedrock-harness format (metadata ``source: imported``).

Reads vcrpy YAML or JSON (``!!binary`` bodies as pydantic-ai, opentelemetry and traceloop store them,
pydantic-ai's ``parsed_body``, plain JSON string bodies as crewAI stores them) and langchain-aws's
gzipped ``requests:``/``responses:`` format, whose header values are all ``**REDACTED**`` (an event
stream is then recognised by its URI). Everything is scrubbed on the way in, exactly like a recording.
"""

from __future__ import annotations

import datetime
import email.utils
import gzip
import json
from pathlib import Path
from typing import Any

import yaml

from harness.cassettes import cassette

from harness.cassettes import vcr as recording
from harness.cassettes.cassette import Cassette, CassetteError

__all__ = ["read_foreign", "import_file", "import_cassette"]

_REDACTED = "**REDACTED**"
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _load(src: Path) -> Any:
    try:
        data = src.read_bytes()
        return yaml.load(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data, Loader=_Loader)
    except (OSError, EOFError, gzip.BadGzipFile) as err:
        raise CassetteError(f"{src}: cannot read ({type(err).__name__}: {err})") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise CassetteError(f"{src}: {where}broken YAML: {getattr(err, 'problem', err)}") from None


def _headers(headers: Any) -> dict:
    """Header values as lists, without the ones a recorder replaced by ``**REDACTED**``."""
    out = {}
    for name, value in (headers or {}).items():
        values = [v for v in (value if isinstance(value, list) else [value]) if v != _REDACTED]
        if values:
            out[str(name)] = values
    return out


def _json_bytes(value: Any, compact: bool) -> bytes:
    style = {"separators": (",", ":"), "ensure_ascii": False} if compact else {}
    return json.dumps(value, **style).encode()


def _request(item: dict) -> dict:
    body = _json_bytes(item["parsed_body"], False) if "parsed_body" in item else item.get("body")
    if isinstance(body, dict):
        body = body.get("string")
    headers = _headers(item.get("headers"))
    return {"method": item.get("method", "POST"), "uri": item["uri"], "body": body, "headers": headers}


def _content_type(uri: str, status: int) -> str:
    stream = status < 300 and cassette.operation_of(uri) in cassette.STREAM_OPERATIONS
    return cassette.EVENTSTREAM if stream else "application/json"


def _response(item: dict, uri: str) -> dict:
    status = item["status"] if isinstance(item["status"], dict) else {"code": int(item["status"]), "message": ""}
    body = item.get("body")
    body = _json_bytes(item["parsed_body"], True) if "parsed_body" in item else body
    body = body.get("string") if isinstance(body, dict) else body
    headers = _headers(item.get("headers"))
    if not any(k.lower() == "content-type" for k in headers):
        headers["Content-Type"] = [_content_type(uri, int(status["code"]))]
    return {"status": status, "headers": headers, "body": {"string": body}}


def read_foreign(src: Path) -> list[tuple[dict, dict]]:
    """vcrpy-shaped (request, response) pairs from a vcrpy or langchain-aws cassette file."""
    doc = _load(Path(src))
    if isinstance(doc, dict) and isinstance(doc.get("metadata"), dict) and "format_version" in doc["metadata"]:
        raise CassetteError(f"{src}: already a bedrock-harness cassette")
    if isinstance(doc, dict) and isinstance(doc.get("interactions"), list):
        pairs = [(i["request"], i["response"]) for i in doc["interactions"]]
    elif isinstance(doc, dict) and isinstance(doc.get("requests"), list) and isinstance(doc.get("responses"), list):
        pairs = list(zip(doc["requests"], doc["responses"]))
    else:
        raise CassetteError(f"{src}: not a vcrpy (interactions:) or langchain-aws (requests:/responses:) cassette")
    try:
        return [(_request(q), _response(r, q["uri"])) for q, r in pairs]
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise CassetteError(f"{src}: an interaction lacks {err} or has the wrong shape") from None


def _recorded(pairs: list[tuple[dict, dict]]) -> str | None:
    """When the first response was served, from its Date header (None when the recorder dropped it)."""
    dates = [v[0] for _, r in pairs for k, v in r["headers"].items() if k.lower() == "date"]
    try:
        when = email.utils.parsedate_to_datetime(str(dates[0]))
    except (IndexError, TypeError, ValueError):
        return None
    return when.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def import_file(src) -> Cassette:
    """A foreign cassette file as a (scrubbed) bedrock-harness Cassette, not yet written anywhere."""
    src = Path(src)
    pairs = read_foreign(src)
    try:
        interactions = tuple(recording.from_http(q, r) for q, r in pairs)
    except (KeyError, TypeError, ValueError) as err:
        raise CassetteError(f"{src}: an interaction cannot be converted ({type(err).__name__}: {err})") from None
    given = {"recorded": _recorded(pairs), "source": "imported", "imported_from": src.name}
    return Cassette(None, cassette.metadata_for(interactions, given), interactions)


def import_cassette(src, dest, overwrite: bool = False) -> Cassette:
    """Convert ``src`` into ``dest`` (atomic; refuses an existing ``dest`` unless ``overwrite``)."""
    imported = import_file(src)
    dest = Path(dest)
    if dest.exists() and not overwrite:
        raise FileExistsError(f"{dest}: exists; refusing to overwrite it")
    result = Cassette(dest, imported.metadata, imported.interactions)
    cassette.save(dest, result, overwrite=overwrite)
    return result
