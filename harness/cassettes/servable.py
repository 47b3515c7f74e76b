"""What an interaction must be for `serve` to send it and a client to read it (checks behind `cassette verify`).

The status is a final status that carries a body: 200-599, not 204, 205 or 304 (http.server writes any number
into the status line, and every replayed answer has a body); an event stream answers a success (an error status
is answered with a JSON body, which is what clients read then). Response headers are header lines: a token for a
name, a value without line breaks or NUL, all of it Latin-1 (what http.server encodes). A frame item is one
frame: an empty item writes nothing, and two frames in one item are two frames to the client, which the event
grammar would never have seen.
"""

from __future__ import annotations

import re
from typing import Any

from harness.wire import eventstream

__all__ = ["frame_item_problem", "header_problems", "status_problem"]

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110 §5.6.2
_NO_BODY = (204, 205, 304)


def status_problem(code: int, stream: bool = False) -> str | None:
    """Why serve cannot answer with this status code (with an event stream when ``stream``), or None."""
    if not (200 <= code <= 599 and code not in _NO_BODY):
        return f"response.status.code {code} is no status serve can answer with (200-599 with a body: not 204, 205, 304)"
    if stream and code >= 300:
        return f"response.frames with status {code}: an error status is answered with a JSON body, not an event stream"
    return None


def _value(value: Any) -> str:
    """A header value as the endpoint writes it (a list's values joined by commas)."""
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _header_problem(name: Any, value: Any) -> str | None:
    name, text = str(name), _value(value)
    if not _TOKEN.fullmatch(name):
        return f"response header {name[:60]!r} is no header name (letters, digits and !#$%&'*+-.^_`|~ only)"
    if any(c in text for c in "\r\n\0"):
        return f"response header {name}: its value holds a line break or NUL ({text[:60]!r})"
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return f"response header {name}: its value is not Latin-1 text, which an HTTP header line is ({text[:60]!r})"
    return None


def header_problems(headers: dict) -> list[str]:
    """Why serve cannot write these response headers (one problem per header)."""
    return [problem for name, value in headers.items() for problem in [_header_problem(name, value)] if problem]


def frame_item_problem(frame: eventstream.Frame) -> str | None:
    """Why one frame item is not one frame a client reads as recorded (a deliberately corrupt one may be any bytes
    but none, and never a whole frame with more after it)."""
    raw = getattr(frame, "raw", None)
    if raw is None or getattr(frame, "whole", False):
        return None  # a decoded frame (re-encoded, it is exactly one frame), or bytes read as exactly one
    if not raw:
        return "an empty frame item (no bytes; a frame is at least 16)"
    first = next(eventstream.frame_slices(raw))
    if len(first) < len(raw) and _decodes(first):
        return f"one frame item holding a whole frame and {len(raw) - len(first)} bytes more (two frames or more)"
    if getattr(frame, "note", ""):
        return None
    try:
        eventstream.decode_frames(raw)
    except Exception as err:  # noqa: BLE001 -- botocore's parser errors, TruncatedStream, FrameError
        return f"corrupt frame bytes ({type(err).__name__}: {err})".replace("\n", " ")
    return None


def _decodes(data: bytes) -> bool:
    try:
        return len(eventstream.decode_frames(data)) == 1
    except Exception:  # noqa: BLE001 -- not a whole frame
        return False
