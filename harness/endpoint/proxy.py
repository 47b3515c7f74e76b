"""The recording proxy: a responder that forwards each request upstream and records what passed on the wire.

``RecordingProxy(upstream, recorder)`` answers the loopback server's requests (harness.endpoint.server) by
forwarding them, re-signed, to real Bedrock or any URL (harness.endpoint.upstream) and streaming the answer back
piece by piece as it arrives. Each finished exchange becomes an ``Interaction`` through the same path as
``record`` (harness.cassettes.vcr.from_http: scrubbed) and lands on a ``Tape``: one cassette, rewritten atomically
after every exchange, its text scanned for secrets first (fail closed: a tape holding a secret is deleted and
never written again) and verified after (frames, CRCs, event grammar; problems are logged and kept).

Which tape a request lands on is the recorder's choice: a ``Tape`` takes everything (the harness's own runs, one
tape per scenario attempt), ``Conversations`` groups a client's requests by their message history (see there).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Iterator, Protocol
from urllib.parse import urlsplit

from harness.cassettes import cassette, scrub
from harness.cassettes.masking import MaskingFilter
from harness.cassettes.cassette import Cassette, Interaction
from harness.cassettes.vcr import from_http
from harness.endpoint.exchange import CapturedRequest, Reply, RequestError
from harness.endpoint.upstream import Forwarded, Upstream, UpstreamError

__all__ = ["Conversations", "Recorder", "RecordingProxy", "Tape", "describe", "source_of"]

log = logging.getLogger(__name__)
log.addFilter(MaskingFilter())  # paths, queries and model ARNs are printed masked

_NOT_RECORDED = {"host", "content-length"}  # framing of one hop (the Host header names a loopback port)
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def source_of(upstream_url: str) -> str:
    """What a cassette's metadata says about where it was recorded: emulator (loopback) or live."""
    return "emulator" if urlsplit(upstream_url).hostname in _LOOPBACK else "live"


