"""Botocore's calls to a loopback server of this same process, answered without a socket.

An in-process adapter (the reference, a Python library's shim) runs in the harness's own process, and its
boto3 client would send every request over TCP to the run's loopback server, where a second thread parses
the HTTP and writes the reply back: about half of what each call costs. While a server started with
``in_process=True`` is registered here, botocore hands a request for its endpoint URL straight to the
server's session (``BedrockServer.answer_in_process``): the same captured request, rules, turn cursor, faults
and reply bytes, less the HTTP framing on both sides. Every other request still goes out over the network
layer unchanged: other endpoints, other HTTP clients (aiobotocore, httpx, Node), a body botocore streams from
a file, and a session whose faults only a real connection shows (a dropped connection, a delivery that waits).

The hook is botocore's own HTTP session class (``URLLib3Session.send``), wrapped once, on the first
registration; a request whose endpoint is not registered passes through to the original untouched.
"""

from __future__ import annotations

import threading
from typing import Any, Iterator
from urllib.parse import urlsplit

__all__ = ["register", "registered", "unregister"]

_SERVERS: dict[str, Any] = {}  # "127.0.0.1:port" -> the started BedrockServer answering it
_lock = threading.Lock()
_original_send = None


def register(server: Any) -> None:
    """Answer botocore's requests to ``server.endpoint_url`` in-process from now on."""
    global _original_send
    from botocore.httpsession import URLLib3Session

    with _lock:
        if _original_send is None:
            _original_send, URLLib3Session.send = URLLib3Session.send, _send
        _SERVERS[urlsplit(server.endpoint_url).netloc] = server


def unregister(server: Any) -> None:
    """Stop answering for ``server`` (it is closing): a late call to its URL meets the closed port, as over TCP."""
    with _lock:
        for netloc in [n for n, s in _SERVERS.items() if s is server]:
            del _SERVERS[netloc]


def registered() -> list[str]:
    """The endpoint URLs answered in-process now."""
    return [f"http://{netloc}" for netloc in _SERVERS]


def _send(session: Any, request: Any) -> Any:
    """URLLib3Session.send, for a registered endpoint without the network."""
    parts = urlsplit(request.url)
    server = _SERVERS.get(parts.netloc)
    body = request.body
    if server is None or not isinstance(body, (bytes, bytearray, str, type(None))):
        return _original_send(session, request)
    raw = body.encode() if isinstance(body, str) else bytes(body or b"")
    headers = {"Host": parts.netloc, **{k: v.decode("latin-1") if isinstance(v, bytes) else v
                                        for k, v in request.headers.items()}}
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    answered = server.answer_in_process(request.method, target, headers, raw)
    if answered is None:
        return _original_send(session, request)
    from botocore.awsrequest import AWSResponse

    status, head, pieces = answered
    return AWSResponse(request.url, status, head, _Body(pieces))


class _Body:
    """The reply body as botocore reads an HTTP response's: ``stream()`` (an event stream as it is parsed, a JSON
    reply whole) and ``close()`` (an event stream closed before its end)."""

    def __init__(self, pieces: Iterator[bytes]):
        self._pieces = pieces

    def stream(self) -> Iterator[bytes]:
        for piece in self._pieces:
            if piece:
                yield piece

    def close(self) -> None:
        close = getattr(self._pieces, "close", None)
        if close is not None:
            close()
