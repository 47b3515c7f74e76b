"""Hostile HTTP requests, generated: heads two readers could read two ways (request smuggling), loose chunk sizes,
and an ordinary request as the control. ``send_case(port, data)`` sends one on a fresh connection followed by
``SECOND``, an ordinary request on the same connection (what a smuggler slips behind the first), and reads every
answer until the server closes the connection or the wait is over. Used by tests/test_server.py and
benchmarks/bench_http.py.
"""

from __future__ import annotations

import socket
import time

__all__ = ["BODY", "CASES", "CONTROL", "SECOND", "answers", "head", "send_case"]

PATH = "/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream"
SECOND = b"GET /second HTTP/1.1\r\nHost: x\r\n\r\n"  # answered 404 when the server reads it as a request
BODY = b'{"messages": [{"role": "user", "content": [{"text": "hi"}]}]}'


def head(*lines: str, version: str = "HTTP/1.1") -> bytes:
    return "\r\n".join([f"POST {PATH} {version}", *lines, "", ""]).encode("latin-1")


def _chunked(body: bytes, size: bytes | None = None, end: bytes = b"\r\n") -> bytes:
    return (size or b"%x" % len(body)) + b"\r\n" + body + end + b"0\r\n\r\n"


# name -> bytes of the first request (SECOND follows it on the same connection)
CASES = {
    "Content-Length and Transfer-Encoding": head("Host: x", f"Content-Length: {5 + len(SECOND)}",
                                                  "Transfer-Encoding: chunked") + b"0\r\n\r\n",
    "two Content-Length values": head("Host: x", f"Content-Length: {len(BODY)}",
                                       f"Content-Length: {len(BODY) + len(SECOND)}") + BODY,
    "obsolete line folding": head("Host: x", "X-Note: a", " folded", f"Content-Length: {len(BODY)}") + BODY,
    "NUL in a header value": head("Host: x", "X-Note: a\x00b", f"Content-Length: {len(BODY)}") + BODY,
    "ESC in a header value": head("Host: x", "X-Note: \x1b[31mred", f"Content-Length: {len(BODY)}") + BODY,
    "space before the colon": head("Host: x", f"Content-Length : {len(BODY)}") + BODY,
    "Transfer-Encoding: chunked, identity": head("Host: x", "Transfer-Encoding: chunked, identity") + _chunked(BODY),
    "Transfer-Encoding: gzip, chunked": head("Host: x", "Transfer-Encoding: gzip, chunked") + _chunked(BODY),
    "Transfer-Encoding on HTTP/1.0": head("Host: x", "Transfer-Encoding: chunked", version="HTTP/1.0")
    + _chunked(BODY),
    "no Host": head(f"Content-Length: {len(BODY)}") + BODY,
    "two Host headers": head("Host: x", "Host: y", f"Content-Length: {len(BODY)}") + BODY,
    "chunk size 0x prefixed": head("Host: x", "Transfer-Encoding: chunked") + _chunked(BODY, b"0x%x" % len(BODY)),
    "chunk size with an underscore": head("Host: x", "Transfer-Encoding: chunked") + _chunked(
        BODY, (b"%x" % len(BODY))[:1] + b"_" + (b"%x" % len(BODY))[1:]),
    "chunk data without CRLF": head("Host: x", "Transfer-Encoding: chunked") + _chunked(BODY, end=b"XX"),
}
CONTROL = head("Host: x", f"Content-Length: {len(BODY)}") + BODY  # an ordinary request: answered, kept alive


def answers(sock: socket.socket, deadline: float) -> tuple[list[int], bool]:
    """Statuses of every answer read until the connection closes (True) or the deadline passes (False)."""
    data = b""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            piece = sock.recv(65536)
        except (TimeoutError, socket.timeout):
            break
        except ConnectionResetError:
            piece = b""
        if not piece:
            return _statuses(data), True
        data += piece
    return _statuses(data), False


def _statuses(data: bytes) -> list[int]:
    return [int(line.split()[1]) for line in data.split(b"\r\n") if line.startswith(b"HTTP/1.1 ")]


def send_case(port: int, data: bytes, wait: float = 5.0) -> tuple[list[int], bool, float]:
    """(statuses answered, closed by the server, seconds) for ``data`` then SECOND on one connection."""
    began = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        try:
            sock.sendall(data + SECOND)
        except (BrokenPipeError, ConnectionResetError):
            pass
        statuses, closed = answers(sock, began + wait)
    return statuses, closed, time.monotonic() - began
