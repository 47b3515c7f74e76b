"""The adapter supervisor (harness/adapters/reaper.py): the command's exit status passes through, and every
process the command started dies with it, whether it stayed in the group or called setsid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from harness.adapters import reaper

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux child subreaper")

# Writes the pids of a child in its group and of a setsid grandchild to argv[1], then exits with argv[2]
# (or waits when it is "wait").
SPAWNER = textwrap.dedent(r'''
    import os, sys, time
    pids = []
    for escape in (False, True):
        reader, writer = os.pipe()
        if os.fork() == 0:
            if escape:
                os.setsid()
                if os.fork():
                    os._exit(0)
            os.write(writer, f"{os.getpid()}\n".encode())
            time.sleep(3600)
            os._exit(0)
        pids.append(os.read(reader, 64).decode().strip())
    open(sys.argv[1], "w").write(" ".join(pids))
    if sys.argv[2] == "wait":
        time.sleep(3600)
    sys.exit(int(sys.argv[2]))
''')


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def supervise(*argv: str) -> tuple[subprocess.Popen, int]:
    readable, control = os.pipe()
    process = subprocess.Popen([sys.executable, "-I", reaper.__file__, str(readable), "--", *argv],
                               pass_fds=(readable,), start_new_session=True)
    os.close(readable)
    return process, control


def spawned(tmp_path: Path, outcome: str) -> tuple[subprocess.Popen, int, list[int]]:
    script, pids = tmp_path / "spawner.py", tmp_path / "pids"
    script.write_text(SPAWNER)
    process, control = supervise(sys.executable, str(script), str(pids), outcome)
    deadline = time.monotonic() + 30
    while not (pids.exists() and pids.read_text()) and time.monotonic() < deadline:
        time.sleep(0.01)
    return process, control, [int(p) for p in pids.read_text().split()]


@pytest.mark.parametrize("code", ["0", "7"])
def test_the_command_exits_and_takes_its_group_child_and_setsid_grandchild(tmp_path, code):
    process, control, pids = spawned(tmp_path, code)
    try:
        assert process.wait(30) == int(code)
        assert [pid for pid in pids if alive(pid)] == []
    finally:
        os.close(control)


def test_closing_the_control_pipe_kills_the_command_and_everything_it_started(tmp_path):
    process, control, pids = spawned(tmp_path, "wait")
    assert all(alive(pid) for pid in pids)
    os.close(control)  # the harness asks (or is gone)
    assert process.wait(30) == -signal.SIGKILL
    assert [pid for pid in pids if alive(pid)] == []


def test_a_command_killed_by_a_signal_is_reported_as_that_signal():
    process, control = supervise("/bin/sh", "-c", "kill -TERM $$")
    try:
        assert process.wait(30) == -signal.SIGTERM
    finally:
        os.close(control)


def test_a_command_that_cannot_run_exits_127_with_a_line(tmp_path):
    readable, control = os.pipe()
    done = subprocess.run([sys.executable, "-I", reaper.__file__, str(readable), "--", str(tmp_path / "missing")],
                          pass_fds=(readable,), capture_output=True, text=True, timeout=30)
    os.close(readable), os.close(control)
    assert done.returncode == 127 and "cannot start" in done.stderr and "missing" in done.stderr


def test_descendants_lists_the_tree_below_a_pid():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert child.pid in reaper.descendants(os.getpid())
        assert reaper.descendants(child.pid) == []
    finally:
        child.kill()
        child.wait()
