"""Benchmark: the pytest plugin over the shipped suite, serial against ``-n auto`` (pytest-xdist).

    python benchmarks/bench_xdist.py                  # 5 interleaved repetitions of each
    python benchmarks/bench_xdist.py --repetitions 9 --extra "-k parallel"

Each run is a fresh ``python -m pytest --bedrock-adapter reference -p no:cacheprovider`` in an empty temporary
folder (so only the scenarios are collected, as a user's project would), wall time from start to exit,
interpreter start, imports and xdist's workers included, with bytecode caching on as a user has it
(``PYTHONDONTWRITEBYTECODE`` is dropped: without caches every worker compiles, and assertion-rewrites, the
whole package again). Serial and parallel alternate after one untimed warm-up of each. Target (issue 12): ``-n auto`` within 1.2x of serial on 2 cores. Run on demand only.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from typing import Sequence

from _common import fake_aws_env, machine, summary, table

__all__ = ["main", "pytest_run"]


def pytest_run(extra: Sequence[str], cwd: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one plugin run over the shipped suite, its workers' CPU included; raises when a
    scenario does not pass."""
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--bedrock-adapter", "reference", *extra]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    before, start = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env)
    elapsed, cpu = time.perf_counter() - start, _children_cpu() - before
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return elapsed, cpu


def _children_cpu() -> float:
    """User + system CPU seconds of every finished child process so far (xdist's workers are its grandchildren)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--workers", default="auto", help="what -n gets (default: auto)")
    parser.add_argument("--extra", default="", help="more pytest arguments for both sides, e.g. '-k core'")
    args = parser.parse_args(argv)
    fake_aws_env()
    extra = shlex.split(args.extra)
    sides = {"serial": extra, f"-n {args.workers}": [*extra, "-n", args.workers]}
    print(machine())
    samples: dict[str, list[float]] = {name: [] for name in sides}
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    with tempfile.TemporaryDirectory() as folder:
        for options in sides.values():
            pytest_run(options, folder)  # warm-up: the file system cache, compiled bytecode
        for _ in range(args.repetitions):
            for name, options in sides.items():
                wall, used = pytest_run(options, folder)
                samples[name].append(wall)
                cpu[name].append(used)
    stats = {name: summary(values) for name, values in samples.items()}
    rows = [(name, f"{s['median']:.2f}s", f"{s['min']:.2f}s", f"{s['max']:.2f}s",
             f"{summary(cpu[name])['median']:.2f}s") for name, s in stats.items()]
    print(f"{args.repetitions} interleaved repetitions, shipped suite, wall time of `python -m pytest` per run "
          "(CPU: user + system of the run and its workers)")
    print(table(("run", "median", "min", "max", "CPU median"), rows))
    serial, parallel = (stats[name]["median"] for name in sides)
    print(f"ratio -n {args.workers} / serial (medians): {parallel / serial:.2f}x (target: at most 1.2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
