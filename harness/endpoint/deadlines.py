"""Deadlines for a server's connections: a connection waiting too long for a request, or receiving one too slowly,
is shut down, so an idle or trickling client never holds a handler thread for longer than the idle timeout.

``Deadlines.set(sock, seconds)`` gives a socket a deadline (None: no deadline, while a reply is written); one
thread per server shuts down each socket whose deadline passed, which ends the read its handler is blocked in.
"""

from __future__ import annotations

import logging
import socket
import threading
import time

__all__ = ["Deadlines"]

log = logging.getLogger("harness.endpoint.server")


class Deadlines:
    """Shuts down each socket whose deadline passed (checked every ``tick`` seconds, by one daemon thread)."""

    def __init__(self, tick: float = 0.1):
        self.tick = tick
        self._due: dict[socket.socket, float] = {}
        self._passed: set[socket.socket] = set()  # shut down at their deadline, until set again
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="connection deadlines", daemon=True)
        self._thread.start()

    def set(self, sock: socket.socket, seconds: float | None) -> None:
        """``sock`` is shut down ``seconds`` from now unless set again first (None: never)."""
        with self._lock:
            self._passed.discard(sock)
            if seconds is None:
                self._due.pop(sock, None)
            else:
                self._due[sock] = time.monotonic() + seconds

    def passed(self, sock: socket.socket) -> bool:
        """Whether ``sock`` was shut down at its deadline (what a reader then read ended early, not at its end)."""
        with self._lock:
            return sock in self._passed

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stopped.wait(self.tick):
            now = time.monotonic()
            with self._lock:
                late = [sock for sock, due in self._due.items() if due <= now]
                for sock in late:
                    del self._due[sock]
                    self._passed.add(sock)
            for sock in late:
                log.debug("closing a connection past its deadline (idle, or its request arriving too slowly)")
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # the client closed it already
