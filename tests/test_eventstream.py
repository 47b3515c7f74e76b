import base64
import binascii
import json

import pytest
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer, ParserError
from botocore.exceptions import EventStreamError
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.wire import eventstream as es
from realworld import ids, requires_realworld, streams

header_names = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=20)
header_values = st.one_of(
    st.text(max_size=40),
    st.binary(max_size=40),
    st.booleans(),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(2**31, 2**62),
)
frames = st.builds(
    es.Frame,
    st.dictionaries(header_names, header_values, max_size=5).map(lambda d: tuple(d.items())),
    st.binary(max_size=300),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:])]


@given(st.lists(frames, max_size=6))
def test_frames_round_trip(items):
    body = b"".join(f.encode() for f in items)
    assert es.decode_frames(body) == items


@given(st.lists(frames, min_size=1, max_size=4), st.lists(st.integers(0, 10_000), max_size=12))
def test_any_chunking_decodes_the_same_frames(items, cuts):
    body = b"".join(f.encode() for f in items)
    buffer = EventStreamBuffer()
    got = []
    for piece in chunked(body, cuts):
        buffer.add_data(piece)
        got.extend(es.Frame(tuple(m.headers.items()), bytes(m.payload)) for m in buffer)
    assert got == items


@settings(max_examples=60)
@given(st.text(max_size=50), st.integers(0, 61), st.lists(st.integers(0, 5000), max_size=10))
def test_text_delta_decodes_as_boto3_event(text, pad, cuts):
    body = es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": text}}, pad)
    events = list(es.decode_events(chunked(body, cuts)))
    assert events == [{"contentBlockDelta": {"delta": {"text": text}, "contentBlockIndex": 0}}]


@settings(max_examples=60)
@given(st.dictionaries(st.text(max_size=8), json_values, max_size=4))
def test_document_values_survive_encode_decode(value):
    body = es.encode_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolResult": [{"json": value}]}}, 3)
    (event,) = es.decode_events(body)
    assert event["contentBlockDelta"]["delta"]["toolResult"] == [{"json": value}]


def test_padding_is_a_prefix_of_the_alphabet():
    assert es.padding(5) == "abcde"
    assert es.padding(62) == es.PADDING_ALPHABET
    assert json.loads(es.json_payload({"role": "assistant"}, 3)) == {"p": "abc", "role": "assistant"}
    assert es.json_payload({"b": 1, "a": "°"}) == '{"a":"°","b":1}'.encode()


def test_exception_frame_raises_event_stream_error():
    body = es.encode_event("messageStart", {"role": "assistant"}, 4) + es.encode_exception(
        "modelStreamErrorException", {"message": "boom", "originalStatusCode": 500, "originalMessage": "x"}
    )
    it = es.decode_events(body)
    assert next(it) == {"messageStart": {"role": "assistant"}}
    with pytest.raises(EventStreamError) as info:
        next(it)
    assert info.value.response["Error"] == {"Code": "modelStreamErrorException", "Message": "boom"}


def test_error_frame_carries_code_and_message_from_headers():
    with pytest.raises(EventStreamError) as info:
        list(es.decode_events(es.encode_error("InternalFailure", "boom")))
    assert info.value.response["Error"] == {"Code": "InternalFailure", "Message": "boom"}


def test_chunk_frame_carries_base64_anthropic_event():
    inner = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}}
    body = es.encode_chunk(inner, 7)
    payload = es.decode_frames(body)[0].json()
    assert payload["p"] == "abcdefg" and json.loads(base64.b64decode(payload["bytes"])) == inner
    (event,) = es.decode_events(body, "InvokeModelWithResponseStream")
    assert json.loads(event["chunk"]["bytes"]) == inner


def test_corrupt_crc_and_truncation_are_detected():
    body = bytearray(es.encode_event("messageStart", {"role": "assistant"}, 2))
    body[-1] ^= 0xFF
    with pytest.raises(ChecksumMismatch):
        es.decode_frames(bytes(body))
    whole = es.encode_event("messageStart", {"role": "assistant"}, 2)
    with pytest.raises(es.TruncatedStream, match="trailing bytes after frame 0"):
        es.decode_frames(whole[:-3])
    assert es.decode_frames(whole[:-3], strict=False) == []


@requires_realworld
@pytest.mark.parametrize("stream", streams(), ids=ids(streams()))
def test_real_streams_reencode_byte_exact(stream):
    frames_ = es.decode_frames(stream.body)
    assert b"".join(f.encode() for f in frames_) == stream.body


