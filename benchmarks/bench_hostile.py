"""Time and peak memory of every hostile cassette (tests/hostile.py) through each command, one child per run.

    python benchmarks/bench_hostile.py                      # every case x verify, show, scan, serve
    python benchmarks/bench_hostile.py --big                # plus the 400k-frame, ~100 MB cassette
    python benchmarks/bench_hostile.py --case huge-padding --command verify
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hostile import CASES, big_cassette, bounded  # noqa: E402

COMMANDS = {"verify": ["cassette", "verify"], "show": ["cassette", "show"], "scan": ["cassette", "scan"],
            "serve": ["serve", "--cassette"]}


def _row(name: str, command: str, path: Path, memory_mb: int, timeout: float) -> str:
    child = bounded([*COMMANDS[command], str(path)], path.parent, memory_mb=memory_mb, timeout=timeout)
    first = (child.lines[:1] or [""])[0].replace(str(path), "FILE")[:90]
    return f"{name:<24} {command:<7} {child.seconds:7.2f} {child.peak_mb:8.0f} {child.returncode:5}  {first}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="only this case (repeatable)")
    parser.add_argument("--command", action="append", choices=sorted(COMMANDS), help="only this command")
    parser.add_argument("--big", action="store_true", help="also the 400k-frame cassette (verify and show)")
    parser.add_argument("--memory-mb", type=int, default=4096, help="RLIMIT_AS of each child")
    args = parser.parse_args(argv)
    print(f"machine: load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}, {os.cpu_count()} cpu(s)")
    print(f"{'case':<24} {'command':<7} {'seconds':>7} {'peak MB':>8} {'exit':>5}  first line")
    with tempfile.TemporaryDirectory() as folder:
        for name in args.case or sorted(CASES):
            text = CASES[name][0]()
            path = Path(folder) / f"{name}.yaml"
            path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape"))
            for command in args.command or list(COMMANDS):
                print(_row(name, command, path, args.memory_mb, 600), flush=True)
        if args.big:
            path = big_cassette(Path(folder) / "big-400k-frames.yaml")
            for command in ("verify", "show"):
                print(_row("400k frames (100 MB)", command, path, args.memory_mb, 1800), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
