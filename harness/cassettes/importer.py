"""Convert foreign Bedrock fixtures into the bedrock-harness format (metadata ``source: imported``).

``read_foreign`` recognises the format by content, not by name (harness.cassettes.foreign reads each one):
raw event-stream bytes by their CRC-checked prelude, decoded events one JSON object per line, then JSON or
YAML documents by their shape. A file that is none of them is refused with one line naming what was recognised
and what was expected. Where a format holds no request or no model id, ``request`` (a JSON body) and ``model``
supply them; otherwise they are synthesised and the metadata's ``synthesised`` says so. Everything is
scrubbed on the way in, exactly like a recording.
"""

from __future__ import annotations

import dataclasses
import datetime
import email.utils
from pathlib import Path
from typing import Any


from harness.cassettes import cassette, documents, foreign
from harness.cassettes import vcr as recording
from harness.cassettes.cassette import Cassette, CassetteError, RawFrame
from harness.cassettes.foreign import Foreign
from harness.wire import eventstream

__all__ = ["import_cassette", "import_file", "read_foreign"]

def _is_stream(data: bytes) -> bool:
    """Whether the bytes are meant as an event stream: a first frame's prelude whose lengths fit, and whose CRC holds
    or which is no UTF-8 text (a stream with a broken checksum is refused as that, not as text it never was)."""
    if len(data) < 16:
        return False
    total, headers = int.from_bytes(data[:4], "big"), int.from_bytes(data[4:8], "big")
    if not (16 <= total <= len(data) and headers <= total - 16):
        return False
    if eventstream.checksum_problem(data[:12]) is None:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _foreign_frames_checked(interactions: tuple) -> tuple:
    """Frames of a foreign fixture that do not decode (a checksum that fails, a frame cut short) are problems
    ``verify`` reports, never frames corrupt on purpose: what a recording received so is said only of our own."""
    out = []
    for it in interactions:
        if it.frames is not None and any(getattr(f, "note", "").startswith("received so") for f in it.frames):
            frames = tuple(RawFrame(f.headers, f.payload, raw=f.raw) if getattr(f, "note", "").startswith(
                "received so") else f for f in it.frames)
            it = dataclasses.replace(it, frames=frames)
        out.append(it)
    return tuple(out)


