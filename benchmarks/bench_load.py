"""A bounded load test against ``bedrock-harness serve``: C clients connect at once, each sends R ConverseStream
requests over its keep-alive connection, every answer is read whole and checked; resets, latency and the serve
process's memory per round are printed. It stops by itself (counts and a per-socket timeout bound it).

    python benchmarks/bench_load.py                          # 200 connections x 10 requests, 3 rounds
    python benchmarks/bench_load.py --connections 50 --requests 4 --rounds 1 --big-posts 0

Then ``--big-posts`` requests of ``--big-mb`` MB each (one after another) show whether big bodies stay in memory.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from _common import PROJECT, machine, table

__all__ = ["Load", "converse_request", "main", "rss_mb", "run_load", "start_serve"]

SCENARIO = "core/smoke-text"


@dataclass
class Load:
    """What one round saw: answers by status, resets, broken answers, latencies (seconds per request)."""

    statuses: Counter = field(default_factory=Counter)
    resets: int = 0
    broken: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    bodies: Counter = field(default_factory=Counter)  # distinct 200 bodies: one when every answer is the same
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


def converse_request(host: str, port: int, model_id: str, text: str) -> bytes:
    """One ConverseStream request as boto3 frames it (keep-alive, JSON body)."""
    body = json.dumps({"messages": [{"role": "user", "content": [{"text": text}]}],
                       "inferenceConfig": {"maxTokens": 1024}}).encode()
    path = "/model/" + model_id.replace(":", "%3A") + "/converse-stream"
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    return head.encode() + body


def _read_answer(reader) -> tuple[int, bytes]:
    """Status and de-chunked body of one HTTP/1.1 answer; EOFError when the connection ends inside it."""
    line = reader.readline()
    if not line:
        raise EOFError("the connection closed before an answer")
    status = int(line.split()[1])
    headers = {}
    while (header := reader.readline()) not in (b"\r\n", b""):
        name, _, value = header.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") != "chunked":
        return status, reader.read(int(headers.get("content-length", 0)))
    parts = []
    while size := int(reader.readline().strip() or b"0", 16):
        parts.append(reader.read(size))
        reader.readline()
    if reader.readline() != b"\r\n":
        raise EOFError("the chunked body did not end")
    return status, b"".join(parts)


def _client(address: tuple[str, int], request: bytes, count: int, start: threading.Barrier, load: Load,
            timeout: float) -> None:
    start.wait()
    try:
        with socket.create_connection(address, timeout=timeout) as sock, sock.makefile("rb") as reader:
            for _ in range(count):
                began = time.perf_counter()
                sock.sendall(request)
                status, body = _read_answer(reader)
                with load.lock:
                    load.latencies.append(time.perf_counter() - began)
                    load.statuses[status] += 1
                    load.bodies[body] += status == 200
    except ConnectionResetError:
        with load.lock:
            load.resets += 1
    except (OSError, EOFError, ValueError) as error:
        with load.lock:
            load.broken.append(f"{type(error).__name__}: {error}")


def run_load(url: str, model_id: str, connections: int = 200, requests: int = 10, timeout: float = 60.0) -> Load:
    """``connections`` clients at once, ``requests`` each; returns what they saw (bounded by ``timeout`` per read)."""
    host, port = url.split("//", 1)[1].split(":")
    request, load = converse_request(host, int(port), model_id, "Say hello."), Load()
    start = threading.Barrier(connections)
    threads = [threading.Thread(target=_client, args=((host, int(port)), request, requests, start, load, timeout))
               for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return load


def start_serve(*args: str, log: Path) -> tuple[subprocess.Popen, str]:
    """``bedrock-harness serve ARGS --port 0`` in a child process; its endpoint URL (stderr goes to ``log``)."""
    with open(log, "wb") as sink:
        process = subprocess.Popen([sys.executable, "-m", "harness.cli", "serve", *args, "--port", "0"],
                                   cwd=PROJECT, stdout=subprocess.PIPE, stderr=sink, text=True)
    return process, process.stdout.readline().strip()


def big_posts(url: str, model_id: str, count: int, megabytes: int) -> Counter:
    """``count`` requests carrying ``megabytes`` MB of text each, one after another; their statuses."""
    host, port = url.split("//", 1)[1].split(":")
    request = converse_request(host, int(port), model_id, "x" * (megabytes * 1_000_000))
    statuses: Counter = Counter()
    for _ in range(count):
        with socket.create_connection((host, int(port)), timeout=600) as sock, sock.makefile("rb") as reader:
            sock.sendall(request)
            statuses[_read_answer(reader)[0]] += 1
    return statuses


def rss_mb(pid: int, settle: float = 0.0) -> float:
    """Resident MiB of ``pid``, after ``settle`` seconds (the last handler may still hold its request)."""
    time.sleep(settle)
    with open(f"/proc/{pid}/status") as handle:
        fields = dict(line.split(":", 1) for line in handle)
    return int(fields["VmRSS"].split()[0]) / 1024


def _row(name: str, load: Load, seconds: float, rss: float) -> list:
    latencies = sorted(load.latencies) or [0.0]
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return [name, sum(load.statuses.values()), dict(load.statuses), load.resets, len(load.broken),
            f"{seconds:.2f}", f"{statistics.median(latencies) * 1000:.1f}", f"{p99 * 1000:.1f}", f"{rss:.1f}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--requests", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-loop", action="store_true",
                        help="serve without --loop (a harness older than --loop): answers after the first are 400s")
    parser.add_argument("--big-posts", type=int, default=6)
    parser.add_argument("--big-mb", type=int, default=50)
    options = parser.parse_args(argv)
    from harness.suite.scenario import load_scenario

    model_id = load_scenario(PROJECT / "suites" / f"{SCENARIO}.yaml", PROJECT / "suites").model_id
    print(machine())
    with tempfile.TemporaryDirectory() as temp:
        loop = () if options.no_loop else ("--loop",)
        process, url = start_serve("--emulate", SCENARIO, *loop, log=Path(temp) / "serve.log")
        try:
            rows = [["before", 0, {}, 0, 0, "-", "-", "-", f"{rss_mb(process.pid):.1f}"]]
            for n in range(options.rounds):
                began = time.perf_counter()
                load = run_load(url, model_id, options.connections, options.requests)
                rows.append(_row(f"round {n + 1}", load, time.perf_counter() - began, rss_mb(process.pid, 1.0)))
                for problem in load.broken[:3]:
                    print(f"BROKEN: {problem}")
            if options.big_posts:
                began = time.perf_counter()
                statuses = big_posts(url, model_id, options.big_posts, options.big_mb)
                rows.append([f"{options.big_posts} x {options.big_mb} MB", sum(statuses.values()), dict(statuses), 0,
                             0, f"{time.perf_counter() - began:.2f}", "-", "-", f"{rss_mb(process.pid, 1.0):.1f}"])
        finally:
            process.terminate()
            process.wait(30)
    print(f"serve --emulate {SCENARIO}{'' if options.no_loop else ' --loop'}: {options.connections} connections x "
          f"{options.requests} requests")
    print(table(["round", "answers", "statuses", "resets", "broken", "seconds", "p50 ms", "p99 ms", "serve RSS MiB"],
                rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
