"""A release x scenario matrix of one adapter's verdicts, its renderings, and bisecting a verdict change.

A ``Row`` is one release: the results of the scenarios it ran, or why it could not run (an install or import
failure is a row, never a crash). ``bisect`` finds the first release where a scenario's verdict differs from
its verdict at a known release, probing as few releases as a binary search needs (verdicts are assumed to
change once between the two ends, as with a bug introduced or fixed once); given a ``finding``, it bisects on that
text appearing in or going from the scenario's report instead (a fix that turns one failure into another leaves the
verdict as it was).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from harness.studies import certify
from harness import report
from harness.report.common import code, one_line, printable
from harness.suite.results import Result
from harness.version import __version__

__all__ = ["FORMATS", "Bisection", "Row", "bisect", "describe", "findings_of", "measured", "render", "said",
           "side_by_side", "state_of", "verdict_of"]

FORMATS = ("text", "markdown", "json")
NOT_RUN = "not run"  # the verdict of a release that could not run
SHOWN, NOT_SHOWN = "shows the finding", "does not show the finding"  # the states of a bisect on a finding


@dataclass(frozen=True)
class Row:
    """One release's results, or why it could not run."""

    release: str
    results: tuple[Result, ...] = ()
    why: str = ""  # non-empty: the release could not run
    adapter: dict = field(default_factory=dict)  # name, version, capabilities as the adapter reported them

    def status(self, scenario: str) -> str:
        return verdict_of(self, scenario)[0]


def measured(release: str, adapter, scenarios: Sequence, root) -> Row:
    """The row of ``release``: the started ``adapter`` (closed afterwards) run over ``scenarios``."""
    try:
        results = certify.run(scenarios, adapter, root)
    finally:
        adapter.close()
    return Row(release, tuple(results), adapter=report.adapter_info(adapter))


def verdict_of(row: Row, scenario: str) -> tuple[str, str]:
    """(status, reason) of ``scenario`` in ``row``; a release that could not run has verdict ``not run``."""
    if row.why:
        return NOT_RUN, row.why
    found = next((r for r in row.results if r.scenario == scenario), None)
    return (found.status, found.reason) if found else (NOT_RUN, f"{scenario} was not run")


def _scenarios(rows: Sequence[Row]) -> list[str]:
    return list(dict.fromkeys(r.scenario for row in rows for r in row.results))


def _not_passing(row: Row) -> str:
    return ", ".join(f"{r.scenario} {r.status}" for r in row.results if r.status not in ("pass", "skip", "xfail"))


def _counts(row: Row) -> str:
    return "" if row.why else ", ".join(f"{n} {s}" for s, n in report.summary(row.results).items() if n)


def describe(row: Row) -> str:
    """One release in a line: its counts and the scenarios that did not pass, or why it could not run."""
    if row.why:
        return f"cannot run: {row.why}"
    return _counts(row) + (f"; not passing: {_not_passing(row)}" if _not_passing(row) else "")


def render_text(rows: Sequence[Row], adapter: str) -> str:
    """A line per release (``describe``)."""
    width = max([len("release")] + [len(one_line(row.release)) for row in rows])
    lines = [f"adapter {printable(adapter, False)}", f"{'release':<{width}}  verdicts"]
    return "\n".join(lines + [f"{one_line(row.release):<{width}}  {one_line(describe(row))}" for row in rows]) + "\n"


def _cell(text: str) -> str:
    return one_line(text).replace("|", "\\|")


def render_markdown(rows: Sequence[Row], adapter: str) -> str:
    """A row per release (counts, or why it cannot run), then the scenario x release grid."""
    lines = [f"**bedrock-harness {__version__}**, adapter {code(printable(adapter, False))}", "",
             "| release | verdicts | not passing |", "|---|---|---|"]
    lines += [f"| {_cell(row.release)} | {_cell(_counts(row)) if not row.why else 'cannot run: ' + _cell(row.why)} | "
              f"{_cell(_not_passing(row))} |" for row in rows]
    lines += ["", "| scenario | " + " | ".join(_cell(row.release) for row in rows) + " |", "|---" * (len(rows) + 1) + "|"]
    for scenario in _scenarios(rows):
        cells = [row.status(scenario) for row in rows]
        lines.append(f"| {_cell(scenario)} | " + " | ".join(c if c in ("pass", "skip") else f"**{c}**" for c in cells) + " |")
    return "\n".join(lines) + "\n"


def render_json(rows: Sequence[Row], adapter: str) -> str:
    """``{"harness_version", "adapter", "releases": [{release, ran, why, adapter, results, summary}]}``."""
    releases = [{"release": row.release, "ran": not row.why, "why": row.why, "adapter": row.adapter,
                 "results": json.loads(report.render_json(row.results))["results"],
                 "summary": report.summary(row.results)} for row in rows]
    return json.dumps({"harness_version": __version__, "adapter": adapter, "releases": releases},
                      indent=2, ensure_ascii=False) + "\n"


