"""Loopback Bedrock endpoint: replay a cassette or run the emulator over HTTP/1.1 on 127.0.0.1.

A ``BedrockServer`` is one session: its own port, turn cursor, faults and captured requests. What it answers
comes from a responder, a one-method protocol (``respond(request) -> Reply``); the cassette and emulator
responders (harness.endpoint.responders) are two implementations and a test double is a third. The session adds what every mode shares:
Bedrock's error shapes, request rules, pre-stream HTTP faults, and delivery faults (harness.endpoint.faults).
"""

from __future__ import annotations

import logging
import random
import re
import selectors
import socket
import struct
import sys
import threading
import time
import uuid
from collections import Counter, deque
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator
from urllib.parse import unquote, urlsplit

from harness.cassettes.masking import MaskingFilter
from harness.endpoint import framing, inprocess
from harness.endpoint.deadlines import Deadlines
from harness.endpoint.exchange import (INVALID_MODEL, MALFORMED_INPUT, MAX_BODY_BYTES, MAX_JSON_DEPTH,
                                       CapturedRequest, Reply, RequestError, Responder, error_reply, too_large)
from harness.endpoint.faults import Delivery, Faults
from harness.endpoint.responders import CassetteResponder, EmulatorResponder
from harness.endpoint.rules import converse as rules
from harness.endpoint.rules import scope
from harness.endpoint.rules.input_shape import valid_model_id
from harness.wire.eventstream import loads

__all__ = ["BODY_TIMEOUT", "HEADER_TIMEOUT", "IDLE_TIMEOUT", "MAX_CONNECTIONS", "OPERATIONS", "BedrockServer"]

log = logging.getLogger("harness.endpoint.server")
log.addFilter(MaskingFilter())  # paths, queries and model ARNs are printed masked

OPERATIONS = {
    "converse-stream": "ConverseStream",
    "converse": "Converse",
    "invoke-with-response-stream": "InvokeModelWithResponseStream",
}
EVENT_STREAM = "application/vnd.amazon.eventstream"
# How long a connection may take before it is closed (a slow or idle client never holds a handler thread longer):
# a kept-alive connection waiting for its next request (an AWS load balancer's default idle timeout); a new
# connection's request line and headers, and a later request's headers once its line is in; the body once the head
# is in. Each is at most the server's idle timeout. A reply streams as long as it takes.
IDLE_TIMEOUT = 60.0
HEADER_TIMEOUT = 10.0
BODY_TIMEOUT = 30.0
# Connections served at once, one handler thread each: past it a new connection is answered 503 (Bedrock's
# ServiceUnavailableException) and closed at once, so a flood of slow clients cannot grow threads without end.
MAX_CONNECTIONS = 256
_RULED = ("ConverseStream", "Converse")
PAIRED = frozenset({"ConverseStream", "Converse"})  # a paired session serves each turn once to each (streaming parity)


def _check_rules(request: CapturedRequest) -> None:
    """The request's problems Bedrock rejects for its model; those no evidence settles for it become warnings."""
    found = rules.check_request(request.body_json, request.operation, request.model_id, raw=request.raw_body or None)
    request.problems, request.warnings = scope.split(found, request.model_id)


def _as_recorded(request: CapturedRequest, responder: Responder) -> bool:
    """Whether the responder recorded this very request (then Bedrock accepted it): its problems and warnings become
    notes."""
    same = getattr(responder, "recorded_same", None)
    if not (request.problems or request.warnings) or same is None or not same(request):
        return False
    request.notes.extend(f"accepted as recorded: the cassette holds this request, which Bedrock answered, so "
                         f"{p.rule} does not reject it ({p.message})" for p in request.problems)
    request.notes.extend(f"accepted as recorded: {w}" for w in request.warnings)
    request.problems, request.warnings = [], []
    return True


