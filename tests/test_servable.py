"""What serve can send (harness/cassettes/servable.py): status codes, header lines, one frame per frame item."""

import pytest

from harness.cassettes.frames import RawFrame
from harness.cassettes.servable import frame_item_problem, header_problems, status_problem
from harness.wire import eventstream as es

FRAME = es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "hi"}}, 4)


@pytest.mark.parametrize("code", [200, 201, 400, 424, 429, 500, 503, 599])
def test_statuses_with_a_body_are_served(code):
    assert status_problem(code) is None


@pytest.mark.parametrize("code", [0, 99, 100, 103, 199, 204, 205, 304, 600, 99999])
def test_a_status_serve_cannot_answer_with_is_named(code):
    assert status_problem(code) == (f"response.status.code {code} is no status serve can answer with (200-599 with "
                                    "a body: not 204, 205, 304)")


def test_header_lines_are_tokens_and_latin1_values_without_breaks():
    assert header_problems({"Content-Type": "application/json", "x-amzn-ErrorType": "ThrottlingException:http://x",
                            "X-Many": ["a", "b"], "X-Number": 5, "X-Latin": "caf\u00e9"}) == []
    assert header_problems({"Content Type": "x", "": "y", "X:Y": "z"}) == [
        "response header 'Content Type' is no header name (letters, digits and !#$%&'*+-.^_`|~ only)",
        "response header '' is no header name (letters, digits and !#$%&'*+-.^_`|~ only)",
        "response header 'X:Y' is no header name (letters, digits and !#$%&'*+-.^_`|~ only)"]
    assert header_problems({"X-A": "a\r\nX-Injected: 1", "X-B": ["ok", "a\nb"], "X-C": "a\0b"}) == [
        "response header X-A: its value holds a line break or NUL ('a\\r\\nX-Injected: 1')",
        "response header X-B: its value holds a line break or NUL ('ok, a\\nb')",
        "response header X-C: its value holds a line break or NUL ('a\\x00b')"]
    assert header_problems({"X-Emoji": "\U0001f600"}) == [
        "response header X-Emoji: its value is not Latin-1 text, which an HTTP header line is ('\U0001f600')"]


def test_a_frame_item_is_one_frame():
    decoded = es.decode_frames(FRAME)[0]
    assert frame_item_problem(decoded) is None
    assert frame_item_problem(RawFrame((), b"", raw=FRAME)) is None
    assert frame_item_problem(RawFrame((), b"", raw=FRAME[:-3], note="truncated on purpose")) is None
    assert frame_item_problem(RawFrame((), b"", raw=b"")) == "an empty frame item (no bytes; a frame is at least 16)"
    assert frame_item_problem(RawFrame((), b"", raw=b"", note="empty on purpose")) == \
        "an empty frame item (no bytes; a frame is at least 16)"
    two = f"one frame item holding a whole frame and {len(FRAME)} bytes more (two frames or more)"
    assert frame_item_problem(RawFrame((), b"", raw=FRAME * 2)) == two
    assert frame_item_problem(RawFrame((), b"", raw=FRAME * 2, note="corrupt?")) == two  # a client reads both
    assert frame_item_problem(RawFrame((), b"", raw=FRAME[:-3])).startswith("corrupt frame bytes (")


def test_an_event_stream_answers_a_success_only():
    assert status_problem(200, stream=True) is None and status_problem(429, stream=False) is None
    assert status_problem(300, stream=True) == ("response.frames with status 300: an error status is answered with a "
                                                "JSON body, not an event stream")
