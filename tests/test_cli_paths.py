"""Every path kind a user can hand over where a file (or folder) is read (a socket, a FIFO, a device, a symbolic link
that loops, one that dangles, a directory), in every command that reads a path: one ``Error:`` line naming the path
and what it is, exit code 2, nothing written. All invocations run in one child process under an address-space limit
and a timeout, so a read that blocks (a FIFO) or a traceback fails the test instead of hanging it."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

import pytest

from hostile import bounded_cli

ROOT = Path(__file__).resolve().parents[1]
KINDS = {"socket": "a socket", "fifo": "a FIFO", "device": "a character device", "loop": "a symbolic link that loops",
         "dangling": "a dangling symbolic link", "directory": "a directory"}


def _make(kind: str, path: Path, keep: list) -> None:
    if kind == "socket":
        server, here = socket.socket(socket.AF_UNIX), os.getcwd()
        os.chdir(path.parent)  # bound by its relative name: a socket's absolute path may be longer than AF_UNIX takes
        try:
            server.bind(path.name)
        finally:
            os.chdir(here)
        keep.append(server)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/null")
    elif kind == "loop":
        path.symlink_to(path.name)
    elif kind == "dangling":
        path.symlink_to(path.parent / "nowhere.yaml")
    else:
        path.mkdir()


def _project(folder: Path) -> Path:
    root = folder / "project"
    for top, suffixes in (("suites", (".yaml", ".golden.yaml")), ("cassettes", (".yaml",))):
        (root / top / "core").mkdir(parents=True, exist_ok=True)
        for suffix in suffixes:
            shutil.copy(ROOT / top / f"core/smoke-text{suffix}", root / top / f"core/smoke-text{suffix}")
    return root


def _invocations(kind: str, folder: Path, keep: list) -> dict[str, list[str]]:
    """Per command, the argv that hands it a path of ``kind`` where it reads one."""
    file, report = folder / "x.yaml", folder / "x.json"
    _make(kind, file, keep)
    _make(kind, report, keep)
    root = _project(folder)
    (root / "cassettes/core/smoke-text.yaml").unlink()
    _make(kind, root / "cassettes/core/smoke-text.yaml", keep)
    other = _project(folder / "other")
    _make(kind, other / "suites/core/extra.yaml", keep)
    _make(kind, other / "suites/core/extra.golden.yaml", keep) if kind == "loop" else None
    shipped = str(ROOT / "cassettes/core/smoke-text.yaml")
    commands = {
        "cassette verify": ["cassette", "verify", str(file)], "cassette show": ["cassette", "show", str(file)],
        "cassette import": ["cassette", "import", str(file), str(folder / "out.yaml")],
        "cassette import --request": ["cassette", "import", shipped, str(folder / "out.yaml"), "--request", str(report)],
        "serve --cassette": ["serve", "--cassette", str(file)],
        "run (its cassette)": ["run", "--root", str(root)], "run --baseline": ["run", "--baseline", str(report)],
        "golden check (its cassette)": ["golden", "check", "--root", str(root)],
        "golden update (its cassette)": ["golden", "update", "--root", str(root)],
        "certify (its cassette)": ["certify", "--adapter", "reference", "--root", str(root), "--format", "json"],
        "certify --baseline": ["certify", "--adapter", "reference", "--baseline", str(report)],
        "record (its cassette)": ["record", "--emulate", "--root", str(root), "--record-mode", "all",
                                  "core/smoke-text"],
        "report merge": ["report", "merge", str(report)],
    }
    if kind != "directory":  # scan and --recordings read folders
        commands["cassette scan"] = ["cassette", "scan", str(file)]
        commands["evidence --recordings"] = ["evidence", "--recordings", str(file)]
        commands["run (a scenario)"] = ["run", "--root", str(other)]
        commands["golden check (a scenario)"] = ["golden", "check", "--root", str(other)]
    return commands


def test_every_path_kind_in_every_command_is_one_line_exit_2_and_writes_nothing(tmp_path):
    keep: list = []
    invocations = []
    for kind in KINDS:
        (tmp_path / kind).mkdir()
        for name, argv in _invocations(kind, tmp_path / kind, keep).items():
            invocations.append((kind, name, argv))
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file() and not p.is_symlink()}
    results, child = bounded_cli([argv for _, _, argv in invocations], tmp_path, memory_mb=2000, timeout=600)
    assert child.returncode == 0 and len(results) == len(invocations), child.stderr[-2000:]
    wrong = []
    for (kind, name, _), result in zip(invocations, results):
        lines = result["output"].strip().splitlines()
        good = (result["exit"] == 2 and len(lines) == 1 and lines[0].startswith("Error: ")
                and KINDS[kind] in lines[0] and str(tmp_path / kind) in lines[0])
        if not good:
            wrong.append(f"{kind} / {name}: exit {result['exit']}: {result['output'][:300]!r}")
    assert not wrong, "\n".join(wrong)
    after = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file() and not p.is_symlink()}
    assert after == before  # nothing written, nothing replaced
    for server in keep:
        server.close()


@pytest.mark.parametrize("kind", ["loop", "dangling"])
def test_a_golden_link_that_loops_or_dangles_is_an_unused_golden_not_a_crash(tmp_path, kind):
    from harness.suite import golden
    from harness.suite.scenario import discover

    root = _project(tmp_path)
    _make(kind, root / "suites/core/gone.golden.yaml", [])
    unused = golden.unused_goldens(root / "suites", discover(root / "suites"))
    assert unused == [root / "suites/core/gone.golden.yaml"]
