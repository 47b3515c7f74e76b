"""How event-stream frames are written in a cassette: the most readable YAML item that re-encodes exactly.

Forms, most readable first (each item names its frame kind, then the payload):

- ``event: <type>`` / ``exception: <type>`` for Bedrock's three default string headers, ``error: <code>``
  + ``message`` for an unmodelled error frame, or ``headers: [[name, value], ...]`` otherwise;
- ``chunk: {...}`` (InvokeModelWithResponseStream: the decoded model event) or ``json: {...}``, with
  ``p: <padding length>``; re-encoded as compact, key-sorted JSON plus the padding key ``p``;
- ``payload: <exact text>`` when that re-encoding would not reproduce the bytes (free-form JSON whose
  key order matters, e.g. a toolResult ``json`` document), or ``payload_base64``;
- ``frame_base64: <whole frame>`` as a last resort (header types the encoder cannot write, or bytes that
  do not decode), with ``corrupt: <why>`` when the damage is deliberate.

A form is only chosen when re-encoding it gives back exactly the original bytes.
"""

from __future__ import annotations

import base64
import functools
import json
from dataclasses import dataclass, field
from typing import Any

from harness.cassettes.limits import (MAX_FRAME_BYTES, MAX_HEADER_BYTES, MAX_PADDING, MAX_PAYLOAD_BYTES,
                                      check_json_text)
from harness.wire import eventstream
from harness.wire.eventstream import Frame
from harness.wire.kinds import kind_of

__all__ = ["RawFrame", "frames_from_body", "frame_to_doc", "frame_from_doc"]

_EVENT = ((":event-type", None), (":content-type", "application/json"), (":message-type", "event"))
_EXCEPTION = ((":exception-type", None), (":content-type", "application/json"), (":message-type", "exception"))


@dataclass(frozen=True)
class RawFrame(Frame):
    """A frame kept as its exact bytes (``raw``); ``note`` says why it is corrupt when that is deliberate; ``whole``:
    the bytes were read as exactly one frame (headers and payload are theirs), so nothing need read them again."""

    raw: bytes = field(default=b"", repr=False)
    note: str = ""
    whole: bool = field(default=False, repr=False, compare=False)

    def encode(self) -> bytes:
        return self.raw


def _json_or_none(data: bytes) -> Any:
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None


def _frame_slices(body: bytes) -> list[bytes]:
    """The body cut at each frame's length prefix (the last slice may be a partial frame)."""
    out, at = [], 0
    while at < len(body):
        size = int.from_bytes(body[at : at + 4], "big") if len(body) - at >= 4 else 0
        size = size if 16 <= size <= len(body) - at else len(body) - at
        out.append(body[at : at + size])
        at += size
    return out


def _frame(data: bytes, exact: bool = True) -> Frame:
    """The decoded frame, or a RawFrame when decoding fails or (``exact``) cannot reproduce these bytes."""
    try:
        [frame] = eventstream.decode_frames(data)
    except Exception as err:  # botocore's ParserError family, TruncatedStream: kept as received, and said so
        return RawFrame((), b"", raw=data, note=f"received so ({type(err).__name__}: {err})".replace("\n", " "))
    return frame if not exact or frame.encode() == data else RawFrame(frame.headers, frame.payload, raw=data)


def frames_from_body(body: bytes) -> tuple[Frame, ...]:
    """An event-stream body as frames; bytes that do not decode (or re-encode) exactly stay RawFrames."""
    return tuple(_frame(s) for s in _frame_slices(body))


def _head_doc(frame: Frame) -> dict | None:
    for key, template in (("event", _EVENT), ("exception", _EXCEPTION)):
        if frame.headers == tuple((n, v if v is not None else frame.type) for n, v in template):
            return {key: frame.type}
    if [n for n, _ in frame.headers] == [":error-code", ":error-message", ":message-type"] and not frame.payload:
        return {"error": frame.type, "message": frame.header_map[":error-message"]}
    plain = [[n, _plain(v)] for n, v in frame.headers]
    return {"headers": plain} if all(v is not None for _, v in plain) else None


def _plain(value: Any) -> Any:
    """A header value as YAML writes it (text, true/false, a whole number the encoder writes as the same type),
    or None: a byte, short, timestamp, uuid or bytes header is kept in ``frame_base64``."""
    if type(value) in (str, bool, int):
        return value
    if type(value) is eventstream.Long and not -(2**31) <= value < 2**31:
        return int(value)  # a plain int this big is written as a long too
    return None


def _unbase64(value: Any) -> bytes:
    try:
        return base64.b64decode(value, validate=True)
    except (TypeError, ValueError):
        return b""


def _payload_docs(payload: bytes) -> list[dict]:
    """Candidate readable forms of a payload, most readable first."""
    body = _json_or_none(payload)
    out = []
    if isinstance(body, dict):
        pad = body.pop("p") if isinstance(body.get("p"), str) else None
        extra = {} if pad is None else {"p": len(pad)}
        inner = _json_or_none(_unbase64(body["bytes"])) if set(body) == {"bytes"} else None
        if isinstance(inner, dict):
            out.append({**extra, "chunk": inner})
        out.append({**extra, "json": body})
    try:
        out.append({"payload": payload.decode("utf-8")} if payload else {})
    except UnicodeDecodeError:
        out.append({"payload_base64": base64.b64encode(payload).decode()})
    return out


