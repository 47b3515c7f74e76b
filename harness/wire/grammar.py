"""The event order of Bedrock response streams (bedrock-wire.md §3.1), checked frame by frame, then botocore.

ConverseStream: ``messageStart``, then per content block an optional ``contentBlockStart``, its deltas
and ``contentBlockStop`` (blocks start in index order; interleaved deltas of open blocks are accepted),
then ``messageStop`` and ``metadata``; every event's payload a JSON object. InvokeModelWithResponseStream: only
``chunk`` frames. In both, an exception or error frame may replace any suffix, and so may a frame that is corrupt on
purpose. A stream that keeps this order is then parsed by botocore itself, as boto3 would: what it refuses (a
``contentBlockStart`` whose ``start`` names no member, an object where a member is text) is a problem too.
"""

from __future__ import annotations

import base64
import binascii
import json

from harness.wire.eventstream import Frame, checksum_problem, frame_events
from harness.wire.kinds import kind_of

__all__ = ["stream_problems"]


def _terminal(frame: Frame) -> bool:
    """The client stops at this frame: an exception, an error, or a frame corrupt on purpose (a frame that merely
    has no headers, as AWS's ``empty_message`` test vector, is a frame like any other: no event a client knows)."""
    return frame.message_type in ("exception", "error") or _corrupt(frame)


def _corrupt(frame: Frame) -> bool:
    """A cassette's frame item marked ``corrupt:``, or bytes that do not decode (kept raw, with nothing decoded)."""
    raw = getattr(frame, "raw", None)
    undecoded = raw is not None and not frame.headers and not frame.payload and not _empty_frame(raw)
    return undecoded or bool(getattr(frame, "note", ""))


def _empty_frame(raw: bytes) -> bool:
    """The 16 bytes of a valid frame with neither headers nor payload (AWS's ``empty_message``)."""
    return len(raw) == 16 and raw[:8] == b"\0\0\0\x10\0\0\0\0" and checksum_problem(raw) is None


def _text(value) -> bool:
    return isinstance(value, str) and value != ""


def _end_problem(frame: Frame) -> str | None:
    """What a client cannot read in the exception or error frame a stream ends with: a code that is not text (a
    bytes or number header, which botocore reads as no code at all), a message that is not text, an exception
    payload that is not a JSON object (Bedrock's carry ``{"message": ...}``; the JavaScript SDK parses it)."""
    headers = frame.header_map
    if frame.message_type == "exception":
        kind = headers.get(":exception-type")
        if not _text(kind):
            return f":exception-type is {kind_of(kind)}, not text naming the exception (a client reads no error code)"
        try:
            body = frame.json()
        except (ValueError, RecursionError):
            return "the exception's payload is not JSON (an exception carries a JSON object with its message)"
        return None if isinstance(body, dict) else f"the exception's payload is {kind_of(body)}, not a JSON object"
    code, message = headers.get(":error-code"), headers.get(":error-message", "")
    if not _text(code):
        return f":error-code is {kind_of(code)}, not text naming the error (a client reads no error code)"
    return None if isinstance(message, str) else f":error-message is {kind_of(message)}, not text"


def _body(frame: Frame) -> dict:
    return _read_body(frame)[0]


def _read_body(frame: Frame) -> tuple[dict, str | None]:
    """The event's JSON object ({} for any other payload), and what is wrong with a payload that is not one
    (botocore would read it as an empty event, a JS SDK fails)."""
    try:
        body = frame.json()
    except (ValueError, RecursionError):
        return {}, "the payload is not JSON (an event carries a JSON object)"
    return (body, None) if isinstance(body, dict) else ({}, f"the payload is {kind_of(body)}, not a JSON object")


# The members of a contentBlockDelta that clients join as text (bedrock-wire.md §3.1), by delta kind.
_DELTA_TEXT = {"toolUse": ("input",), "reasoningContent": ("text", "signature", "redactedContent")}


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _delta_problem(delta) -> str | None:
    """A delta a client cannot join: text, tool input or reasoning that is not a string."""
    if not isinstance(delta, dict):
        return f"delta is {kind_of(delta)}, not an object"
    if "text" in delta and not isinstance(delta["text"], str):
        return f"delta.text is {kind_of(delta['text'])}, not a string"
    for kind, members in _DELTA_TEXT.items():
        inner = delta.get(kind, {})
        if not isinstance(inner, dict):
            return f"delta.{kind} is {kind_of(inner)}, not an object"
        for name in members:
            if name in inner and not isinstance(inner[name], str):
                return f"delta.{kind}.{name} is {kind_of(inner[name])}, not a string"
    return None


