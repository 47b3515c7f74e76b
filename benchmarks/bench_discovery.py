"""Benchmark: what discovery holds per scenario before a run starts, at N generated scenarios (issue 32 item 6).

    python benchmarks/bench_discovery.py                        # 10,000 scenarios (generated, then kept lean)
    python benchmarks/bench_discovery.py --n 2000 --workdir /tmp/disc
    python benchmarks/bench_discovery.py --other-python /old/venv/bin/python   # an older harness, same run

The scenario files are generated as ``bench_scale.py`` generates them (half the shipped scenarios with a varied
prompt, half from its grammar; no cassettes or goldens: discovery reads none). Each form is measured in a fresh
child process, after an untimed discovery that fills the parsed-YAML cache: ``roots.load`` as ``run`` calls it,
then the bytes Python still holds for its result (tracemalloc, after a collection) and the resident memory it
added (VmRSS), per scenario. Forms: ``lean`` (what discovery keeps: harness.suite.discovered), ``built`` (every
scenario built at once, the form discovery kept before), ``other`` (``--other-python``'s harness, its result held
as it returns it). Target: the lean form <= 2 KiB per discovered scenario at 10,000.
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Sequence

from _common import machine, memory_mb, table

__all__ = ["TARGET_BYTES", "main", "measure"]

TARGET_BYTES = 2048  # issue 32: at most 2 KiB per discovered scenario at 10,000


def measure(root: Path, form: str) -> dict:
    """Discover every scenario under ``root`` (``roots.load``) and hold it in ``form``: the resident memory that
    added and the seconds it took, then (a second discovery, the first let go) the bytes Python holds for it."""
    from harness.suite import roots

    roots.load([root], ids=[roots.selected([root])[0]])  # imports and module caches, outside the measure
    gc.collect()
    before = memory_mb()["rss"]
    start = time.perf_counter()
    held = _held(roots.load([root]), form)
    seconds, n = time.perf_counter() - start, len(held)
    rss_kib = 1024 * (memory_mb()["rss"] - before) / n
    del held
    gc.collect()
    tracemalloc.start()
    held = _held(roots.load([root]), form)
    gc.collect()
    traced = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(held) == n
    return {"form": form, "scenarios": n, "bytes": traced / n, "rss_kib": rss_kib, "seconds": seconds}


def _held(found: Sequence, form: str) -> Sequence:
    return list(found) if form == "built" else found


def _in_child(root: Path, form: str, python: str = sys.executable) -> dict:
    done = subprocess.run([python, __file__, "--child", str(root), "--form", form], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{form} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _report(rows: list[dict], generated: float) -> str:
    lean = next(r for r in rows if r["form"] == "lean")
    body = [(r["form"], r["scenarios"], f"{r['bytes']:.0f}", f"{r['bytes'] / lean['bytes']:.2f}x",
             f"{r['rss_kib']:.2f}", f"{r['seconds']:.2f} s") for r in rows]
    met = max(lean["bytes"], 1024 * lean["rss_kib"]) <= TARGET_BYTES
    return "\n".join([
        f"machine: {machine()}", f"generated {lean['scenarios']} scenario files in {generated:.1f} s", "",
        table(("form", "scenarios", "bytes/scenario held", "/ lean", "RSS KiB/scenario", "discovery"), body), "",
        "(bytes held: tracemalloc after a collection; RSS: resident memory the discovery added, untraced)",
        f"target lean <= {TARGET_BYTES} bytes per discovered scenario (held and resident): {lean['bytes']:.0f} held, "
        f"{1024 * lean['rss_kib']:.0f} resident ({'met' if met else 'NOT met'}; "
        f"{max(lean['bytes'], 1024 * lean['rss_kib']) / TARGET_BYTES:.2f}x)"])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10000, help="scenarios to generate")
    parser.add_argument("--workdir", type=Path, help="generate here and keep it (reused when it has --n scenarios)")
    parser.add_argument("--other-python", metavar="PYTHON", help="also measure that interpreter's bedrock-harness")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)  # internal: measure one form, print JSON
    parser.add_argument("--form", default="lean", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child, args.form)))
        return 0
    from bench_scale import SUITE, generate

    root = args.workdir or Path(tempfile.mkdtemp(prefix="bench-discovery-"))
    try:
        start = time.perf_counter()
        if len(list((root / "suites" / SUITE).glob("*.yaml"))) != args.n:
            shutil.rmtree(root / "suites", ignore_errors=True)
            generate(root, args.n)
        generated = time.perf_counter() - start
        _in_child(root, "warm-up")  # fills the parsed-YAML cache: every form then reads the same way
        plan = [("lean", sys.executable), ("built", sys.executable)]
        plan += [("other", args.other_python)] if args.other_python else []
        print(_report([_in_child(root, form, python) for form, python in plan], generated))
    finally:
        if args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
