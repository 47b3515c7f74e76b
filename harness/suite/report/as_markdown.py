"""The markdown report: a table for READMEs, PR comments and certification pages."""

from __future__ import annotations

from typing import Any, Sequence

from harness.suite.report.common import code, one_line, printable, shown_info, summary_line
from harness.suite.results import Result
from harness.version import __version__

__all__ = ["render_markdown"]


def _cell(text: str) -> str:
    return one_line(text).replace("|", "\\|")


def render_markdown(results: Sequence[Result], adapter: Any = None) -> str:
    """A markdown table: scenario, status, reason, duration."""
    info = shown_info(adapter)
    caps = _cell(", ".join(info["capabilities"])) or "none declared"
    lines = [f"**bedrock-harness {__version__}**, adapter {code(info['name'] or '?')} {_cell(info['version'])} "
             f"(capabilities: {caps})".rstrip(), "", "| scenario | status | reason | duration |", "|---|---|---|---:|"]
    lines += [f"| {code(printable(r.scenario, False))} | {r.status} | {_cell(r.reason)} | {r.duration_s:.2f}s |" for r in results]
    return "\n".join(lines + ["", summary_line(results)]) + "\n"
