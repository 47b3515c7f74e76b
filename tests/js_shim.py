"""What the JavaScript shims' offline tests share: a shim driven over the subprocess protocol on a copy of its
library's fake (tests/js_fake/NAME), the turns they send and the chunks they read back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

FAKES = Path(__file__).resolve().parent / "js_fake"
NODE = shutil.which("node")
ENDPOINT = {"endpoint_url": "http://127.0.0.1:9", "region": "us-east-1", "aws_access_key_id": "AKIAFAKE",
            "aws_secret_access_key": "fake"}
TOOLS = [{"name": "read_file", "description": "Read a file.",
          "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]
MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
# A history whose tool result holds an image and a PDF (edge/tool-result-media's shape), for the shims' media tests.
MEDIA_RESULT_OPENING = [
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_9", "name": "read_file", "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_9", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
        {"type": "document", "title": "spec", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}}]}]}]
_ENDS = ("hello", "done", "error", "skip")  # the message that closes an answer


def needs_node(shim: str):
    """Skip a module when ``node`` is absent."""
    return pytest.mark.skipif(NODE is None, reason=f"node is not installed: the {shim} shim runs on Node.js")


def runner(tmp_path: Path, fake: str, prefix: str, command: Callable[[Path], list[str]]):
    """run(turns, calls, script=None, env=None) -> (each answer's lines, the fake's logged calls): ``command(folder)``
    on a copy of the fake ``fake``, which reads its script from ``$PREFIX_SCRIPT`` (``{"calls": calls, **script}``)
    and logs to ``$PREFIX_LOG``; ``env`` adds to the child's environment."""
    folder = tmp_path / "modules"
    shutil.copytree(FAKES / fake, folder)
    script_file, log = tmp_path / "script.json", tmp_path / "log.jsonl"

    def run(turns: list[dict], calls: list[dict], script: dict | None = None,
            env: dict | None = None) -> tuple[list[list[dict]], list[dict]]:
        script_file.write_text(json.dumps({"calls": calls, **(script or {})}))
        lines = [{"type": "hello", "protocol": 3}] + [
            {"type": "turn", "scenario": "s", "index": i, "endpoint": ENDPOINT, "turn": t} for i, t in enumerate(turns)]
        done = subprocess.run(command(folder), input="".join(json.dumps(m) + "\n" for m in lines),
                              capture_output=True, text=True, timeout=60,
                              env={"PATH": str(Path(NODE).parent), f"{prefix}_SCRIPT": str(script_file),
                                   f"{prefix}_LOG": str(log), **(env or {})})
        assert done.returncode == 0, done.stderr
        answers, answer = [], []
        for message in map(json.loads, done.stdout.splitlines()):
            answer.append(message)
            if message["type"] in _ENDS:
                answers.append(answer)
                answer = []
        return answers, [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return run


def turn(messages: list, options: dict, conversation: str = "s", **extra) -> dict:
    """A turn of a Claude scenario with the read_file tool."""
    return {"model_id": MODEL, "system": "Be brief.", "messages": messages, "tools": TOOLS, "options": options,
            "conversation": conversation, **extra}


def chunks(answer: list[dict]) -> list[dict]:
    """The chunks of an answer that ended ``done``."""
    assert answer[-1] == {"type": "done"}, answer[-1]
    return [m["chunk"] for m in answer[:-1]]


def run_app_mjs(tmp_path: Path, report: str, scenario: str, cache: Path) -> subprocess.CompletedProcess:
    """A reproduction of ``scenario``'s cell in ``certification/REPORT.json`` written, and its app.mjs run as the
    README says: its ``npm install`` line in the folder, its serve line, ``node app.mjs URL`` (exit 0; Node 22)."""
    from harness.adapters.js.npm import find_node
    from test_cli_serve import Serving

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "repro"
    made = subprocess.run([sys.executable, "-m", "harness.cli", "repro", scenario, "--report",
                           str(root / "certification" / f"{report}.json"), "--out", str(out), "--root", str(root)],
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    lines = (out / "README.md").read_text().splitlines()
    install = next(line for line in lines if line.startswith("npm install "))
    installed = subprocess.run([*install.split(), "--no-audit", "--no-fund"], cwd=out, capture_output=True, text=True,
                               timeout=600, env={**os.environ, "npm_config_cache": str(cache / ".npm")})
    assert installed.returncode == 0, installed.stderr
    serve = next(line for line in lines if line.startswith("bedrock-harness serve --paired")).split("   #")[0]
    serving = Serving(*[str(out / word) if word.startswith("cassettes/") else word for word in serve.split()[2:]])
    try:
        ran = subprocess.run([find_node(22, cache), "app.mjs", serving.url], cwd=out, capture_output=True, text=True,
                             timeout=120)
    finally:
        serving.stop()
    assert ran.returncode == 0, ran.stderr
    return ran


def one_npm_cache(tmp_path_factory):
    """For a module of real-registry tests (a module fixture): one npm cache for all its tests,
    $BEDROCK_HARNESS_NPM_CACHE when it is set, else a folder of the module's, so each release installs once; being a
    module fixture, it also keeps the module's tests on one worker (conftest), never installing a release twice
    at once."""
    if os.environ.get("BEDROCK_HARNESS_NPM_CACHE"):
        yield Path(os.environ["BEDROCK_HARNESS_NPM_CACHE"])
        return
    folder = tmp_path_factory.mktemp("npm")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BEDROCK_HARNESS_NPM_CACHE", str(folder))
        yield folder
