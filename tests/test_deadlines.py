"""Connection deadlines (harness.endpoint.deadlines): a socket past its deadline is shut down, which ends a read
blocked on it; a deadline set again or cleared in time is not; stopping is prompt."""

from __future__ import annotations

import socket
import time

from harness.endpoint.deadlines import Deadlines


def test_a_blocked_read_ends_at_the_deadline_and_a_cleared_one_never_does():
    deadlines = Deadlines(tick=0.02)
    try:
        (due, served), (spared, other) = socket.socketpair(), socket.socketpair()
        deadlines.set(due, 0.2)
        deadlines.set(spared, 0.2)
        deadlines.set(spared, None)
        began = time.monotonic()
        assert due.recv(1) == b"" and 0.15 < time.monotonic() - began < 2  # shut down: the read returns EOF
        spared.settimeout(0.5)
        other.sendall(b"x")
        assert spared.recv(1) == b"x"  # still open
    finally:
        deadlines.stop()
        for sock in (due, served, spared, other):
            sock.close()


def test_setting_a_deadline_again_moves_it():
    deadlines = Deadlines(tick=0.02)
    try:
        sock, peer = socket.socketpair()
        deadlines.set(sock, 0.2)
        time.sleep(0.1)
        deadlines.set(sock, 0.6)
        time.sleep(0.25)
        sock.setblocking(False)
        try:
            sock.recv(1)
            raise AssertionError("shut down before its moved deadline")
        except BlockingIOError:
            pass  # open: nothing to read yet
    finally:
        deadlines.stop()
        sock.close()
        peer.close()


def test_stop_is_prompt_whatever_the_tick():
    deadlines = Deadlines(tick=30)
    began = time.monotonic()
    deadlines.stop()
    assert time.monotonic() - began < 1
