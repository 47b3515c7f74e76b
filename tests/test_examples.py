"""The worked examples certify through the subprocess protocol on the whole suite, stateless and in conversation
mode (``--conversation``: they keep the history and send back the message they assembled): examples/python_adapter
(stdlib + boto3) and examples/node_adapter (@aws-sdk/client-bedrock-runtime). The node example runs when its
node_modules already match package-lock.json, or when BEDROCK_HARNESS_NPM_INSTALL=1 asks this test to run its
install script (npm ci from the npm registry); otherwise it skips at once, saying how to enable it. The default
test run never reaches a registry."""

from __future__ import annotations

import ast
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.adapters import FEATURES, SERVED
from harness.cli import main
from harness.suite.scenario import discover

ROOT = Path(__file__).resolve().parents[1]
PYTHON_EXAMPLE = ROOT / "examples" / "python_adapter" / "adapter.py"
NODE_EXAMPLE = ROOT / "examples" / "node_adapter"
NPM_INSTALL = "BEDROCK_HARNESS_NPM_INSTALL"  # "1": the node example's test may run npm ci (reaches the npm registry)


def certify_whole_suite(command: str) -> tuple[int, dict]:
    done = CliRunner().invoke(main, ["certify", "--root", str(ROOT), "--command", command, "--format", "json"],
                              catch_exceptions=False)
    return done.exit_code, json.loads(done.stdout)


def assert_certified(exit_code: int, report: dict, name: str, conversation: bool = False) -> None:
    """Every scenario of the suite ran and passed, with its non-streamed call checked against the streamed one;
    nothing skipped, since the example declares everything."""
    declared = FEATURES | SERVED | {"non_streaming"} | ({"own_history"} if conversation else set())
    assert report["adapter"]["name"] == name and set(report["adapter"]["capabilities"]) == declared
    statuses = {r["scenario"]: (r["status"], r["reason"]) for r in report["results"]}
    assert set(statuses) == {s.id for s in discover(ROOT / "suites")}
    assert {sid: status for sid, status in statuses.items() if status[0] != "pass"} == {}
    assert exit_code == 0


@pytest.mark.parametrize("mode", ["", " --conversation"])
def test_the_python_example_passes_the_whole_suite(mode):
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(PYTHON_EXAMPLE))}{mode}"
    exit_code, report = certify_whole_suite(command)
    assert_certified(exit_code, report, "example-python-boto3", conversation=bool(mode))


def test_the_python_example_imports_only_the_standard_library_and_boto3():
    tree = ast.parse(PYTHON_EXAMPLE.read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported - set(sys.stdlib_module_names) == {"boto3", "botocore"}


def _node_major() -> int | None:
    node = shutil.which("node")
    if node is None:
        return None
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60, check=False).stdout
    return int(version.lstrip("v").split(".")[0])


def node_modules_current() -> bool:
    """install.sh's stamp: node_modules was installed from exactly this package-lock.json."""
    stamp = NODE_EXAMPLE / "node_modules" / ".installed-package-lock.json"
    return stamp.is_file() and stamp.read_bytes() == (NODE_EXAMPLE / "package-lock.json").read_bytes()


def node_command() -> str:
    """The node example's command once its dependencies are in place (installed only when asked to); every test
    running the node example goes through this one gate."""
    major = _node_major()
    if major is None or shutil.which("npm") is None:
        pytest.skip("node or npm is not installed")
    if major < 20:
        pytest.skip(f"the node example needs Node.js 20 or later, found {major}")
    if not node_modules_current():
        if os.environ.get(NPM_INSTALL) != "1":
            pytest.skip(f"the node example's dependencies are not installed: run `sh {NODE_EXAMPLE.relative_to(ROOT)}"
                        f"/install.sh` (npm ci), or set {NPM_INSTALL}=1 to let this test run it")
        done = subprocess.run(["sh", str(NODE_EXAMPLE / "install.sh")], capture_output=True, text=True, timeout=600,
                              check=False)
        if done.returncode != 0:
            lines = (done.stderr + done.stdout).strip().splitlines() or ["no output"]
            why = next((line for line in lines if line.startswith("npm error code")), lines[-1])
            pytest.fail(f"{NPM_INSTALL}=1 but the node example's npm install failed: {why}")
    return f"node {shlex.quote(str(NODE_EXAMPLE / 'adapter.mjs'))}"


@pytest.fixture(scope="module")
def node_example() -> str:
    return node_command()


@pytest.mark.parametrize("mode", ["", " --conversation"])
def test_the_node_example_passes_the_whole_suite(node_example, mode):
    exit_code, report = certify_whole_suite(node_example + mode)
    assert_certified(exit_code, report, "example-node-aws-sdk-v3", conversation=bool(mode))


def test_the_node_example_pins_its_dependencies_in_a_lock_file():
    lock = json.loads((NODE_EXAMPLE / "package-lock.json").read_text())
    wanted = json.loads((NODE_EXAMPLE / "package.json").read_text())["dependencies"]
    assert set(wanted) == {"@aws-sdk/client-bedrock-runtime", "@smithy/node-http-handler"}
    assert {name: lock["packages"][f"node_modules/{name}"]["version"] for name in wanted} == wanted
