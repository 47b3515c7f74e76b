import base64
import binascii
import dataclasses
import json
import os
import re
import struct
from pathlib import Path

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from harness.cassettes import cassette as cs
from harness.wire import eventstream as es
from harness.cassettes import parsed, scrub, secrets
from harness.cassettes.frames import RawFrame, frame_from_doc, frame_to_doc
from realworld import ids, requires_realworld, streams

MODEL = "us.anthropic.claude-3-7-sonnet-20250219-v1:0"
URI = "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-3-7-sonnet-20250219-v1%3A0/"
REQUEST = {"messages": [{"role": "user", "content": [{"text": "Weather in Paris?"}]}]}


def stream_interaction(frames, op="converse-stream", status=200) -> cs.Interaction:
    frames = tuple(f if isinstance(f, es.Frame) else cs.frames_from_body(f)[0] for f in frames)
    return cs.Interaction("POST", URI + op, {"Content-Type": "application/json"}, json.dumps(REQUEST).encode(),
                          status, "OK", {"Content-Type": "application/vnd.amazon.eventstream"},
                          frames)


def json_interaction(body: dict, status=200) -> cs.Interaction:
    return cs.Interaction("POST", URI + "converse", {}, json.dumps(REQUEST).encode(), status, "OK",
                          {"Content-Type": "application/json"}, None,
                          json.dumps(body, separators=(",", ":")).encode())


def make(*interactions, path=None) -> cs.Cassette:
    return cs.Cassette(path, cs.metadata_for(interactions, {"source": "emulator"}), interactions)


def round_trip(cassette: cs.Cassette) -> cs.Cassette:
    return cs.loads(cs.dumps(cassette))


GOOD_STREAM = [
    es.encode_event("messageStart", {"role": "assistant"}, 7),
    es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Sunny, 30°C 🌞"}}, 12),
    es.encode_event("contentBlockStop", {"contentBlockIndex": 0}, 2),
    es.encode_event("messageStop", {"stopReason": "end_turn"}, 40),
    es.encode_event("metadata", {"usage": {"inputTokens": 3, "outputTokens": 4, "totalTokens": 7},
                                 "metrics": {"latencyMs": 9}}, 5),
]


def short_header_frame() -> bytes:
    """A frame with a type-3 (short) header, which botocore decodes to int and the encoder cannot write."""
    name = b"count"
    headers = struct.pack(">B", len(name)) + name + struct.pack(">Bh", 3, 7)
    prelude = struct.pack(">II", 16 + len(headers) + 2, len(headers))
    head = prelude + struct.pack(">I", binascii.crc32(prelude)) + headers + b"{}"
    return head + struct.pack(">I", binascii.crc32(head))


CHUNK = es.encode_chunk({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "é"}}, 6)
DOCUMENT = b'{"contentBlockIndex":1,"delta":{"toolResult":[{"json":{"stdOut":"7","exitCode":0}}]},"p":"abc"}'
FORMS = [
    (es.encode_event("messageStart", {"role": "assistant"}, 9), {"event", "p", "json"}),
    (es.encode_event("messageStart", {"role": "assistant"}), {"event", "json"}),
    (es.encode_exception("throttlingException", {"message": "Too many"}), {"exception", "json"}),
    (es.encode_exception("validationException", {"message": "bad"}, 4), {"exception", "p", "json"}),
    (es.encode_error("InternalFailure", "boom"), {"error", "message"}),
    (es.encode_frame(((":event-type", "contentBlockDelta"), (":content-type", "application/json"),
                      (":message-type", "event")), DOCUMENT), {"event", "payload"}),
    (es.encode_frame(((":event-type", "x"), ("flag", True), ("n", 5), ("big", 2**40)), b'{"a":1}'),
     {"headers", "json"}),
    (es.encode_frame(((":event-type", "x"), ("blob", b"\x00\x01")), b"{}"), {"frame_base64"}),
    (short_header_frame(), {"frame_base64"}),
    (CHUNK, {"event", "p", "chunk"}),
    (es.encode_chunk(b'{"type": "message_stop"}', 3), {"event", "p", "json"}),
    (es.encode_frame(((":event-type", "x"), (":content-type", "application/json"), (":message-type", "event")),
                     b"\xff\xfe"), {"event", "payload_base64"}),
    (es.encode_frame(((":event-type", "x"), (":content-type", "application/json"), (":message-type", "event")),
                     b'{"p":"zzz"}'), {"event", "payload"}),
]


