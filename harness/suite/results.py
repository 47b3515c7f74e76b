"""What a run produces: one Result per scenario, one TurnResult per turn (the runner fills them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from harness.judge.compare import Diff
from harness.judge.grade import Warned
from harness.suite.levels import LEVELS, RECOMMENDED, REQUIRED

__all__ = ["FAILING", "LEVELS", "RECOMMENDED", "REQUIRED", "STATUSES", "STRICT_FAILING", "Result", "TurnResult",
           "Warned", "failing", "level_scores", "verdict"]

STATUSES = ("pass", "warn", "fail", "error", "skip", "xfail", "xpass")
FAILING = frozenset({"fail", "error", "xpass"})  # any of these makes the run exit 1
STRICT_FAILING = FAILING | {"warn"}  # with --strict, a warning fails the run too
MET = frozenset({"pass", "warn"})  # a scenario that counts towards its level; skips count neither way


@dataclass(frozen=True)
class TurnResult:
    """One turn's findings: golden diffs (chunks, request), stream-law violations, request-rule problems (each of
    them a **fail**: evidence supports it), and the findings graded **warn**."""

    index: int
    diffs: tuple[Diff, ...] = ()
    laws: tuple[str, ...] = ()
    request_problems: tuple[str, ...] = ()
    request_notes: tuple[str, ...] = ()  # requests accepted as recorded, turns parity could not judge
    warnings: tuple[Warned, ...] = ()

    @property
    def ok(self) -> bool:
        return not (self.diffs or self.laws or self.request_problems)

    @property
    def headline(self) -> str:
        """The first finding, for a result's one-line reason."""
        # In the order things happened: what the adapter sent, what Bedrock said of it, what came back.
        requests = [d.headline for d in self.diffs if d.subject == "request"]
        chunks = [d.headline for d in self.diffs if d.subject != "request"]
        found = requests + list(self.request_problems) + chunks + list(self.laws)
        return found[0] if found else ""

    def chunk_text(self) -> str:
        """Chunk and turn-count diffs and law violations, rendered (the JSON report's ``diff``)."""
        parts = [d.render() for d in self.diffs if d.subject != "request"] + list(self.laws)
        return "\n\n".join(parts)

    def request_texts(self) -> list[str]:
        """Request-rule problems, then golden-request diffs rendered (the JSON report's ``request_problems``)."""
        return list(self.request_problems) + [d.render() for d in self.diffs if d.subject == "request"]


@dataclass(frozen=True)
class Result:
    """One scenario's verdict; ``reason`` says why it is not a plain pass."""

    scenario: str
    status: str
    reason: str = ""
    turns: tuple[TurnResult, ...] = ()
    duration_s: float = 0.0
    level: str = REQUIRED

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"{self.scenario}: unknown status {self.status!r} (known: {', '.join(STATUSES)})")
        if self.level not in LEVELS:
            raise ValueError(f"{self.scenario}: unknown level {self.level!r} (known: {', '.join(LEVELS)})")

    @property
    def failing(self) -> bool:
        return self.status in FAILING

    @property
    def warnings(self) -> tuple[Warned, ...]:
        return tuple(w for turn in self.turns for w in turn.warnings)


def failing(results: Sequence[Result], strict: bool = False, level: str = RECOMMENDED) -> bool:
    """Whether the results fail a run (``strict``: a warning does too; ``level`` required: only required scenarios
    can fail it, the recommended ones are reported)."""
    counted = [r for r in results if level == RECOMMENDED or r.level == REQUIRED]
    return any(r.status in (STRICT_FAILING if strict else FAILING) for r in counted)


def level_scores(results: Sequence[Result]) -> dict[str, dict]:
    """Per level: ``{"met", "of", "percent"}``: the scenarios passed or warned of those run (skips left out);
    percent is None when none of the level ran."""
    scores = {}
    for level in LEVELS:
        ran = [r for r in results if r.level == level and r.status != "skip"]
        met = sum(1 for r in ran if r.status in MET)
        scores[level] = {"met": met, "of": len(ran), "percent": round(100 * met / len(ran), 1) if ran else None}
    return scores


def verdict(turns: Sequence[TurnResult]) -> tuple[str, str]:
    """("pass", "") when every turn is clean, ("fail", the first finding) when a turn is not, else ("warn", the
    first warning and its reason)."""
    for turn in turns:
        if not turn.ok:
            return "fail", turn.headline
    warned = [w for turn in turns for w in turn.warnings]
    return ("warn", f"{warned[0].headline} (warn: {warned[0].reason})") if warned else ("pass", "")
