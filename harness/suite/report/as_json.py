"""The JSON report: DESIGN.md's ``--format json`` object (with each result's cassette when known)."""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from harness.suite.report.common import adapter_info, summary
from harness.suite.results import Result
from harness.version import __version__

__all__ = ["render_json"]


def _result_json(result: Result, cassettes: Mapping[str, dict] | None) -> dict:
    turns = [{"index": t.index, "diff": t.chunk_text(), "request_problems": t.request_texts(),
              "request_notes": list(t.request_notes),
              "warnings": [{"finding": w.finding, "reason": w.reason} for w in t.warnings]} for t in result.turns]
    entry = {"scenario": result.scenario, "status": result.status, "reason": result.reason, "turns": turns,
             "duration_s": float(round(result.duration_s, 6))}
    if cassettes is not None:
        cassette = cassettes.get(result.scenario) or {}
        entry.update(cassette=cassette.get("path"), cassette_sha256=cassette.get("sha256"))
    return entry


def render_json(results: Sequence[Result], adapter: Any = None, cassettes: Mapping[str, dict] | None = None) -> str:
    """DESIGN.md's ``--format json`` object; ``cassettes`` (id -> path, sha256) adds both to every result."""
    report = {"harness_version": __version__, "adapter": adapter_info(adapter),
              "results": [_result_json(r, cassettes) for r in results], "summary": summary(results)}
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"
