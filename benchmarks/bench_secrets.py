"""Planted secrets (tests/planted.py) through `serve --record` and `cassette scan`: how many reach disk, how many
the scan misses, and whether the proxy's log prints one.

    python benchmarks/bench_secrets.py                    # every exchange through serve --record, every file scanned
    python benchmarks/bench_secrets.py --only record      # or: --only scan
    python benchmarks/bench_secrets.py --details          # one line per case that got through

`serve --record --upstream URL` runs in a child process; the upstream is a loopback server in this process that
answers each planted request with its planted reply. A case reaches disk when the cassette of its conversation is
on disk at the end; the log leaks it when the child's stderr holds the token (as is, or percent-encoded). The scan
runs `bedrock-harness cassette scan FILE` per planted file in one bounded child (tests/hostile.py's bounded_cli):
caught means exit 1.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _common import fake_aws_env, machine  # noqa: E402
from hostile import bounded_cli  # noqa: E402
from planted import EXCHANGES, TOKENS, PlantedUpstream, write_files  # noqa: E402

from harness.endpoint.server import BedrockServer  # noqa: E402


def _send(port: int, exchange) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", exchange.path, json.dumps(exchange.body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def _serve(folder: Path, upstream_url: str, log) -> subprocess.Popen:
    """`serve --record` in a child, its log in the file ``log`` (a pipe nobody reads would fill and stall it)."""
    child = subprocess.Popen([sys.executable, "-m", "harness.cli", "serve", "--record", str(folder), "--upstream",
                              upstream_url], stdout=subprocess.PIPE, stderr=log, text=True)
    url = child.stdout.readline().strip()
    if not url.startswith("http://"):
        child.kill()
        raise SystemExit(f"serve --record did not start: {url!r}")
    child.port = int(url.rsplit(":", 1)[1])
    return child


def _reaped_peak_mb(child: subprocess.Popen) -> float:
    """Wait for ``child`` to exit and return its peak resident memory (its own rusage, read as it is reaped)."""
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    child.stdout.close()
    return usage.ru_maxrss / 1024


def record(details: bool, limit: int | None = None) -> None:
    """Every planted exchange through serve --record; what reached disk and what the log printed."""
    exchanges = EXCHANGES[:limit]
    with tempfile.TemporaryDirectory() as folder, BedrockServer(PlantedUpstream(), validate=False) as upstream, \
            tempfile.TemporaryFile("w+") as stderr:
        began = time.monotonic()
        child = _serve(Path(folder), upstream.endpoint_url, stderr)
        statuses = Counter(_send(child.port, e) for e in exchanges)
        child.send_signal(signal.SIGINT)
        peak = _reaped_peak_mb(child)
        stderr.seek(0)
        log = stderr.read()
        seconds = time.monotonic() - began
        on_disk = [e for n, e in enumerate(exchanges, 1) if (Path(folder) / f"conversation-{n:04d}.yaml").exists()]
    logged = [kind for kind, token in TOKENS.items() if token in log or quote(token, safe="") in log]
    print(f"serve --record: {len(exchanges)} planted exchanges, answered {dict(statuses)}, {seconds:.1f} s, "
          f"peak {peak:.0f} MB")
    print(f"  reached disk:    {len(on_disk):4} of {len(exchanges)}  ({_by_place(on_disk)})")
    print(f"  printed in log:  {len(logged):4} of {len(TOKENS)} tokens  ({', '.join(logged) or 'none'})")
    if details:
        for e in on_disk:
            print(f"    on disk: {e.name}")


def scan(details: bool, limit: int | None = None) -> None:
    """Every planted file through `cassette scan` (one bounded child); exit 1 is a catch."""
    with tempfile.TemporaryDirectory() as folder:
        files = dict(list(write_files(Path(folder)).items())[:limit])
        invocations = [["cassette", "scan", str(path)] for path, _ in files.values()]
        results, child = bounded_cli(invocations, Path(folder), memory_mb=4096, timeout=1800)
    by_path = {r["args"][-1]: r for r in results}
    missed = [name for name, (path, _) in files.items() if by_path.get(str(path), {}).get("exit") != 1]
    tracebacks = [name for name, (path, _) in files.items() if "TRACEBACK" in by_path.get(str(path), {}).get(
        "output", "TRACEBACK")]
    slowest = max(results, key=lambda r: r["seconds"])
    print(f"cassette scan: {len(files)} planted files in {child.seconds:.1f} s, peak {child.peak_mb:.0f} MB, "
          f"slowest {slowest['seconds']:.2f} s ({Path(slowest['args'][-1]).name})")
    print(f"  caught:     {len(files) - len(missed):4} of {len(files)}")
    print(f"  missed:     {len(missed):4}  ({_by_place(missed)})")
    print(f"  tracebacks: {len(tracebacks):4}")
    if details:
        for name in missed:
            print(f"    missed: {name}")


def _by_place(items) -> str:
    counts = Counter((getattr(i, "name", i)).split("/")[0] for i in items)
    return ", ".join(f"{place} {n}" for place, n in sorted(counts.items())) or "none"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("record", "scan"), help="run one half")
    parser.add_argument("--details", action="store_true", help="name every case that got through")
    parser.add_argument("--limit", type=int, help="only the first N exchanges and files (a smoke run)")
    args = parser.parse_args(argv)
    fake_aws_env()
    print(f"machine: {machine()}; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if args.only in (None, "record"):
        record(args.details, args.limit)
    if args.only in (None, "scan"):
        scan(args.details, args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
