"""--output as a user gives it: ``-``, a new file under a umask, an existing file, a symlink, a FIFO, a pty; and the
format from the suffix for run and certify (unknown suffix: usage error)."""

import json
import os
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main

REPO = Path(__file__).resolve().parents[1]
ONE = ("--root", str(REPO), "--scenario", "core/smoke-text")


def invoke(*args: str):
    return CliRunner().invoke(main, [*args, *ONE], catch_exceptions=False)


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    yield
    os.umask(old)


def test_dash_is_stdout_and_no_file_named_dash(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = invoke("run", "--output", "-", "--format", "json")
    assert done.exit_code == 0 and json.loads(done.stdout)["summary"]["pass"] == 1
    assert not (tmp_path / "-").exists()
    certified = invoke("certify", "--adapter", "reference", "--output", "-")
    assert certified.stdout.startswith("# Certification") and not (tmp_path / "-").exists()


def test_a_new_file_follows_the_umask(tmp_path, umask_027):
    out = tmp_path / "report.json"
    assert invoke("run", "--output", str(out)).exit_code == 0
    assert json.loads(out.read_text())["summary"]["pass"] == 1
    assert out.stat().st_mode & 0o777 == 0o640


def test_a_rewritten_file_keeps_its_mode(tmp_path, umask_027):
    out = tmp_path / "report.txt"
    out.write_text("old\n")
    out.chmod(0o604)
    assert invoke("run", "--output", str(out)).exit_code == 0
    assert out.stat().st_mode & 0o777 == 0o604 and "core/smoke-text" in out.read_text()


def test_a_symlink_is_written_through(tmp_path):
    target, link = tmp_path / "real.xml", tmp_path / "link.xml"
    target.write_text("")
    link.symlink_to(target)
    assert invoke("run", "--output", str(link)).exit_code == 0
    assert link.is_symlink() and ET.fromstring(target.read_text()).tag == "testsuites"


def test_a_hard_linked_file_is_written_through(tmp_path):
    first, second = tmp_path / "a.md", tmp_path / "b.md"
    first.write_text("")
    os.link(first, second)
    assert invoke("run", "--output", str(first)).exit_code == 0
    assert first.stat().st_ino == second.stat().st_ino and "| `core/smoke-text` |" in second.read_text()


def test_a_fifo_is_written_through(tmp_path):
    fifo = tmp_path / "report.json"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    try:
        done = invoke("run", "--output", str(fifo))
    finally:
        reader.join(timeout=30)
    assert done.exit_code == 0 and json.loads(got[0])["summary"]["pass"] == 1
    assert fifo.is_fifo()


def test_a_terminal_device_is_written_through(tmp_path):
    master, slave = os.openpty()
    try:
        name = os.ttyname(slave)
        done = invoke("run", "--output", name)  # no suffix, no --format: the command's default (text)
        assert done.exit_code == 0
        assert os.read(master, 65536).startswith(b"adapter reference")
        assert not Path(name).is_file()
    finally:
        os.close(master)
        os.close(slave)


@pytest.mark.parametrize("command, starts", [(("run",), "adapter reference"),
                                             (("certify", "--adapter", "reference"), "# Certification")])
def test_dev_stdout_takes_the_default_format(tmp_path, command, starts):
    done = subprocess.run([sys.executable, "-m", "harness.cli", *command, "--output", "/dev/stdout", *ONE],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(starts) and not list(tmp_path.iterdir())


@pytest.mark.parametrize("name, check", [
    ("r.json", lambda text: json.loads(text)["summary"]["pass"] == 1),
    ("r.xml", lambda text: ET.fromstring(text).tag == "testsuites"),
    ("r.md", lambda text: "| `core/smoke-text` | pass |" in text),
    ("r.txt", lambda text: text.startswith("adapter reference")),
    ("r.JSON", lambda text: json.loads(text)["summary"]["pass"] == 1),
])
def test_run_takes_the_format_from_the_suffix(tmp_path, name, check):
    assert invoke("run", "--output", str(tmp_path / name)).exit_code == 0
    assert check((tmp_path / name).read_text())


def test_format_wins_over_the_suffix(tmp_path):
    out = tmp_path / "r.json"
    assert invoke("run", "--output", str(out), "--format", "markdown").exit_code == 0
    assert out.read_text().startswith("**bedrock-harness")


@pytest.mark.parametrize("command", [("run",), ("certify", "--adapter", "reference")])
def test_an_unknown_suffix_without_format_is_a_usage_error(tmp_path, command):
    done = invoke(*command, "--output", str(tmp_path / "report.pdf"))
    assert done.exit_code == 2 and "unknown suffix '.pdf'" in done.output and "--format" in done.output
    assert not (tmp_path / "report.pdf").exists()
    assert invoke(*command, "--output", str(tmp_path / "report"), "--format", "json").exit_code == 0


def test_an_unwritable_output_is_one_line_and_creates_no_folder(tmp_path):
    missing = tmp_path / "missing" / "dir" / "x.json"
    done = invoke("run", "--output", str(missing))
    assert (done.exit_code, done.output) == (2, f"Error: --output {missing}: no folder {missing.parent} (--output "
                                                "creates no folders)\n")
    assert not (tmp_path / "missing").exists()
    (tmp_path / "file").write_text("")
    blocked = invoke("run", "--output", str(tmp_path / "file" / "x.json"))
    assert blocked.exit_code == 2 and blocked.output.count("\n") == 1 and "--output" in blocked.output


@pytest.mark.parametrize("command", [("certify", "--live", "--adapter", "reference"),
                                     ("drift", "--endpoint-url", "http://127.0.0.1:9")])
def test_a_suffix_naming_a_format_the_command_lacks_says_it_came_from_the_suffix(tmp_path, command):
    out = tmp_path / "report.md"
    done = CliRunner().invoke(main, [*command, "--output", str(out)])
    assert done.exit_code == 2 and not out.exists()
    assert f"--output {out} (its suffix): the markdown format is not available for this command" in done.output
