"""The recording proxy: a responder that forwards each request upstream and records what passed on the wire.

``RecordingProxy(upstream, recorder)`` answers the loopback server's requests (harness.endpoint.server) by
forwarding them, re-signed, to real Bedrock or any URL (harness.endpoint.upstream) and streaming the answer back
piece by piece as it arrives. Each finished exchange becomes an ``Interaction`` through the same path as
``record`` (harness.cassettes.vcr.from_http: scrubbed) and lands on the tape its recorder chooses
(harness.endpoint.tapes). ``finish(why)`` records every exchange still in flight as far as it got, marked
incomplete, and refuses new requests: ``serve --record`` calls it on SIGINT/SIGTERM. A request target a cassette
cannot hold as a path (absolute-form ``POST http://host/...``, ``*``, bytes outside printable ASCII) is refused
with 400 before anything goes upstream.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Iterator
from urllib.parse import urlsplit

from harness.cassettes import cassette
from harness.cassettes.cassette import Interaction
from harness.cassettes.masking import MaskingFilter
from harness.cassettes.vcr import from_http
from harness.endpoint.exchange import CapturedRequest, Reply, RequestError
from harness.endpoint.tapes import Conversations, Recorder, Tape, describe
from harness.endpoint.upstream import Forwarded, Upstream, UpstreamError

__all__ = ["Conversations", "Recorder", "RecordingProxy", "Tape", "describe", "source_of"]

log = logging.getLogger(__name__)
log.addFilter(MaskingFilter())  # paths, queries and model ARNs are printed masked

_NOT_RECORDED = {"host", "content-length"}  # framing of one hop (the Host header names a loopback port)
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_ORIGIN_FORM = re.compile(r"/[\x21-\x7e]*")  # a path and query of printable ASCII, as botocore sends them


def source_of(upstream_url: str) -> str:
    """What a cassette's metadata says about where it was recorded: emulator (loopback) or live."""
    return "emulator" if urlsplit(upstream_url).hostname in _LOOPBACK else "live"


class _Exchange:
    """One request in flight: its tape slot, the upstream's answer once its head is in, the body so far; recorded
    exactly once, whoever gets there first (its own thread at the end, or ``finish`` cutting it short)."""

    def __init__(self, request: CapturedRequest, tape: Tape):
        self.request, self.tape, self.slot = request, tape, tape.open_slot()
        self.forwarded: Forwarded | None = None
        self.received: list[bytes] = []
        self.recorded = False
        self._lock = threading.Lock()

    def add(self, piece: bytes) -> bool:
        """Keep ``piece``; False once the exchange is recorded (cut short): the client never gets more than the
        cassette holds."""
        with self._lock:
            if self.recorded:
                return False
            self.received.append(piece)
            return True

    def record(self, incomplete: str = "") -> None:
        """Fill the slot with what passed so far (nothing when no answer came); later calls do nothing. Cut short
        (``incomplete``), it is not marked so when every frame of a whole stream had passed already."""
        with self._lock:  # what is taken here is all the client ever gets (``add`` refuses more from now on)
            if self.recorded:
                return
            self.recorded, body = True, b"".join(self.received)
        if incomplete and self.forwarded is not None and _whole_stream(self.request.operation, body):
            incomplete = ""
        forwarded = self.forwarded
        self.tape.fill(self.slot, _interaction(self.request, forwarded, body) if forwarded else None,
                       incomplete if forwarded else "")

    def cut(self, why: str) -> None:
        """Record it as far as it got, marked incomplete (unless every frame of a whole stream had passed, and only
        the body's end was still to come), and stop reading the upstream's answer."""
        forwarded = self.forwarded
        if forwarded is None:
            log.warning("%s: %s before the upstream answered; not recorded", self.request.path, why)
        self.record(why)
        if forwarded is not None:
            forwarded.close()