@pytest.mark.parametrize("data, keys", FORMS, ids=[", ".join(sorted(k)) for _, k in FORMS])
def test_each_frame_gets_its_most_readable_exact_form(data, keys):
    frame = cs.frames_from_body(data)[0]
    doc = frame_to_doc(frame)
    assert set(doc) == keys
    assert frame_from_doc(doc).encode() == data
    assert round_trip(make(stream_interaction([frame]))).interactions[0].response_body() == data


def test_items_of_one_event_type_share_one_headers_tuple_and_read_as_their_own():
    """A cassette's 100,000 deltas hold their headers once: items of one event or exception type share one tuple
    (what reads headers reads it once); another type, or the same name as an exception, has its own."""
    docs = [{"event": "contentBlockDelta", "json": {"contentBlockIndex": 0, "delta": {"text": t}}} for t in "ab"]
    one, two = (frame_from_doc(doc) for doc in docs)
    stop = frame_from_doc({"event": "contentBlockStop", "json": {"contentBlockIndex": 0}})
    thrown = frame_from_doc({"exception": "contentBlockDelta", "json": {"message": "m"}})
    assert one.headers is two.headers and one.payload != two.payload
    assert stop.headers is not one.headers and stop.type == "contentBlockStop"
    assert thrown.message_type == "exception" and thrown.type == "contentBlockDelta"
    assert [es.decode_frames(f.encode())[0].headers for f in (one, stop, thrown)] == \
           [one.headers, stop.headers, thrown.headers]


def test_frame_bytes_read_once_as_one_frame_are_not_read_again_and_corrupt_ones_are():
    """A frame_base64 item that decoded as exactly one frame is marked whole (the servable check trusts it); a
    corrupt one is not, and the check still names it."""
    from harness.cassettes.servable import frame_item_problem

    good = es.encode_frame(((":event-type", "x"), ("blob", b"\x00\x01")), b"{}")
    bad = good[:-1] + bytes([good[-1] ^ 1])
    read = frame_from_doc({"frame_base64": base64.b64encode(good).decode()})
    assert read.whole and frame_item_problem(read) is None and read.encode() == good
    broken = frame_from_doc({"frame_base64": base64.b64encode(bad).decode()})
    assert not broken.whole and "message checksum mismatch" in frame_item_problem(broken)


def test_the_readable_form_holds_decoded_values():
    docs = [frame_to_doc(cs.frames_from_body(f)[0]) for f in GOOD_STREAM[:2] + [CHUNK]]
    assert docs[0] == {"event": "messageStart", "p": 7, "json": {"role": "assistant"}}
    assert docs[1]["json"]["delta"]["text"] == "Sunny, 30°C 🌞"
    assert docs[2]["chunk"]["delta"]["text"] == "é"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=150)
@given(st.dictionaries(st.text(max_size=8).filter(lambda k: k != "p"), json_values, max_size=4),
       st.none() | st.integers(0, 61))
def test_any_json_event_survives_the_yaml_file_byte_for_byte(body, pad):
    data = es.encode_event("contentBlockDelta", body, pad)
    assume(not secrets.scan_text(data, environ={}))  # a drawn 'AKIA' + 16 characters is refused, rightly
    loaded = round_trip(make(stream_interaction([data])))
    assert loaded.interactions[0].response_body() == data


@requires_realworld
@pytest.mark.parametrize("interaction", streams(), ids=ids(streams()))
def test_real_streams_re_encode_exactly_and_keep_raw_payload_only_when_needed(interaction):
    frames = cs.frames_from_body(interaction.body)
    loaded = round_trip(make(stream_interaction(frames)))
    assert loaded.interactions[0].response_body() == interaction.body
    for frame in frames:
        body = json.loads(frame.payload)
        pad = body.pop("p")
        needs_raw = es.json_payload(body, len(pad)) != frame.payload
        assert ("payload" in frame_to_doc(frame)) == needs_raw


def test_interaction_api():
    it = stream_interaction(GOOD_STREAM)
    assert (it.operation, it.model_id, it.request_json) == ("ConverseStream", MODEL, REQUEST)
    assert it.response_body() == b"".join(GOOD_STREAM) and it.response_json is None
    reply = json_interaction({"output": {"message": {"content": [{"text": "hi"}]}}})
    assert reply.operation == "Converse" and reply.response_json["output"]["message"]["content"] == [{"text": "hi"}]


def test_metadata_header():
    meta = make(stream_interaction(GOOD_STREAM)).metadata
    assert list(meta) == ["format_version", "source", "region", "model_id", "botocore", "harness"]
    assert (meta["format_version"], meta["source"], meta["region"], meta["model_id"]) == \
        (1, "emulator", "us-east-1", MODEL)


