"""The langchain-js shims on the real newest packages from the npm registry: ``bedrock-harness certify --adapter
langchain-js`` (and ``langchain-js-events``, ``langchain-js-agent`` and ``langchain-js-agent-events``, which install
``langchain`` too) as a user runs it over the core suite, ``langchain-js-blocks`` against its baseline, the agent's
two paths on a release whose tool calls they stream without ids, and a planted defect (a patched copy of one @langchain/aws function: reasoning signatures
dropped while streaming) that the harness catches through the real package. Runs only with HARNESS_JS_REAL=1 (it
installs from the registry; the default suite has no network); BEDROCK_HARNESS_NPM_CACHE keeps the install between
runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from js_shim import one_npm_cache

from harness.adapters.js import npm
from harness.adapters.js.langchain_js import LIBRARY, MODULES_ENV

pytestmark = [pytest.mark.skipif(os.environ.get("HARNESS_JS_REAL") != "1",
                                 reason="installs LangChain.js from the npm registry: set HARNESS_JS_REAL=1"),
              pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")]
# bedrockReasoningDeltaToLangchainPartialReasoningBlock (dist/utils/message_outputs.js): a signature delta's block
SIGNED = "reasoning: \"\",\n\t\tsignature,"
UNSIGNED = "reasoning: \"\","


@pytest.fixture(scope="module", autouse=True)
def _npm_cache(tmp_path_factory):
    yield from one_npm_cache(tmp_path_factory)


def certify(tmp_path: Path, *args: str, env: dict | None = None,
            adapter: str = "langchain-js") -> tuple[subprocess.CompletedProcess, dict]:
    cache = os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or str(tmp_path / "npm")
    done = subprocess.run([sys.executable, "-m", "harness.cli", "certify", "--adapter", adapter, *args,
                           "--cache-dir", cache, "--format", "json", "--output", str(tmp_path / "report.json")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=1200, env={**os.environ, **(env or {})})
    return done, json.loads((tmp_path / "report.json").read_text()) if (tmp_path / "report.json").exists() else {}


@pytest.mark.parametrize("adapter", ["langchain-js", "langchain-js-events", "langchain-js-agent",
                                     "langchain-js-agent-events"])
def test_certify_passes_the_core_tool_scenarios_on_the_newest_release(tmp_path, adapter):
    done, report = certify(tmp_path, "--scenario", "core/thinking-tools", "--scenario",
                           "core/round-trip", "--scenario", "core/parallel-calls", adapter=adapter)
    assert done.returncode == 0, done.stderr
    assert report["adapter"]["name"] == adapter and report["summary"]["pass"] == len(report["results"]) == 3
    assert not [p for p in tmp_path.iterdir() if p.name in ("node_modules", "package.json")]  # nothing in the project


def test_certify_langchain_js_blocks_fails_as_its_baseline_says(tmp_path):
    # content-block streaming folds end_turn into "stop" and drops signatures (certification/langchain-js.md)
    baseline = Path(__file__).resolve().parents[1] / "certification" / "langchain-js-blocks.baseline.yaml"
    done, report = certify(tmp_path, "--scenario", "core/thinking-tools", "--scenario", "core/smoke-text",
                           "--baseline", str(baseline), adapter="langchain-js-blocks")
    assert done.returncode == 0, done.stderr
    assert {r["scenario"]: r["status"] for r in report["results"]} == {"core/thinking-tools": "xfail",
                                                                        "core/smoke-text": "xfail"}


def test_a_document_asking_for_citations_reaches_bedrock_as_asked_and_its_citation_breaks_the_stream(tmp_path):
    """edge/document-citations on the newest release: Bedrock's own document block goes through the library as the
    golden request has it (source text, citations enabled), and the citation delta ends the stream in the library's
    error (certification/langchain-js.md)."""
    done, report = certify(tmp_path, "--scenario", "edge/document-citations")
    (result,) = report["results"]
    assert "citations" in report["adapter"]["capabilities"] and result["status"] == "fail", done.stderr
    (turn,) = result["turns"]
    assert not turn["request_diffs"] and not turn["request_problems"]
    assert "Unsupported content block type(s)" in turn["diff"] and '"citation"' in turn["diff"]


@pytest.mark.parametrize("adapter", ["langchain-js-agent", "langchain-js-agent-events"])
def test_the_agent_path_catches_the_start_chunk_that_1_0_0_never_streams(tmp_path, adapter):
    # @langchain/aws 1.0.0 yields a tool call's start chunk without handleLLMNewToken, which feeds LangGraph's messages
    # stream and streamEvents' on_chat_model_stream: .stream() never shows it, createAgent's stream and events do
    # (certification/langchain-js.md, F-agent-1)
    done, report = certify(tmp_path, "--scenario", "core/single-call", "--version", "1.0.0", adapter=adapter)
    assert done.returncode != 0
    (result,) = report["results"]
    assert result["status"] == "fail" and "before any chunk gave that call an id" in json.dumps(result)


def test_a_dropped_signature_planted_in_the_library_is_caught(tmp_path):
    cache = Path(os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or tmp_path / "npm")
    certify(tmp_path, "--scenario", "core/smoke-text")  # installs the newest release when it is not cached
    installed = cache / f"@langchain+aws@{npm.newest(LIBRARY)}"
    patched = tmp_path / "patched"
    shutil.copytree(installed, patched, symlinks=True)
    source = patched / "node_modules" / "@langchain" / "aws" / "dist" / "utils" / "message_outputs.js"
    text = source.read_text()
    assert SIGNED in text, "the planted defect no longer matches @langchain/aws's code: update SIGNED"
    source.write_text(text.replace(SIGNED, UNSIGNED))
    done, report = certify(tmp_path, "--scenario", "core/thinking-tools", env={MODULES_ENV: str(patched)})
    assert done.returncode != 0
    (result,) = report["results"]
    assert result["status"] == "fail" and "signature" in json.dumps(result)


def test_a_reproductions_app_mjs_run_on_the_releases_its_readme_installs_shows_the_finding(tmp_path):
    """The app.mjs of the committed langchain-js report's core/interleaved-text cell, run as its README says: the
    streamed chunks concatenated hold the two text blocks glued into one string, invoke's message keeps two."""
    from js_shim import run_app_mjs

    cache = Path(os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or tmp_path / "npm")
    ran = run_app_mjs(tmp_path, "langchain-js", "core/interleaved-text", cache)
    streamed = json.loads(ran.stdout.split("streamed message:", 1)[1].split("invoked message:", 1)[0])
    invoked = json.loads(ran.stdout.split("invoked message:", 1)[1])
    assert isinstance(streamed["content"], str) and "by reading the file.Once I have" in streamed["content"]
    assert [block["type"] for block in invoked["content"]] == ["text", "text"]


