"""Drift detection: record each scenario afresh through the recording proxy and compare its wire shape
(harness.studies.shape) with the shipped cassette's.

The fresh recording is made by the same adapter that recorded the shipped cassettes (the reference adapter), into
a temporary folder that is removed afterwards. A scenario is ``changed`` when any shape difference is found,
``same`` when none, ``skip`` when tagged ``emulator_only`` (its shipped cassette holds injected faults that no
fresh recording reproduces), ``error`` when it has no shipped cassette, the recording failed, or the upstream
answered with an HTTP error where the shipped cassette has a success (no model access, throttling: not the wire's
shape).
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from harness.cassettes import cassette
from harness.cassettes.cassette import Cassette
from harness.endpoint.upstream import Upstream
from harness.studies.live import EMULATOR_ONLY, live_session, proxy_server
from harness.judge.protocol import AdapterFailure
from harness.suite.runner import cassette_path
from harness.suite.scenario import Scenario
from harness.studies.shape import Difference, compare, shape_of
from harness.version import __version__

__all__ = ["DriftResult", "drift", "exit_code", "render_json", "render_text"]


@dataclass(frozen=True)
class DriftResult:
    """One scenario: ``status`` same | changed | skip | error, the differences, and why for skip or error."""

    scenario: str
    status: str
    differences: tuple[Difference, ...] = ()
    reason: str = ""


def _fresh(scenario: Scenario, adapter: Any, server, upstream: Upstream, scratch: Path) -> tuple[Path | None, str]:
    """(the fresh recording, "") or (None, why it failed)."""
    try:
        session = live_session(scenario, adapter, server, upstream, scratch / f"{scenario.id}.yaml")
    except AdapterFailure as error:
        return None, f"the adapter broke: {error}"
    if session.tape.refused or not session.tape.written:
        return None, f"recording failed: {session.tape.refused or _nothing_recorded(session.run)}"
    return session.tape.path, ""


def _nothing_recorded(run) -> str:
    """Why no exchange was recorded: the first error the adapter got (the proxy's 503 names an unreachable upstream)."""
    errors = [f"turn {n}: {chunk.get('code')}: {chunk.get('message')}" for n, turn in enumerate(run.turns)
              for chunk in turn["chunks"] if chunk.get("type") == "error"]
    return "nothing was recorded" + (f" ({errors[0]})" if errors else "")


def _error_answer(shipped: Cassette, fresh: Cassette) -> str:
    """The first HTTP error the upstream answered where the shipped cassette has a success ("" when none): no model
    access, throttling or a refused signature is the account's or the request's matter, not a change of the wire."""
    for n, it in enumerate(fresh.interactions):
        before = shipped.interactions[n].status if n < len(shipped.interactions) else 200
        if it.status >= 400 and before < 400:
            body = it.response_json if isinstance(it.response_json, dict) else {}
            kind = next((str(v) for k, v in it.response_headers.items() if k.lower() == "x-amzn-errortype"), "")
            kind = kind.split(":")[0] or body.get("__type") or "error"
            return f"interaction {n}: HTTP {it.status} {kind}: {body.get('message') or body.get('Message') or ''}"
    return ""


def _one(scenario: Scenario, adapter: Any, server, upstream: Upstream, root: Path, scratch: Path,
         include_emulator_only: bool) -> DriftResult:
    if EMULATOR_ONLY in scenario.tags and not include_emulator_only:
        return DriftResult(scenario.id, "skip", reason=f"tagged {EMULATOR_ONLY}: its shipped cassette holds what "
                                                       "only the emulator produces")
    shipped = cassette_path(root, scenario)
    if not shipped.is_file():
        return DriftResult(scenario.id, "error", reason=f"no shipped cassette at {shipped}")
    fresh, why = _fresh(scenario, adapter, server, upstream, scratch)
    if fresh is None:
        return DriftResult(scenario.id, "error", reason=why)
    before, after = cassette.load(shipped), cassette.load(fresh)
    refused = _error_answer(before, after)
    if refused:
        return DriftResult(scenario.id, "error", reason=f"the upstream answered with an error, no shape to compare: "
                                                        f"{refused}")
    differences = compare(shape_of(before), shape_of(after))
    return DriftResult(scenario.id, "changed" if differences else "same", tuple(differences))


def drift(scenarios: Sequence[Scenario], adapter: Any, upstream: Upstream, root: str | Path, *,
          model_id: str | None = None, include_emulator_only: bool = False,
          progress: Callable[[int, int, DriftResult], None] | None = None) -> list[DriftResult]:
    """Every scenario's drift verdict: fresh recordings through ``upstream`` against the cassettes under ``root``."""
    results = []
    with tempfile.TemporaryDirectory(prefix="bedrock-harness-drift-") as scratch, proxy_server() as server:
        for done, scenario in enumerate(scenarios, 1):
            chosen = dataclasses.replace(scenario, model_id=model_id) if model_id else scenario
            results.append(_one(chosen, adapter, server, upstream, Path(root), Path(scratch), include_emulator_only))
            if progress:
                progress(done, len(scenarios), results[-1])
    return results


def exit_code(results: Sequence[DriftResult]) -> int:
    """1 when a shape changed or a scenario could not be recorded, else 0."""
    return int(any(r.status in ("changed", "error") for r in results))


def _counts(results: Sequence[DriftResult]) -> dict[str, int]:
    return {s: sum(1 for r in results if r.status == s) for s in ("changed", "same", "skip", "error")}


def render_text(results: Sequence[DriftResult], upstream: str) -> str:
    """A table of differences per scenario (shipped vs fresh), one line for a scenario without any, a summary."""
    rows = [(r.scenario, d.what, d.shipped, d.fresh) for r in results for d in r.differences]
    width = [max([len(h), *(len(row[i]) for row in rows)]) for i, h in enumerate(("scenario", "what", "shipped"))]
    width[0] = max([width[0], *(len(r.scenario) for r in results)])
    lines = [f"drift against {upstream}: wire shape of fresh recordings vs the shipped cassettes "
             "(content and ids ignored)",
             f"{'scenario':<{width[0]}}  {'what':<{width[1]}}  {'shipped':<{width[2]}}  fresh"]
    for r in results:
        lines += [f"{a:<{width[0]}}  {b:<{width[1]}}  {c:<{width[2]}}  {d}".rstrip()
                  for a, b, c, d in rows if a == r.scenario]
        if not r.differences:
            lines.append(f"{r.scenario:<{width[0]}}  {r.status}" + (f": {r.reason}" if r.reason else ""))
    lines.append(f"{len(results)} scenarios: " + ", ".join(f"{n} {s}" for s, n in _counts(results).items()))
    return "\n".join(lines) + "\n"


def render_json(results: Sequence[DriftResult], upstream: str) -> str:
    document = {"harness_version": __version__, "upstream": upstream,
                "results": [{"scenario": r.scenario, "status": r.status, "reason": r.reason,
                             "differences": [dataclasses.asdict(d) for d in r.differences]} for r in results],
                "summary": _counts(results)}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