@requires_realworld
@pytest.mark.parametrize("stream", streams(), ids=ids(streams()))
def test_real_streams_reencode_from_json_and_padding_length(stream):
    """Real payloads are compact sorted JSON plus `p`: rebuilding them from parsed JSON is byte-exact,
    except for documents whose free-form key order must be kept raw (counted, not hidden)."""
    mismatched = 0
    for frame in es.decode_frames(stream.body):
        body = frame.json()
        pad = len(body.pop("p", ""))
        if es.encode_event(frame.type, body, pad) != frame.encode():
            mismatched += 1
    assert mismatched <= sum(b'"toolResult"' in f.payload for f in es.decode_frames(stream.body))


def _frame_with_raw_headers(raw_headers: bytes, payload: bytes = b"") -> bytes:
    """A frame whose header bytes are given as they are, with valid length prefix and CRCs."""
    import binascii
    import struct
    prelude = struct.pack(">II", 16 + len(raw_headers) + len(payload), len(raw_headers))
    head = prelude + struct.pack(">I", binascii.crc32(prelude)) + raw_headers + payload
    return head + struct.pack(">I", binascii.crc32(head))


@pytest.mark.parametrize("raw_headers, inner", [
    (b"\x04name\x63", "KeyError"),  # header type 99 does not exist
    (b"\x02\xff\xfe\x07\x00\x01a", "UnicodeDecodeError"),  # a header name that is not UTF-8
    (b"\x04name\x07\x00", "struct.error"),  # a string header cut inside its length
], ids=["header-type", "header-name", "short-header"])
def test_hostile_header_bytes_are_a_parser_error_naming_the_frame(raw_headers, inner):
    good = es.encode_event("messageStart", {"role": "assistant"}, 2)
    with pytest.raises(ParserError) as caught:
        es.decode_frames(good + _frame_with_raw_headers(raw_headers))
    assert str(caught.value).startswith(f"frame 1: {inner.split('.')[-1]}") or inner in str(caught.value)


@given(st.binary(max_size=200))
def test_any_bytes_decode_or_fail_as_parser_or_truncation_errors(data):
    try:
        es.decode_frames(data)
    except (ParserError, es.TruncatedStream):
        pass


def test_a_long_stream_decodes_frame_by_frame():
    frame = es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "x" * 50}}, 9)
    body = frame * 20_000
    assert [len(list(es.frame_slices(body))), len(es.decode_frames(body))] == [20_000, 20_000]
    assert sum(1 for _ in es.decode_events(body)) == 20_000


# ---- loads: json.loads, faster for the common case ----

@pytest.mark.parametrize("data", [
    b'{"a":1}', b'{"a": [1, 2.5, true, null, "\\u00e9"]}', "{\"t\": \"h\u00e9llo \u2603\"}".encode(), b"[]", b"0",
    b'"x"', b" {\"a\": 1}", b"{\"a\": 1} \n", b"\xef\xbb\xbf{\"bom\": true}", "{\"u\": 16}".encode("utf-16"),
    "{\"u\": 32}".encode("utf-32"), b"NaN", b"-Infinity", b"1" * 400, b'{"a": 1, "a": 2}',
])
def test_loads_gives_what_json_loads_gives(data):
    assert json.dumps(es.loads(data)) == json.dumps(json.loads(data))  # 1, 1.0 and true stay apart; NaN is NaN


@pytest.mark.parametrize("data", [b"", b"{", b'{"a": 1} x', b"\xff\xfe\x00", b"{'a': 1}", b"[1,]", b"\xc3("])
def test_loads_fails_as_json_loads_fails(data):
    with pytest.raises(ValueError) as expected:
        json.loads(data)
    with pytest.raises(ValueError) as got:
        es.loads(data)
    assert (type(got.value), str(got.value)) == (type(expected.value), str(expected.value))


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=20),
       st.sampled_from(["", " ", "\n"]), st.sampled_from(["", " ", "\t\n"]))
@settings(max_examples=200, deadline=None)
def test_loads_agrees_with_json_loads_on_any_json(value, before, after):
    data = (before + json.dumps(value, ensure_ascii=False) + after).encode()
    assert json.dumps(es.loads(data)) == json.dumps(json.loads(data))


def _botocore_reading(piece: bytes):
    buffer = EventStreamBuffer()
    buffer.add_data(piece)
    message = next(buffer)
    return message.prelude.total_length, message.prelude.headers_length, message.headers, bytes(message.payload)