class RecordingProxy:
    """A responder: forward upstream, stream the answer back as it arrives, record the exchange on a tape."""

    def __init__(self, upstream: Upstream, recorder: Recorder):
        self.upstream, self.recorder = upstream, recorder
        self._active: set[_Exchange] = set()
        self._lock = threading.Lock()
        self._finished = ""

    def respond(self, request: CapturedRequest) -> Reply:
        if not _ORIGIN_FORM.fullmatch(request.path):
            raise RequestError(400, "ValidationException", f"bedrock-harness proxy: cannot record the request target "
                               f"{request.path[:200]!r}: send its path (origin-form, /model/...) in printable ASCII")
        for problem in request.problems:  # Bedrock will answer for itself; the user still hears it first
            log.warning("%s: breaks Bedrock's rules: %s", request.path, problem)
        exchange = self._start(request)
        try:
            exchange.forwarded = forwarded = self.upstream.forward(request)
            headers = _reply_headers(forwarded.headers)
            if forwarded.status < 300 and _is_stream(forwarded.headers):
                return Reply(forwarded.status, headers, stream=self._relay(exchange))
            for piece in forwarded.pieces():
                if not exchange.add(piece):
                    raise RequestError(503, "ServiceUnavailableException", f"bedrock-harness proxy: "
                                       f"{self._finished or 'stopped'}")
        except UpstreamError as error:
            exchange.forwarded = None
            self._end(exchange)
            raise RequestError(503, "ServiceUnavailableException", f"bedrock-harness proxy: {error}") from None
        self._end(exchange)
        return Reply(forwarded.status, headers, body=b"".join(exchange.received))

    def finish(self, why: str) -> None:
        """Record every exchange in flight as far as it got, marked incomplete with ``why``; refuse new requests."""
        with self._lock:
            self._finished, active = why, list(self._active)
        for exchange in active:
            exchange.cut(why)

    def _start(self, request: CapturedRequest) -> _Exchange:
        with self._lock:
            if self._finished:
                raise RequestError(503, "ServiceUnavailableException", f"bedrock-harness proxy: {self._finished}")
            exchange = _Exchange(request, self.recorder.tape_for(request))
            self._active.add(exchange)
        return exchange

    def _end(self, exchange: _Exchange) -> None:
        exchange.record()
        with self._lock:
            self._active.discard(exchange)

    def _relay(self, exchange: _Exchange) -> Iterator[bytes]:
        """Yield the upstream body piece by piece; at the end (or when the client hangs up) record all of it."""
        pieces, broken = exchange.forwarded.pieces(), False
        try:
            for piece in pieces:
                if not exchange.add(piece):  # cut short by finish(): the rest is neither recorded nor relayed
                    broken = True
                    raise ConnectionAbortedError("serve --record stopped; the rest of this answer is not relayed")
                yield piece
        except UpstreamError as error:
            broken = True
            log.warning("%s: %s", exchange.request.path, error)
            raise
        finally:
            if not broken and not exchange.recorded:  # the client hung up early: read on, so the cassette holds
                for piece in _drain(pieces):          # what Bedrock sent
                    exchange.add(piece)
            self._end(exchange)


def _whole_stream(operation: str, body: bytes) -> bool:
    """Whether ``body`` is a whole event stream: whole frames only, in the event grammar to its end."""
    from harness.wire import eventstream, grammar

    try:
        frames = eventstream.decode_frames(body)
    except Exception:  # noqa: BLE001 -- a partial or broken frame: not whole
        return False
    return bool(frames) and not grammar.stream_problems(operation, frames)


def _drain(pieces: Iterator[bytes]) -> Iterator[bytes]:
    try:
        yield from pieces
    except UpstreamError as error:
        log.warning("%s", error)


def _is_stream(headers: list[tuple[str, str]]) -> bool:
    return any(k.lower() == "content-type" and v.startswith(cassette.EVENTSTREAM) for k, v in headers)


def _reply_headers(headers: list[tuple[str, str]]) -> dict[str, str]:
    merged: dict[str, str] = {}
    for name, value in headers:
        merged[name] = f"{merged[name]}, {value}" if name in merged else value
    return merged


def _interaction(request: CapturedRequest, forwarded: Forwarded, body: bytes) -> Interaction:
    """The exchange as it went upstream (re-signed headers, then scrubbed) and came back."""
    sent = {k: v for k, v in forwarded.request_headers.items() if k.lower() not in _NOT_RECORDED}
    received: dict[str, list[str]] = {}
    for name, value in forwarded.headers:
        received.setdefault(name, []).append(value)
    return from_http({"method": request.method, "uri": forwarded.uri, "body": forwarded.request_body, "headers": sent},
                     {"status": {"code": forwarded.status, "message": forwarded.reason}, "headers": received,
                      "body": {"string": body}})


