"""``--jobs N`` (run, certify): N child ``bedrock-harness`` processes at once, each running one shard of the selected
scenarios (``--shard K/N --format json``), their reports joined as ``report merge`` joins them, so the result is the
one a single process gives, verdict for verdict. Each child loads the adapter itself (an in-process adapter once per
process, a ``--command`` adapter started once per child); the children's progress lines are counted as one run's.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, TYPE_CHECKING, Sequence

import click

from harness.cli.common import BadUsage

if TYPE_CHECKING:  # the shards are made only by --jobs
    from harness.studies.shard import Shard

__all__ = ["jobs_option", "run_in_children"]

_PROGRESS = re.compile(r"^\[\d+/\d+\] (\S+) (\S+)$")
_SHARD_LINE = re.compile(r"^shard \d+/\d+: \d+ of \d+ scenarios$")


def jobs_option(fn):
    return click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
                        help="Run the scenarios in N processes at once (one shard each, the reports joined).")(fn)


class _Progress:
    """The children's progress lines as one count; any other line they print is passed on (and kept)."""

    def __init__(self, total: int, show: bool, outputs: Sequence[Path]) -> None:
        self.total, self.show, self.done, self.lock = total, show, 0, threading.Lock()
        self.last: dict[int, str] = {}  # child -> the last line it printed that was no progress
        self.quiet = {f"wrote {out}" for out in outputs}  # a child's report, joined here

    def relay(self, child: int, stream: IO[str]) -> None:
        for line in stream:
            line = line.rstrip("\n")
            found = _PROGRESS.match(line)
            with self.lock:
                if found:
                    self.done += 1
                    if self.show:
                        click.echo(f"[{self.done}/{self.total}] {found[1]} {found[2]}", err=True)
                elif line and not _SHARD_LINE.match(line) and line not in self.quiet:
                    self.last[child] = line
                    if not line.startswith("Error: "):
                        click.echo(line, err=True)


def run_in_children(command: str, options: Sequence[str], jobs: int, total: int, show: bool) -> dict:
    """The joined JSON report of ``bedrock-harness COMMAND OPTIONS`` run as ``jobs`` shards at once; an error of a
    child is this command's error (its line, its exit code)."""
    from harness.studies.shard import Shard

    with tempfile.TemporaryDirectory(prefix="bedrock-harness-jobs-") as folder:
        outputs = [Path(folder) / f"shard-{k}.json" for k in range(1, jobs + 1)]
        progress = _Progress(total, show, outputs)
        children = [_start(command, options, Shard(k, jobs), out) for k, out in enumerate(outputs, 1)]
        relays = [threading.Thread(target=progress.relay, args=(n, child.stderr), daemon=True)
                  for n, child in enumerate(children)]
        for relay in relays:
            relay.start()
        codes = [child.wait() for child in children]
        for relay in relays:
            relay.join()
        for n, code in enumerate(codes):
            if code not in (0, 1):
                raise _failed(Shard(n + 1, jobs), code, progress.last.get(n, ""))
        from harness.studies import merge  # the shards' reports: what only a parent of children reads

        try:
            return merge.merge([merge.load_report(out) for out in outputs], [str(out) for out in outputs])
        except merge.MergeError as error:
            raise BadUsage(f"--jobs: {error}") from None


def _start(command: str, options: Sequence[str], shard: Shard, output: Path) -> subprocess.Popen:
    """A child on this process's import path (an adapter module importable here is importable there)."""
    argv = [sys.executable, "-m", "harness.cli", command, *options, "--shard", str(shard), "--format", "json",
            "--output", str(output), "--progress"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(p for p in sys.path if p))}
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, errors="replace", env=env)


def _failed(shard: Shard, code: int, line: str) -> click.ClickException:
    """A child's own error line as this command's, with its exit code (2: usage)."""
    error = BadUsage(line.removeprefix("Error: ") or f"--jobs: shard {shard} ended with exit code {code}")
    error.exit_code = code if code > 0 else 1
    return error