def test_the_fast_reading_keeps_botocores_limits():
    import botocore.eventstream as botocore_eventstream

    assert (es._MAX_HEADERS_LENGTH, es._MAX_PAYLOAD_LENGTH) == (botocore_eventstream._MAX_HEADERS_LENGTH,
                                                                botocore_eventstream._MAX_PAYLOAD_LENGTH)


string_frames = st.builds(
    lambda headers, payload: es.encode_frame(headers, payload),
    st.dictionaries(st.text(max_size=12), st.text(max_size=30), max_size=5).map(lambda d: tuple(d.items())),
    st.binary(max_size=60),
)


@settings(max_examples=300)
@given(st.one_of(frames.map(lambda f: f.encode()), string_frames), st.lists(st.tuples(st.integers(0, 400),
                                                                                      st.integers(0, 255)), max_size=3))
def test_the_fast_reading_of_a_frame_is_botocores_or_none(data, flips):
    """Whatever bytes the fast path reads (string headers only, one whole frame), it reads as botocore does; any
    other it leaves to botocore (None). Flipped bytes are re-summed so the checksums hold and the headers are read."""
    piece = bytearray(data)
    for at, value in flips:
        if 12 <= at < len(piece) - 4:
            piece[at] = value
    if len(piece) >= 16:
        piece[8:12] = binascii.crc32(bytes(piece[:8])).to_bytes(4, "big")
        piece[-4:] = binascii.crc32(bytes(piece[:-4])).to_bytes(4, "big")
    piece = bytes(piece)
    fast = es._plain_message(piece)
    if fast is None:
        return
    assert (fast.prelude.total_length, fast.prelude.headers_length, fast.headers, fast.payload) == \
        _botocore_reading(piece)


def test_the_fast_reading_declines_what_it_does_not_read():
    typed = es.encode_frame(((":event-type", "x"), ("n", 5)), b"{}")
    assert es._plain_message(typed) is None  # an int32 header: botocore reads it
    assert es.decode_frames(typed)[0].headers == ((":event-type", "x"), ("n", 5))
    duplicate = es.encode_frame(((":event-type", "a"), (":event-type", "b")), b"")
    assert es._plain_message(duplicate) is None
    with pytest.raises(ParserError, match="Duplicate header"):
        es.decode_frames(duplicate)
    bad_utf8 = _frame_with_raw_headers(b"\x01\xff\x07\x00\x01a")
    assert es._plain_message(bad_utf8) is None
    assert es._plain_message(es.encode_event("messageStop", {"stopReason": "end_turn"}) + b"\x00") is None
    assert es._plain_message(es.encode_event("messageStop", {"stopReason": "end_turn"})) is not None


def _events_or_error(read):
    out = []
    try:
        for event in read:
            out.append(event)
    except EventStreamError as err:
        out.append(("error", err.response))
    except Exception as err:  # noqa: BLE001 - what botocore's parser raises, compared by kind
        out.append((type(err).__name__,))
    return out


event_frames = st.one_of(
    st.builds(lambda text, pad: es.Frame(((":event-type", "contentBlockDelta"), (":content-type", "application/json"),
                                          (":message-type", "event")),
                                         es.json_payload({"contentBlockIndex": 0, "delta": {"text": text}}, pad)),
              st.text(max_size=20), st.integers(0, 20)),
    st.builds(lambda kind, body: es.Frame(((":event-type", kind), (":message-type", "event")), body),
              st.sampled_from(["messageStart", "messageStop", "metadata", "contentBlockStart", "surprise"]),
              st.sampled_from([b"{}", b'{"role": "assistant"}', b'{"stopReason": 3}', b"[1]", b"not json",
                               b'{"usage": {"inputTokens": "x"}}', b'{"start": {"toolUse": 5}}'])),
    st.builds(lambda kind: es.Frame(((":exception-type", kind), (":content-type", "application/json"),
                                     (":message-type", "exception")), b'{"message": "no"}'),
              st.sampled_from(["throttlingException", "validationException", "madeUp"])),
    st.builds(lambda code: es.Frame(((":error-code", code), (":error-message", "m"), (":message-type", "error")), b""),
              st.text(max_size=8)),
    frames,
)


@settings(max_examples=200)
@given(st.lists(event_frames, max_size=6))
def test_frame_events_yield_what_decode_events_yields_for_the_frames_bytes(items):
    """Handing frames to botocore's parser as they are gives exactly what botocore makes of their bytes."""
    from harness.cassettes.frames import frame_from_doc

    raws = [frame_from_doc({"frame_base64": base64.b64encode(f.encode()).decode()}) for f in items
            if es.checksum_problem(f.encode()) is None]
    for group in (items, raws):
        expected = _events_or_error(es.decode_events(b"".join(f.encode() for f in group)))
        assert _events_or_error(es.frame_events(group)) == expected


