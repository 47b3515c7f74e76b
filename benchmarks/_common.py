"""What both benchmarks share: fake AWS settings, the machine line, timing, summary statistics, tables, memory."""

from __future__ import annotations

import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any, Callable, Sequence

__all__ = ["PROJECT", "compiled", "fake_aws_env", "machine", "memory_mb", "summary", "table", "timed"]

PROJECT = Path(__file__).resolve().parents[1]  # the checkout: suites/ and cassettes/ live here


def fake_aws_env() -> None:
    """Dummy credentials and a fixed region, so nothing can sign for (or reach) a real account."""
    for name in [n for n in os.environ if n.startswith("AWS_")]:
        del os.environ[name]
    os.environ.update(AWS_ACCESS_KEY_ID="AKIAFAKEBENCHMARK000", AWS_SECRET_ACCESS_KEY="fake-benchmark-secret",
                      AWS_DEFAULT_REGION="us-east-1", AWS_CONFIG_FILE=os.devnull,
                      AWS_SHARED_CREDENTIALS_FILE=os.devnull)


def compiled() -> None:
    """The harness every timed process imports, compiled to bytecode first, as its dependencies are: an installed
    wheel is (pip compiles at install), but a checkout under ``PYTHONDONTWRITEBYTECODE=1`` would compile each module
    it imports from source in every timed process, and the comparison would charge that to the harness."""
    import compileall
    import importlib.util

    for folder in importlib.util.find_spec("harness").submodule_search_locations:
        compileall.compile_dir(folder, quiet=1)


def machine() -> str:
    """One line naming what the numbers were measured on (load matters on a shared 2-core box)."""
    import botocore
    import vcr

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"{os.cpu_count()} CPUs, load {load}, Python {platform.python_version()}, "
            f"botocore {botocore.__version__}, vcrpy {vcr.__version__}")


def timed(fn: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    """(wall seconds, result) of one call."""
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def summary(samples: Sequence[float]) -> dict[str, float]:
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples)}


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain text table: first column left-aligned, the others right-aligned."""
    cells = [list(map(str, headers))] + [list(map(str, row)) for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
             for row in cells]
    return "\n".join([lines[0], "-" * len(lines[0]), *lines[1:]])


def memory_mb() -> dict[str, float]:
    """Resident memory now and its high-water mark since exec (VmRSS, VmHWM), in MiB."""
    # Not ru_maxrss: Linux carries it across exec, so a child process would report its parent's peak.
    with open("/proc/self/status") as handle:
        fields = dict(line.split(":", 1) for line in handle)
    return {"rss": int(fields["VmRSS"].split()[0]) / 1024, "peak": int(fields["VmHWM"].split()[0]) / 1024}
