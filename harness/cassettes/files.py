"""Atomic file writes (temp file + rename) that keep a rewritten file's mode and give a new one the umask's, and
report writes that go through what the user pointed them at (a symlink, a device, a FIFO, a file of another
user's or with another name) instead of replacing it. Neither creates a folder: a caller creates the ones it owns
(a suite's ``cassettes/<suite>/``), so a mistyped path never leaves folders behind."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

__all__ = ["file_mode", "replace_keeping_mode", "write_atomic", "write_through"]


def write_atomic(path: Path, text: str) -> None:
    """Write via a temp file in the same directory and ``os.replace``: readers never see half a file.

    A rewritten file keeps its mode; a new one gets the mode ``open()`` would give it (0666 less the umask). The
    folder must exist. Where Linux has them, the text is written into a file with no name (``O_TMPFILE``) that gets
    its temp name only once written, just before the rename: a process killed (``kill -9``) while it writes leaves
    nothing behind.
    """
    mode = file_mode(path)
    if _write_unnamed(path, text, mode):
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, mode)  # mkstemp makes 0600 whatever the umask
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _write_unnamed(path: Path, text: str, mode: int) -> bool:
    """``write_atomic`` through an unnamed file (``O_TMPFILE``); False, having done nothing, where there is none."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):
        return False
    try:
        fd = os.open(path.parent, flag | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), mode)
    except OSError:  # a file system without it (EOPNOTSUPP, EISDIR on old kernels): the named temp file then
        return False
    tmp = None
    try:
        os.fchmod(fd, mode)  # O_TMPFILE's mode is masked by the umask; a rewritten file keeps its own
        with os.fdopen(fd, "w", encoding="utf-8", closefd=False) as f:
            f.write(text)
        tmp = Path(tempfile.mktemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"))
        folder = os.open(path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:  # a folder descriptor makes os.link call linkat, which follows /proc's link to the file (link() won't)
            os.link(f"/proc/self/fd/{fd}", tmp.name, dst_dir_fd=folder, follow_symlinks=True)
        except OSError:  # /proc not ours to link from (a sandbox): the named temp file then
            return False
        finally:
            os.close(folder)
        os.replace(tmp, path)  # named only now, written whole
        tmp = None
    finally:
        os.close(fd)
        if tmp is not None and os.path.lexists(tmp):
            os.unlink(tmp)
    return True


def write_through(path: Path, text: str) -> None:
    """Write a report: atomically over a new path or a regular file of ours with no other name; through
    anything else (the link, into the device or FIFO, into the shared file), so it is never replaced."""
    if _replaceable(path):
        write_atomic(path, text)
    else:
        with open(path, "w", encoding="utf-8") as target:
            target.write(text)


def _replaceable(path: Path) -> bool:
    """A path that is new, or a regular file of ours with no other name (hard link), may be replaced."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return True
    return stat.S_ISREG(found.st_mode) and found.st_nlink == 1 and found.st_uid == os.geteuid()


def replace_keeping_mode(source: Path, target: Path) -> None:
    """``os.replace(source, target)``; the result keeps ``target``'s mode when it existed."""
    if target.exists():
        os.chmod(source, file_mode(target))
    os.replace(source, target)


def file_mode(path: Path) -> int:
    """The permission bits ``path`` has, or those a new file gets under the process umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it where Linux tells it (else set and restored at once)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            return next(int(line.split()[1], 8) for line in status if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError):
        mask = os.umask(0o022)
        os.umask(mask)
        return mask
