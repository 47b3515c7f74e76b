"""Run an adapter command so that nothing it starts outlives it (Linux): ``python -I reaper.py FD -- ARGV...``.

harness.adapters.child starts this file by path (it imports nothing of the harness, so it starts fast and
whatever the adapter's environment). It makes itself a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``), so
every process the command leaves behind -- one that shares its process group after the command exited, or a
grandchild that double-forked and called ``setsid`` -- is re-parented to it rather than to init, then runs the
command with its own stdin, stdout and stderr. When the command exits, when the harness closes or writes to the
control pipe ``FD`` (the harness asking, or the harness gone), or on SIGTERM, SIGINT or SIGHUP, it kills every
descendant, reaps them, and exits as the command did (a death by a signal as the same signal), so the harness
reads the command's own exit status. A descendant that holds the command's pipes dies with it: the harness sees
end-of-file at once instead of waiting out a timeout.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

__all__ = ["PR_SET_CHILD_SUBREAPER", "descendants", "main", "sweep"]

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h
SWEEP_SECONDS = 5.0  # a descendant stuck in the kernel (state D) is not waited for beyond this


def _become_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def _parents() -> dict[int, list[int]]:
    """Parent pid -> pids of its children that are still alive (zombies left out), from /proc."""
    tree: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:  # gone meanwhile
            continue
        state, parent = stat[stat.rindex(b")") + 2:].split()[:2]
        if state not in (b"Z", b"X"):
            tree.setdefault(int(parent), []).append(int(name))
    return tree


def descendants(root: int) -> list[int]:
    """Every live process below ``root`` in the process tree."""
    tree, found, todo = _parents(), [], [root]
    while todo:
        children = tree.get(todo.pop(), [])
        found += children
        todo += children
    return found


def _reap() -> None:
    """Collect every child that has exited (orphans re-parented here included), without blocking."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def sweep() -> None:
    """SIGKILL every descendant, again until none is alive (a dying parent may have forked), and reap them."""
    deadline = time.monotonic() + SWEEP_SECONDS
    while (pids := descendants(os.getpid())) and time.monotonic() < deadline:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _reap()
        time.sleep(0.001)
    _reap()


def _wait_for(command: int) -> int:
    """The command's wait status; orphans that exit meanwhile are reaped on the way."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except InterruptedError:
            continue
        if pid == command:
            return status


def _on_request(control: int, command: int) -> None:
    """Kill the command when the harness writes to or closes the control pipe."""
    try:
        os.read(control, 1)
    except OSError:
        pass
    _kill(command)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _exit_as(status: int) -> None:
    """Exit with the command's code, or die of the signal that killed it."""
    if os.WIFSIGNALED(status):
        if os.WTERMSIG(status) not in (signal.SIGKILL, signal.SIGSTOP):  # those two have no handler to reset
            signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
        os._exit(128 + os.WTERMSIG(status))  # a signal that does not terminate
    os._exit(os.WEXITSTATUS(status))


def _start(argv: list[str], control: int) -> int:
    """Fork and exec the command (stdio inherited); 127 with a stderr line when it cannot run."""
    pid = os.fork()
    if pid:
        return pid
    os.close(control)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(signum, signal.SIG_DFL)
    try:
        os.execv(argv[0], argv)
    except OSError as error:
        os.write(2, f"cannot start {argv[0]}: {error.strerror}\n".encode())
    os._exit(127)


def main(args: list[str]) -> None:
    control, separator, argv = int(args[0]), args[1], args[2:]
    if separator != "--" or not argv:
        raise SystemExit("usage: reaper.py CONTROL_FD -- COMMAND [ARG...]")
    _become_subreaper()
    command = _start(argv, control)
    null = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1):  # the command's stdin and stdout end when it and its descendants end, not this process
        os.dup2(null, stream)
    os.close(null)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: _kill(command))
    threading.Thread(target=_on_request, args=(control, command), daemon=True).start()
    status = _wait_for(command)
    sweep()
    _exit_as(status)


if __name__ == "__main__":
    main(sys.argv[1:])
