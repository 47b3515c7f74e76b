"""Benchmark: how long the CLI takes to start, ``serve`` to listen and to answer, against mock servers.

    python benchmarks/bench_startup.py                                   # 9 interleaved repetitions
    python benchmarks/bench_startup.py --other /path/to/old/venv/bin/bedrock-harness   # before/after in one run
    npm install --prefix benchmarks @copilotkit/aimock && python benchmarks/bench_startup.py   # and aimock

Every row is a fresh process, timed from its start to its exit (``--version``, ``--help``, ``list``, ``run`` of
one scenario, ``python -c "import boto3"``), to its first stdout line (``serve --emulate core/smoke-text --port
0``: the endpoint URL, printed once it listens; ``python -m http.server --bind 127.0.0.1 0``: a comparable mock
server in a few lines of the standard library), or to its first answer: the process started, its URL read, one
ConverseStream request sent and the whole event stream read (``serve``, and aimock, the npm mock server for LLM
APIs, answering the same request from a fixture, when Node and aimock are installed: ``--aimock`` names its
package folder, by default ``benchmarks/node_modules/@copilotkit/aimock``; without them those rows are skipped).
The rows alternate within each repetition, so a busy machine slows them alike and the ratios stay comparable;
``--other`` adds the same rows for another ``bedrock-harness`` (e.g. an older release's) to the same rotation.
Targets: ``serve`` listens within 0.4 s (issue 20); ``list`` takes at most half of ``import boto3`` and ``serve``
answers its first request no later than aimock does (issue 32). Run on demand only, never in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Sequence

from _common import PROJECT, compiled, fake_aws_env, machine, summary, table

__all__ = ["first_answer", "first_line", "main", "measure", "whole"]

SERVE_TARGET = 0.4  # seconds
LIST_TARGET = 0.5  # list / import boto3
AIMOCK = Path(__file__).resolve().parent / "node_modules" / "@copilotkit" / "aimock"
MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
REQUEST = {"messages": [{"role": "user", "content": [{"text": "Say hello"}]}]}
_URL = re.compile(r"http://127\.0\.0\.1:\d+")


def whole(argv: Sequence[str]) -> float:
    """Seconds from start to exit."""
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/")
    return time.perf_counter() - start


def first_line(argv: Sequence[str]) -> float:
    """Seconds from start to the first stdout line (then the process is interrupted and reaped)."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd="/")
    child.stdout.readline()
    seconds = time.perf_counter() - start
    child.send_signal(signal.SIGINT)
    try:
        child.wait(timeout=10)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
    return seconds


def first_answer(argv: Sequence[str]) -> float:
    """Seconds from start to the whole answer of one ConverseStream request, sent once the URL is on stdout."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd="/")
    try:
        url = next(found.group() for line in child.stdout if (found := _URL.search(line)))
        path = "/model/" + MODEL.replace(":", "%3A") + "/converse-stream"
        request = urllib.request.Request(url + path, json.dumps(REQUEST).encode(), {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            if answer.status != 200 or not answer.read():
                raise RuntimeError(f"{argv[0]}: answered {answer.status} without a body")
        return time.perf_counter() - start
    finally:
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def aimock_row(package: Path, folder: Path) -> list[tuple[str, callable]]:
    """aimock's first-answer row, serving REQUEST from a fixture; none without Node or the package."""
    node, cli = shutil.which("node"), package / "dist" / "cli.js"
    if not (node and cli.is_file()):
        return []
    fixtures = folder / "aimock.json"
    fixtures.write_text(json.dumps({"fixtures": [{"match": {"userMessage": "Say hello"},
                                                  "response": {"content": "Hello there, friend!"}}]}))
    argv = [node, str(cli), "--port", "0", "--fixtures", str(fixtures)]
    return [("aimock (to first answer)", lambda: first_answer(argv))]


def rows(harness: str, label: str) -> list[tuple[str, callable]]:
    return [(f"{label} --version", lambda: whole([harness, "--version"])),
            (f"{label} --help", lambda: whole([harness, "--help"])),
            (f"{label} list", lambda: whole([harness, "list", "--root", str(PROJECT)])),
            (f"{label} serve (to listening)", lambda: first_line([harness, "serve", "--emulate", "core/smoke-text",
                                                                  "--port", "0"])),
            (f"{label} serve (to first answer)", lambda: first_answer([harness, "serve", "--emulate",
                                                                       "core/smoke-text", "--port", "0"])),
            (f"{label} run core/smoke-text", lambda: whole([harness, "run", "--scenario", "core/smoke-text",
                                                            "--no-progress"]))]


