"""Findings that repeat across most failing scenarios, stated once at the top of a report.

An old release that never reports a stop reason fails 21 of 30 scenarios with the same finding; listed in each
scenario, it buries what is particular to each. A finding is one line a turn reports (a change line of a diff, a
stream law, a request rule); with its scenario id, turn, chunk and block numbers taken out, one found in more
than half of the failing scenarios (fail, error, xpass, xfail) is common. Human reports state each common finding
once at the top and leave it out of each scenario's findings (and reason), so each shows its own first (a scenario with no other finding keeps its
reason); the JSON
report keeps every finding per result and lists the common ones in ``common_findings``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from harness.judge.compare import Diff
from harness.report.common import unprefixed
from harness.suite.results import Result, TurnResult

__all__ = ["Common", "common_findings", "generic", "heading", "without"]

LISTED = frozenset({"fail", "error", "xpass", "xfail"})  # the scenarios whose findings a report lists
_NUMBERED = re.compile(r"\b(turn|chunks?|block) \d+( and \d+)?")


@dataclass(frozen=True)
class Common:
    """A finding (scenario-specific parts taken out) and the failing scenarios it was found in, of ``of``."""

    finding: str
    scenarios: tuple[str, ...]
    of: int

    def line(self) -> str:
        return f"in {len(self.scenarios)} of {self.of} failing scenarios: {self.finding}"

    def as_json(self) -> dict:
        return {"finding": self.finding, "count": len(self.scenarios), "of": self.of, "scenarios": list(self.scenarios)}


def generic(scenario: str, finding: str) -> str:
    """A finding without its scenario id, its turn, chunk and block numbers (``turn N chunk N``)."""
    return _NUMBERED.sub(lambda m: f"{m.group(1)} N" + (" and N" if m.group(2) else ""), unprefixed(scenario, finding))


def _is_finding(line: str) -> bool:
    """A finding's line, not a listing's row, header or traceback line (those are indented, ``!``-marked or titled)."""
    return bool(line.strip()) and not line[0].isspace() and not line.startswith(("!", "Traceback (innermost"))


def _texts(turn: TurnResult) -> list[str]:
    return [turn.chunk_text(), *turn.request_texts()]


def _findings(turn: TurnResult) -> list[str]:
    return [line for text in _texts(turn) for line in text.splitlines() if _is_finding(line)]


def common_findings(results: Sequence[Result]) -> list[Common]:
    """Each finding found in more than half of the failing scenarios (two at least), in first-found order."""
    failing = [r for r in results if r.status in LISTED]
    found: dict[str, list[str]] = {}
    for result in failing:
        for text in dict.fromkeys(generic(result.scenario, f) for turn in result.turns for f in _findings(turn)):
            found.setdefault(text, []).append(result.scenario)
    return [Common(text, tuple(ids), len(failing)) for text, ids in found.items()
            if len(ids) > 1 and 2 * len(ids) > len(failing)]


def heading(common: Sequence[Common]) -> list[str]:
    """The lines stating the common findings (none when there are none)."""
    if not common:
        return []
    return ["common to most failing scenarios (left out of each one's findings):", *(f"  {c.line()}" for c in common)]


def without(result: Result, common: Sequence[Common]) -> Result:
    """``result`` with the common findings left out of its turns' texts (a text left with no finding of its own goes),
    and its reason its first own finding when the reason was a common one. Built from the rendered texts, as
    ``results_from_json`` builds turns, so that a report and the same report merged from shards read alike."""
    texts = {c.finding for c in common if result.scenario in c.scenarios}
    if not texts:
        return result

    def kept(text: str) -> str:
        lines = [line for line in text.splitlines() if not (_is_finding(line) and generic(result.scenario, line) in texts)]
        return "\n".join(lines).strip("\n") if any(map(_is_finding, lines)) else ""

    turns = tuple(_rebuilt(turn, kept) for turn in result.turns)
    own = next((_first(text) for turn in turns for text in [*turn.request_texts(), turn.chunk_text()] if _first(text)), "")
    common_reason = generic(result.scenario, result.reason.splitlines()[0] if result.reason else "") in texts
    return replace(result, turns=turns, reason=own if own and common_reason else result.reason)


def _rebuilt(turn: TurnResult, kept: Callable[[str], str]) -> TurnResult:
    """The turn from its texts, each through ``kept`` (empty ones left out)."""
    chunks, rules = kept(turn.chunk_text()), [kept(rule) for rule in turn.request_problems]
    diffs = [kept(text) for text in turn.request_texts()[len(turn.request_problems):]]
    return TurnResult(turn.index, ((Diff("chunks", (chunks,)),) if chunks else ()) + tuple(
        Diff("request", (d,)) for d in diffs if d), request_problems=tuple(r for r in rules if r),
        request_notes=turn.request_notes, warnings=turn.warnings)


def _first(text: str) -> str:
    return next((line for line in text.splitlines() if _is_finding(line)), "")
