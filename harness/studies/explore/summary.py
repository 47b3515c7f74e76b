"""What an exploration found, once per distinct failure, grouped by oracle and law, then field (text and JSON)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from harness.studies.explore.search import Report

__all__ = ["render_json", "render_text"]


def render_text(report: Report, written: Sequence = ()) -> str:
    """The summary: the run's figures, then each law with its fields, the shrunk example's finding and file."""
    fails = sum(1 for f in report.failures if f.grade == "fail")
    warns = len(report.failures) - fails
    seed = f", seed {report.seed}" if report.seed is not None else ""
    lines = [f"explore {report.adapter}: {report.examples} examples in {report.seconds:.1f}s "
             f"({report.per_second:.1f}/s), profile {report.profile}{seed}: "
             + (f"{fails} failure(s), {warns} warning(s)" if report.failures else "nothing found")]
    by_law = sorted(report.failures, key=lambda f: f.key)
    for (oracle, law), group in groupby(by_law, key=lambda f: f.key[:2]):
        lines.append(f"{oracle}/{law}")
        for failure in group:
            head = failure.headline
            field = failure.key[2] or "-"
            lines.append(f"  {failure.grade} [{field}] seen in {failure.seen} example(s), shrunk to "
                         f"{_shape(failure)}: {head.message}")
            lines += [f"    wrote {w.path} (run: {w.status})" for w in written if w.failure is failure]
    lines += [f"note: {n}" for n in report.notes]
    return "\n".join(lines) + "\n"


def _shape(failure) -> str:
    """A few words on the shrunk example: family, turns, blocks of each turn."""
    turns = failure.example.document["turns"]
    kinds = [",".join(next(iter(b)) for b in t["script"]["content"]) for t in turns]
    return f"{failure.example.family}, {len(turns)} turn(s) [{' | '.join(kinds)}]"


def render_json(report: Report, written: Sequence = ()) -> dict:
    paths = {id(w.failure): w for w in written}
    return {"adapter": report.adapter, "profile": report.profile, "seed": report.seed, "examples": report.examples,
            "seconds": round(report.seconds, 3), "per_second": round(report.per_second, 2), "notes": report.notes,
            "failures": [{"oracle": f.key[0], "law": f.key[1], "field": f.key[2], "grade": f.grade, "seen": f.seen,
                          "message": f.headline.message, "family": f.example.family,
                          "findings": [vars(x) for x in f.findings],
                          **({"scenario": paths[id(f)].scenario, "path": str(paths[id(f)].path),
                              "replays": paths[id(f)].status} if id(f) in paths else {})}
                         for f in report.failures]}