def measure(harnesses: dict[str, str], repetitions: int, aimock: list | None = None) -> dict[str, list[float]]:
    """Interleaved wall times of every row, the references (``aimock``'s row when given) included."""
    plan = [("python -c pass", lambda: whole([sys.executable, "-c", "pass"])),
            ('python -c "import boto3"', lambda: whole([sys.executable, "-c", "import boto3"])),
            ("python -m http.server (to listening)",
             lambda: first_line([sys.executable, "-u", "-m", "http.server", "--bind", "127.0.0.1", "0"])),
            *(aimock or [])]
    for label, harness in harnesses.items():
        plan += rows(harness, label)
    for _, run in plan:  # warm the file cache and the parsed-YAML cache once, untimed
        run()
    samples: dict[str, list[float]] = {name: [] for name, _ in plan}
    for _ in range(repetitions):
        for name, run in plan:
            samples[name].append(run())
    return samples


def _report(samples: dict[str, list[float]], harnesses: dict[str, str], repetitions: int) -> str:
    stats = {name: summary(times) for name, times in samples.items()}
    mock = stats["python -m http.server (to listening)"]
    body = [(name, f"{s['median']:.3f} s", f"{s['min']:.3f} s", f"{s['median'] / mock['median']:.2f}x")
            for name, s in stats.items()]
    lines = [f"machine: {machine()}", f"{repetitions} interleaved repetitions; " +
             ", ".join(f"{label} = {path}" for label, path in harnesses.items()), "",
             table(("", "median", "min", "vs http.server"), body)]
    labels = list(harnesses)
    if len(labels) == 2:
        for row in ("--version", "--help", "list", "serve (to listening)", "serve (to first answer)", "run core/smoke-text"):
            new, old = stats[f"{labels[0]} {row}"], stats[f"{labels[1]} {row}"]
            lines.append(f"{row}: {labels[0]} / {labels[1]} = {new['median'] / old['median']:.2f}x (median), "
                         f"{new['min'] / old['min']:.2f}x (min)")
    serve = stats[f"{labels[0]} serve (to listening)"]
    lines.append(f"target serve listening within {SERVE_TARGET} s: {'ok' if serve['median'] <= SERVE_TARGET else 'MISSED'}"
                 f" (median {serve['median']:.3f} s, min {serve['min']:.3f} s; http.server {mock['median']:.3f} s)")
    listing = stats[f"{labels[0]} list"]["median"] / stats['python -c "import boto3"']["median"]
    lines.append(f"target list <= {LIST_TARGET}x import boto3: {'ok' if listing <= LIST_TARGET else 'MISSED'} "
                 f"({listing:.2f}x, medians)")
    answer = stats[f"{labels[0]} serve (to first answer)"]["median"]
    if "aimock (to first answer)" in stats:
        ratio = answer / stats["aimock (to first answer)"]["median"]
        lines.append(f"target serve answers no later than aimock (<= 1.00x): {'ok' if ratio <= 1 else 'MISSED'} "
                     f"({ratio:.2f}x, medians: serve {answer:.3f} s, aimock "
                     f"{stats['aimock (to first answer)']['median']:.3f} s)")
    else:
        lines.append("serve vs aimock: skipped (no node, or no aimock: npm install --prefix benchmarks "
                     "@copilotkit/aimock, or give --aimock DIR)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", type=int, default=9)
    parser.add_argument("--harness", default=shutil.which("bedrock-harness") or
                        str(Path(sys.executable).with_name("bedrock-harness")), help="the bedrock-harness to time")
    parser.add_argument("--other", help="another bedrock-harness executable, timed in the same rotation")
    parser.add_argument("--aimock", type=Path, default=Path(os.environ.get("AIMOCK_PACKAGE", AIMOCK)),
                        help="aimock's package folder (npm's node_modules/@copilotkit/aimock)")
    args = parser.parse_args(argv)
    fake_aws_env()
    compiled()
    harnesses = {"this": args.harness, **({"other": args.other} if args.other else {})}
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as folder:
        samples = measure(harnesses, args.repetitions, aimock_row(args.aimock, Path(folder)))
    print(_report(samples, harnesses, args.repetitions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
