"""The strands-ts shim on the real newest @strands-agents/sdk from the npm registry: ``bedrock-harness certify --adapter
strands-ts`` as a user runs it, over the core suite, and a planted defect (a patched copy of one SDK function) that the
suite catches through the real package. Runs only with HARNESS_JS_REAL=1 (it installs from the registry; the default
suite has no network); BEDROCK_HARNESS_NPM_CACHE keeps the install between runs."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from js_shim import one_npm_cache

from harness.adapters.js import strands_ts

pytestmark = [pytest.mark.skipif(os.environ.get("HARNESS_JS_REAL") != "1",
                                 reason="installs the Strands SDK from the npm registry: set HARNESS_JS_REAL=1"),
              pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")]


@pytest.fixture(scope="module", autouse=True)
def _npm_cache(tmp_path_factory):
    yield from one_npm_cache(tmp_path_factory)


# The planted defect: BedrockModel's stream-event mapping with the reasoning signature dropped from every delta (the
# bug class of a library that loses the signature while streaming), patched onto the real class.
DROP_SIGNATURES = """
import { BedrockModel } from "@strands-agents/sdk";
const mapped = BedrockModel.prototype._mapStreamedBedrockEventToSDKEvent;
BedrockModel.prototype._mapStreamedBedrockEventToSDKEvent = function (chunk, lastStopReason) {
  const reasoning = chunk.contentBlockDelta?.delta?.reasoningContent;
  if (reasoning?.signature) delete reasoning.signature;
  return mapped.call(this, chunk, lastStopReason);
};
"""


def _certify(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    done = subprocess.run([sys.executable, "-m", "harness.cli", "certify", *args, "--format", "json",
                           "--output", str(tmp_path / "report.json")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    return done, json.loads((tmp_path / "report.json").read_text()) if (tmp_path / "report.json").exists() else {}


def _cache(tmp_path: Path) -> Path:
    return Path(os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or tmp_path / "npm")


def test_certify_strands_ts_passes_the_core_suite_on_the_newest_release(tmp_path):
    done, report = _certify(tmp_path, "--adapter", "strands-ts", "--suite", "core", "--cache-dir", str(_cache(tmp_path)))
    assert done.returncode == 0, done.stderr
    assert report["adapter"]["name"] == "strands-ts" and report["summary"]["pass"] == len(report["results"]) >= 6
    assert not [p for p in tmp_path.iterdir() if p.name in ("node_modules", "package.json")]  # nothing in the project
    assert any(_cache(tmp_path).glob("@strands-agents+sdk@*/node_modules/@strands-agents/sdk/package.json"))


def test_a_planted_signature_drop_in_the_real_sdk_is_caught(tmp_path):
    folder, node = strands_ts.modules_folder(None, _cache(tmp_path))
    command = strands_ts.shim_command(folder, node)  # refreshes the shipped entry module beside the packages
    patched = tmp_path / "patched"
    patched.mkdir()
    (patched / "node_modules").symlink_to(folder / "node_modules")
    entry = (folder / "bedrock-harness-strands-ts.mjs").read_text()
    (patched / "bedrock-harness-strands-ts.mjs").write_text(entry + DROP_SIGNATURES)
    command[-1] = str(patched)
    done, report = _certify(tmp_path, "--command", shlex.join(command), "--scenario", "core/thinking-tools")
    assert done.returncode != 0
    (result,) = report["results"]
    assert result["status"] == "fail" and "signature" in json.dumps(result)


def test_a_reproductions_app_mjs_run_on_the_releases_its_readme_installs_shows_the_finding(tmp_path):
    """The app.mjs of the committed strands-ts report's edge/end-turn-with-tool-use cell, run as its README says: the
    Agent appends the message with its toolUse and ends with stop reason endTurn, without running the call."""
    from js_shim import run_app_mjs

    cache = Path(os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or tmp_path / "npm")
    ran = run_app_mjs(tmp_path, "strands-ts", "edge/end-turn-with-tool-use", cache)
    assert 'agent result: stop reason "endTurn"' in ran.stdout
    assert "the agent runs its tools now" not in ran.stdout
    messages = json.loads(ran.stdout.split("the agent's messages:", 1)[1])
    assert any("toolUse" in block for block in messages[-1]["content"])


def test_the_newest_release_streams_a_documents_citation_as_a_citation_chunk(tmp_path):
    """edge/document-citations through the real SDK: the Agent's loop cannot take the second turn's question (a skip),
    but its first turn, judged before that, holds the citation in Bedrock's shape; only the SDK's empty source for
    a citation Bedrock sent without one differs (certification/strands-ts.md)."""
    done, report = _certify(tmp_path, "--adapter", "strands-ts", "--scenario", "edge/document-citations",
                            "--cache-dir", str(_cache(tmp_path)))
    assert done.returncode == 0, done.stderr
    (result,) = report["results"]
    assert "citations" in report["adapter"]["capabilities"] and result["status"] == "skip"
    stream_diff = result["turns"][0]["diff"].split("\n\n")[0].splitlines()
    assert stream_diff == ["edge/document-citations turn 0 chunk 1 (citation): expected no citation.source / actual "
                           "citation.source ''"]
