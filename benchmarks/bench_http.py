"""Hostile HTTP against `bedrock-harness serve`: smuggling heads, strict chunk sizes, idle and slow connections.

    python benchmarks/bench_http.py                          # every case against serve --emulate core/smoke-text
    python benchmarks/bench_http.py --idle-timeout 2         # serve's idle timeout (an option from this harness on)
    python benchmarks/bench_http.py --idle 300               # connections held idle at once

Each case sends its bytes on a fresh connection to a `serve` child, then a second, ordinary request on the same
connection (what a smuggler would slip behind the first), and reads every answer until the server closes the
connection or 5 s pass. The table: the statuses answered, in order; whether the second request was answered
(it must not be, after a request that is refused); whether the server closed the connection; seconds. Then the
idle cases: a connection that sends nothing, one that sends its head a byte every 0.5 s, and ``--idle``
connections held open at once (the serve process's threads while they are open and after the idle timeout).
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _common import machine, table  # noqa: E402
from bench_load import start_serve  # noqa: E402
from hostile_http import BODY, CASES, CONTROL, answers, head, send_case  # noqa: E402

__all__ = ["main"]


def _idle(port: int, cap: float) -> str:
    """Seconds until the server closes a connection that sends nothing."""
    began = time.monotonic()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        _, closed = answers(sock, began + cap)
    return f"{time.monotonic() - began:.1f}" if closed else f"open after {cap:.0f}"


def _slow_head(port: int, cap: float) -> str:
    """Seconds until the server closes a connection sending its request head one byte every 0.5 s."""
    began, sent = time.monotonic(), head("Host: x", f"Content-Length: {len(BODY)}")
    with socket.create_connection(("127.0.0.1", port)) as sock:
        for byte in sent:
            try:
                sock.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                return f"{time.monotonic() - began:.1f}"
            if time.monotonic() - began > cap:
                return f"open after {cap:.0f}"
            time.sleep(0.5)
            sock.setblocking(False)
            try:
                if sock.recv(1) == b"":
                    return f"{time.monotonic() - began:.1f}"
            except BlockingIOError:
                pass
            finally:
                sock.setblocking(True)
    return "head sent whole"


def _threads(pid: int) -> int:
    with open(f"/proc/{pid}/status") as handle:
        return int(next(line for line in handle if line.startswith("Threads:")).split()[1])


def _many_idle(port: int, pid: int, count: int, wait: float) -> tuple[int, int, int]:
    """(serve's threads before, with ``count`` idle connections open, ``wait`` seconds later)."""
    before = _threads(pid)
    sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
    try:
        time.sleep(1.0)
        held = _threads(pid)
        time.sleep(wait)
        return before, held, _threads(pid)
    finally:
        for sock in sockets:
            sock.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle-timeout", type=float, help="pass serve --idle-timeout (none: serve's default)")
    parser.add_argument("--idle", type=int, default=300, help="connections held idle at once")
    parser.add_argument("--cap", type=float, default=10.0, help="seconds an idle case waits at most")
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="only this case (repeatable)")
    args = parser.parse_args(argv)
    print(machine())
    extra = ("--idle-timeout", str(args.idle_timeout)) if args.idle_timeout else ()
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_serve("--emulate", "core/smoke-text", "--loop", *extra, log=Path(folder) / "serve.log")
        port = int(url.rsplit(":", 1)[1])
        try:
            rows = []
            for name in args.case or [*CASES, "an ordinary request (control)"]:
                statuses, closed, seconds = send_case(port, CASES.get(name, CONTROL))
                rows.append([name, " ".join(map(str, statuses)) or "none", "yes" if len(statuses) > 1 else "no",
                             "yes" if closed else "no", f"{seconds:.2f}"])
            print(table(["case", "answered", "second answered", "closed", "seconds"], rows))
            print(f"idle connection closed after (s): {_idle(port, args.cap)}")
            print(f"slow head (1 byte / 0.5 s) closed after (s): {_slow_head(port, args.cap)}")
            before, held, after = _many_idle(port, process.pid, args.idle, args.cap)
            print(f"{args.idle} idle connections: serve threads {before} before, {held} while open, {after} "
                  f"{args.cap:.0f} s later")
        finally:
            process.terminate()
            process.wait(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
