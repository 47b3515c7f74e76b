import pytest

from harness.wire import eventstream as es
from harness.cassettes.frames import RawFrame
from harness.wire.grammar import stream_problems
from realworld import ids, requires_realworld, streams


def ev(event_type, **body):
    return es.decode_frames(es.encode_event(event_type, body, 3))[0]


def start(i, **block):
    return ev("contentBlockStart", contentBlockIndex=i, start=block or {"toolUse": {"toolUseId": "t", "name": "n"}})


def delta(i, text="x"):
    return ev("contentBlockDelta", contentBlockIndex=i, delta={"text": text})


def stop(i):
    return ev("contentBlockStop", contentBlockIndex=i)


HEAD = [ev("messageStart", role="assistant")]
TAIL = [ev("messageStop", stopReason="end_turn"), ev("metadata", usage={"inputTokens": 1}, metrics={"latencyMs": 1})]
EXCEPTION = es.decode_frames(es.encode_exception("throttlingException", {"message": "slow down"}))[0]


@pytest.mark.parametrize("middle", [
    [],
    [delta(0), stop(0)],
    [delta(0), stop(0), start(1), delta(1), stop(1)],
    [start(0), start(1), delta(0), delta(1), delta(0), stop(1), stop(0)],  # interleaved parallel blocks
], ids=["empty", "text", "text-then-tool", "interleaved"])
def test_valid_converse_streams(middle):
    assert stream_problems("ConverseStream", HEAD + middle + TAIL) == []


@pytest.mark.parametrize("cut", range(0, 5))
def test_an_exception_may_replace_any_suffix(cut):
    frames = (HEAD + [delta(0), stop(0)] + TAIL)[:cut] + [EXCEPTION]
    assert stream_problems("ConverseStream", frames) == []


def test_a_frame_that_does_not_decode_ends_the_stream_like_an_exception():
    assert stream_problems("ConverseStream", HEAD + [delta(0), RawFrame((), b"", raw=b"\x00\x01")]) == []


@pytest.mark.parametrize("frames, expected", [
    ([delta(0), stop(0)] + TAIL, [(0, "the stream must begin with messageStart")]),
    (HEAD + HEAD + TAIL, [(1, "a second messageStart")]),
    (HEAD + [delta(0), stop(0), delta(0)] + TAIL, [(3, "a delta for block 0 after its contentBlockStop")]),
    (HEAD + [delta(0)] + TAIL, [(2, "messageStop while block(s) [0] are still open")]),
    (HEAD + [stop(0)] + TAIL, [(1, "contentBlockStop for block 0, which is not open")]),
    (HEAD + [delta(1), stop(1), delta(0), stop(0)] + TAIL, [(3, "block 0 starts after block 1")]),
    (HEAD + [start(0), start(0)], [(2, "block 0 starts again"), (None, "the stream ends before messageStop")]),
    (HEAD + [ev("contentBlockDelta", delta={"text": "x"})] + TAIL, [(1, "no valid contentBlockIndex")]),
    (HEAD + [TAIL[1], TAIL[0]], [(1, "metadata before messageStop"), (2, "a frame after metadata")]),
    (HEAD + TAIL + [EXCEPTION], [(3, "a frame after metadata")]),
    (HEAD + [ev("messageStop")] + TAIL[1:], [(1, "messageStop without stopReason")]),
    (HEAD + [ev("futureEvent")] + TAIL, [(1, "unknown event type 'futureEvent'")]),
    (HEAD + TAIL[:1], [(None, "the stream ends before metadata")]),
    ([], [(None, "the stream ends before messageStart")]),
    # members a client joins or counts, of a type it cannot: a broken recording, never the adapter's fault
    (HEAD + [delta(0, [1, 2]), stop(0)] + TAIL, [(1, "delta.text is a list, not a string")]),
    (HEAD + [start(0), ev("contentBlockDelta", contentBlockIndex=0, delta={"toolUse": {"input": {}}}), stop(0)] + TAIL,
     [(2, "delta.toolUse.input is a dict, not a string")]),
    (HEAD + [ev("contentBlockDelta", contentBlockIndex=0, delta={"reasoningContent": {"signature": 5}}), stop(0)]
     + TAIL, [(1, "delta.reasoningContent.signature is an int, not a string")]),
    (HEAD + [ev("contentBlockDelta", contentBlockIndex=0, delta="x"), stop(0)] + TAIL,
     [(1, "delta is a str, not an object")]),
    (HEAD + [ev("messageStop", stopReason=["end_turn"]), TAIL[1]], [(1, "stopReason is a list")]),
    (HEAD + [TAIL[0], ev("metadata", usage={"inputTokens": [19], "outputTokens": 8})],
     [(2, "usage: inputTokens is a list, not a whole number")]),
    (HEAD + [TAIL[0], ev("metadata", usage=7)], [(2, "usage is an int, not an object")]),
])
def test_grammar_violations_name_the_frame(frames, expected):
    assert stream_problems("ConverseStream", frames) == expected