class _Session:
    """Turn cursor, retry counters and captured requests of one server, behind one lock.

    ``keep`` bounds the captured requests (the latest ones stay; None keeps all): a run reads each turn's request
    once and its session ends with the scenario, but ``serve`` may answer requests for days. ``pairs``: each turn
    is served once as ConverseStream and once as Converse, in either order (an adapter checking its library's
    streamed result against its non-streamed one); the turn moves on when both were served, or when a request
    repeats an operation the turn already served (the adapter made no second call).
    """

    def __init__(self, responder: Responder, faults: Faults, validate: bool, keep: int | None = None,
                 loop: bool = False, pairs: bool = False):
        self.responder, self.faults, self.validate, self.loop, self.pairs = responder, faults, validate, loop, pairs
        self.requests: deque[CapturedRequest] = deque(maxlen=keep)
        self.count = 0  # requests answered, kept or not
        self.turn = 0
        self._attempts: Counter[int] = Counter()
        self._served: set[str] = set()  # the paired operations the current turn has served
        self._lock = threading.Lock()

    def answer(self, request: CapturedRequest) -> Reply:
        with self._lock:
            try:
                reply = self._plan(request)
            except Exception as error:  # noqa: BLE001 -- a responder bug: one log line and a Bedrock-shaped 500
                log.error("%s %s: handler error: %s", request.method, request.path, _describe(error))
                reply = error_reply(500, "InternalServerException", f"harness error: {_describe(error)}")
            request.status = reply.status
            self.requests.append(request)
            self.count += 1
        return reply

    def _plan(self, request: CapturedRequest) -> Reply:
        if request.method != "POST" or not request.operation:
            return _unknown_operation(request)
        if not request.model_id:
            return error_reply(400, "ValidationException", INVALID_MODEL)
        if self.validate and not valid_model_id(request.model_id, request.operation):
            log.warning("%s %s: the model id %r does not fit botocore's modelId shape", request.method, request.path,
                        request.model_id)
            return error_reply(400, "ValidationException", INVALID_MODEL)
        if request.malformed or not isinstance(request.body_json, dict):
            return error_reply(400, "ValidationException", MALFORMED_INPUT)
        if request.operation in self._served:
            self._advance()  # the turn's twin call never came
        if self.loop and self.turn >= getattr(self.responder, "turns", self.turn + 1):
            self.turn, self._attempts, self._served = 0, Counter(), set()  # the conversation starts again
        request.turn = self.turn
        http_error = self.faults.http_error(self.turn, self._attempts[self.turn])
        if http_error:
            self._attempts[self.turn] += 1
            return error_reply(http_error.status, http_error.type, http_error.message)
        return self._serve_turn(request)

    def _serve_turn(self, request: CapturedRequest) -> Reply:
        # Bedrock validates before the model runs: a request it rejects gets its text whatever the script holds
        # (and uses up its turn, as a real conversation would have moved on).
        if request.operation in _RULED:
            _check_rules(request)
            _as_recorded(request, self.responder)
        if self.validate and request.problems:
            self._used(request.operation)
            return error_reply(400, "ValidationException", rules.validation_message(request.problems))
        try:
            reply = self.responder.respond(request)
        except RequestError as error:
            log.log(logging.INFO if error.expected else logging.WARNING, "%s %s: %s", request.method, request.path,
                    error.detail)
            return error_reply(error.status, error.type, error.message)
        self._used(request.operation)
        return reply

    def _used(self, operation: str) -> None:
        """The current turn has answered ``operation``: on to the next turn, unless its paired twin is still due."""
        if self.pairs and operation in PAIRED:
            self._served.add(operation)
            if self._served != PAIRED:
                return
        self._advance()

    def _advance(self) -> None:
        self.turn, self._served = self.turn + 1, set()

    def delivery(self, request: CapturedRequest, reply: Reply) -> Delivery:
        """The reply's bytes with the session's faults, for a successful turn only."""
        if reply.status >= 300 or request.turn is None:
            return Delivery(reply.body)
        if reply.frames is None:
            return self.faults.deliver_json(reply.body, request.turn)
        return self.faults.deliver(reply.frames, request.turn, reply.offsets)


def _unknown_operation(request: CapturedRequest) -> Reply:
    if request.method != "POST" and request.operation:
        return error_reply(405, "UnknownOperationException", f"{request.method} is not allowed on {request.path}")
    return error_reply(404, "UnknownOperationException", f"The harness serves no operation at {request.path}")


def _captured(method: str, target: str, headers: dict[str, str], raw: bytes | None) -> CapturedRequest:
    """A request as the session reads it, routed and parsed; ``raw`` None: a body whose framing was unreadable."""
    operation, model_id = _route(target)
    body, malformed = _parse_json(raw or b"")
    return CapturedRequest(method, target, operation, model_id, headers, body, raw or b"", malformed or raw is None)


