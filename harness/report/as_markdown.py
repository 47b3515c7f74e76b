"""The markdown report: a table for READMEs, PR comments and certification pages."""

from __future__ import annotations

from typing import Any, Sequence

from harness.report.common import code, levels_line, one_line, printable, shown_info, summary_line
from harness.report.recurring import Common, common_findings, without
from harness.suite.results import Result
from harness.version import __version__

__all__ = ["common_lines", "render_markdown"]


def _cell(text: str) -> str:
    return one_line(text).replace("|", "\\|")


def common_lines(common: Sequence[Common]) -> list[str]:
    """The common findings as a markdown list under a bold line (nothing when there are none)."""
    if not common:
        return []
    items = [f"- in {len(c.scenarios)} of {c.of} failing scenarios: {code(one_line(c.finding))}" for c in common]
    return ["**Common to most failing scenarios** (left out of each one's reason):", "", *items, ""]


def render_markdown(results: Sequence[Result], adapter: Any = None) -> str:
    """The findings common to most failing scenarios, then a markdown table: scenario, status, reason, duration."""
    info = shown_info(adapter)
    caps = _cell(", ".join(info["capabilities"])) or "none declared"
    common = common_findings(results)
    results = [without(r, common) for r in results]
    lines = [f"**bedrock-harness {__version__}**, adapter {code(info['name'] or '?')} {_cell(info['version'])} "
             f"(capabilities: {caps})".rstrip(), "", *common_lines(common),
             "| scenario | status | reason | duration |", "|---|---|---|---:|"]
    lines += [f"| {code(printable(r.scenario, False))} | {r.status} | {_cell(r.reason)} | {r.duration_s:.2f}s |" for r in results]
    return "\n".join(lines + ["", summary_line(results), "", levels_line(results)]) + "\n"