def render(rows: Sequence[Row], adapter: str, fmt: str = "text") -> str:
    renderers = {"text": render_text, "markdown": render_markdown, "json": render_json}
    return renderers[fmt](rows, adapter)


@dataclass(frozen=True)
class Bisection:
    """The last release with the starting state and the first with another, each with its row."""

    scenario: str
    before: Row
    after: Row
    probed: tuple[str, ...]  # the releases run, in order
    finding: str = ""  # the text bisected on ("": the verdict)


def findings_of(row: Row, scenario: str) -> str:
    """Everything ``row``'s report says of ``scenario``: its reason, each turn's findings, notes and warnings."""
    result = next((r for r in row.results if r.scenario == scenario), None)
    if result is None:
        return ""
    parts = [result.reason] + [text for turn in result.turns for text in (
        turn.chunk_text(), *turn.request_texts(), *turn.request_notes, *(w.finding for w in turn.warnings))]
    return "\n".join(part for part in parts if part)


def state_of(row: Row, scenario: str, finding: str = "") -> str:
    """What bisect compares: the scenario's verdict, or (``finding``) whether its report holds that text; a release
    that could not run is ``not run`` either way."""
    status = row.status(scenario)
    if not finding or status == NOT_RUN:
        return status
    return SHOWN if finding in findings_of(row, scenario) else NOT_SHOWN


def said(state: str, finding: str = "") -> str:
    """A state as a sentence says it: "is fail", "shows 'TEXT'", "does not show 'TEXT'", "is not run"."""
    return state.replace("the finding", repr(finding)) if state in (SHOWN, NOT_SHOWN) else f"is {state}"


def bisect(releases: Sequence[str], good: str, bad: str, scenario: str, probe: Callable[[str], Row],
           finding: str = "") -> Bisection:
    """The first release from ``good`` towards ``bad`` whose verdict of ``scenario`` differs from ``good``'s, or
    (``finding``) where that text appears in the scenario's report or goes from it.

    ``releases`` is ordered oldest first; ``good`` may come before or after ``bad`` (a fix is found the same way).
    Raises ValueError when a release is unknown or both ends agree.
    """
    for name, release in (("--good", good), ("--bad", bad)):
        if release not in releases:
            raise ValueError(f"{name} {release}: not a known release (known: {', '.join(releases)})")
    if good == bad:
        raise ValueError(f"--good and --bad both name {good}: give two releases")
    first, last = releases.index(good), releases.index(bad)
    span = list(releases[first:last + 1]) if last > first else list(releases[last:first + 1])[::-1]
    rows = {good: probe(good), bad: probe(bad)}
    start = state_of(rows[good], scenario, finding)
    if state_of(rows[bad], scenario, finding) == start:
        raise ValueError(f"{scenario} {said(start, finding)} at both {good} and {bad}: nothing to bisect")
    low, high = 0, len(span) - 1  # span[low] has the starting state, span[high] does not
    while high - low > 1:
        middle = (low + high) // 2
        rows.setdefault(span[middle], probe(span[middle]))
        low, high = (middle, high) if state_of(rows[span[middle]], scenario, finding) == start else (low, middle)
    return Bisection(scenario, rows[span[low]], rows[span[high]], tuple(rows), finding)


def side_by_side(bisection: Bisection, columns: int = 120) -> str:
    """The two releases' reports of the scenario, in two columns that fit a terminal ``columns`` wide."""
    width = max(20, (columns - 3) // 2)
    def column(row: Row) -> list[str]:
        status, reason = verdict_of(row, bisection.scenario)
        head = [f"{row.release}: {status}"]
        if row.why:
            return head + [f"cannot run: {row.why}"]
        result = next(r for r in row.results if r.scenario == bisection.scenario)
        return head + report.render_text([result], row.adapter).splitlines()[1:]

    left, right = column(bisection.before), column(bisection.after)
    left = [piece for line in left for piece in _wrap(line, width)]
    right = [piece for line in right for piece in _wrap(line, width)]
    rows = [f"{a:<{width}} | {b}".rstrip() for a, b in zip(left + [""] * (len(right) - len(left)),
                                                            right + [""] * (len(left) - len(right)))]
    return "\n".join(rows) + "\n"


def _wrap(line: str, width: int) -> list[str]:
    """``line`` in lines of at most ``width`` characters, broken between words (a word longer than a line is cut),
    continued at the line's own indentation; nothing is cut away."""
    indent = line[: len(line) - len(line.lstrip())]
    if len(indent) > width // 2:
        indent = ""
    return textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False) or [""]