def test_only_an_emulator_recording_goes_without_a_date():
    interactions = (stream_interaction(GOOD_STREAM),)
    live = cs.metadata_for(interactions, source="live")
    assert list(live)[:3] == ["format_version", "recorded", "source"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", live["recorded"])
    kept = cs.metadata_for(interactions, {"recorded": "2026-01-02T03:04:05Z"}, source="emulator")
    assert kept["recorded"] == "2026-01-02T03:04:05Z"  # an existing cassette's header survives new episodes
    assert "recorded" not in cs.metadata_for(interactions, source="emulator")


def test_the_file_reads_well():
    text = cs.dumps(make(stream_interaction(GOOD_STREAM), json_interaction({"stopReason": "end_turn"})))
    doc = yaml.safe_load(text)
    assert text.startswith("# bedrock-harness cassette")
    assert list(doc) == ["metadata", "interactions"]
    assert [list(i) for i in doc["interactions"]] == [["request", "response"]] * 2
    assert doc["interactions"][0]["request"]["json"] == REQUEST
    assert doc["interactions"][1]["response"]["json"] == {"stopReason": "end_turn"}
    assert "!!" not in text and "{role" not in text  # safe tags only, block style


def test_json_bodies_replay_compact():
    it = round_trip(make(json_interaction({"b": 1, "a": [1, "ü"]}))).interactions[0]
    assert it.body == '{"b":1,"a":[1,"ü"]}'.encode()


# -------------------------------------------------------------------------- errors and safety


def write(tmp_path, text: str):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return path


def valid_text() -> str:
    return cs.dumps(make(stream_interaction(GOOD_STREAM)))


def with_raw_frame(raw: bytes, note=None) -> str:
    doc = yaml.safe_load(valid_text())
    doc["interactions"][0]["response"]["frames"][2] = {"frame_base64": base64.b64encode(raw).decode(),
                                                        **({"corrupt": note} if note else {})}
    return yaml.safe_dump(doc, sort_keys=False)


def flipped_crc(frame: bytes) -> bytes:
    return frame[:-1] + bytes([frame[-1] ^ 0x01])


@pytest.mark.parametrize("text, where", [
    ("metadata: {format_version: 1}\ninteractions: [\n", "line 3, column 1: broken YAML"),
    ("interactions: []\n", "not a bedrock-harness cassette"),
    ("!!python/object/apply:os.system ['echo pwned']\n", "broken YAML: could not determine a constructor"),
    ("metadata: {format_version: 1}\ninteractions:\n- response: {}\n", "interaction 0: request is missing, not a mapping"),
    (None, "interaction 0 (ConverseStream), frame 2: corrupt frame bytes (ChecksumMismatch"),
    (None, "interaction 0 (ConverseStream), frame 2: corrupt frame bytes (TruncatedStream"),
    (None, "interaction 0, frame 1: unreadable frame item"),
    ("code: [200]", "interaction 0: response.status.code is a list, not a whole number"),
    ("method: 7", "interaction 0: request.method is an int, not a string"),
    ("headers: [x]", "interaction 0: request.headers is a list, not a mapping"),
], ids=["broken-yaml", "foreign", "python-tag", "no-request", "flipped-crc", "truncated", "bad-item", "status-code",
        "method", "headers"])
def test_unreadable_cassettes_give_one_line_naming_file_and_location(tmp_path, text, where):
    if text is None and "Checksum" in where:
        text = with_raw_frame(flipped_crc(GOOD_STREAM[2]))
    elif text is None and "Truncated" in where:
        text = with_raw_frame(GOOD_STREAM[2][:-5])
    elif text is None:
        delta = "  - event: contentBlockDelta\n      p: 12\n"
        text = valid_text().replace(delta, delta.replace("p: 12", "p: x"))
    elif not text.startswith(("metadata", "interactions", "!!")):  # a field of the first interaction, replaced
        doc = yaml.safe_load(valid_text())
        key, value = next(iter(yaml.safe_load(text).items()))
        doc["interactions"][0]["response" if key == "code" else "request"].update(
            {"status": {"code": value}} if key == "code" else {key: value})
        text = yaml.safe_dump(doc, sort_keys=False)
    path = write(tmp_path, text)
    with pytest.raises(cs.CassetteError) as err:
        cs.load(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and where in message and "\n" not in message
    assert cs.verify(path)[0] == message
    assert path.read_text() == text  # nothing rewritten


def test_a_deliberately_corrupt_frame_is_kept_and_replayed_as_is(tmp_path):
    bad = flipped_crc(GOOD_STREAM[2])
    path = write(tmp_path, with_raw_frame(bad, note="flipped CRC: the client must raise ChecksumMismatch"))
    loaded = cs.load(path)
    assert loaded.interactions[0].response_body() == b"".join(GOOD_STREAM[:2]) + bad + b"".join(GOOD_STREAM[3:])
    assert cs.verify(path) == []  # grammar stops at a frame the client cannot decode


def test_verify_names_grammar_problems(tmp_path):
    path = tmp_path / "c.yaml"
    cs.save(path, make(stream_interaction(GOOD_STREAM[:1] + GOOD_STREAM[3:]), stream_interaction(GOOD_STREAM[1:])))
    assert cs.verify(path) == [f"{path}: interaction 1 (ConverseStream), frame 0 (contentBlockDelta): "
                               "the stream must begin with messageStart"]


def test_verify_names_what_serve_cannot_send_and_load_checked_refuses_it(tmp_path):
    path = tmp_path / "c.yaml"
    it = stream_interaction(GOOD_STREAM)
    odd = cs.Interaction(it.method, it.uri, it.request_headers, it.request_body, 99999, "OK",
                         {**it.response_headers, "X-Injected": "a\r\nb: c"}, it.frames)
    cs.save(path, make(it, odd))
    where = f"{path}: interaction 1 (ConverseStream)"
    assert cs.verify(path) == [
        f"{where}: response.status.code 99999 is no status serve can answer with (200-599 with a body: not 204, "
        "205, 304)",
        f"{where}: response header X-Injected: its value holds a line break or NUL ('a\\r\\nb: c')"]
    with pytest.raises(cs.CassetteError) as caught:
        cs.load_checked(path)
    assert str(caught.value) == cs.verify(path)[0] + " (and 1 more; see `bedrock-harness cassette verify`)"


def test_a_frame_item_holding_two_frames_or_none_is_refused_like_corrupt_bytes(tmp_path):
    for raw, problem in ((GOOD_STREAM[2] * 2, "one frame item holding a whole frame and"), (b"", "an empty frame item")):
        path = write(tmp_path, with_raw_frame(raw, note="deliberate"))
        with pytest.raises(cs.CassetteError, match=f"^{re.escape(str(path))}: interaction 0 \\(ConverseStream\\), "
                                                   f"frame 2: {problem}") as caught:
            cs.load(path)
        assert cs.verify(path) == [str(caught.value)]


def test_a_key_twice_is_broken_yaml_for_every_reader(tmp_path):
    path = write(tmp_path, valid_text().replace("interactions:\n", "interactions: []\ninteractions:\n", 1))
    assert len(cs.verify(path)) == 1 and "broken YAML: found duplicate key 'interactions'" in cs.verify(path)[0]
    with pytest.raises(cs.CassetteError, match="found duplicate key 'interactions'"):
        cs.load(path)


def test_a_cassette_path_that_is_no_regular_file_is_refused_without_reading(tmp_path):
    os.mkfifo(tmp_path / "fifo.yaml")
    assert cs.verify(tmp_path / "fifo.yaml") == [f"{tmp_path / 'fifo.yaml'}: not a regular file but a FIFO"]
    with pytest.raises(cs.CassetteError, match="not a regular file but a character device"):
        cs.load("/dev/zero")


def test_save_is_atomic_and_refuses_to_overwrite(tmp_path):
    path = tmp_path / "sub" / "c.yaml"
    with pytest.raises(FileNotFoundError):  # no folder is made: the caller makes the ones it owns
        cs.save(path, make(stream_interaction(GOOD_STREAM)))
    path.parent.mkdir()
    cs.save(path, make(stream_interaction(GOOD_STREAM)))
    before = path.read_bytes()
    with pytest.raises(FileExistsError, match="refusing to overwrite"):
        cs.save(path, make(json_interaction({})))
    assert path.read_bytes() == before
    path.chmod(0o644)
    cs.save(path, make(json_interaction({})), overwrite=True)
    assert cs.load(path).interactions[0].operation == "Converse"
    assert [p.name for p in path.parent.iterdir()] == ["c.yaml"]
    assert path.stat().st_mode & 0o777 == 0o644  # a rewritten cassette keeps its mode


def test_a_secret_is_refused_and_nothing_is_written(tmp_path):
    text = {"contentBlockIndex": 0, "delta": {"text": "AKIAFAKECANARY123456"}}
    leaky = stream_interaction([es.encode_event("contentBlockDelta", text, 3)])
    path = tmp_path / "c.yaml"
    path.write_text("keep me")
    with pytest.raises(scrub.SecretFound, match=r"c.yaml: refusing to write.*AWS access key id"):
        cs.save(path, make(leaky), overwrite=True)
    assert path.read_text() == "keep me" and len(list(tmp_path.iterdir())) == 1


def test_a_stream_received_corrupt_is_kept_as_received_and_says_so():
    body = b"".join(GOOD_STREAM[:2]) + flipped_crc(GOOD_STREAM[2]) + b"".join(GOOD_STREAM[3:])
    frames = cs.frames_from_body(body)
    assert frames[2].note.startswith("received so (ChecksumMismatch")
    text = cs.dumps(make(stream_interaction(frames)))
    assert yaml.safe_load(text)["interactions"][0]["response"]["frames"][2]["corrupt"] == frames[2].note
    assert cs.loads(text).interactions[0].response_body() == body


def test_raw_frames_are_frames():
    frame = cs.frames_from_body(b"\x00\x00\x00\x30garbage")[0]
    assert isinstance(frame, RawFrame) and frame.encode() == b"\x00\x00\x00\x30garbage" and frame.type == ""


@pytest.mark.parametrize("module", ["cassettes.cassette", "cassettes.frames", "wire.grammar", "cassettes.importer",
                                    "cassettes.vcr", "cassettes.scrub", "cassettes.servable", "cassettes.documents"])
def test_public_names_exist(module):
    imported = __import__(f"harness.{module}", fromlist=["__all__"])
    assert imported.__all__ and all(hasattr(imported, name) for name in imported.__all__)


def test_load_checked_checks_the_same_clean_bytes_once_and_a_broken_file_every_time(tmp_path, monkeypatch):
    monkeypatch.setenv("BEDROCK_HARNESS_PARSED_CACHE", str(tmp_path / "cache"))
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    cs.save(good, make(stream_interaction(GOOD_STREAM)))
    cs.save(bad, make(stream_interaction(GOOD_STREAM[1:])))
    checked = []
    real = cs.problems
    monkeypatch.setattr(cs, "problems", lambda loaded: checked.append(loaded.path) or real(loaded))
    for _ in range(2):
        assert cs.load_checked(good).interactions
        with pytest.raises(cs.CassetteError, match="the stream must begin with messageStart"):
            cs.load_checked(bad)
    assert [Path(p).name for p in checked] == ["good.yaml", "bad.yaml", "bad.yaml"]
    good.write_bytes(good.read_bytes().replace(b"\n", b"\n\n", 1))  # other bytes: checked afresh
    cs.load_checked(good)
    assert len(checked) == 4


def test_a_clean_cassette_is_read_back_as_it_was_built(tmp_path, monkeypatch):
    """The second load_checked of clean bytes reads what the first built (frames, raw frames, bytes) from the cache,
    without building it again; a form it cannot read is built from the file instead."""
    monkeypatch.setenv("BEDROCK_HARNESS_PARSED_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "mixed.yaml"
    corrupt = RawFrame((), b"", raw=b"\x00\x00\x00\x30garbage", note="cut on purpose")
    stream = stream_interaction(GOOD_STREAM)
    cs.save(path, cs.Cassette(None, {"format_version": cs.FORMAT_VERSION, "note": [1, True, None]},
                              (stream, dataclasses.replace(stream, frames=(*stream.frames, corrupt)),
                               cs.Interaction("POST", stream.uri.replace("converse-stream", "converse"), {}, b"{}",
                                              400, "Bad Request", {"x-amzn-ErrorType": "ValidationException"},
                                              body=b'{"message": "no"}'))))
    monkeypatch.setattr(cs, "problems", lambda loaded: [])  # the corrupt frame is deliberate here
    first = cs.load_checked(path)
    built = []
    real = cs.from_document
    monkeypatch.setattr(cs, "from_document", lambda *a: built.append(1) or real(*a))
    again = cs.load_checked(path)
    assert built == [] and again == first and again.path == path
    assert [type(f) for f in again.interactions[1].frames] == [type(f) for f in first.interactions[1].frames]
    assert again.interactions[1].frames[-1].note == "cut on purpose"
    assert [it.response_body() for it in again.interactions] == [it.response_body() for it in first.interactions]
    assert again.interactions[0].wire is not None and first.interactions[0].wire is None
    data = cs.read_bytes(path)
    parsed.mark_clean(data, ("not", "a", "form"))
    assert cs.load_checked(path) == first and built == [1]
