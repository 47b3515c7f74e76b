"""A stable loopback port in front of the per-scenario loopback servers, for subprocess adapters.

Each scenario is served by its own ``BedrockServer`` on its own port, but a subprocess adapter reads
``AWS_ENDPOINT_URL_BEDROCK_RUNTIME`` once, when it starts. The relay owns one 127.0.0.1 port for the adapter's
whole life and forwards every TCP connection, byte for byte, to the current scenario's server (so chunking,
timing, HTTP errors and dropped or reset connections reach the adapter as the server sends them). ``retarget`` cuts
every relayed connection to the previous server: an SDK's pooled keep-alive connection then closes instead of
reaching a finished session, and the SDK opens a fresh one.
"""

from __future__ import annotations

import socket
import struct
import threading
from urllib.parse import urlsplit

__all__ = ["Relay"]

_BUFFER = 65536


class Relay:
    """``with Relay() as relay: relay.retarget(server.endpoint_url); client talks to relay.url``."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=1024)  # many clients connecting at once
        self._target: tuple[str, int] | None = None
        self._pairs: set[tuple[socket.socket, socket.socket]] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, name="relay-accept", daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def retarget(self, endpoint_url: str) -> None:
        """Relay new connections to ``endpoint_url`` (http://host:port) and cut the existing ones."""
        parts = urlsplit(endpoint_url)
        if parts.scheme != "http" or not parts.hostname or not parts.port:
            raise ValueError(f"the relay forwards to http://host:port only, got {endpoint_url!r}")
        with self._lock:
            self._target, pairs, self._pairs = (parts.hostname, parts.port), self._pairs, set()
        for pair in pairs:
            _cut(*pair)

    def close(self) -> None:
        """Stop listening and cut every relayed connection."""
        with self._lock:
            self._target, pairs, self._pairs = None, self._pairs, set()
        _cut(self._listener)
        for pair in pairs:
            _cut(*pair)

    def __enter__(self) -> Relay:  # noqa: PYI034 -- typing.Self needs Python 3.11
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:  # closed
                return
            threading.Thread(target=self._connect, args=(client,), name="relay-conn", daemon=True).start()

    def _connect(self, client: socket.socket) -> None:
        """Open the upstream connection for ``client`` and pump both ways until either side ends."""
        with self._lock:
            target = self._target
        try:
            upstream = socket.create_connection(target, timeout=10) if target else None
        except OSError:
            upstream = None
        if upstream is None:  # nothing to relay to: the client sees its connection closed
            _cut(client)
            return
        upstream.settimeout(None)
        for sock in (client, upstream):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # 1-byte chunking must not wait on Nagle
        pair = (client, upstream)
        with self._lock:
            stale = self._target != target  # re-targeted while this connection was being set up
            if not stale:
                self._pairs.add(pair)
        if stale:
            _cut(client, upstream)
            return
        threading.Thread(target=_pump, args=(upstream, client), name="relay-down", daemon=True).start()
        _pump(client, upstream)
        with self._lock:
            self._pairs.discard(pair)


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy until ``source`` ends, then cut both: HTTP clients never half-close, so an end is the end.

    A reset stays a reset: the sink is reset too, so a dropped connection looks the same through the relay.
    """
    try:
        while data := source.recv(_BUFFER):
            sink.sendall(data)
    except ConnectionResetError:
        _reset(sink)
    except OSError:
        pass
    _cut(source, sink)


def _reset(sock: socket.socket) -> None:
    """Close with a TCP reset (linger 0) instead of a FIN; SHUT_RD first wakes a thread blocked reading it."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RD)
    except OSError:
        pass
    sock.close()


def _cut(*sockets: socket.socket) -> None:
    """Shut down (which wakes a thread blocked in recv) and close, ignoring sockets already gone."""
    for sock in sockets:
        try:
            if not _resetting(sock):  # a FIN now would overtake the other pump's reset
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()


def _resetting(sock: socket.socket) -> bool:
    """The socket is set to close with a reset (linger on, timeout 0)."""
    return struct.unpack("ii", sock.getsockopt(socket.SOL_SOCKET, socket.SO_LINGER, 8)) == (1, 0)
