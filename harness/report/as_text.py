"""The text report: a row per scenario, a summary line, then the findings of every failing scenario."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from harness.report.common import details, levels_line, one_line, printable, shown_info, summary_line, unprefixed
from harness.report.pointers import Pointer, text_lines
from harness.report.recurring import common_findings, heading, without
from harness.suite.results import Result

__all__ = ["REASON_WIDTH", "render_text"]

REASON_WIDTH = 100  # the table cuts reasons here unless verbose; the findings below it hold them whole


def render_text(results: Sequence[Result], adapter: Any = None, verbose: bool = False,
                pointers: Mapping[str, Pointer] | None = None) -> str:
    """The findings common to most failing scenarios, the table and each scenario's own findings (``pointers``: with
    where each is explained); ``verbose``: reasons never cut, and findings for skips and xfails too."""
    info, common = shown_info(adapter), common_findings(results)
    results = [without(r, common) for r in results]  # each scenario's own findings first: the common ones on top
    head = [f"adapter {info['name']} {info['version']}".rstrip()] if info["name"] else []
    head += [printable(line) for line in heading(common)] + ([""] if common else [])
    width = max([len("scenario")] + [len(printable(r.scenario, False)) for r in results])
    cut = None if verbose else REASON_WIDTH
    rows = [f"{'scenario':<{width}}  {'status':<6}  {'time':>7}  reason"]
    rows += [f"{printable(r.scenario, False):<{width}}  {r.status:<6}  {r.duration_s:>6.2f}s  {_reason(r, cut)}".rstrip() for r in results]
    shown = [r for r in results if r.failing or r.status == "warn" or (verbose and r.status != "pass")
             or r.scenario in (pointers or {})]
    notes = [] if verbose or not _cut_hidden(results) else [f"(reasons cut at {REASON_WIDTH} characters; -v shows "
                                                           "them whole)"]
    return "\n".join(head + rows + ["", summary_line(results), levels_line(results)] + notes
                     + [f"\n{_details(r, pointers or {})}" for r in shown]) + "\n"


def _details(result: Result, pointers: Mapping[str, Pointer]) -> str:
    pointer = pointers.get(result.scenario)
    return "\n".join([details(result), *(text_lines(pointer) if pointer else [])])


def _reason(result: Result, width: int | None) -> str:
    """The row's reason on one line, without the scenario id its row starts with."""
    return one_line(unprefixed(result.scenario, result.reason), width)


def _cut_hidden(results: Sequence[Result]) -> bool:
    """Whether a reason cut in the table is shown nowhere else (the findings show failing ones whole)."""
    return any(len(_reason(r, None)) > REASON_WIDTH and not r.failing for r in results)
