"""Bad input as a user types it, in every command: one ``Error:`` line, a non-zero exit, and nothing lost or made.

Each case is a row: a usage error is exactly one ``Error: ...`` line and exit 2 (no click ``Usage:``/``Try`` lines,
no traceback), whoever finds it (click's parser or the command); paths never create folders beyond the one named;
``--timeout`` and friends take finite numbers only; an adapter module is found in the working directory; a
scenario id names its cassette to ``cassette show|verify|scan``; and help offers only the formats a command has.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main

REPO = Path(__file__).resolve().parents[1]
ONE = ("--root", str(REPO), "--scenario", "core/smoke-text")
CONSOLE_SCRIPT = Path(sys.executable).with_name("bedrock-harness")


def invoke(*args, cwd: Path | None = None):
    """The CLI in-process (stderr mixed in, as a terminal shows it), optionally from ``cwd``."""
    old = Path.cwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        return CliRunner().invoke(main, [str(a) for a in args])
    finally:
        os.chdir(old)


def one_error_line(done, starts: str = "Error: ", code: int = 2) -> str:
    """The single line of a refused command; fails when there is more (usage lines, a traceback) or another code."""
    assert done.exit_code == code and done.output.count("\n") == 1 and done.output.startswith(starts), \
        (done.exit_code, done.output[-2000:], done.exception)
    return done.output


# ---- one error style: click's own errors and the commands' alike ----

USAGE_ERRORS = [
    ("run", "--frmat", "json"),
    ("run", "--format", "pdf"),
    ("run", "--timeout"),
    ("run", "--adapter", "nosuchmodule:Adapter"),
    ("run", "--scenario", "core/nope"),
    ("run", "--root", "/nonexistent"),
    ("run", "--output", "report.pdf"),
    ("list", "--suite", "nope"),
    ("certify",),
    ("certify", "--adapter", "reference", "--command", "x"),
    ("certify", "--command", "'unclosed"),
    ("certify", "--adapter", "reference", "--attempts", "0"),
    ("certify", "--adapter", "reference", "--live", "--output", "r.md"),
    ("certify", "--adapter", "reference", "--output-dir", "d", "--format", "json"),
    ("record",),
    ("record", "--emulate", "--record-mode", "sometimes"),
    ("record", "--endpoint-url", "not-a-url", "core/smoke-text"),
    ("golden", "check", "core/nope"),
    ("golden", "frobnicate"),
    ("cassette", "show"),
    ("cassette", "show", "core/nope"),
    ("cassette", "import", "/nonexistent.yaml", "out.yaml"),
    ("serve",),
    ("serve", "--emulate", "core/smoke-text", "--port", "70000"),
    ("serve", "--emulate", "core/smoke-text", "--fault", "bogus"),
    ("serve", "--emulate", "core/smoke-text", "--live"),
    ("drift",),
    ("drift", "--endpoint-url", "not-a-url"),
    ("matrix", "strands"),
    ("matrix", "reference", "--versions", "1"),
    ("bisect", "strands", "core/smoke-text"),
    ("bisect", "strands", "core/smoke-text", "--good", "1", "--bad", "1", "--versions", "1,2"),
    ("certification-table", "--check"),
    ("report", "merge"),
    ("nosuchcommand",),
    ("--nosuchoption",),
]


@pytest.mark.parametrize("args", USAGE_ERRORS, ids=" ".join)
def test_every_usage_error_is_one_error_line_and_exit_2(args, tmp_path):
    one_error_line(invoke(*args, cwd=tmp_path))


def test_a_bare_group_still_prints_its_help():
    done = invoke("cassette")
    assert done.exit_code == 2 and "Commands:" in done.output and "show" in done.output


# ---- --timeout and the other waits: finite numbers only ----

@pytest.mark.parametrize("value", ["inf", "nan", "-inf", "1e400", "0", "-1", "soon"])
@pytest.mark.parametrize("command", [("run", *ONE), ("certify", "--adapter", "reference", *ONE),
                                     ("matrix", "strands", "--versions", "1.0")], ids=lambda c: c[0])
def test_timeout_takes_a_finite_positive_number(command, value):
    line = one_error_line(invoke(*command, "--timeout", value))
    assert line.startswith("Error: Invalid value for '--timeout': ") and repr(value) in line


@pytest.mark.parametrize("option", ["--delay", "--scale", "--idle-timeout"])
@pytest.mark.parametrize("value", ["inf", "nan", "-1"])
def test_serve_waits_take_finite_numbers(option, value):
    one_error_line(invoke("serve", "--emulate", "core/smoke-text", option, value), f"Error: Invalid value for '{option}'")


def test_a_fractional_timeout_still_runs():
    done = invoke("run", *ONE, "--timeout", "2.5")
    assert done.exit_code == 0, done.output


def test_the_deadline_itself_refuses_what_would_overflow_or_never_end():
    from harness.adapters.deadline import Deadline

    for bad in (float("inf"), float("nan"), 0.0):
        with pytest.raises(ValueError, match="finite number of seconds above 0"):
            Deadline(object(), bad)


# ---- output paths: one line, and no folder made beyond the one named ----

def test_output_dir_that_is_a_device_is_one_line():
    assert one_error_line(invoke("certify", "--adapter", "reference", *ONE, "--output-dir", "/dev/null")) == \
        "Error: --output-dir /dev/null: not a folder\n"


def test_output_dir_that_cannot_be_made_is_one_line():
    line = one_error_line(invoke("certify", "--adapter", "reference", *ONE, "--output-dir", "/proc/nope"))
    assert line.startswith("Error: --output-dir /proc/nope: cannot create it: ")


def test_output_dir_is_made_but_never_its_parents(tmp_path):
    line = one_error_line(invoke("certify", "--adapter", "reference", *ONE, "--output-dir", tmp_path / "a" / "b"))
    assert line == f"Error: --output-dir {tmp_path / 'a' / 'b'}: no folder {tmp_path / 'a'} (--output-dir creates " \
                   "only the folder it names)\n"
    assert not (tmp_path / "a").exists()
    assert invoke("certify", "--adapter", "reference", *ONE, "--output-dir", tmp_path / "a").exit_code == 0
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["certification.json", "certification.md",
                                                                 "certification.xml"]


@pytest.mark.parametrize("command", [("run",), ("certify", "--adapter", "reference")], ids=lambda c: c[0])
def test_output_in_a_missing_folder_is_refused_before_anything_runs(tmp_path, command):
    target = tmp_path / "nonexistent" / "dir" / "r.json"
    done = invoke(*command, *ONE, "--output", target)
    assert one_error_line(done) == f"Error: --output {target}: no folder {target.parent} (--output creates no " \
                                   "folders)\n"
    assert list(tmp_path.iterdir()) == []


def test_cassette_import_creates_no_folder(tmp_path):
    source = REPO / "cassettes" / "core" / "smoke-text.yaml"
    line = one_error_line(invoke("cassette", "import", source, tmp_path / "missing" / "out.yaml"))
    assert "no folder" in line and not (tmp_path / "missing").exists()


def test_serve_record_makes_only_the_folder_it_names(tmp_path):
    line = one_error_line(invoke("serve", "--record", tmp_path / "a" / "b", "--upstream", "http://127.0.0.1:9"))
    assert line.startswith(f"Error: --record {tmp_path / 'a' / 'b'}: no folder ") and not (tmp_path / "a").exists()
    assert one_error_line(invoke("serve", "--record", "/dev/null", "--upstream", "http://127.0.0.1:9")) == \
        "Error: --record /dev/null: not a folder\n"


def test_keep_failures_and_cache_dir_make_no_parents(tmp_path):
    keep = tmp_path / "a" / "keep"
    line = one_error_line(invoke("certify", "--live", "--adapter", "reference", "--upstream", "http://127.0.0.1:9",
                                 "--keep-failures", keep, *ONE))
    assert line.startswith(f"Error: --keep-failures {keep}: no folder ")
    cache = tmp_path / "a" / "cache"
    assert one_error_line(invoke("matrix", "strands", "--versions", "1.0", "--cache-dir", cache)).startswith(
        f"Error: --cache-dir {cache}: no folder ")
    assert not (tmp_path / "a").exists()


def test_atomic_writes_never_make_folders(tmp_path):
    from harness.cassettes.files import write_atomic

    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "missing" / "x.yaml", "x\n")
    assert list(tmp_path.iterdir()) == []


# ---- --adapter module:attribute from the working directory ----

ADAPTER_MODULE = """
from harness.converse import ConverseAdapter