def _document(src: Path, data: bytes) -> Any:
    """The YAML/JSON document; a broken one is the line every reader gives, then the formats import reads."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise _unknown(src, f"bytes that are not UTF-8 text ({err})") from None
    try:
        return cassette.parse_document(text, src)
    except CassetteError as err:
        broken = "broken YAML" in str(err)
        raise CassetteError(f"{err}; import reads: {'; '.join(foreign.FORMATS)}") if broken else err from None


def _unknown(src: Path, recognised: str) -> CassetteError:
    return CassetteError(f"{src}: unrecognised fixture format: found {recognised}; expected one of: "
                         f"{'; '.join(foreign.FORMATS)}")


def _describe(doc: Any) -> str:
    """What a document that matches no reader looks like, for the error."""
    if isinstance(doc, dict):
        return f"a mapping with keys {', '.join(map(str, list(doc)[:6])) or '(none)'}"
    if isinstance(doc, list):
        kinds = sorted({type(item).__name__ for item in doc})
        return f"a list of {len(doc)} item(s) ({', '.join(kinds) or 'empty'}) that are not decoded events"
    return f"a single {type(doc).__name__} value"


def _from_document(src: Path, doc: Any, model: str | None) -> Foreign:
    if cassette.is_cassette(doc):
        raise CassetteError(f"{src}: already a bedrock-harness cassette")
    if isinstance(doc, dict) and isinstance(doc.get("interactions"), list):
        return foreign.vcrpy(doc)
    if isinstance(doc, dict) and isinstance(doc.get("requests"), list) and isinstance(doc.get("responses"), list):
        return foreign.langchain(doc)
    if isinstance(doc, dict) and isinstance(doc.get("response"), dict) and "bodyBase64" in doc["response"]:
        return foreign.vercel(doc, model)
    if isinstance(doc, dict) and ({"STREAMED_RESPONSES", "RESPONSES"} & set(doc)):
        return foreign.newrelic(doc, model)
    if isinstance(doc, list) and doc and all(isinstance(i, dict) and {"scope", "path"} <= set(i) for i in doc):
        return foreign.nock(doc)
    if foreign.is_event(doc) or isinstance(doc, list) and doc and all(foreign.is_event(i) for i in doc):
        return foreign.decoded_events(doc if isinstance(doc, list) else [doc], model, seed=src.name)
    raise _unknown(src, _describe(doc))


def _read(src: Path, model: str | None) -> Foreign:
    data = documents.read_bytes(src)
    if _is_stream(data):
        return foreign.raw_stream(data, model)
    lines = documents.json_lines(data)
    if lines is not None and all(foreign.is_event(item) for item in lines):
        return foreign.decoded_events(lines, model, seed=src.name)
    if lines is not None:
        bad = next(n for n, item in enumerate(lines, 1) if not foreign.is_event(item))
        raise _unknown(src, f"JSON lines whose line {bad} is not a decoded stream event ({_describe(lines[bad - 1])})")
    return _from_document(src, _document(src, data), model)


def _supplied(found: Foreign, request: bytes | None) -> Foreign:
    """The supplied request body in place of a synthesised one."""
    if request is not None and "request" in found.synthesised:
        for item, _ in found.pairs:
            item["body"] = request
        found.synthesised.remove("request")
        found.synthesised.append("request supplied")
    return found


def read_foreign(src, model: str | None = None, request: bytes | None = None) -> Foreign:
    """The pairs of a foreign fixture file in any format ``foreign.FORMATS`` names."""
    src = Path(src)
    try:
        return _supplied(_read(src, model), request)
    except CassetteError:
        raise
    except foreign.ShapeError as err:
        raise CassetteError(f"{src}: {err}") from None
    except KeyError as err:
        raise CassetteError(f"{src}: missing field {err}") from None
    except (TypeError, ValueError, AttributeError, IndexError) as err:
        raise CassetteError(f"{src}: wrong shape ({type(err).__name__}: {err})") from None


def _recorded(found: Foreign) -> str | None:
    """When the first response was served: the capture's own date, else its Date header (None without)."""
    if found.recorded:
        return found.recorded
    dates = [v[0] for _, r in found.pairs for k, v in r["headers"].items() if k.lower() == "date"]
    try:
        when = email.utils.parsedate_to_datetime(str(dates[0]))
    except (IndexError, TypeError, ValueError):
        return None
    return when.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def import_file(src, model: str | None = None, request: bytes | None = None) -> Cassette:
    """A foreign fixture file as a (scrubbed) bedrock-harness Cassette, not yet written anywhere."""
    src = Path(src)
    found = read_foreign(src, model, request)
    try:
        interactions = _foreign_frames_checked(tuple(recording.from_http(q, r) for q, r in found.pairs))
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise CassetteError(f"{src}: an interaction cannot be converted ({type(err).__name__}: {err})") from None
    given = {"recorded": _recorded(found), "source": "imported", "imported_from": src.name}
    if found.region:
        given["region"] = found.region
    if found.synthesised:
        given["synthesised"] = list(found.synthesised)
    return Cassette(None, cassette.metadata_for(interactions, given), interactions)


def import_cassette(src, dest, overwrite: bool = False, model: str | None = None,
                    request: bytes | None = None) -> Cassette:
    """Convert ``src`` into ``dest`` (atomic; refuses an existing ``dest`` unless ``overwrite``)."""
    imported = import_file(src, model, request)
    dest = Path(dest)
    if dest.exists() and not overwrite:
        raise FileExistsError(f"{dest}: exists; refusing to overwrite it")
    result = Cassette(dest, imported.metadata, imported.interactions)
    cassette.save(dest, result, overwrite=overwrite)
    return result