def _encodes(doc: dict) -> bytes | None:
    try:
        return frame_from_doc(doc).encode()
    except (TypeError, ValueError):  # e.g. a lone surrogate that compact UTF-8 JSON cannot carry
        return None


def frame_to_doc(frame: Frame) -> dict:
    """The most readable YAML item that re-encodes to exactly this frame's bytes."""
    original = frame.encode()
    head = None if isinstance(frame, RawFrame) else _head_doc(frame)
    for payload in _payload_docs(frame.payload) if head is not None else []:
        doc = {**head, **payload}
        if _encodes(doc) == original:
            return doc
    note = {"corrupt": frame.note} if getattr(frame, "note", "") else {}
    return {"frame_base64": base64.b64encode(original).decode(), **note}


def _padding(doc: dict) -> int | None:
    """The padding length ``p``: absent, or a whole number within MAX_PADDING (ValueError otherwise)."""
    pad = doc.get("p")
    if pad is not None and (not isinstance(pad, int) or isinstance(pad, bool) or not 0 <= pad <= MAX_PADDING):
        raise ValueError(f"padding length p: {str(pad)[:40]} is not a whole number from 0 to {MAX_PADDING}")
    return pad


def _mapping(doc: dict, key: str) -> dict:
    if not isinstance(doc[key], dict):
        raise ValueError(f"{key}: {kind_of(doc[key])}, not a mapping (an event's JSON object)")
    return doc[key]


def _payload_from_doc(doc: dict) -> bytes:
    if "chunk" in doc:
        inner = json.dumps(_mapping(doc, "chunk"), separators=(",", ":"), ensure_ascii=False).encode()
        return eventstream.json_payload({"bytes": base64.b64encode(inner).decode()}, _padding(doc))
    if "json" in doc:
        return eventstream.json_payload(_mapping(doc, "json"), _padding(doc))
    if "payload_base64" in doc:
        return base64.b64decode(doc["payload_base64"], validate=True)
    return str(doc.get("payload", "")).encode()


def _header(name: Any, value: Any) -> tuple[str, Any]:
    if not isinstance(value, (str, bool, int)) or not isinstance(name, str):
        raise ValueError(f"header {str(name)[:40]}: {kind_of(value)} value (a header is text, a number "
                         "or true/false)")
    return name, value


def _sized(frame: Frame) -> Frame:
    """The frame, when botocore could read it: payload and headers within its limits."""
    size = len(frame.raw) if isinstance(frame, RawFrame) else len(frame.payload)
    limit = MAX_FRAME_BYTES if isinstance(frame, RawFrame) else MAX_PAYLOAD_BYTES
    if size > limit or sum(len(n) + len(str(v)) for n, v in frame.headers) > MAX_HEADER_BYTES:
        raise ValueError(f"a frame of {size} bytes or its headers over the limits botocore reads "
                         f"({MAX_PAYLOAD_BYTES} bytes of payload, {MAX_HEADER_BYTES} of headers)")
    check_json_text(frame.payload, "payload")  # a `payload:` item is JSON text the YAML reader did not nest
    return frame


def frame_from_doc(doc: dict) -> Frame:
    """The frame a YAML item stands for (KeyError/TypeError/ValueError on a malformed item)."""
    if not isinstance(doc, dict):
        raise ValueError(f"{kind_of(doc)}, not a mapping")
    if "frame_base64" in doc:
        raw = base64.b64decode(doc["frame_base64"], validate=True)
        frame = _frame(_sized(RawFrame((), b"", raw=raw)).raw, exact=False)  # kept as these bytes either way
        check_json_text(frame.payload, "payload")
        return RawFrame(frame.headers, frame.payload, raw=raw, note=str(doc.get("corrupt") or ""),
                        whole=not getattr(frame, "note", ""))  # _frame notes the bytes it could not read
    return _sized(_frame_from_head(doc))


@functools.lru_cache(maxsize=256)
def _typed_headers(kind: str, name: str) -> tuple:
    """An event's or exception's headers: one tuple for every frame of that type (a stream's 100,000 deltas share
    it, and what reads their headers reads them once: eventstream.frame_events)."""
    template = _EVENT if kind == "event" else _EXCEPTION
    return tuple((n, v if v is not None else name) for n, v in template)


def _frame_from_head(doc: dict) -> Frame:
    if "event" in doc or "exception" in doc:
        kind = "event" if "event" in doc else "exception"
        headers = _typed_headers(kind, str(doc[kind]))
    elif "error" in doc:
        headers = ((":error-code", str(doc["error"])), (":error-message", str(doc.get("message", ""))),
                   (":message-type", "error"))
    elif "headers" in doc:
        headers = tuple(_header(n, v) for n, v in doc["headers"])
    else:
        raise ValueError(f"no event, exception, error, headers or frame_base64 key (keys: {', '.join(map(str, doc))})")
    return Frame(headers, _payload_from_doc(doc))