class HereAdapter(ConverseAdapter):
    name = "here"
"""


@pytest.mark.skipif(not CONSOLE_SCRIPT.exists(), reason="the bedrock-harness console script is not installed here")
def test_adapter_module_in_the_working_directory_is_found_as_python_m_would(tmp_path):
    (tmp_path / "here_adapter.py").write_text(ADAPTER_MODULE)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(CONSOLE_SCRIPT), "run", "--adapter", "here_adapter:HereAdapter", *ONE, "--no-progress"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("adapter here ") and "core/smoke-text" in done.stdout


# ---- cassette show|verify|scan SCENARIO ----

def test_cassette_show_takes_a_scenario_id_of_the_default_root():
    by_id, by_path = invoke("cassette", "show", "core/smoke-text"), invoke(
        "cassette", "show", REPO / "cassettes" / "core" / "smoke-text.yaml")
    assert by_id.exit_code == 0 and by_id.output == by_path.output and "Say hello" in by_id.output


def test_cassette_commands_resolve_ids_in_layered_roots(tmp_path):
    mine = tmp_path / "my-suite"
    (mine / "suites" / "mine").mkdir(parents=True)
    shutil.copy(REPO / "suites" / "core" / "single-call.yaml", mine / "suites" / "mine" / "call.yaml")
    (mine / "cassettes" / "mine").mkdir(parents=True)
    shutil.copy(REPO / "cassettes" / "core" / "single-call.yaml", mine / "cassettes" / "mine" / "call.yaml")
    layered = ("--root", "shipped", "--root", mine)
    assert "read_file" in invoke("cassette", "show", "mine/call", *layered).output
    assert invoke("cassette", "show", "core/smoke-text", *layered).exit_code == 0
    assert invoke("cassette", "verify", "mine/call", "core/smoke-text", *layered).output == \
        "ok: 2 cassette(s) verified\n"
    assert invoke("cassette", "scan", "mine/call", "--root", mine).output == "ok: no secrets in 1 file(s)\n"
    line = one_error_line(invoke("cassette", "show", "core/smoke-text", "--root", mine))
    assert line == f"Error: core/smoke-text: no such file, nor a scenario of {mine} (`bedrock-harness list` shows them)\n"


def test_a_scenario_without_a_cassette_says_how_to_record_it(tmp_path):
    (tmp_path / "suites" / "mine").mkdir(parents=True)
    shutil.copy(REPO / "suites" / "core" / "single-call.yaml", tmp_path / "suites" / "mine" / "call.yaml")
    line = one_error_line(invoke("cassette", "show", "mine/call", "--root", tmp_path))
    assert line == (f"Error: mine/call: no cassette at {tmp_path / 'cassettes' / 'mine' / 'call.yaml'}; record it with "
                    f"`bedrock-harness record --emulate mine/call --root {tmp_path}`\n")


def test_a_path_still_wins_over_an_id_and_a_device_is_refused_as_a_file(tmp_path):
    """``/dev/null`` is taken as the path it is (not a scenario id), and refused as every reader refuses a device."""
    assert one_error_line(invoke("cassette", "verify", "/dev/null"),
                          "Error: /dev/null: not a regular file but a character device", 2)
    assert one_error_line(invoke("cassette", "show", tmp_path), f"Error: {tmp_path}: not a regular file but a directory")


# ---- help offers what each command has ----

@pytest.mark.parametrize("command, offered, absent", [
    (("drift",), ["[json|text]", ".json, .txt)"], [".html", ".md", ".xml", "markdown", "junit"]),
    (("matrix",), ["[text|markdown|json]", ".json, .md, .txt)"], [".html", ".xml", "junit", "html"]),
    (("evidence",), ["[text|json]", ".json, .txt)"], [".html", ".md", ".xml", "markdown", "junit"]),
    (("run",), ["[text|json|junit|markdown|html]", ".html, .json, .md, .txt, .xml)"], []),
    (("report", "merge"), ["[text|json|junit|markdown|html]", ".html, .json, .md, .txt, .xml)"], []),
], ids=lambda c: " ".join(c) if isinstance(c, tuple) else None)
def test_help_lists_only_the_formats_a_command_has(command, offered, absent):
    text = " ".join(invoke(*command, "--help").output.split())
    for word in offered:
        assert word in text, (word, text)
    for word in absent:
        assert word not in text, (word, text)


def test_an_unknown_suffix_names_only_the_commands_suffixes(tmp_path):
    line = one_error_line(invoke("drift", "--endpoint-url", "http://127.0.0.1:9", "--output", tmp_path / "r.pdf"))
    assert line.endswith("name a file ending in .json, .txt or give --format\n")
