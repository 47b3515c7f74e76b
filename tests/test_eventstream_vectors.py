"""Event-stream test vectors of our own, in the spirit of those the AWS SDKs share (aws-sdk-go's
``eventstream/testdata``), written from the published format, not copied: a frame is a prelude (total length,
headers length: two big-endian uint32), the prelude's CRC32, the headers (name length: uint8, name, type: uint8,
value), the payload and the CRC32 of everything before it. Header types 0-9: true, false, byte, short, integer,
long, byte array and string (uint16 length first), timestamp (int64 milliseconds), uuid (16 bytes).

Each positive vector decodes (through botocore, as boto3 does) to its headers and payload, keeps each header's type,
and re-encodes byte for byte; each negative one is refused in one line saying which checksum failed, by the decoder
and by ``cassette verify`` alike. The bytes are built here by a separate encoder, so a bug in the project's own
encoder cannot hide in both."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest
from botocore.eventstream import EventStreamBuffer, ParserError

from harness.cassettes import cassette as cs
from harness.wire import eventstream as es
from hostile import cassette_text

_LAYOUT = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}


def _header(name: str, code: int, value) -> bytes:
    raw = bytes([len(name.encode())]) + name.encode() + bytes([code])
    if code in (0, 1):
        return raw
    if code in _LAYOUT:
        return raw + struct.pack(_LAYOUT[code], value)
    if code == 9:
        return raw + value
    data = value.encode() if code == 7 else value
    return raw + struct.pack(">H", len(data)) + data


def _frame(headers: list[tuple[str, int, object]], payload: bytes) -> bytes:
    raw = b"".join(_header(*h) for h in headers)
    prelude = struct.pack(">II", 16 + len(raw) + len(payload), len(raw))
    body = prelude + struct.pack(">I", zlib.crc32(prelude)) + raw + payload
    return body + struct.pack(">I", zlib.crc32(body))


_TYPES = {2: es.Byte, 3: es.Short, 5: es.Long, 8: es.Timestamp, 9: es.Uuid}
_JSON = b'{"foo":"bar"}'
POSITIVE = {
    "empty-message": ([], b""),
    "payload-no-headers": ([], _JSON),
    "one-string-header": ([("event-type", 7, "aws:event")], _JSON),
    "int32-header": ([("event-type", 4, 40972)], b""),
    "every-header-type": ([(":event-type", 4, 40972), ("content-type", 7, "application/json"),
                           ("bool-false", 1, False), ("bool-true", 0, True), ("byte", 2, -49),
                           ("byte-buffer", 6, b"a little teapot"), ("timestamp", 8, 8675309), ("int16", 3, 42),
                           ("int64", 5, 42424242), ("uuid", 9, bytes(range(1, 17)))], _JSON),
    "extreme-values": ([("int8-min", 2, -128), ("int16-max", 3, 32767), ("int32-min", 4, -(2**31)),
                        ("int64-max", 5, 2**63 - 1), ("int64-small", 5, 1), ("epoch", 8, 0),
                        ("empty-string", 7, ""), ("empty-bytes", 6, b"")], b"\x00\xff"),
    "bedrock-event": ([(":event-type", 7, "contentBlockDelta"), (":content-type", 7, "application/json"),
                       (":message-type", 7, "event")], b'{"contentBlockIndex":0,"delta":{"text":"hi"},"p":"ab"}'),
}


def _expected(headers) -> tuple:
    return tuple((name, _TYPES[code](value) if code in _TYPES else value) for name, code, value in headers)


@pytest.mark.parametrize("name", sorted(POSITIVE))
def test_a_positive_vector_decodes_keeps_its_types_and_re_encodes_byte_for_byte(name):
    headers, payload = POSITIVE[name]
    data = _frame(headers, payload)
    [frame] = es.decode_frames(data)
    assert frame.headers == _expected(headers) and frame.payload == payload
    assert [type(v) for _, v in frame.headers] == [type(v) for _, v in _expected(headers)]
    assert frame.encode() == data
    assert es.encode_frame(_expected(headers), payload) == data  # the encoder writes each type as its own
    buffer = EventStreamBuffer()  # and botocore reads the same bytes alike
    buffer.add_data(data)
    [message] = list(buffer)
    assert message.headers == dict(frame.headers) and message.payload == payload


def test_every_header_type_is_as_long_as_the_format_says():
    headers, payload = POSITIVE["every-header-type"]
    values = (4, len("application/json") + 2, 0, 0, 1, len(b"a little teapot") + 2, 8, 2, 8, 16)
    names = sum(1 + len(n) + 1 for n, _, _ in headers)
    assert len(es.encode_frame(_expected(headers), payload)) == 16 + names + sum(values) + len(payload)


def _corrupt(kind: str) -> bytes:
    data = bytearray(_frame(*POSITIVE["every-header-type"]))
    if kind == "length":  # the total length changed: the prelude's checksum no longer holds
        data[3] ^= 0x01
    elif kind == "header-length":
        data[7] ^= 0x01
    elif kind == "headers":
        data[20] ^= 0x01
    else:  # the payload
        data[-6] ^= 0x01
    return bytes(data)


NEGATIVE = {"length": "prelude", "header-length": "prelude", "headers": "message", "payload": "message"}


@pytest.mark.parametrize("kind", sorted(NEGATIVE))
def test_a_negative_vector_is_refused_naming_the_checksum(kind, tmp_path):
    data = _corrupt(kind)
    with pytest.raises(ParserError, match=f"^frame 0: {NEGATIVE[kind]} checksum mismatch") as caught:
        es.decode_frames(data)
    assert "\n" not in str(caught.value)
    path = tmp_path / "c.yaml"
    path.write_text(cassette_text(f"    - frame_base64: {base64.b64encode(data).decode()}\n"))
    [problem] = cs.verify(path)
    assert problem.startswith(f"{path}: interaction 0 (ConverseStream), frame 1: corrupt frame bytes "
                              f"(ChecksumMismatch: frame 0: {NEGATIVE[kind]} checksum mismatch")


def test_a_uuid_header_must_be_16_bytes():
    with pytest.raises(ValueError, match="a uuid of 3 bytes, not 16"):
        es.encode_frame((("id", es.Uuid(b"abc")),), b"")
