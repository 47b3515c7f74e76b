"""What a client would see (harness.cassettes.views): bodies decompressed and re-read, streams assembled the way an
SDK's caller joins them, a document's lists and bodies read as a whole; decompression within one budget."""

from __future__ import annotations

import base64
import bz2
import gzip
import json
import lzma
import zlib

import pytest

from harness.cassettes import limits, views
from harness.cassettes.frames import frame_to_doc, frames_from_body
from harness.wire.eventstream import encode_chunk, encode_event

TEXT = b'{"message": "the whole text"}'


def readings(data: bytes, budget: int | None = None) -> dict:
    return dict(views.readings(data, views.Budget(budget)))


def joined(value, budget: int | None = None) -> list:
    return list(views.joined(value, views.Budget(budget)))


@pytest.mark.parametrize("name, data", [
    ("gzip", gzip.compress(TEXT[:9]) + gzip.compress(TEXT[9:])),  # every member, not only the first
    ("bz2", bz2.compress(TEXT[:9]) + bz2.compress(TEXT[9:])),
    ("xz", lzma.compress(TEXT)),
    ("zlib", zlib.compress(TEXT)),
], ids=["gzip", "bz2", "xz", "zlib"])
def test_compressed_bytes_are_read_decompressed_by_their_magic(name, data):
    assert readings(data) == {f"{name}-decompressed": TEXT}


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_text_is_read_as_utf8_with_or_without_a_byte_order_mark(encoding):
    found = readings(TEXT.decode().encode(encoding))
    assert list(found.values()) == [TEXT] and list(found)[0].startswith("read as utf-")


def test_plain_text_and_random_bytes_have_no_other_reading():
    assert readings(TEXT) == {} and readings(bytes(range(256))) == {}
    assert readings(b"\x1f\x8b broken gzip") == {}  # broken data is no finding: its bytes were scanned as they are


def test_a_decompression_past_the_budget_is_a_limit_error_not_a_reading():
    [(how, error)] = readings(gzip.compress(b"x" * 5000), budget=1000).items()
    assert how == "gzip-decompressed" and isinstance(error, limits.LimitError) and "1000" in str(error)


def test_the_budget_is_shared_by_every_reading_of_one_scan():
    budget = views.Budget(1500)
    first = dict(views.readings(gzip.compress(b"x" * 1000), budget))
    second = dict(views.readings(gzip.compress(b"y" * 1000), budget))
    assert first == {"gzip-decompressed": b"x" * 1000}
    assert isinstance(second["gzip-decompressed"], limits.LimitError)


def _delta(index: int, delta: dict) -> bytes:
    return encode_event("contentBlockDelta", {"contentBlockIndex": index, "delta": delta}, 3)


STREAM = [encode_event("messageStart", {"role": "assistant"}, 3),
          _delta(0, {"reasoningContent": {"text": "think "}}), _delta(0, {"reasoningContent": {"text": "hard"}}),
          _delta(0, {"reasoningContent": {"signature": "c2ln"}}),
          _delta(1, {"text": "hello "}), _delta(1, {"text": "world"}),
          encode_event("contentBlockStart", {"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "t", "name": "f"}}}),
          _delta(2, {"toolUse": {"input": '{"a": '}}), _delta(2, {"toolUse": {"input": '"b"}'}}),
          encode_event("messageStop", {"stopReason": "tool_use"}, 3)]
ASSEMBLED = ["think hard", "hello world", '{"a": "b"}', 'think hardhello world{"a": "b"}']


def test_a_stream_is_assembled_per_block_and_per_message():
    found = list(views.readings(b"".join(STREAM), views.Budget()))
    assert found == [("stream assembled", t.encode()) for t in ASSEMBLED]


def test_frame_items_of_this_projects_cassettes_are_assembled_in_every_form():
    items = [frame_to_doc(frames_from_body(f)[0]) for f in STREAM]
    items[4] = {"event": "contentBlockDelta", "payload": json.dumps({"contentBlockIndex": 1, "delta": {"text": "hello "}})}
    items[5] = {"frame_base64": base64.b64encode(STREAM[5]).decode()}
    assert [t for how, t in joined(items)] == ASSEMBLED


def test_anthropic_events_in_invoke_chunks_and_decoded_events_are_assembled():
    deltas = [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}}
              for t in ("sp", "lit")]
    chunks = [frame_to_doc(frames_from_body(encode_chunk(d, 2))[0]) for d in deltas]
    assert [t for _, t in joined(chunks)] == ["split"]
    decoded = [{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": t}}} for t in ("sp", "lit")]
    assert [t for _, t in joined(decoded)] == ["split"]
    assert [t for _, t in joined([{"chunk": {"bytes": base64.b64encode(json.dumps(d).encode()).decode()}}
                                  for d in deltas])] == ["split"]


def test_a_new_message_starts_at_message_start():
    events = [{"role": "assistant"}, {"contentBlockIndex": 0, "delta": {"text": "one"}},
              {"role": "assistant"}, {"contentBlockIndex": 0, "delta": {"text": "two"}}]
    assert views.assembled(events) == ["one", "two"]


def test_text_blocks_and_hex_network_chunks_are_joined():
    assert joined([{"text": "sp"}, {"image": {}}, {"text": "lit"}]) == [("text blocks joined", "split")]
    assert joined(["7370", "6c6974"]) == [("hex chunks joined", b"split")]
    assert joined([{"text": "alone"}]) == [] and joined(["7370", "not hex"]) == []


def test_a_body_is_decoded_by_its_content_encoding_where_no_magic_tells():
    deflater = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    raw = deflater.compress(TEXT) + deflater.flush()
    assert joined({"headers": {"Content-Encoding": ["deflate"]}, "body": {"string": raw}}) == [
        ("body (raw deflate)", TEXT)]
    gzipped = {"headers": {"content-encoding": "gzip"}, "body_base64": base64.b64encode(gzip.compress(TEXT)).decode()}
    assert joined(gzipped) == []  # its magic tells: readings() decompresses it wherever it is


def test_an_encoding_the_scan_cannot_decode_is_reported_unless_the_body_reads_as_text():
    [(how, error)] = joined({"headers": {"Content-Encoding": "br"}, "body": {"string": b"\x8b\x05\x80\xff"}})
    assert how == "body" and isinstance(error, limits.LimitError) and "'br'" in str(error)
    assert joined({"headers": {"Content-Encoding": "br"}, "body": {"string": b'{"kept": "decoded"}'}}) == []