def test_invoke_stream_accepts_only_chunks():
    chunk = es.decode_frames(es.encode_chunk({"type": "message_stop"}, 4))[0]
    assert stream_problems("InvokeModelWithResponseStream", [chunk, chunk, EXCEPTION]) == []
    assert stream_problems("InvokeModelWithResponseStream", [chunk, HEAD[0]]) == [
        (1, "unexpected event type 'messageStart' (only chunk)")]
    assert stream_problems("InvokeModelWithResponseStream", [ev("chunk", bytes="%%%")]) == [
        (0, "chunk without valid base64 bytes")]
    assert stream_problems("InvokeModelWithResponseStream", []) == [(None, "the stream has no chunk frames")]


def test_other_operations_have_no_stream_grammar():
    assert stream_problems("Converse", [delta(0)]) == []


@requires_realworld
@pytest.mark.parametrize("interaction", streams(), ids=ids(streams()))
def test_every_real_stream_follows_the_grammar(interaction):
    assert stream_problems(interaction.operation, es.decode_frames(interaction.body)) == []


def raw_event(event_type: str, payload: bytes):
    return es.Frame(((":event-type", event_type), (":content-type", "application/json"), (":message-type", "event")),
                    payload)


@pytest.mark.parametrize("payload, problem", [
    (b"not json", "the payload is not JSON (an event carries a JSON object)"),
    (b"[1, 2]", "the payload is a list, not a JSON object"),
    (b'"text"', "the payload is a str, not a JSON object"),
], ids=["not-json", "list", "string"])
def test_an_event_payload_is_a_json_object(payload, problem):
    """botocore reads a non-JSON messageStart as an empty event; the JavaScript SDK fails: a broken recording."""
    assert stream_problems("ConverseStream", [raw_event("messageStart", payload)] + TAIL) == [(0, problem)]
    assert stream_problems("ConverseStream", [raw_event("messageStart", b"")] + TAIL) == []  # no payload: {}


@pytest.mark.parametrize("frame, error", [
    (ev("contentBlockStart", contentBlockIndex=0, start={}),
     "ContentBlockStart must have one and only one member set"),
    (ev("contentBlockStart", contentBlockIndex=0, start={"toolUse": 5}), "AttributeError"),
    (ev("contentBlockDelta", contentBlockIndex=0, delta={"text": "x", "toolUse": {"input": ""}}),
     "ContentBlockDelta must have one and only one member set"),
], ids=["empty-start", "start-member-not-an-object", "two-delta-members"])
def test_a_stream_botocore_cannot_parse_is_a_problem_at_its_frame(frame, error):
    problems = stream_problems("ConverseStream", HEAD + [frame, delta(0), stop(0)] + TAIL)
    assert len(problems) == 1 and problems[0][0] == 1, problems
    assert problems[0][1].startswith("botocore cannot parse this event (") and error in problems[0][1]


def test_botocore_parses_up_to_where_a_client_stops():
    broken = ev("contentBlockStart", contentBlockIndex=0, start={})
    assert stream_problems("ConverseStream", HEAD + [EXCEPTION, broken]) == []
    assert stream_problems("ConverseStream", HEAD + [broken, EXCEPTION])[0][0] == 1
