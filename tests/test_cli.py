"""The command group itself: ``--version`` and ``--help`` load no command (neither botocore nor the suite), and the
help line it lists for each command is the command's own."""

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from harness.cli import COMMANDS, main

_IMPORTS = """
import sys
sys.argv = ["bedrock-harness", {flag!r}]
from harness.cli import main
try:
    main()
except SystemExit:
    pass
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("botocore", "boto3", "yaml", "deepdiff", "vcr")
               or m.startswith(("harness.suite", "harness.endpoint", "harness.cassettes", "harness.adapters",
                                "harness.converse", "harness.cli.")))
print("HEAVY", heavy)
"""


@pytest.mark.parametrize("flag", ["--version", "--help", "-h"])
def test_version_and_help_import_neither_botocore_nor_the_suite(flag):
    done = subprocess.run([sys.executable, "-c", _IMPORTS.format(flag=flag)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "HEAVY []", done.stdout
    assert ("bedrock-harness, version " if flag == "--version" else "Commands:") in done.stdout


def listed(name: str, limit: int = 10_000) -> str:
    return click.Command(name, help=COMMANDS[name][2]).get_short_help_str(limit)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_listed_help_line_is_the_commands_own(name):
    command = main.get_command(click.Context(main), name)
    assert command.name == name
    assert listed(name) == command.get_short_help_str(10_000) == COMMANDS[name][2]


def test_help_lists_every_command_with_its_line():
    text = " ".join(CliRunner().invoke(main, ["--help"], terminal_width=200).output.split())
    for name in COMMANDS:
        assert f"{name} {listed(name, 200 - 6 - max(map(len, COMMANDS)))}" in text


def test_an_unknown_command_is_one_line():
    done = CliRunner().invoke(main, ["frobnicate"])
    assert (done.exit_code, done.output) == (2, "Error: No such command 'frobnicate'.\n")