class _ConverseStream:
    """messageStart (blocks) messageStop metadata, one frame at a time."""

    def __init__(self) -> None:
        self.state, self.open, self.closed, self.last = "start", set(), set(), -1

    def step(self, frame: Frame) -> str | None:
        missing = None
        if self.state == "start" and frame.type != "messageStart":
            self.state, missing = "blocks", "the stream must begin with messageStart"
        handler = getattr(self, f"_{frame.type}", None)
        body, payload_problem = _read_body(frame)
        problem = handler(body) if handler else f"unknown event type {frame.type!r}"
        return missing or payload_problem or problem

    def _messageStart(self, body: dict) -> str | None:
        problem = None if self.state == "start" else "a second messageStart"
        self.state = "blocks"
        return problem

    def _index(self, body: dict) -> tuple[int | None, str | None]:
        index = body.get("contentBlockIndex")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            return None, "no valid contentBlockIndex"
        return index, None if self.state == "blocks" else "a content block event after messageStop"

    def _open(self, index: int) -> str | None:
        if index in self.closed or index in self.open:
            return f"block {index} starts again"
        problem = None if index > self.last else f"block {index} starts after block {self.last}"
        self.open.add(index)
        self.last = max(self.last, index)
        return problem

    def _contentBlockStart(self, body: dict) -> str | None:
        index, problem = self._index(body)
        return problem or self._open(index)

    def _contentBlockDelta(self, body: dict) -> str | None:
        index, problem = self._index(body)
        if problem or index in self.open:
            return problem or _delta_problem(body.get("delta"))
        if index in self.closed:
            return f"a delta for block {index} after its contentBlockStop"
        return self._open(index) or _delta_problem(body.get("delta"))

    def _contentBlockStop(self, body: dict) -> str | None:
        index, problem = self._index(body)
        if problem or index not in self.open:
            return problem or f"contentBlockStop for block {index}, which is not open"
        self.open.discard(index)
        self.closed.add(index)
        return None

    def _messageStop(self, body: dict) -> str | None:
        problem = None if self.state == "blocks" else "messageStop in the wrong place"
        if self.open:
            problem = f"messageStop while block(s) {sorted(self.open)} are still open"
        self.state = "stopped"
        if problem or "stopReason" not in body:
            return problem or "messageStop without stopReason"
        return None if isinstance(body["stopReason"], str) else f"stopReason is {kind_of(body['stopReason'])}"

    def _metadata(self, body: dict) -> str | None:
        problem = None if self.state == "stopped" else "metadata before messageStop"
        self.state = "done"
        if problem or "usage" not in body:
            return problem or "metadata without usage"
        usage = body["usage"]
        if not isinstance(usage, dict):
            return f"usage is {kind_of(usage)}, not an object"
        wrong = [f"{k} is {kind_of(v)}" for k, v in usage.items() if k.endswith("Tokens") and not _count(v)]
        return f"usage: {', '.join(wrong)}, not a whole number" if wrong else None

    def end(self) -> str | None:
        expected = {"start": "messageStart", "blocks": "messageStop", "stopped": "metadata"}.get(self.state)
        return f"the stream ends before {expected}" if expected else None


class _Chunks:
    """InvokeModelWithResponseStream: chunk frames carrying base64 model events."""

    def __init__(self) -> None:
        self.count = 0

    def step(self, frame: Frame) -> str | None:
        self.count += 1
        if frame.type != "chunk":
            return f"unexpected event type {frame.type!r} (only chunk)"
        try:
            inner = base64.b64decode(_body(frame)["bytes"], validate=True)
        except (KeyError, TypeError, binascii.Error):
            return "chunk without valid base64 bytes"
        try:
            event = json.loads(inner)
        except (ValueError, RecursionError):
            event = None
        return None if isinstance(event, dict) else "chunk bytes that are not a JSON object (a model event)"

    def end(self) -> str | None:
        return None if self.count else "the stream has no chunk frames"


_CHECKERS = {"ConverseStream": _ConverseStream, "InvokeModelWithResponseStream": _Chunks}


def stream_problems(operation: str, frames) -> list[tuple[int | None, str]]:
    """(frame index, problem) for every grammar violation; index None means the stream's end. A stream without any
    is parsed by botocore too, up to the frame where a client stops (an exception, an error, a corrupt frame)."""
    checker_class = _CHECKERS.get(operation)
    if checker_class is None:
        return []
    checker, out = checker_class(), []
    for k, frame in enumerate(frames):
        if _terminal(frame):
            if out or _corrupt(frame):
                return out or _botocore_problems(operation, frames[:k])
            problem = _end_problem(frame)
            return [(k, problem)] if problem else _botocore_problems(operation, frames[: k + 1], frame.type)
        problem = checker.step(frame)
        if problem:
            out.append((k, problem))
        if getattr(checker, "state", "") == "done" and k + 1 < len(frames):
            return [*out, (k + 1, "a frame after metadata")]
    problem = checker.end()
    out = [*out, (None, problem)] if problem else out
    return out or _botocore_problems(operation, frames)


def _botocore_problems(operation: str, frames, code: str | None = None) -> list[tuple[int | None, str]]:
    """What botocore's own parser refuses in frames that keep the grammar (one event per frame, in order); with
    ``code``, the last frame is an exception or error botocore must raise as that code."""
    from botocore.exceptions import EventStreamError

    parsed = 0
    try:
        for _ in frame_events(frames, operation, once=True):
            parsed += 1
    except EventStreamError as err:
        found = err.response.get("Error", {}).get("Code")
        if code is not None and parsed == len(frames) - 1 and found == code:
            return []
        return [(parsed, f"botocore reads this frame as the error {found!r}, not {code!r}")]
    except Exception as err:  # noqa: BLE001 -- botocore's parser fails with whatever the shape walk meets
        return [(parsed, f"botocore cannot parse this event ({type(err).__name__}: {err})".replace("\n", " "))]
    if code is not None:
        return [(len(frames) - 1, f"botocore reads this {frames[-1].message_type} frame as no error at all")]
    return []