def test_frames_with_the_same_header_bytes_share_one_headers_tuple_and_no_others_do():
    """A stream of 100,000 deltas holds its headers once (es._shared): the same header bytes, the same tuple; other
    values of the same names, a header more, or the same headers in another order each decode as themselves."""
    one = es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "a"}})
    two = es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "b"}})
    other = es.encode_event("contentBlockStop", {"contentBlockIndex": 0})
    extra = es.encode_frame(es.Frame(es.decode_frames(one)[0].headers + (("x-note", "n"),), b"{}").headers, b"{}")
    turned = es.encode_frame(tuple(reversed(es.decode_frames(one)[0].headers)), b"{}")
    frames = es.decode_frames(one + two + other + extra + turned)
    assert frames[0].headers is frames[1].headers
    assert [f.type for f in frames[:3]] == ["contentBlockDelta", "contentBlockDelta", "contentBlockStop"]
    assert frames[3].headers == frames[0].headers + (("x-note", "n"),)
    assert frames[4].headers == tuple(reversed(frames[0].headers))
    assert [f.encode() for f in frames] == [one, two, other, extra, turned]


def _counted_or_error(read):
    """How many events a reading yields, then what ended it: what grammar's botocore check looks at."""
    count = 0
    try:
        for _ in read:
            count += 1
    except EventStreamError as err:
        return count, ("error", err.response)
    except Exception as err:  # noqa: BLE001 - what botocore's parser raises, compared by kind and text
        return count, (type(err).__name__, str(err))
    return count, None


def _typed(kind: str) -> tuple:
    return (":event-type", kind), (":content-type", "application/json"), (":message-type", "event")


_DELTA = _typed("contentBlockDelta")  # one tuple for every frame of the type, as a cassette's frames share it


def _delta(delta) -> es.Frame:
    return es.Frame(_DELTA, json.dumps({"contentBlockIndex": 0, "delta": delta}).encode())


def test_reading_once_parses_a_payload_form_once_and_still_meets_every_value_botocore_reads(monkeypatch):
    """``frame_events(once=True)`` (what verify's botocore check uses) parses 1,000 deltas of one form once; a
    value botocore decodes (a blob: redactedContent) or a string a list member iterates is still read each time."""
    from botocore.parsers import EventStreamJSONParser

    calls = []
    parse = EventStreamJSONParser.parse
    monkeypatch.setattr(EventStreamJSONParser, "parse", lambda self, *a: calls.append(1) or parse(self, *a))
    texts = [_delta({"text": f"piece {n}"}) for n in range(1000)]
    assert _counted_or_error(es.frame_events(texts, once=True)) == (1000, None) and len(calls) == 1
    blobs = [_delta({"reasoningContent": {"redactedContent": "aGk="}}),
             _delta({"reasoningContent": {"redactedContent": "!!not base64"}})]
    iterated = [_delta({"toolResult": ""}), _delta({"toolResult": "x"})]  # a list of structures, given a string
    for frames in (blobs, iterated):
        once = _counted_or_error(es.frame_events(frames, once=True))
        assert once == _counted_or_error(es.frame_events(frames)) and once[0] == 1 and once[1] is not None, once


_json_keys = st.sampled_from(["contentBlockIndex", "delta", "text", "toolUse", "input", "reasoningContent",
                              "redactedContent", "signature", "toolResult", "json", "citation", "sourceContent",
                              "image", "source", "bytes", "format", "start", "__type", "usage", "inputTokens"])
_json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.floats(allow_nan=False), st.text(max_size=2),
              st.sampled_from(["", "aGk=", "!!", "2024-01-01T00:00:00Z"])),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_json_keys, inner, max_size=3), max_leaves=10)


_KINDS = {kind: _typed(kind) for kind in ("contentBlockDelta", "contentBlockStart", "messageStop", "metadata")}


@settings(max_examples=500)
@given(st.lists(st.tuples(st.sampled_from(sorted(_KINDS)), st.dictionaries(_json_keys, _json_values, max_size=3)),
                min_size=1, max_size=8))
def test_reading_once_counts_and_fails_as_reading_every_frame(items):
    """Whatever payloads a stream's frames hold, remembering a payload's form answers as parsing each frame."""
    frames = [es.Frame(_KINDS[kind], json.dumps(payload).encode()) for kind, payload in items]
    assert _counted_or_error(es.frame_events(frames, once=True)) == _counted_or_error(es.frame_events(frames))
