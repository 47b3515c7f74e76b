"""The JSON report: DESIGN.md's ``--format json`` object (with each result's cassette when known), and its inverse,
which ``report merge`` renders shards' reports from in every other format."""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from harness.judge.compare import Diff
from harness.report.common import adapter_info, summary
from harness.report.recurring import common_findings
from harness.suite.results import REQUIRED, Result, TurnResult, Warned, level_scores
from harness.version import __version__

__all__ = ["render_json", "results_from_json"]


def _result_json(result: Result, cassettes: Mapping[str, dict] | None) -> dict:
    turns = [{"index": t.index, "diff": t.chunk_text(), "request_problems": t.request_texts(),
              "request_diffs": t.request_texts()[len(t.request_problems):], "request_notes": list(t.request_notes),
              "warnings": [{"finding": w.finding, "reason": w.reason} for w in t.warnings]} for t in result.turns]
    entry = {"scenario": result.scenario, "status": result.status, "level": result.level, "reason": result.reason,
             "turns": turns,
             "duration_s": float(round(result.duration_s, 6))}
    if cassettes is not None:
        cassette = cassettes.get(result.scenario) or {}
        entry.update(cassette=cassette.get("path"), cassette_sha256=cassette.get("sha256"))
    return entry


def render_json(results: Sequence[Result], adapter: Any = None, cassettes: Mapping[str, dict] | None = None,
                shard: Any = None) -> str:
    """DESIGN.md's ``--format json`` object (every finding per result, and ``common_findings``: those in most failing
    scenarios); ``cassettes`` (id -> path, sha256) adds both to every result, ``shard`` (a
    ``harness.studies.shard.Shard``) says which part of a split run it is."""
    report = {"harness_version": __version__, "adapter": adapter_info(adapter),
              "results": [_result_json(r, cassettes) for r in results], "summary": summary(results),
              "levels": level_scores(results), "common_findings": [c.as_json() for c in common_findings(results)]}
    if shard is not None:
        report["shard"] = shard.as_json()
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def _turn(entry: Mapping) -> TurnResult:
    """A turn from its JSON: each text comes back as ``chunk_text`` and ``request_texts`` rendered it."""
    texts, diffs = list(entry.get("request_problems") or ()), list(entry.get("request_diffs") or ())
    rules = texts[: len(texts) - len(diffs)]
    chunks = (Diff("chunks", (entry["diff"],)),) if entry.get("diff") else ()
    return TurnResult(int(entry["index"]), chunks + tuple(Diff("request", (d,)) for d in diffs),
                      request_problems=tuple(rules), request_notes=tuple(entry.get("request_notes") or ()),
                      warnings=tuple(Warned(w["finding"], w["reason"]) for w in entry.get("warnings") or ()))


def results_from_json(document: Mapping) -> tuple[list[Result], dict[str, dict] | None]:
    """(results, cassettes or None) of a JSON report: what ``render_json`` was given, as far as any report shows it.

    KeyError, TypeError or ValueError when ``document`` is no such report."""
    results, cassettes = [], {}
    for entry in document["results"]:
        results.append(Result(entry["scenario"], entry["status"], entry.get("reason") or "",
                              tuple(_turn(t) for t in entry.get("turns") or ()), float(entry.get("duration_s") or 0),
                              entry.get("level") or REQUIRED))
        if entry.get("cassette") is not None:  # None: a scenario the run had no cassette file name for
            cassettes[entry["scenario"]] = {"path": entry["cassette"], "sha256": entry.get("cassette_sha256")}
    return results, cassettes or None
