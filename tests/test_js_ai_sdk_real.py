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

pytestmark = [pytest.mark.skipif(os.environ.get("HARNESS_JS_REAL") != "1",
                                 reason="installs the AI SDK from the npm registry: set HARNESS_JS_REAL=1"),
              pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")]


def test_certify_ai_sdk_passes_the_core_suite_on_the_newest_release(tmp_path):
    cache = os.environ.get("BEDROCK_HARNESS_NPM_CACHE") or str(tmp_path / "npm")
    done = subprocess.run([sys.executable, "-m", "harness.cli", "certify", "--adapter", "ai-sdk", "--suite", "core",
                           "--cache-dir", cache, "--format", "json", "--output", str(tmp_path / "report.json")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["adapter"]["name"] == "ai-sdk" and report["summary"]["pass"] == len(report["results"]) >= 6
    assert not [p for p in tmp_path.iterdir() if p.name in ("node_modules", "package.json")]  # nothing in the project
    assert any(Path(cache).glob("@ai-sdk+amazon-bedrock@*/node_modules/ai/package.json"))
