"""Encode and decode ``application/vnd.amazon.eventstream`` bodies.

Encoding is a few lines of stdlib (bedrock-wire.md §5.2); decoding is botocore's, so that what the harness
decodes is exactly what boto3 yields (§4.5). Two shortcuts keep botocore's answer and skip its slow parts: a whole
frame of string headers (what Bedrock sends) is read here, anything else by botocore's buffer (``_plain_message``);
and frames already read go to botocore's event parser as they are (``frame_events``). Tests hold both to botocore's
reading of the same bytes. botocore loads on the first decode: a command that only encodes or reads scenarios
(``serve --emulate``, ``list``, ``evidence``) never imports it.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import random
import struct
import string
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, NamedTuple

from harness.wire.service_model import operation_model


__all__ = [
    "Frame",
    "Byte",
    "Short",
    "Long",
    "Timestamp",
    "Uuid",
    "PADDING_ALPHABET",
    "padding",
    "json_payload",
    "encode_frame",
    "encode_event",
    "encode_exception",
    "encode_error",
    "encode_chunk",
    "decode_frames",
    "decode_events",
    "frame_events",
    "frame_slices",
    "checksum_problem",
    "FrameError",  # noqa: F822 - made on first use, by the module's __getattr__
    "TruncatedStream",
    "STREAM_MEMBERS",
    "loads",
]

PADDING_ALPHABET = string.ascii_lowercase + string.ascii_uppercase + string.digits
CONTENT_TYPE = "application/json"
# Operation -> name of the eventstream member in its output shape.
STREAM_MEMBERS = {"ConverseStream": "stream", "InvokeModelWithResponseStream": "body"}

_TRUE, _FALSE, _INT8, _INT16, _INT32, _INT64, _BYTES, _STRING, _TIMESTAMP, _UUID = range(10)


class Byte(int):
    """A header value of type byte (an int8, type 2); botocore reads it as an int."""


class Short(int):
    """A header value of type short (an int16, type 3)."""


class Long(int):
    """A header value of type long (an int64, type 5) that would fit an int32: kept so it re-encodes as written."""


class Timestamp(int):
    """A header value of type timestamp (type 8): milliseconds since the epoch, an int64 on the wire."""


class Uuid(bytes):
    """A header value of type uuid (type 9): 16 bytes on the wire, with no length prefix."""


# A typed value's wire type and struct format (a plain int is an int32 when it fits, else an int64).
_TYPED = ((Byte, _INT8, ">Bb"), (Short, _INT16, ">Bh"), (Long, _INT64, ">Bq"), (Timestamp, _TIMESTAMP, ">Bq"))
_WRAP = {_INT8: Byte, _INT16: Short, _INT64: Long, _TIMESTAMP: Timestamp, _UUID: Uuid}
_FIXED = {_TRUE: 0, _FALSE: 0, _INT8: 1, _INT16: 2, _INT32: 4, _INT64: 8, _TIMESTAMP: 8, _UUID: 16}
_SCAN = json.JSONDecoder().raw_decode


def loads(data: bytes) -> Any:
    """``json.loads(data)``, exactly (value and errors), at about a third of its cost for the common case: UTF-8
    JSON with nothing around it, as frame payloads and request bodies are; anything else takes ``json.loads``."""
    try:
        text = data.decode()
        value, end = _SCAN(text)
    except ValueError:  # not UTF-8 (a BOM, UTF-16), leading whitespace, or not JSON: json.loads decides
        return json.loads(data)
    return value if end == len(text) else json.loads(data)


@dataclass(frozen=True)
class Frame:
    """One decoded frame: headers in wire order and the raw payload bytes."""

    headers: tuple[tuple[str, Any], ...]
    payload: bytes = field(repr=False)

    @property
    def header_map(self) -> dict[str, Any]:
        return dict(self.headers)

    @functools.cached_property  # read for every frame by every check and rendering; a frame never changes
    def message_type(self) -> str:
        return self.header_map.get(":message-type", "event")

    @functools.cached_property
    def type(self) -> str:
        """The event type, exception type or error code this frame carries."""
        h = self.header_map
        return h.get(":event-type") or h.get(":exception-type") or h.get(":error-code") or ""

    def json(self) -> Any:
        return loads(self.payload) if self.payload else {}

    def encode(self) -> bytes:
        return encode_frame(self.headers, self.payload)


def padding(length: int) -> str:
    """Bedrock's padding value: a prefix of a-zA-Z0-9 of the given length."""
    return (PADDING_ALPHABET * (length // len(PADDING_ALPHABET) + 1))[:length]


def random_padding_length(rng: random.Random | None = None) -> int:
    """A padding length in the range seen on real streams (2..61)."""
    return (rng or random).randint(2, 61)


def json_payload(body: dict, pad: int | None = None) -> bytes:
    """Compact, key-sorted, raw-UTF-8 JSON, with the padding key ``p`` when ``pad`` is given."""
    if pad is not None:
        body = {**body, "p": padding(pad)}
    return _PAYLOAD_JSON(body).encode()


# json.dumps with these options, without making an encoder per call (every frame of a stream is one call)
_PAYLOAD_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def _encode_header(name: str, value: Any) -> bytes:
    raw_name = name.encode()
    head = struct.pack(">B", len(raw_name)) + raw_name
    if isinstance(value, bool):
        return head + struct.pack(">B", _TRUE if value else _FALSE)
    for kind, code, layout in _TYPED:
        if isinstance(value, kind):
            return head + struct.pack(layout, code, value)
    if isinstance(value, Uuid):
        if len(value) != 16:
            raise ValueError(f"header {name}: a uuid of {len(value)} bytes, not 16")
        return head + struct.pack(">B", _UUID) + bytes(value)
    if isinstance(value, int):
        if -(2**31) <= value < 2**31:
            return head + struct.pack(">Bi", _INT32, value)
        return head + struct.pack(">Bq", _INT64, value)
    if isinstance(value, (bytes, bytearray)):
        return head + struct.pack(">BH", _BYTES, len(value)) + bytes(value)
    raw = str(value).encode()
    return head + struct.pack(">BH", _STRING, len(raw)) + raw


def encode_frame(headers: Iterable[tuple[str, Any]], payload: bytes) -> bytes:
    """One frame: prelude, prelude CRC, headers, payload, message CRC (all big-endian)."""
    raw_headers = b"".join(_encode_header(n, v) for n, v in headers)
    prelude = struct.pack(">II", 16 + len(raw_headers) + len(payload), len(raw_headers))
    head = prelude + struct.pack(">I", binascii.crc32(prelude) & 0xFFFFFFFF) + raw_headers + payload
    return head + struct.pack(">I", binascii.crc32(head) & 0xFFFFFFFF)


def encode_event(event_type: str, body: dict, pad: int | None = None) -> bytes:
    """An event frame with Bedrock's three string headers in Bedrock's order."""
    headers = ((":event-type", event_type), (":content-type", CONTENT_TYPE), (":message-type", "event"))
    return encode_frame(headers, json_payload(body, pad))


def encode_exception(exception_type: str, body: dict, pad: int | None = None) -> bytes:
    """A modelled exception frame, e.g. ``throttlingException`` with ``{"message": ...}``."""
    headers = (
        (":exception-type", exception_type),
        (":content-type", CONTENT_TYPE),
        (":message-type", "exception"),
    )
    return encode_frame(headers, json_payload(body, pad))


def encode_error(code: str, message: str) -> bytes:
    """An unmodelled ``error`` frame (botocore reads code and message from the headers)."""
    headers = ((":error-code", code), (":error-message", message), (":message-type", "error"))
    return encode_frame(headers, b"")


def encode_chunk(anthropic_event: dict | bytes, pad: int | None = None) -> bytes:
    """An InvokeModelWithResponseStream ``chunk`` frame carrying one base64 Anthropic event."""
    inner = anthropic_event
    if isinstance(inner, dict):
        inner = json.dumps(inner, separators=(",", ":"), ensure_ascii=False).encode()
    return encode_event("chunk", {"bytes": base64.b64encode(inner).decode()}, pad)


class TruncatedStream(ValueError):
    """A body ends inside a frame."""


@functools.cache
def _frame_error() -> type:
    """``FrameError``, made on first use: a botocore ``ParserError`` (so one except clause catches both)."""
    from botocore.eventstream import ParserError

    doc = "Bytes botocore's decoder fails on outside its own ParserError family (a bad header type or name...)."
    return type("FrameError", (ParserError,), {"__doc__": doc, "__module__": __name__})


@functools.cache
def _checksum_error() -> type:
    """botocore's ``ChecksumMismatch`` with a message saying which checksum failed (the prelude's or the message's)."""
    from botocore.eventstream import ChecksumMismatch

    def __init__(self, message: str) -> None:
        Exception.__init__(self, message)

    return type("ChecksumMismatch", (ChecksumMismatch,), {"__init__": __init__, "__module__": __name__,
                                                           "__doc__": "A frame's prelude or message CRC fails."})


def __getattr__(name: str) -> Any:
    if name == "FrameError":
        return _frame_error()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def checksum_problem(piece: bytes) -> str | None:
    """Which checksum of one frame's bytes fails, said as botocore never says it: the prelude's (its first 8 bytes)
    or the whole message's; None when both hold or the bytes end before the one to check."""
    if len(piece) < 12:
        return None
    expected, found = int.from_bytes(piece[8:12], "big"), binascii.crc32(piece[:8])
    if expected != found:
        return f"prelude checksum mismatch (the frame's prelude says 0x{expected:08x}, its bytes give 0x{found:08x})"
    total = int.from_bytes(piece[:4], "big")
    if total < 16 or len(piece) < total:
        return None
    expected, found = int.from_bytes(piece[total - 4 : total], "big"), binascii.crc32(piece[: total - 4])
    if expected != found:
        return f"message checksum mismatch (the frame says 0x{expected:08x}, its bytes give 0x{found:08x})"
    return None


def _message(piece: bytes, number: int):
    """botocore's reading of one frame's bytes (None: they end inside it); only ParserErrors escape, a checksum
    mismatch named as the prelude's or the message's."""
    from botocore.eventstream import EventStreamBuffer, ParserError

    mismatch = checksum_problem(piece)
    if mismatch:
        raise _checksum_error()(f"frame {number}: {mismatch}")
    plain = _plain_message(piece)
    if plain is not None:
        return plain
    buffer = EventStreamBuffer()
    buffer.add_data(piece)
    try:
        return next(buffer, None)
    except ParserError:
        raise
    except Exception as err:  # hostile bytes: struct.error, UnicodeDecodeError, KeyError (unknown header type)
        raise _frame_error()(f"frame {number}: {type(err).__name__}: {err}") from None


_MAX_HEADERS_LENGTH, _MAX_PAYLOAD_LENGTH = 128 * 1024, 24 * 1024**2  # botocore's (eventstream.py), checked in tests


class _Prelude(NamedTuple):  # tuples, not dataclasses: one of each per frame read
    total_length: int
    headers_length: int


class _Message(NamedTuple):
    """What botocore's EventStreamBuffer makes of one frame, as far as decode_frames reads it."""

    prelude: _Prelude
    headers: dict
    payload: bytes


def _plain_message(piece: bytes) -> _Message | None:
    """botocore's reading of exactly one whole frame whose headers are all strings (what Bedrock sends), read here in
    a third of its time (9 us against 28 us for a text delta); None for anything else (another header type, a length
    past botocore's limits, a duplicate name, bytes that are not UTF-8, a frame shorter or longer than its prelude
    says), which botocore reads. The checksums are checked before (checksum_problem)."""
    if len(piece) < 16:
        return None
    total, size = struct.unpack_from(">II", piece)
    if total != len(piece) or size > total - 16 or size > _MAX_HEADERS_LENGTH or total - size - 16 > _MAX_PAYLOAD_LENGTH:
        return None
    headers, at, end = {}, 12, 12 + size
    try:
        while at < end:
            length = piece[at]
            name_end = at + 1 + length
            if name_end + 3 > end or piece[name_end] != _STRING:
                return None
            value_end = name_end + 3 + int.from_bytes(piece[name_end + 1 : name_end + 3], "big")
            if value_end > end:
                return None
            name = piece[at + 1 : name_end].decode("utf-8")
            if name in headers:
                return None
            headers[name] = piece[name_end + 3 : value_end].decode("utf-8")
            at = value_end
    except UnicodeDecodeError:
        return None
    return _Message(_Prelude(total, size), headers, piece[end : total - 4])


def _typed(raw: bytes, values: dict) -> tuple[tuple[str, Any], ...]:
    """botocore's header values in wire order, each of a type botocore reads as a plain int or bytes (byte, short,
    long, timestamp, uuid) wrapped as that type, so the frame re-encodes byte for byte. ``raw``: the header bytes
    botocore parsed (so well formed)."""
    out, at = [], 0
    while at < len(raw):
        size = raw[at]
        name = raw[at + 1 : at + 1 + size].decode("utf-8")
        code = raw[at + 1 + size]
        at += 2 + size
        if code in _FIXED:
            at += _FIXED[code]
        else:  # byte array or string: a two-byte length first
            at += 2 + int.from_bytes(raw[at : at + 2], "big")
        wrap = _WRAP.get(code)
        out.append((name, wrap(values[name]) if wrap else values[name]))
    return tuple(out)


def frame_slices(data: bytes) -> Iterator[bytes]:
    """The body cut at each frame's length prefix; a last piece that does not fit is yielded as it is."""
    at, end = 0, len(data)
    while at < end:
        size = int.from_bytes(data[at : at + 4], "big") if end - at >= 4 else 0
        size = size if 16 <= size <= end - at else end - at
        yield data[at : at + size]
        at += size


_SHARED_HEADERS: dict[bytes, tuple] = {}  # header bytes -> their plain headers, one tuple for every frame so headed
_MAX_SHARED, _MAX_SHARED_BYTES = 4096, 512


def _headers(raw: bytes, headers: dict) -> tuple:
    """The headers of a frame whose header bytes are ``raw``, as a Frame holds them: string (and boolean) headers,
    Bedrock's, as one tuple shared by every frame so headed (what they decode to depends on nothing else: a stream of
    100,000 deltas holds its three headers once, not 100,000 times, 57 MB); any other kind typed (``_typed``)."""
    known = _SHARED_HEADERS.get(raw)
    if known is not None:
        return known
    if not all(type(v) in (str, bool) for v in headers.values()):
        return _typed(raw, headers)
    plain = tuple(headers.items())
    if len(_SHARED_HEADERS) < _MAX_SHARED and len(raw) <= _MAX_SHARED_BYTES:
        _SHARED_HEADERS[raw] = plain
    return plain


def decode_frames(data: bytes, *, strict: bool = True) -> list[Frame]:
    """Split a body into CRC-checked frames, one at a time (linear); ``strict`` refuses a partial last frame."""
    frames, consumed = [], 0
    for piece in frame_slices(data):
        message = _message(piece, len(frames))
        if message is None:
            break
        raw = piece[12 : 12 + message.prelude.headers_length]
        frames.append(Frame(_headers(raw, message.headers), bytes(message.payload)))
        consumed += message.prelude.total_length
    if strict and consumed != len(data):
        raise TruncatedStream(f"{len(data) - consumed} trailing bytes after frame {len(frames)}")
    return frames


class _Chunks:
    """The ``raw_stream`` botocore's EventStream reads: ``stream()`` yields byte chunks."""

    def __init__(self, chunks: Iterable[bytes]):
        self._chunks = chunks

    def stream(self) -> Iterator[bytes]:
        yield from self._chunks

    def close(self) -> None:
        pass


@functools.lru_cache(maxsize=None)
def _output_shape(operation: str):
    return operation_model(operation).output_shape.members[STREAM_MEMBERS[operation]]


def decode_events(data: bytes | Iterable[bytes], operation: str = "ConverseStream") -> Iterator[dict]:
    """Yield exactly what boto3 yields for this body (``EventStreamError`` on an exception frame)."""
    # One frame per chunk: botocore's buffer copies what it still holds after each message (quadratic on a body).
    chunks = frame_slices(bytes(data)) if isinstance(data, (bytes, bytearray)) else data
    from botocore.eventstream import EventStream
    from botocore.parsers import EventStreamJSONParser

    stream = EventStream(_Chunks(chunks), _output_shape(operation), EventStreamJSONParser(), operation)
    yield from stream


def _as_read(frame: Frame, known: dict | None = None) -> dict | None:
    """The headers botocore reads back from ``frame.encode()`` when that is sure without encoding it: a frame
    botocore read as exactly one whole frame (harness.cassettes.frames' RawFrame ``whole``), or one of unique string
    (or boolean) headers within botocore's limits; None otherwise. ``known`` remembers a reading by the identity of
    the headers tuple (frames that share one get one dict, not to be changed)."""
    whole = getattr(frame, "whole", False)
    if not whole and (hasattr(frame, "raw") or len(frame.payload) > _MAX_PAYLOAD_LENGTH):
        return None
    if known is None:
        return _headers_read(frame.headers, whole)
    entry = known.get((id(frame.headers), whole))
    if entry is None or entry[0] is not frame.headers:
        entry = known[(id(frame.headers), whole)] = (frame.headers, _headers_read(frame.headers, whole))
    return entry[1]


def _headers_read(pairs: tuple, whole: bool) -> dict | None:
    if whole:
        return dict(pairs)
    headers, size = {}, 0
    for name, value in pairs:
        if type(name) is not str or type(value) not in (str, bool) or name in headers:
            return None
        try:
            raw_name, raw_value = name.encode("utf-8"), b"" if type(value) is bool else value.encode("utf-8")
        except UnicodeEncodeError:
            return None
        if len(raw_name) > 0xFF or len(raw_value) > 0xFFFF:  # what the encoder cannot write
            return None
        size += 2 + len(raw_name) + (0 if type(value) is bool else 2 + len(raw_value))
        headers[name] = value
    return headers if size <= _MAX_HEADERS_LENGTH else None


def frame_events(frames: Iterable[Frame], operation: str = "ConverseStream", *, once: bool = False) -> Iterator[dict]:
    """``decode_events`` of these frames' bytes, read once: when every frame's headers are sure (``_as_read``), each
    goes to botocore's own event parser as botocore's buffer would hand it over (``EventStream._parse_event``),
    without being encoded and read back; otherwise the frames' bytes go through ``decode_events``.

    With ``once``, for a check that counts the events and catches what botocore raises: a frame botocore would read
    as it read one before (the same headers, a payload of the same ``_parse_form``) yields that earlier event again,
    not parsed a second time."""
    frames = list(frames)
    known: dict = {}  # id of a headers tuple -> (the tuple, its reading): frames of one type share one tuple
    read = [_as_read(frame, known) for frame in frames]
    if None in read:
        yield from decode_events((frame.encode() for frame in frames), operation)
        return
    from botocore.eventstream import EventStreamError, EventStreamMessage
    from botocore.parsers import EventStreamJSONParser

    parser, shape = EventStreamJSONParser(), _output_shape(operation)
    seen: dict = {}
    kept = _values_read(operation) if once else frozenset()
    for frame, headers in zip(frames, read):
        key = (id(headers), _parse_form(frame.payload, kept)) if once else None
        parsed = seen.get(key) if key is not None and key[1] is not None else None
        if parsed is None:
            response = EventStreamMessage(None, headers, frame.payload, None).to_response_dict()
            parsed = parser.parse(response, shape)
            if response["status_code"] != 200:
                raise EventStreamError(parsed, operation)
            if key is not None and key[1] is not None and len(seen) < _MAX_FORMS:
                seen[key] = parsed
        if parsed:
            yield parsed


_MAX_FORMS = 4096  # payload forms ``frame_events(once=True)`` remembers per stream


@functools.lru_cache(maxsize=None)
def _values_read(operation: str) -> frozenset[str]:
    """The JSON names of the members of ``operation``'s events whose values botocore's parser reads, not only
    passes on: blobs (base64-decoded) and timestamps, at any depth, or lists and maps of them."""
    names: set[str] = set()
    seen: set[str] = set()

    def reads(shape) -> bool:  # the shape, or what a list or map of it holds, is read by value
        while shape.type_name in ("list", "map"):
            shape = shape.member if shape.type_name == "list" else shape.value
        return shape.type_name in ("blob", "timestamp")

    def walk(shape) -> None:
        if shape.name in seen:
            return
        seen.add(shape.name)
        if shape.type_name == "structure":
            for name, member in shape.members.items():
                if reads(member):
                    names.update((name, member.serialization.get("name", name)))
                walk(member)
        elif shape.type_name == "list":
            walk(shape.member)
        elif shape.type_name == "map":
            walk(shape.value)

    walk(_output_shape(operation))
    return frozenset(names)


def _parse_form(payload: bytes, kept: frozenset[str]) -> Any:
    """What botocore's JSON event parser can answer differently for (None: a payload it reads otherwise, not JSON
    text, which is parsed each time): the payload's keys and the types of its values, a string only as empty or
    not (a list's member iterates a string), and the values themselves under the names in ``kept``. The walk does
    nothing else by value: a string, number or boolean member is passed on as it is."""
    try:
        value = json.loads(payload.decode("utf-8"))
    except Exception:  # noqa: BLE001 -- undecodable, not JSON, too deep: botocore's own reading says what happens
        return None

    def form(value: Any) -> Any:
        kind = type(value)
        if kind is dict:
            return dict, tuple((key, ("=", json.dumps(item)) if key in kept else form(item))
                               for key, item in value.items())
        if kind is list:
            return list, tuple(form(item) for item in value)
        if kind is str:
            return str if value else ""
        return kind

    try:
        return form(value)
    except RecursionError:
        return None
