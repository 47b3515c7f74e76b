"""The search: Hypothesis draws examples, the session runs them, a failure is shrunk to its smallest example.

Each distinct failure (oracle, law, field of an example's first finding) raises an exception class of its own, so
Hypothesis shrinks every one separately and replays each smallest example last (``report_multiple_bugs``); the last
example recorded for a failure is its shrunk one. Failing examples are kept in an example database folder and
re-run first next time, as they were shrunk (as proptest's regression files: Hypothesis' own database would be
turned off by the fixed seed of a derandomized run). A profile fixes the run:
``ci`` is derandomized (the same examples every run until the drawing changes) and bounded in examples and time;
``deep`` draws many more, from a random seed. Past the time budget no new example runs; shrinking and the final
replays of what was found still do.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.studies.explore.draw import DrawOptions, Example, conversations
from harness.studies.explore.families import FAMILIES
from harness.studies.explore.oracles import Finding
from harness.studies.explore.session import Outcome, Session, outputs_differ

__all__ = ["PROFILES", "Failure", "Profile", "Report", "explore"]

_ORDER = ("adapter", "law", "conservation", "rule", "request", "round_trip", "assembly", "parity", "compare")


@dataclass(frozen=True)
class Profile:
    name: str
    examples: int
    derandomize: bool
    time_budget: float | None  # seconds of new examples; None: no bound
    max_turns: int


PROFILES = {
    "default": Profile("default", 100, False, None, 3),
    "ci": Profile("ci", 500, True, 300.0, 3),
    "deep": Profile("deep", 5000, False, None, 4),
}


@dataclass
class Failure:
    """One distinct failure: its key, the shrunk example and what the oracles found on it."""

    key: tuple[str, str, str]
    example: Example
    findings: list[Finding]
    seen: int = 1  # examples that showed it before shrinking

    @property
    def grade(self) -> str:
        return "fail" if any(f.grade == "fail" for f in self.findings) else "warn"

    @property
    def headline(self) -> Finding:
        return primary(self.findings)


@dataclass
class Report:
    adapter: str
    profile: str
    seed: int | None
    examples: int
    seconds: float
    failures: list[Failure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def per_second(self) -> float:
        return self.examples / self.seconds if self.seconds else 0.0


def primary(findings: list[Finding]) -> Finding:
    """The finding an example is filed under: failures before warnings, then the earliest turn, then the oracle."""
    return min(findings, key=lambda f: (f.grade != "fail", f.turn, _ORDER.index(f.oracle) if f.oracle in _ORDER
                                        else len(_ORDER), f.law, f.field))


LATE_DRAWS = 1000  # past the time budget: drawings refused before the search is stopped


class OutOfTime(BaseException):
    """The time budget is spent and shrinking has had its share: the search stops (not a finding). Not an
    ``Exception``, so Hypothesis does not take it for a failure: it is neither shrunk nor replayed (a replay past the
    deadline met another outcome than the first run's, and the stop was reported as a flaky failure), but passes out
    of the search at once, as an interrupt would; the findings are the ones ``check`` kept."""


class Found(Exception):
    """An example with a finding; a subclass per failure key keeps Hypothesis' shrinking of each one apart."""


_KINDS: dict[tuple, type] = {}


def _kind(key: tuple) -> type:
    if key not in _KINDS:
        _KINDS[key] = type("Found_" + "_".join(key).replace("-", "_"), (Found,), {})
    return _KINDS[key]


@contextmanager
def _quiet():
    """The endpoint logs each error it answers (a fault it was told to inject): not news while exploring."""
    logger = logging.getLogger("harness.endpoint")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


@dataclass
class _State:
    """What the test function keeps across examples."""

    deadline: float | None
    count: int = 0
    seen: Counter = field(default_factory=Counter)
    best: dict = field(default_factory=dict)  # key -> (example, findings) last raised: after the run, the shrunk one
    failing: set = field(default_factory=set)  # documents of every failing example (they replay past the deadline)
    late: int = 0  # examples drawn past the deadline and not run


def _document_key(example: Example) -> str:
    return json.dumps([example.document, sorted(example.cuts.items())], sort_keys=True, default=str)


def _judged(session: Session, other: Session | None, example: Example) -> Outcome:
    outcome = session.run(example)
    if other is not None:
        theirs = other.run(example)
        outcome.findings += outputs_differ(outcome.outputs, theirs.outputs, session.capabilities & other.capabilities)
    return outcome


def explore(adapter: Any, *, profile: str = "default", examples: int | None = None, seed: int | None = None,
            families: tuple[str, ...] = (), max_turns: int | None = None, time_budget: float | None = None,
            db: Path | None = None, compare: Any = None, in_process: bool = True,
            progress: Callable[[int], None] | None = None) -> Report:
    """Explore ``adapter``; the profile's settings unless given (this module needs Hypothesis: ``needs``)."""
    from hypothesis import HealthCheck, Phase, Verbosity, assume, given, settings
    from hypothesis import seed as seeded
    from hypothesis.errors import Flaky

    chosen = PROFILES[profile]
    chosen = replace(chosen, examples=examples or chosen.examples, max_turns=max_turns or chosen.max_turns,
                     time_budget=time_budget if time_budget is not None else chosen.time_budget)
    fams = tuple(f for f in FAMILIES if not families or f.name in families)
    caps = frozenset(adapter.capabilities)
    options = DrawOptions(fams, caps, chosen.max_turns, non_streaming="non_streaming" in caps)
    start = time.monotonic()
    state = _State(start + chosen.time_budget if chosen.time_budget else None)
    known: set = set()

    def check(example: Example) -> None:
        drawn = _document_key(example)
        if state.deadline and time.monotonic() > state.deadline and drawn not in state.failing:
            state.late += 1
            if state.late > LATE_DRAWS:  # Hypothesis would go on drawing to ten times --examples: stop it
                raise OutOfTime()
            assume(False)  # out of time: no new example runs (shrinking and the final replays still do)
        state.count += 1
        if progress:
            progress(state.count)
        outcome = _judged(session, other, example)
        if not outcome.findings:
            return
        head = primary(outcome.findings)
        state.seen[head.key] += 1
        if head.key not in known:  # a kept example already holds it, shrunk on an earlier run
            state.best[head.key] = (example, outcome.findings)
        state.failing.add(drawn)
        raise _kind(head.key)(head.message)

    test = given(conversations(options))(check)
    test = settings(max_examples=chosen.examples, deadline=None, derandomize=chosen.derandomize and seed is None,
                    database=None, report_multiple_bugs=True,
                    suppress_health_check=list(HealthCheck), print_blob=False,
                    verbosity=Verbosity.quiet,  # the report says what was found; Hypothesis' own lines (the seed
                    # to add when the search is stopped, falsifying examples) would only interleave with it
                    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink])(test)
    if seed is not None:
        test = seeded(seed)(test)
    notes = []
    kept = _load(db) if db else []
    with _quiet(), Session(adapter, in_process) as session, _maybe(compare, in_process) as other:
        for example in kept:  # the database's failing examples first, as they were shrunk
            outcome = _judged(session, other, example)
            state.count += 1
            if outcome.findings:
                key = primary(outcome.findings).key
                state.seen[key] += 1
                state.best.setdefault(key, (example, outcome.findings))
        known = set(state.best)
        try:
            test()
        except Flaky as exc:
            notes.append(f"flaky: a failure did not reproduce when replayed ({type(exc).__name__}{_first_cause(exc)})")
        except (Found, OutOfTime):
            pass
        except BaseException as exc:  # noqa: BLE001 - an exception group of several Found, or a real crash
            if not _only_found(exc):
                raise
    if state.late:
        notes.append(f"time budget of {chosen.time_budget:g}s spent after {state.count} examples")
    failures = [Failure(key, *state.best[key], state.seen[key]) for key in sorted(state.best)]
    if db:
        _save(db, [f.example for f in failures if f.key not in known])
    name = getattr(adapter, "name", type(adapter).__name__)
    return Report(name, chosen.name, seed, state.count, time.monotonic() - start, failures, notes)


