"""Benchmark: how long the CLI takes to start, and ``serve`` to listen, against a minimal Python mock server.

    python benchmarks/bench_startup.py                                   # 9 interleaved repetitions
    python benchmarks/bench_startup.py --other /path/to/old/venv/bin/bedrock-harness   # before/after in one run

Every row is a fresh process, timed from its start to its exit (``--version``, ``--help``, ``run`` of one scenario)
or to its first stdout line (``serve --emulate core/smoke-text --port 0``: the endpoint URL, printed once it listens;
``python -m http.server --bind 127.0.0.1 0``: a comparable mock server in a few lines of the standard library). The
rows alternate within each repetition, so a busy machine slows them alike and the ratios stay comparable; ``--other``
adds the same rows for another ``bedrock-harness`` (e.g. an older release's) to the same rotation. Targets (issue
20): ``--version`` and ``--help`` import neither botocore nor the suite (tests/test_cli.py checks that); ``serve``
listens within 0.4 s. Run on demand only, never in CI.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

from _common import fake_aws_env, machine, summary, table

__all__ = ["first_line", "main", "measure", "whole"]

SERVE_TARGET = 0.4  # seconds


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


def rows(harness: str, label: str) -> list[tuple[str, callable]]:
    return [(f"{label} --version", lambda: whole([harness, "--version"])),
            (f"{label} --help", lambda: whole([harness, "--help"])),
            (f"{label} serve (to listening)", lambda: first_line([harness, "serve", "--emulate", "core/smoke-text",
                                                                  "--port", "0"])),
            (f"{label} run core/smoke-text", lambda: whole([harness, "run", "--scenario", "core/smoke-text",
                                                            "--no-progress"]))]


def measure(harnesses: dict[str, str], repetitions: int) -> dict[str, list[float]]:
    """Interleaved wall times of every row, the references included."""
    plan = [("python -c pass", lambda: whole([sys.executable, "-c", "pass"])),
            ("python -m http.server (to listening)",
             lambda: first_line([sys.executable, "-u", "-m", "http.server", "--bind", "127.0.0.1", "0"]))]
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
        for row in ("--version", "--help", "serve (to listening)", "run core/smoke-text"):
            new, old = stats[f"{labels[0]} {row}"], stats[f"{labels[1]} {row}"]
            lines.append(f"{row}: {labels[0]} / {labels[1]} = {new['median'] / old['median']:.2f}x (median), "
                         f"{new['min'] / old['min']:.2f}x (min)")
    serve = stats[f"{labels[0]} serve (to listening)"]
    lines.append(f"target serve listening within {SERVE_TARGET} s: {'ok' if serve['median'] <= SERVE_TARGET else 'MISSED'}"
                 f" (median {serve['median']:.3f} s, min {serve['min']:.3f} s; http.server {mock['median']:.3f} s)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", type=int, default=9)
    parser.add_argument("--harness", default=shutil.which("bedrock-harness") or
                        str(Path(sys.executable).with_name("bedrock-harness")), help="the bedrock-harness to time")
    parser.add_argument("--other", help="another bedrock-harness executable, timed in the same rotation")
    args = parser.parse_args(argv)
    fake_aws_env()
    harnesses = {"this": args.harness, **({"other": args.other} if args.other else {})}
    print(_report(measure(harnesses, args.repetitions), harnesses, args.repetitions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
