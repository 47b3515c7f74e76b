"""Time and peak memory of every hostile input through each command that reads it, one child process per run.

    python benchmarks/bench_hostile.py                      # every case: cassettes (tests/hostile.py) x verify,
                                                            # show, scan, serve; the other classes
                                                            # (tests/hostile_inputs.py) x their commands
    python benchmarks/bench_hostile.py --class adapter      # one class: cassette, compressed, path, adapter, template
    python benchmarks/bench_hostile.py --big                # plus the 400k-frame, ~57 MB cassette
    python benchmarks/bench_hostile.py --case huge-padding --command verify

Each row: wall seconds and peak RSS of the child (its ru_maxrss: the children it waited for, an adapter included,
count when they peak higher), its exit code, whether it printed a Python traceback, the size of its output (stdout
and stderr, KB) and its first line; `serve` is stopped after 10 s ("serving" when it printed its URL by then).
Targets (issue 21): no traceback anywhere, every row under 300 MB and 10 s. Set PYTHONPATH to another checkout to
measure that code with these same cases (the "before" numbers of a change).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hostile import ACCEPTED, CASES, big_cassette, bounded  # noqa: E402
from hostile_inputs import INPUTS  # noqa: E402

COMMANDS = {"verify": ["cassette", "verify"], "show": ["cassette", "show"], "scan": ["cassette", "scan"],
            "serve": ["serve", "--cassette"]}
CLASSES = ("cassette", *sorted({kind for kind, _, _ in INPUTS.values()}))
TARGET_MB, TARGET_S = 300, 10
SERVE_WAIT = 10  # seconds `serve` runs before it is stopped: serving by then (its URL printed) or hung


def _row(name: str, command: str, argv: list[str], folder: Path, memory_mb: int, timeout: float,
         path: Path | None = None) -> tuple:
    timeout = min(timeout, SERVE_WAIT) if command == "serve" else timeout  # a served cassette runs until stopped
    child = bounded(argv, folder, memory_mb=memory_mb, timeout=timeout, keep=True)
    first = next((line for line in child.lines), "")
    first = (first.replace(str(path), "FILE") if path else first).replace(str(folder), "DIR")[:80]
    if child.returncode is None:
        serving = command == "serve" and first.startswith("http://127.0.0.1:")
        first = "serving (stopped at the timeout)" if serving else f"still running after {timeout:.0f} s: killed"
    traceback = "yes" if "Traceback (most recent call last)" in child.stdout + child.stderr else "no"
    code = "kill" if child.returncode is None else str(child.returncode)
    size = len((child.stdout + child.stderr).encode("utf-8", "surrogateescape")) / 1024
    return name, command, f"{child.seconds:.2f}", f"{child.peak_mb:.0f}", code, traceback, f"{size:.0f}", first


def _print(row: tuple) -> None:
    name, command, seconds, peak, code, traceback, size, first = row
    print(f"{name:<28} {command:<8} {seconds:>8} {peak:>8} {code:>5} {traceback:>9} {size:>7}  {first}", flush=True)


def _cassette_rows(names: list[str], commands: list[str] | None, args, folder: Path):
    for name in names:
        text = CASES[name][0]() if name in CASES else ACCEPTED[name]()
        path = folder / f"{name}.yaml"
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape"))
        for command in commands or list(COMMANDS):
            if command in COMMANDS:
                yield _row(name, command, [*COMMANDS[command], str(path)], folder, args.memory_mb, args.timeout, path)
        path.unlink()


def _input_rows(names: list[str], commands: list[str] | None, args, folder: Path):
    for name in names:
        with tempfile.TemporaryDirectory(dir=folder) as own:
            made = INPUTS[name][1](Path(own))
            for command, argv in made.items():
                if not commands or command in commands:
                    yield _row(name, command, argv, Path(own), args.memory_mb, args.timeout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=sorted([*CASES, *ACCEPTED, *INPUTS]), help="only this case (repeatable)")
    parser.add_argument("--class", dest="classes", action="append", choices=CLASSES, help="only this class")
    parser.add_argument("--command", action="append", help="only this command (verify, show, scan, serve, import, "
                                                           "run, certify, list)")
    parser.add_argument("--big", action="store_true", help="also the 400k-frame cassette (verify and show)")
    parser.add_argument("--memory-mb", type=int, default=4096, help="RLIMIT_AS of each child")
    parser.add_argument("--timeout", type=float, default=180, help="seconds before a child is killed")
    args = parser.parse_args(argv)
    classes = args.classes or list(CLASSES)
    cassettes = [n for n in [*sorted(CASES), *sorted(ACCEPTED)] if "cassette" in classes and (not args.case or n in args.case)]
    inputs = [n for n in INPUTS if INPUTS[n][0] in classes and (not args.case or n in args.case)]
    print(f"machine: load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}, {os.cpu_count()} cpu(s); "
          f"harness from {os.environ.get('PYTHONPATH') or 'this checkout'}")
    print(f"{'case':<28} {'command':<8} {'seconds':>8} {'peak MB':>8} {'exit':>5} {'traceback':>9} {'out KB':>7}  "
          "first line")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for source in (_cassette_rows(cassettes, args.command, args, Path(folder)),
                       _input_rows(inputs, args.command, args, Path(folder))):
            for row in source:
                _print(row)
                rows.append(row)
        if args.big:
            path = big_cassette(Path(folder) / "big-400k-frames.yaml")
            for command in ("verify", "show"):
                _print(_row("400k frames (57 MB)", command, [*COMMANDS[command], str(path)], Path(folder),
                            args.memory_mb, 1800))
    over = [r for r in rows if r[5] != "no" or float(r[3]) >= TARGET_MB
            or (float(r[2]) >= TARGET_S and not r[7].startswith("serving"))]
    classes_of = {name: "cassette" for name in [*CASES, *ACCEPTED]} | {name: kind for name, (kind, _, _) in
                                                                      INPUTS.items()}
    for kind in sorted({classes_of[r[0]] for r in rows}):
        mine = [r for r in rows if classes_of[r[0]] == kind and not r[7].startswith("serving")]
        if mine:
            slowest, biggest = max(mine, key=lambda r: float(r[2])), max(mine, key=lambda r: float(r[3]))
            print(f"class {kind:<10} {len(mine):>4} runs: slowest {slowest[2]} s ({slowest[0]} {slowest[1]}), "
                  f"peak {biggest[3]} MB ({biggest[0]} {biggest[1]})")
    print(f"{len(rows)} runs; {len(over)} over the targets (a traceback, {TARGET_MB} MB or {TARGET_S} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