def _parse_json(raw: bytes) -> tuple[Any, bool]:
    """(parsed body, whether it is malformed); an empty body parses to None, one nested too deep is malformed."""
    try:
        body = loads(raw) if raw else None
    except (ValueError, RecursionError):
        return None, True
    return (None, True) if _deeper_than(body, MAX_JSON_DEPTH) else (body, False)


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` levels (``[[]]`` is 2; walked level by level)."""
    level = [value] if isinstance(value, (dict, list)) else []
    for _ in range(limit):
        level = [inner for item in level for inner in (item.values() if isinstance(item, dict) else item)
                 if isinstance(inner, (dict, list))]
        if not level:
            return False
    return True


def _route(path: str) -> tuple[str, str]:
    """(operation, percent-decoded model id) of ``/model/{id}/{op}``; ("", "") when not served."""
    raw = urlsplit(path).path
    if not raw.startswith("/model/"):
        return "", ""
    model, _, suffix = raw[len("/model/"):].rpartition("/")
    return OPERATIONS.get(suffix, ""), unquote(model)


def _log_reply(request: CapturedRequest, reply: Reply) -> None:
    """The reply's log line, then the request's rule warnings and acceptances as recorded."""
    shape = " (streamed)" if reply.stream is not None else "" if reply.frames is None else f" {len(reply.frames)} frames"
    log.info("%s %s turn=%s -> %d%s", request.method, request.path, request.turn, reply.status, shape)
    _log_notes(request)


def _log_notes(request: CapturedRequest) -> None:
    """Rule warnings and acceptances as recorded, beside the request's log line (``serve`` shows INFO on stderr)."""
    for note in [*request.warnings, *request.notes]:
        log.info("%s %s turn=%s: %s", request.method, request.path, request.turn, note)


class BodyTooLarge(Exception):
    """The request body is over the server's limit; the connection cannot be kept in step."""


class _Cut(Exception):
    """The connection was shut down at its deadline while the request arrived: nothing is answered."""


# Python's own refusals (send_error) in Bedrock's shape: status -> (status sent, error type).
_REFUSALS = {501: (405, "UnknownOperationException")}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so SDKs reuse connections
    server_version = "bedrock-harness"
    timeout = 120  # a blocked read or write gives up after this many seconds (deadlines end idle ones sooner)

    def __getattr__(self, name: str):
        # Every method, however unusual (BREW, PRI from HTTP/2), reaches the session, which answers 404/405 in
        # Bedrock's shape; without this, http.server answers an unknown method with an HTML page.
        if name.startswith("do_"):
            return self.do_POST
        raise AttributeError(name)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's refusals (bad request line, HTTP version, oversized headers) in Bedrock's error shape."""
        status, kind = _REFUSALS.get(code, (code, "ValidationException"))
        self._refuse(status, kind, message or self.responses.get(code, ("Bad request",))[0])

    def _refuse(self, status: int, kind: str, text: str) -> None:
        """Answer ``status`` in Bedrock's error shape and close the connection (nothing after it is read)."""
        log.warning("%s: refused with %d: %s", self.requestline or "<no request line>", status, text)
        self.close_connection = True
        self.request_version = "HTTP/1.1"  # an unparsed line leaves HTTP/0.9, which would drop status and headers
        self._send_head(error_reply(status, kind, f"{text}."), None)

    def handle_one_request(self) -> None:
        # a new connection's whole head is due within the header timeout; a kept-alive one may wait idle first
        first = not getattr(self, "_answered", False)
        self._answered = True
        self.server.deadlines.set(self.connection, self.server.header_timeout if first else self.server.idle_timeout)
        super().handle_one_request()

    def parse_request(self) -> bool:
        """http.server's parse, less HTTP/0.9 (`GET /path` alone), whose replies carry no status or headers, and
        less any head whose framing two readers could read two ways (harness.endpoint.framing)."""
        self.server.deadlines.set(self.connection, self.server.header_timeout)  # the headers, from the line on
        if not super().parse_request():
            return False
        if self.server.deadlines.passed(self.connection):  # cut at the header timeout: no head, nothing answered
            self.close_connection = True
            return False
        if self.request_version == "HTTP/0.9":
            self.send_error(505, "Invalid HTTP version (0.9)")
            return False
        refused = framing.problem(self.headers, self.request_version)
        if refused:
            self._refuse(refused[0], "ValidationException", refused[1])
            return False
        return True

    def handle_expect_100(self) -> bool:
        """A body announced over the limit is refused before the client sends it."""
        if _declared_length(self.headers) > self.server.max_body:
            self.close_connection = True
            self._send_head(too_large(self.server.max_body), None)
            return False
        return super().handle_expect_100()

    def setup(self):
        super().setup()
        # Many small chunks (1-byte chunking) must not wait on Nagle's algorithm.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self):
        self._started, request = False, None
        try:
            request = self._capture()
            self.server.deadlines.set(self.connection, None)  # answering: a reply may stream as long as it takes
            reply = self.server.session.answer(request)
            request.release()  # answered (a forwarded request holds its own bytes): before the client can read a byte
            self._write(request, reply)
        except BodyTooLarge:
            self.close_connection = True  # the rest of the body is never read
            self._send_head(too_large(self.server.max_body), None)
        except _Cut:
            log.info("%s %s: closed at the body timeout (%.0f s) before the body arrived", self.command, self.path,
                     self.server.body_timeout)
            self.close_connection = True
        except (BrokenPipeError, ConnectionResetError) as error:
            log.info("%s %s: client closed the connection (%s)", self.command, self.path, type(error).__name__)
            self.close_connection = True
        except ConnectionAbortedError as error:  # the responder gave up mid-reply (a recording stopped): one line
            log.info("%s %s: %s", self.command, self.path, error)
            self.close_connection = True
        except Exception as error:  # noqa: BLE001 -- never a traceback or a bare 500: one line, a Bedrock-shaped answer
            log.error("%s %s: handler error: %s", self.command, self.path, _describe(error))
            self.close_connection = True
            if not self._started:
                self._send_head(error_reply(500, "InternalServerException", f"harness error: {_describe(error)}"), None)
        finally:
            if request is not None:
                request.release()  # refused or failed: the body lives on as its JSON only

    def log_message(self, format, *args):
        log.debug("%s %s", self.address_string(), format % args)

    def _capture(self) -> CapturedRequest:
        self.server.deadlines.set(self.connection, self.server.body_timeout)  # the body, from the head on
        raw = self._read_body()
        if self.server.deadlines.passed(self.connection):  # cut at the body timeout: a part of a body is no body
            raise _Cut
        if raw is None:  # an unreadable length leaves the connection out of step
            self.close_connection = True
        return _captured(self.command, self.path, dict(self.headers.items()), raw)

    def _read_body(self) -> bytes | None:
        """The body, None when its framing is unreadable; BodyTooLarge over the limit (nothing more is read)."""
        try:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                return self._read_chunked()
            length = _declared_length(self.headers)
        except ValueError:
            return None
        if length > self.server.max_body:
            raise BodyTooLarge
        return self.rfile.read(length)

    def _read_chunked(self) -> bytes:
        """A chunked body, read strictly (RFC 9112 §7.1): hex sizes only (no ``0x``, sign or ``_``, which int()
        would take), CRLF after each chunk's data, at most _MAX_TRAILERS trailer lines; ValueError otherwise."""
        parts, total = [], 0
        while size := _chunk_size(self.rfile.readline(1024)):
            total += size
            if total > self.server.max_body:
                raise BodyTooLarge
            parts.append(self.rfile.read(size))
            if self.rfile.readline(3) not in (b"\r\n", b"\n"):
                raise ValueError("chunk data not followed by CRLF")
        for _ in range(_MAX_TRAILERS):
            line = self.rfile.readline(1024)
            if line in (b"\r\n", b"\n"):
                return b"".join(parts)
            if not line.endswith(b"\n"):
                break
        raise ValueError("an unterminated or overlong trailer section")

    def _write(self, request: CapturedRequest, reply: Reply) -> None:
        if reply.stream is not None:
            return self._write_stream(request, reply)
        delivery = self.server.session.delivery(request, reply)
        _log_reply(request, reply)
        self._send_head(reply, delivery, request.operation)
        if reply.frames is None:
            self._write_plain(delivery)
        else:
            self._write_chunked(delivery)
        if delivery.drop:
            self.close_connection = True
            if reply.frames is None:
                # A clean EOF inside a Content-Length body is parsed silently by botocore (it reads without
                # enforcing the length); a reset is what a dropped connection looks like, every time.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.shutdown(socket.SHUT_RDWR)

    def _write_stream(self, request: CapturedRequest, reply: Reply) -> None:
        """A body that is still arriving: each piece goes out as its own HTTP chunk the moment it is there."""
        _log_reply(request, reply)
        self._send_head(reply, Delivery(()), request.operation)
        try:
            for piece in reply.stream:
                if piece:  # an empty chunk would end the body
                    self.wfile.write(b"%x\r\n%b\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
        finally:
            close = getattr(reply.stream, "close", None)
            if close:
                close()

    def _send_head(self, reply: Reply, delivery: Delivery | None, operation: str = "") -> None:
        self._started = True
        self.log_request(reply.status)
        self.send_response_only(reply.status)  # Bedrock sends Date but no Server header
        length = len(reply.body if delivery is None or delivery.drop else delivery.body)
        for name, value in _head(reply, length, operation, self.close_connection).items():
            self.send_header(name, value)
        self.end_headers()
        if delivery is None and self.command != "HEAD":
            self.wfile.write(reply.body)

    def _write_plain(self, delivery: Delivery) -> None:
        if self.command != "HEAD":
            self.wfile.write(delivery.body)

    def _write_chunked(self, delivery: Delivery) -> None:
        for delay, chunk in delivery.chunks:
            if delay:
                time.sleep(delay)
            if chunk:  # an empty chunk would end the body
                self.wfile.write(b"%x\r\n%b\r\n" % (len(chunk), chunk))
        if not delivery.drop:
            self.wfile.write(b"0\r\n\r\n")


_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]{1,15})(?:[ \t]*;[^\r\n]*)?\r?\n")
_MAX_TRAILERS = 100


def _chunk_size(line: bytes) -> int:
    """The size a chunk-size line states (ValueError when it is not 1*HEXDIG [chunk-ext] CRLF)."""
    found = _CHUNK_SIZE.fullmatch(line)
    if not found:
        raise ValueError(f"chunk size line {line[:40]!r}")
    return int(found.group(1), 16)


def _declared_length(headers) -> int:
    """The Content-Length header as a number (0 when absent); ValueError when it is not a decimal count."""
    text = (headers.get("Content-Length") or "0").strip()
    if not text.isdigit() or not text.isascii():
        raise ValueError(f"Content-Length {text!r}")
    return int(text)


_FRAMING = {"content-length", "transfer-encoding", "connection", "date", "server", "keep-alive"}


def _head(reply: Reply, length: int, operation: str, close: bool) -> dict[str, str]:
    """The reply's HTTP head fields: Date, the reply's headers with Bedrock's defaults, and the body's framing
    (``length`` bytes of a JSON body; an event stream is chunked)."""
    head = {"Date": _date(), **_response_headers(reply, operation)}
    if reply.frames is None and reply.stream is None:
        head["Content-Length"] = str(length)
    else:
        head["Transfer-Encoding"] = "chunked"
    if close:
        head["Connection"] = "close"
    return head


_REQUEST_IDS = random.Random()  # a request id is no secret: not uuid4's system call for every reply
_dates: tuple[int, str] = (0, "")  # the last second a Date field was written for, and its text


def _date() -> str:
    """The HTTP Date field for now, written once a second."""
    global _dates
    second = int(time.time())
    if _dates[0] != second:
        _dates = (second, formatdate(second, usegmt=True))
    return _dates[1]


def _response_headers(reply: Reply, operation: str) -> dict[str, str]:
    """The reply's headers without framing ones (the server frames the body), plus Bedrock's defaults."""
    headers = {k: v for k, v in reply.headers.items() if k.lower() not in _FRAMING}
    present = {k.lower() for k in headers}
    defaults = {"x-amzn-RequestId": str(uuid.UUID(int=_REQUEST_IDS.getrandbits(128), version=4))}
    if reply.frames is not None or reply.stream is not None:
        defaults["Content-Type"] = EVENT_STREAM
        if operation == "InvokeModelWithResponseStream":
            defaults["X-Amzn-Bedrock-Content-Type"] = "application/json"
    return {**{k: v for k, v in defaults.items() if k.lower() not in present}, **headers}


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # the listen backlog: 200 clients connecting at once must never meet a reset

    def __init__(self, session: _Session, port: int, max_body: int = MAX_BODY_BYTES,
                 idle_timeout: float = IDLE_TIMEOUT, max_connections: int = MAX_CONNECTIONS):
        self.session, self.max_body, self.idle_timeout = session, max_body, idle_timeout
        self.header_timeout, self.body_timeout = min(HEADER_TIMEOUT, idle_timeout), min(BODY_TIMEOUT, idle_timeout)
        self.max_connections = max_connections
        self.deadlines = Deadlines()
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        self._stopping = False
        self._wake, self._waker = socket.socketpair()  # stop() writes to _waker: serve() returns at once
        super().__init__(("127.0.0.1", port), _Handler)  # a port in use: server_close(), which closes both, raises

    def serve(self) -> None:
        """Accept connections until ``stop()``. The loop sleeps until a client connects or ``stop()`` writes to
        the wake-up socket: socketserver's ``serve_forever`` wakes every poll interval instead (200 times a second
        at 5 ms, each time taking the GIL from the run's threads) and its ``shutdown`` waits up to an interval."""
        with selectors.DefaultSelector() as selector:
            selector.register(self, selectors.EVENT_READ)
            selector.register(self._wake, selectors.EVENT_READ)
            while not self._stopping:
                if any(key.fileobj is self for key, _ in selector.select()):
                    self._handle_request_noblock()

    def stop(self) -> None:
        """Make ``serve()`` return (its thread ends at once)."""
        self._stopping = True
        self._waker.send(b"\0")

    def process_request(self, request, client_address):
        with self._open_lock:
            busy = len(self._open) >= self.max_connections
            if not busy:
                self._open.add(request)
        if busy:
            return self._turn_away(request)
        super().process_request(request, client_address)

    def _turn_away(self, request: socket.socket) -> None:
        """Answer a connection past MAX_CONNECTIONS with 503 in Bedrock's shape and close it, from the accepting
        thread (a few hundred bytes: the write does not wait), so no thread is started for it."""
        log.warning("refused a connection: %d are open already (the most served at once)", self.max_connections)
        reply = error_reply(503, "ServiceUnavailableException", f"bedrock-harness endpoint: {self.max_connections} "
                            "connections are open already; try again")
        head = "".join(f"{k}: {v}\r\n" for k, v in _head(reply, len(reply.body), "", True).items())
        try:
            request.settimeout(1.0)
            request.sendall(f"HTTP/1.1 503 Service Unavailable\r\n{head}\r\n".encode("latin-1") + reply.body)
        except OSError:
            pass
        self.shutdown_request(request)

    def shutdown_request(self, request):
        with self._open_lock:
            self._open.discard(request)
        self.deadlines.set(request, None)
        super().shutdown_request(request)

    def server_close(self) -> None:
        super().server_close()
        self._wake.close()
        self._waker.close()
        self.deadlines.stop()

    def close_connections(self) -> None:
        """End every open keep-alive connection, so no handler thread outlives the session."""
        with self._open_lock:
            sockets, self._open = list(self._open), set()
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by the client

    def handle_error(self, request, client_address):
        error = sys.exc_info()[1]
        # A client hanging up mid-reply is ordinary (an adapter stops reading a broken stream): debug, not error.
        level = logging.DEBUG if isinstance(error, (ConnectionResetError, BrokenPipeError)) else logging.ERROR
        log.log(level, "connection from %s:%s failed: %s", *client_address[:2], _describe(error))


def _describe(error: BaseException | None) -> str:
    return f"{type(error).__name__}: {error}"


class BedrockServer:
    """One loopback Bedrock session on 127.0.0.1 (``with BedrockServer(...) as server: server.endpoint_url``)."""

    def __init__(self, responder: Responder, *, faults: Faults | None = None, validate: bool = True, port: int = 0,
                 keep_requests: int | None = None, max_body: int = MAX_BODY_BYTES, loop: bool = False,
                 pairs: bool = False, idle_timeout: float = IDLE_TIMEOUT, in_process: bool = False,
                 max_connections: int = MAX_CONNECTIONS):
        """``in_process``: botocore clients in this process reach the server without a socket
        (harness.endpoint.inprocess) while it is started; other clients and processes still connect over TCP."""
        self._keep, self._max_body, self._loop, self._idle_timeout = keep_requests, max_body, loop, idle_timeout
        self._in_process, self._max_connections = in_process, max_connections
        self._session = _Session(responder, faults or Faults(), validate, keep_requests, loop, pairs)
        self._port = port
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    def reset(self, responder: Responder, *, faults: Faults | None = None, validate: bool = True,
              pairs: bool = False) -> None:
        """Start a new session on the same port: new responder, faults, turn cursor and captured requests;
        ``pairs``: each turn answers a ConverseStream and a Converse call (streaming parity)."""
        self._session = _Session(responder, faults or Faults(), validate, self._keep, self._loop, pairs)
        if self._httpd is not None:
            self._httpd.session = self._session  # handlers read it per request, so kept-alive clients follow

    @classmethod
    def from_cassette(cls, path, *, faults: Faults | None = None, cross_operation: bool = True,
                      **options) -> BedrockServer:
        """Replay the cassette at ``path`` (harness.cassettes.cassette format); other operations are rendered from it."""
        from harness.cassettes import cassette  # a cassette's reader (YAML, frames) loads when one is served

        responder = CassetteResponder(cassette.load(path), cross_operation=cross_operation, faults=faults)
        return cls(responder, faults=faults, **options)

    @classmethod
    def emulate(cls, scripts, *, style: str = "claude", seed: str = "", name: str = "emulator",
                model_id: str | None = None, **options):
        """Run the emulator over per-turn scripts; ``seed`` (the scenario id) makes ids reproducible; ``model_id``
        set, another model id is refused as Bedrock refuses an unknown one."""
        return cls(EmulatorResponder(scripts, style, seed, name, model_id), **options)

    @classmethod
    def from_scenario(cls, scenario, *, faults: Faults | None = None, **options) -> BedrockServer:
        """Emulate a harness.suite.scenario Scenario, with its ``faults:`` unless ``faults`` is given."""
        faults = faults if faults is not None else Faults.from_scenario(scenario.faults)
        scripts = [turn.script for turn in scenario.turns]
        return cls.emulate(scripts, style=scenario.style, seed=scenario.id, name=scenario.id,
                           model_id=scenario.model_id, faults=faults, **options)

    @property
    def requests(self) -> list[CapturedRequest]:
        """The requests received so far, in arrival order (the latest ``keep_requests`` when that is set)."""
        return list(self._session.requests)

    @property
    def request_count(self) -> int:
        """How many requests this session answered, kept or not."""
        return self._session.count

    @property
    def turn(self) -> int:
        """The number of turns served so far (the next request gets this turn)."""
        return self._session.turn

    @property
    def endpoint_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the server is not started; use it as a context manager or call start()")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> BedrockServer:
        self._httpd = _HTTPServer(self._session, self._port, self._max_body, self._idle_timeout, self._max_connections)
        self._thread = threading.Thread(target=self._httpd.serve, daemon=True)
        self._thread.start()
        if self._in_process:
            inprocess.register(self)
        return self

    def answer_in_process(self, method: str, target: str, headers: dict[str, str],
                          raw: bytes) -> tuple[int, dict[str, str], Iterator[bytes]] | None:
        """A request made in this process without a socket, answered as the HTTP handler answers it: (status,
        head fields, body pieces); None, before anything is answered, when the session's faults show only on a
        real connection (a dropped one, or a delivery that waits, which the client's read timeout measures)."""
        session = self._session
        if session.faults.needs_socket:
            return None
        if len(raw) > self._max_body:
            reply = too_large(self._max_body)
            return reply.status, _head(reply, len(reply.body), "", True), iter((reply.body,))
        request = _captured(method, target, headers, raw)
        reply = session.answer(request)
        request.release()
        _log_reply(request, reply)
        if reply.stream is not None:
            return reply.status, _head(reply, 0, request.operation, False), reply.stream
        delivery = session.delivery(request, reply)
        # needs_socket is False: no chunk waits and none drops, so the chunks are the whole reply at once
        return reply.status, _head(reply, len(delivery.body), request.operation, False), \
            (c for _, c in delivery.chunks)

    def close(self) -> None:
        if self._in_process:
            inprocess.unregister(self)
        if self._httpd is not None:
            self._httpd.stop()
            self._thread.join()
            self._httpd.close_connections()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> BedrockServer:  # noqa: PYI034 -- typing.Self needs Python 3.11
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.close()