def _first_cause(flaky: BaseException) -> str:
    """What the example raised the first time (Hypothesis keeps it in the Flaky group), as ": Type: text" in one
    line, so the note says what to look for; "" when it kept none."""
    inner = next(iter(getattr(flaky, "exceptions", ()) or ()), None)
    if inner is None:
        return ""
    text = " ".join(str(inner).split())
    return f": {type(inner).__name__}" + (f": {text[:300]}" if text else "")


def _load(db: Path) -> list[Example]:
    """The failing examples kept in ``db`` (one JSON file each), oldest first; an unreadable one is skipped."""
    kept = []
    for path in sorted(Path(db).glob("*.json"), key=lambda p: (p.stat().st_mtime, p.name)):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            cuts = {int(turn): tuple(cut) for turn, cut in data.get("cuts", {}).items()}
            kept.append(Example(data["document"], data["family"], list(data.get("claims", [])), cuts))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return kept


def _save(db: Path, examples: list[Example]) -> None:
    """Keep each shrunk failing example in ``db`` under the hash of what was drawn (written atomically)."""
    from harness.cassettes.files import write_atomic

    Path(db).mkdir(parents=True, exist_ok=True)
    for example in examples:
        data = {"document": example.document, "family": example.family, "claims": example.claims,
                "cuts": {str(k): list(v) for k, v in example.cuts.items()}}
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1)
        name = hashlib.sha256(text.encode()).hexdigest()[:16]
        write_atomic(Path(db) / f"{name}.json", text + "\n")


def _only_found(exc: BaseException) -> bool:
    if isinstance(exc, (Found, OutOfTime)):
        return True
    inner = getattr(exc, "exceptions", None)
    return bool(inner) and all(_only_found(e) for e in inner)


@contextmanager
def _maybe(adapter: Any, in_process: bool):
    if adapter is None:
        yield None
        return
    with Session(adapter, in_process) as session:
        yield session