def test_a_content_block_reproductions_app_mjs_shows_the_stop_reason_folded(tmp_path):
    """The app.mjs of the committed langchain-js-blocks report's core/smoke-text cell, run as its README says: the
    stream's message-finish event and the awaited message carry "stop", not Bedrock's end_turn."""
    from js_shim import run_app_mjs

    cache = Path(os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or tmp_path / "npm")
    ran = run_app_mjs(tmp_path, "langchain-js-blocks", "core/smoke-text", cache)
    assert '"event":"message-finish","reason":"stop"' in ran.stdout
    message = json.loads(ran.stdout.split("streamed message:", 1)[1])
    assert message["response_metadata"]["finish_reason"] == "stop" and "end_turn" not in ran.stdout


@pytest.mark.parametrize("report", ["langchain-js-agent", "langchain-js-agent-events"])
def test_the_agent_paths_app_mjs_shows_the_cut_call_parsed_as_complete(tmp_path, report):
    """The app.mjs of the committed langchain-js-agent (and -events) report's edge/max-tokens-mid-tool cell, run as its
    README says: the message the model node adds holds read_file with the truncated path parsed as a complete
    argument."""
    from js_shim import run_app_mjs

    cache = Path(os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or tmp_path / "npm")
    ran = run_app_mjs(tmp_path, report, "edge/max-tokens-mid-tool", cache)
    added = json.loads(ran.stdout.split("message the agent adds:", 1)[1].split("the agent runs its tools now", 1)[0])
    assert added["tool_calls"][0]["args"] == {"path": "/home/analyst/reports/2024/q3/rev"}
    assert added["response_metadata"]["messageStop"]["stopReason"] == "max_tokens"
