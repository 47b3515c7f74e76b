"""Ctrl-C ends any command with one line and exit 130: while the commands load, and in the middle of one."""

from __future__ import annotations

import subprocess
import sys

import pytest

# The child sends itself SIGINT on the first audit event ``event`` naming ``what``: a point reached for sure. A
# shell's background job inherits SIGINT ignored, so the child puts Python's own handler back first.
_CHILD = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, even when started from one ignoring it
def hook(event, args):
    if event == {event!r} and {what!r} in str(args[0]) and not getattr(hook, "sent", False):
        hook.sent = True
        os.kill(os.getpid(), signal.SIGINT)
sys.addaudithook(hook)
sys.argv = ["bedrock-harness", *{args!r}]
from harness.cli import main
main()
"""


@pytest.mark.parametrize("event, what, args", [
    ("import", "botocore", ["run", "--scenario", "core/smoke-text"]),  # while the run loads boto3 and botocore
    ("open", "cassettes/core/smoke-text", ["run", "--scenario", "core/smoke-text"]),  # the run reading the cassette
    ("socket.connect", "", ["run", "--loopback", "http", "--scenario", "core/smoke-text"]),  # reaching the endpoint
], ids=["start-up", "mid-run", "mid-run-over-http"])
def test_sigint_is_one_line_and_exit_130(event, what, args):
    child = subprocess.run([sys.executable, "-c", _CHILD.format(event=event, what=what, args=args)],
                           capture_output=True, text=True, timeout=120)
    assert (child.returncode, child.stderr) == (130, "interrupted\n"), child.stderr[-3000:]
