"""The console script ends the process without the interpreter's teardown (harness.cli.console): what an exit must
do still happens (output flushed, atexit handlers run, the exit status kept), and a process with a thread Python
would wait for exits as Python does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The child: an object whose finalizer prints at the interpreter's teardown, an atexit handler, then the console
# script's entry on the arguments; with "--worker", a non-daemon thread still running at the exit.
_CHILD = """
import atexit, sys, threading
class Torn:
    def __del__(self):
        sys.stdout.write("torn down\\n")
kept = Torn()
atexit.register(lambda: sys.stdout.write("atexit ran\\n"))
if sys.argv[1] == "--worker":
    del sys.argv[1]
    release = threading.Event()
    threading.Thread(target=release.wait, args=(2,), name="worker").start()
sys.argv = ["bedrock-harness", *sys.argv[1:]]
from harness.cli import console
console()
"""


def _child(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _CHILD, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, code, says", [
    (("list", "--suite", "core"), 0, "core/single-call"),
    (("list", "--suite", "nope"), 2, "unknown suite 'nope'"),
    (("--version",), 0, "bedrock-harness, version"),
], ids=["ok", "usage-error", "version"])
def test_the_console_script_skips_the_teardown_but_not_the_exit(args, code, says):
    done = _child(*args)
    assert done.returncode == code, done.stderr
    assert says in done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("atexit ran")  # flushed, the handlers run, and last
    assert "torn down" not in done.stdout  # the interpreter was not torn down


def test_a_thread_python_waits_for_makes_it_exit_as_python_does():
    done = _child("--worker", "list", "--suite", "core")
    assert done.returncode == 0, done.stderr
    assert "core/single-call" in done.stdout and "atexit ran" in done.stdout and "torn down" in done.stdout


def _closed_output(entry: str) -> tuple[int, bytes]:
    code = f"import sys; sys.argv = ['bedrock-harness', 'list']; from harness.cli import {entry}; {entry}()"
    child = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # nobody reads: writing, or the flush at the exit, fails
    _, stderr = child.communicate(timeout=120)
    return child.returncode, stderr


def test_a_closed_output_ends_the_console_script_as_it_ends_main():
    assert _closed_output("console") == _closed_output("main")


def test_python_m_harness_cli_is_the_console_script():
    assert "console()" in (ROOT / "harness" / "cli" / "__main__.py").read_text()
    assert 'bedrock-harness = "harness.cli:console"' in (ROOT / "pyproject.toml").read_text()