class Tape:
    """One cassette being recorded: interactions in request order, written atomically after each one completes.

    An existing file is never replaced unless ``overwrite``; a tape whose text holds a secret is refused (its file
    deleted, nothing written again) and says why in ``refused``.
    """

    def __init__(self, path: str | Path, *, overwrite: bool = False, source: str | None = None):
        self.path, self.overwrite, self.source = Path(path), overwrite, source
        self.refused = ""
        self.problems: list[str] = []  # cassette.verify's findings on the last write
        self._slots: list[Interaction | None] = []
        self._pending: set[int] = set()
        self._ours = False  # the file at ``path`` is one this tape wrote
        self._changed = threading.Condition()

    def tape_for(self, request: CapturedRequest) -> Tape:
        """A tape is also the simplest recorder: every request lands on it."""
        return self

    @property
    def interactions(self) -> list[Interaction]:
        with self._changed:
            return [it for it in self._slots if it is not None]

    @property
    def written(self) -> bool:
        return self._ours and not self.refused

    def open_slot(self) -> int:
        """Reserve the place of the next exchange (request order, whatever order the answers end in)."""
        with self._changed:
            self._slots.append(None)
            self._pending.add(len(self._slots) - 1)
            return len(self._slots) - 1

    def fill(self, slot: int, interaction: Interaction | None) -> None:
        """The exchange in ``slot`` is over (None: nothing to record); rewrite the cassette."""
        with self._changed:
            self._slots[slot] = interaction
            self._pending.discard(slot)
            if interaction is not None and not self.refused:
                self._write()
            self._changed.notify_all()

    def last_failed(self) -> bool:
        """Whether the latest finished exchange was an error (HTTP status or an exception frame)."""
        done = self.interactions
        return bool(done) and (done[-1].status >= 300 or any(f.message_type != "event" for f in done[-1].frames or ()))

    def wait(self, timeout: float = 30.0) -> bool:
        """Wait until every open exchange has finished (its stream read to the end); False on timeout."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._pending, timeout)

    def _write(self) -> None:
        items = tuple(it for it in self._slots if it is not None)
        document = Cassette(None, cassette.metadata_for(items, None, self.source), items)
        try:
            cassette.save(self.path, document, overwrite=self.overwrite or self._ours)
        except (scrub.SecretFound, FileExistsError) as error:
            self._refuse(str(error))
            return
        self._ours = True
        self.problems = cassette.verify(self.path)
        for problem in self.problems:
            log.warning("recorded cassette: %s", problem)
        log.info("recorded %s (%d interactions)", self.path, len(items))

    def _refuse(self, why: str) -> None:
        self.refused = why
        log.error("%s", why)
        if self._ours:
            self.path.unlink(missing_ok=True)
            self._ours = False


class Recorder(Protocol):
    """Chooses the tape a request is recorded on (called in arrival order, one request at a time)."""

    def tape_for(self, request: CapturedRequest) -> Tape: ...


class _Thread:
    """One conversation of ``Conversations``: its tape and the messages of its latest request."""

    def __init__(self, tape: Tape, messages: list | None):
        self.tape, self.messages = tape, messages

    def takes(self, messages: list) -> bool:
        """A continuation (the history so far, then more) or a retry of a failed request (the same history)."""
        if self.messages is None or len(messages) < len(self.messages):
            return False
        if messages[: len(self.messages)] != self.messages:
            return False
        return len(messages) > len(self.messages) or self.tape.last_failed()


class Conversations:
    """Groups requests into conversations, one cassette each, named ``<prefix>-NNNN.yaml`` in ``directory``.

    A request continues the newest conversation whose latest request's ``messages`` are a prefix of its own (the
    client sent the history back with more appended), or repeats it after an error (a retry); anything else starts
    a new conversation. A request without a ``messages`` list is a conversation of its own. Numbers skip every file
    already there, so nothing is ever clobbered.
    """

    def __init__(self, directory: str | Path, *, prefix: str = "conversation", source: str | None = None):
        self.directory, self.prefix, self.source = Path(directory), prefix, source
        self.threads: list[_Thread] = []
        self._number = 0

    @property
    def tapes(self) -> list[Tape]:
        return [thread.tape for thread in self.threads]

    def tape_for(self, request: CapturedRequest) -> Tape:
        messages = _messages(request.body_json)
        thread = next((t for t in reversed(self.threads) if messages is not None and t.takes(messages)), None)
        if thread is None:
            thread = _Thread(Tape(self._next_path(), source=self.source), messages)
            self.threads.append(thread)
        thread.messages = messages
        return thread.tape

    def _next_path(self) -> Path:
        taken = {t.tape.path for t in self.threads}
        while True:
            self._number += 1
            path = self.directory / f"{self.prefix}-{self._number:04d}.yaml"
            if path not in taken and not path.exists():
                return path


def _messages(body: Any) -> list | None:
    messages = body.get("messages") if isinstance(body, dict) else None
    return messages if isinstance(messages, list) else None


class RecordingProxy:
    """A responder: forward upstream, stream the answer back as it arrives, record the exchange on a tape."""

    def __init__(self, upstream: Upstream, recorder: Recorder):
        self.upstream, self.recorder = upstream, recorder

    def respond(self, request: CapturedRequest) -> Reply:
        for problem in request.problems:  # Bedrock will answer for itself; the user still hears it first
            log.warning("%s: breaks Bedrock's rules: %s", request.path, problem)
        tape = self.recorder.tape_for(request)
        slot = tape.open_slot()
        try:
            forwarded = self.upstream.forward(request)
            headers = _reply_headers(forwarded.headers)
            if forwarded.status < 300 and _is_stream(forwarded.headers):
                return Reply(forwarded.status, headers, stream=_relay(forwarded, request, tape, slot))
            body = forwarded.read()
        except UpstreamError as error:
            tape.fill(slot, None)
            raise RequestError(503, "ServiceUnavailableException", f"bedrock-harness proxy: {error}") from None
        tape.fill(slot, _interaction(request, forwarded, body))
        return Reply(forwarded.status, headers, body=body)


def _relay(forwarded: Forwarded, request: CapturedRequest, tape: Tape, slot: int) -> Iterator[bytes]:
    """Yield the upstream body piece by piece; at the end (or when the client hangs up) record all of it."""
    pieces, received, broken = forwarded.pieces(), [], False
    try:
        for piece in pieces:
            received.append(piece)
            yield piece
    except UpstreamError as error:
        broken = True
        log.warning("%s: %s", request.path, error)
        raise
    finally:
        if not broken:  # the client hung up early: read on, so the cassette holds what Bedrock sent
            received.extend(_drain(pieces))
        tape.fill(slot, _interaction(request, forwarded, b"".join(received)))


def _drain(pieces: Iterator[bytes]) -> list[bytes]:
    rest = []
    try:
        rest.extend(pieces)
    except UpstreamError as error:
        log.warning("%s", error)
    return rest


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


def describe(tapes: list[Tape]) -> str:
    """One line per tape: its path and interaction count, or why it was refused."""
    return "\n".join(f"{t.path}: refused ({t.refused})" if t.refused else f"{t.path}: {len(t.interactions)} "
                     f"interaction(s)" for t in tapes)

