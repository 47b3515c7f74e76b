"""A command pays only for what it uses (STYLE.md 13): each command runs in a child under ``python -X importtime``,
and the modules it must not load are looked for in the import log (with the chain that imported one) and, for
those loaded through ``importlib`` (which the log leaves out), in ``sys.modules`` at exit."""

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
THIRD_PARTY = ("boto3", "botocore", "vcr", "deepdiff")
WRITERS = tuple(f"harness.report.as_{fmt}" for fmt in ("text", "json", "junit", "markdown", "html"))

# The child: the command as the console script runs it, then what it loaded, as one last stderr line.
_CHILD = """
import atexit, json, sys
atexit.register(lambda: sys.stderr.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
sys.argv = ["bedrock-harness", *sys.argv[1:]]
from harness.cli import main
main()
"""


def imported(stderr: str) -> tuple[dict[str, str], set[str]]:
    """(module -> the chain of modules that first imported it, from the import log; the modules loaded at exit)."""
    lines = [line for line in stderr.splitlines() if line.startswith("MODULES ")]
    return _chains(stderr), set(json.loads(lines[-1][len("MODULES "):])) if lines else set()


def _chains(stderr: str) -> dict[str, str]:
    """Each module of the import log with the modules that imported it, innermost first (the log prints a module
    after the ones it imported, those one level deeper)."""
    entries = []
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line and not line.endswith("| imported package"):
            name = line.rsplit("|", 1)[1]
            entries.append(((len(name) - len(name.lstrip())) // 2, name.strip()))
    chains = {}
    for i, (depth, name) in enumerate(entries):
        if name in chains:
            continue
        parents, level = [], depth
        for outer, parent in entries[i + 1:]:
            if outer < level:
                parents.append(parent)
                level = outer
        chains[name] = " <- ".join([name, *parents])
    return chains


def forbidden(chains: dict[str, str], loaded: set[str], prefixes: tuple[str, ...]) -> list[str]:
    """The modules of ``prefixes`` (a package and what is under it) the child loaded, each with its chain."""
    def hit(module: str) -> bool:
        return any(module == p or module.startswith(p + ".") for p in prefixes)
    return sorted({chains.get(m, f"{m} (through importlib)") for m in loaded | set(chains) if hit(m)})


def run_command(*args: str, env: dict[str, str] | None = None) -> tuple[dict[str, str], set[str]]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", _CHILD, *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, env={**os.environ, "AWS_ACCESS_KEY_ID": "AKIAFAKE", **(env or {})})
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return imported(done.stderr)


@pytest.mark.parametrize("args", [("--version",), ("--help",), ("list",), ("list", "--suite", "core"),
                                  ("schema", "chunk"), ("evidence",), ("evidence", "--check")], ids=" ".join)
def test_reading_commands_load_neither_boto3_botocore_vcrpy_nor_deepdiff(args):
    chains, loaded = run_command(*args)
    assert loaded, "the child reported no modules"
    # Listing reads scenarios and judges nothing: a scenario's level is in harness.suite.levels, not beside the graders
    judging = ("harness.judge.grade", "harness.judge.compare", "harness.suite.results", "harness.studies.shard")
    extra = judging if args[0] == "list" else ()
    assert forbidden(chains, loaded, THIRD_PARTY + ("harness.suite.runner", "harness.report") + extra) == []


def test_list_from_the_parsed_cache_loads_no_pyyaml(tmp_path):
    cache = {"BEDROCK_HARNESS_PARSED_CACHE": str(tmp_path)}
    chains, loaded = run_command("list", env=cache)  # a cold cache: the files are parsed, and kept
    assert "yaml" in loaded
    chains, loaded = run_command("list", env=cache)
    assert "harness.suite.scenario" in loaded
    assert forbidden(chains, loaded, ("yaml", "harness.cassettes.yaml_reader", "harness.endpoint.emulator.plan")) == []


def test_run_from_the_parsed_cache_loads_no_pyyaml(tmp_path):
    cache, args = {"BEDROCK_HARNESS_PARSED_CACHE": str(tmp_path)}, ("run", "--scenario", "core/single-call", "--no-progress")
    run_command(*args, env=cache)  # the scenario, its golden and its cassette parsed, and kept
    chains, loaded = run_command(*args, env=cache)
    assert "harness.suite.golden" in loaded and "harness.cassettes.cassette" in loaded
    assert forbidden(chains, loaded, ("yaml", "harness.cassettes.yaml_reader")) == []


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_run_loads_the_writer_of_its_own_format_only(fmt):
    chains, loaded = run_command("run", "--scenario", "core/smoke-text", "--format", fmt, "--no-progress")
    assert f"harness.report.as_{fmt}" in loaded
    others = tuple(w for w in WRITERS if w != f"harness.report.as_{fmt}")
    studies = tuple(f"harness.studies.{m}" for m in ("certify", "certification_table", "drift", "live", "matrix", "merge",
                                                     "shard"))
    # An in-process adapter: nothing of the subprocess protocol (its reaper loads ctypes). A replay writes no
    # cassette and its quiet endpoint logs nothing: no secret scan (its patterns compiled). The reference streams
    # synchronously: no asyncio (an async library's shim relays through it).
    assert forbidden(chains, loaded, others + studies + ("vcr", "harness.adapters.subprocess", "harness.cassettes.secrets",
                                                         "harness.cassettes.tokens", "asyncio")) == []


def test_serve_answers_and_checks_the_input_shape_without_botocore():
    command = [sys.executable, "-X", "importtime", "-c", _CHILD, "serve", "--emulate", "core/smoke-text", "--port", "0"]
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = child.stdout.readline().strip()
        target = f"{url}/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream"
        body = {"messages": [{"role": "user", "content": [{"text": "Say hello"}]}]}
        with urllib.request.urlopen(urllib.request.Request(target, json.dumps(body).encode(),
                                                           {"Content-Type": "application/json"}), timeout=60) as answer:
            assert answer.status == 200 and answer.read()
        with pytest.raises(urllib.error.HTTPError) as refused:  # the input shape is checked: an unknown member
            urllib.request.urlopen(urllib.request.Request(target, json.dumps({**body, "extra": 1}).encode(),
                                                          {"Content-Type": "application/json"}), timeout=60)
        assert refused.value.code == 400 and 'Unknown parameter in input: \\"extra\\"' in refused.value.read().decode()
    finally:
        child.send_signal(signal.SIGINT)
        _, stderr = child.communicate(timeout=60)
    chains, loaded = imported(stderr)
    assert "harness.endpoint.rules.validator" in loaded, "the request was not checked against the input shape"
    assert forbidden(chains, loaded, ("boto3", "botocore", "vcr", "deepdiff", "harness.suite.runner",
                                      "harness.report")) == []
