"""The ai-sdk shim on the real newest packages from the npm registry: ``bedrock-harness certify --adapter ai-sdk``
as a user runs it, over the core suite. Runs only with HARNESS_JS_REAL=1 (it installs from the registry; the
default suite has no network); BEDROCK_HARNESS_NPM_CACHE keeps the install between runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from js_shim import one_npm_cache

pytestmark = [pytest.mark.skipif(os.environ.get("HARNESS_JS_REAL") != "1",
                                 reason="installs the AI SDK from the npm registry: set HARNESS_JS_REAL=1"),
              pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")]


@pytest.fixture(scope="module", autouse=True)
def _npm_cache(tmp_path_factory):
    yield from one_npm_cache(tmp_path_factory)


def test_certify_ai_sdk_passes_the_core_suite_on_the_newest_release(tmp_path):
    cache = os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or str(tmp_path / "npm")
    done = subprocess.run([sys.executable, "-m", "harness.cli", "certify", "--adapter", "ai-sdk", "--suite", "core",
                           "--cache-dir", cache, "--format", "json", "--output", str(tmp_path / "report.json")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["adapter"]["name"] == "ai-sdk" and report["summary"]["pass"] == len(report["results"]) >= 6
    # the probes on the real provider: its finish part keeps the metadata members of the probe's event stream, and
    # its command sends the document's citations setting
    assert {"response_metadata", "citations"} <= set(report["adapter"]["capabilities"])
    assert not [p for p in tmp_path.iterdir() if p.name in ("node_modules", "package.json")]  # nothing in the project
    assert any(Path(cache).glob("@ai-sdk+amazon-bedrock@*/node_modules/ai/package.json"))


def _certify(tmp_path, adapter: str, cache: str, env: dict | None = None, version: str | None = None) -> dict:
    report = tmp_path / f"{adapter}.json"
    done = subprocess.run([sys.executable, "-m", "harness.cli", "certify", "--adapter", adapter, "--suite", "core",
                           "--cache-dir", cache, "--format", "json", "--output", str(report),
                           *(["--version", version] if version else [])],
                          cwd=tmp_path, capture_output=True, text=True, timeout=1200, env={**os.environ, **(env or {})})
    assert done.returncode in (0, 1) and report.exists(), done.stderr
    return json.loads(report.read_text())


def test_the_agent_loop_passes_the_core_suite_and_catches_a_planted_defect(tmp_path):
    """ai-sdk-agent on the newest release passes the core suite; a copy of the packages whose toResponseMessages
    (the SDK's step message) drops every tool call's input fails the round trips through the SDK's own loop."""
    from harness.adapters.js.ai_sdk import modules_folder

    cache = os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or str(tmp_path / "npm")
    report = _certify(tmp_path, "ai-sdk-agent", cache)
    assert report["adapter"]["name"] == "ai-sdk-agent" and report["summary"]["pass"] == len(report["results"]) >= 6
    folder, node = modules_folder(None, Path(cache))
    planted = tmp_path / "planted"
    shutil.copytree(folder, planted, symlinks=True)
    code = planted / "node_modules" / "ai" / "dist" / "index.js"
    original = 'input: part.invalid && typeof part.input !== "object" ? {} : part.input,'
    assert original in code.read_text(), "the newest ai changed toResponseMessages: update the planted defect"
    code.write_text(code.read_text().replace(original, "input: {},"))
    broken = _certify(tmp_path, "ai-sdk-agent", cache, {"BEDROCK_HARNESS_AI_SDK_MODULES": str(planted),
                                                         "PATH": f"{Path(node).parent}{os.pathsep}{os.environ['PATH']}"})
    assert broken["summary"]["fail"] >= 1


def test_the_2_x_line_runs_on_ai_4_and_differs_only_in_the_sdks_unified_stop_reason(tmp_path):
    """@ai-sdk/amazon-bedrock 2.2.12 runs on ai 4 (its stream parts, message shapes and token counts detected): over
    the core suite every turn matches but its stop reason, which provider specification v1 gives only unified."""
    cache = os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or str(tmp_path / "npm")
    report = _certify(tmp_path, "ai-sdk", cache, version="2.2.12")
    assert report["adapter"]["packages"]["ai"].startswith("4.")
    assert "usage_input_includes_cache" not in report["adapter"]["capabilities"]
    for result in report["results"]:
        for turn in result["turns"]:
            found = [line for line in (turn.get("diff") or "").split("\n\n")[0].splitlines() if line]
            assert all("(stop): expected reason" in line for line in found), (result["scenario"], found)
            assert not turn["request_diffs"] and not turn["request_problems"], result["scenario"]


def test_a_reproductions_app_mjs_run_on_the_releases_its_readme_installs_shows_the_finding(tmp_path):
    """The app.mjs of the committed ai-sdk report's edge/max-tokens-mid-tool cell, run as its README says:
    streamText's response.messages hold the call max_tokens cut off as a complete call with input {} and an
    error-text tool result of the SDK's own."""
    from js_shim import run_app_mjs

    cache = Path(os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or tmp_path / "npm")
    ran = run_app_mjs(tmp_path, "ai-sdk", "edge/max-tokens-mid-tool", cache)
    streamed = json.loads(ran.stdout.split("streamed response.messages:", 1)[1].split("non-streamed", 1)[0])
    call = next(part for part in streamed[0]["content"] if part["type"] == "tool-call")
    assert call["toolName"] == "read_file" and call["input"] == {}
    assert streamed[1]["role"] == "tool" and streamed[1]["content"][0]["output"]["type"] == "error-text"


def test_the_agent_paths_app_mjs_shows_the_cut_call_in_the_loops_first_step(tmp_path):
    """The app.mjs of the committed ai-sdk-agent report's edge/max-tokens-mid-tool cell, run as its README says: the
    loop's first step holds the call max_tokens cut off with input {} and the SDK's own error-text result."""
    from js_shim import run_app_mjs

    cache = Path(os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or tmp_path / "npm")
    ran = run_app_mjs(tmp_path, "ai-sdk-agent", "edge/max-tokens-mid-tool", cache)
    step = json.loads(ran.stdout.split("the step's response.messages:", 1)[1])
    call = next(part for part in step[0]["content"] if part["type"] == "tool-call")
    assert call["input"] == {} and step[1]["content"][0]["output"]["type"] == "error-text"
