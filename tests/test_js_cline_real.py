"""The cline shim on the real newest @cline/llms from the npm registry: ``bedrock-harness certify --adapter cline`` as a
user runs it, over the core suite with the committed baseline, and a planted defect (the gateway's tool-call events
with their call id dropped, patched onto the real package's AgentModel) that the suite catches through the real
package. Runs only with HARNESS_JS_REAL=1 (it installs from the registry; the default suite has no network);
BEDROCK_HARNESS_NPM_CACHE keeps the install between runs."""

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

from harness.adapters.js import cline

pytestmark = [pytest.mark.skipif(os.environ.get("HARNESS_JS_REAL") != "1",
                                 reason="installs @cline/llms from the npm registry: set HARNESS_JS_REAL=1"),
              pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")]


@pytest.fixture(scope="module", autouse=True)
def _npm_cache(tmp_path_factory):
    yield from one_npm_cache(tmp_path_factory)


ROOT = Path(__file__).resolve().parent.parent
# The planted defect: every tool-call event of the real gateway's AgentModel loses its toolCallId (the bug class of a
# provider layer that drops the call id), patched around the real createGateway.
DROP_CALL_IDS = """
import * as real from "@cline/llms";
import { readFileSync } from "node:fs";

function createGateway(config) {
  const gateway = real.createGateway(config);
  const create = gateway.createAgentModel.bind(gateway);
  gateway.createAgentModel = (selection) => {
    const model = create(selection);
    return { stream: async (request) => {
      const events = await model.stream(request);
      return (async function* dropped() {
        for await (const event of events) yield event.type === "tool-call-delta" ? { ...event, toolCallId: undefined } : event;
      })();
    } };
  };
  return gateway;
}

export const llms = { ...real, createGateway };
export const version = JSON.parse(readFileSync(new URL("./node_modules/@cline/llms/package.json", import.meta.url),
  "utf8")).version;
"""


def _certify(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    done = subprocess.run([sys.executable, "-m", "harness.cli", "certify", *args, "--format", "json",
                           "--output", str(tmp_path / "report.json")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    return done, json.loads((tmp_path / "report.json").read_text()) if (tmp_path / "report.json").exists() else {}


def _cache(tmp_path: Path) -> Path:
    return Path(os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or tmp_path / "npm")


def test_certify_cline_runs_the_core_suite_on_the_newest_release_within_its_baseline(tmp_path):
    done, report = _certify(tmp_path, "--adapter", "cline", "--suite", "core", "--cache-dir", str(_cache(tmp_path)),
                            "--baseline", str(ROOT / "certification/cline.baseline.yaml"))
    assert done.returncode == 0, done.stderr
    assert report["adapter"]["name"] == "cline" and {"@cline/llms", "@ai-sdk/amazon-bedrock", "ai"} <= set(
        report["adapter"]["packages"])
    verdicts = {r["scenario"]: r["status"] for r in report["results"]}
    assert verdicts["core/round-trip"] in ("pass", "warn") and verdicts["core/thinking-tools"] == "xfail"
    assert not [p for p in tmp_path.iterdir() if p.name in ("node_modules", "package.json")]  # nothing in the project
    assert any(_cache(tmp_path).glob("@cline+llms@*/node_modules/@cline/llms/package.json"))


def test_a_planted_call_id_drop_in_the_real_gateway_is_caught(tmp_path):
    folder, node = cline.modules_folder(None, _cache(tmp_path))
    command = cline.shim_command(folder, node)  # refreshes the shipped entry module beside the packages
    patched = tmp_path / "patched"
    patched.mkdir()
    (patched / "node_modules").symlink_to(folder / "node_modules")
    (patched / "bedrock-harness-cline.mjs").write_text(DROP_CALL_IDS)
    command[-1] = str(patched)
    done, report = _certify(tmp_path, "--command", shlex.join(command), "--scenario", "core/single-call")
    assert done.returncode != 0
    (result,) = report["results"]
    assert result["status"] == "fail" and "tool_call" in json.dumps(result)


def test_a_reproductions_app_mjs_run_on_the_releases_its_readme_installs_shows_the_finding(tmp_path):
    """The app.mjs of the committed cline report's edge/max-tokens-mid-tool cell, run as its README says: the agent
    model's stream ends with finish reason tool-calls for a call max_tokens cut off."""
    from js_shim import run_app_mjs

    cache = Path(os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or tmp_path / "npm")
    ran = run_app_mjs(tmp_path, "cline", "edge/max-tokens-mid-tool", cache)
    events = [json.loads(line.removeprefix("event: ")) for line in ran.stdout.splitlines() if line.startswith("event: ")]
    assert events[-1] == {"type": "finish", "reason": "tool-calls"}
    assert any(e["type"] == "tool-call-delta" and e.get("toolName") == "read_file" for e in events)
