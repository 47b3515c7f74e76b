"""Live certification: every scenario's turns against real Bedrock through the recording proxy, with retries.

Live output varies run to run, so goldens do not apply. An attempt streams the scenario's turns through the adapter
against the proxy (harness.endpoint.proxy, one tape per attempt) and is judged by the scenario's ``hard`` checks,
the stream laws and Bedrock's request rules on every request the adapter sent (each a failure) and its ``soft``
checks (warnings). A scenario gets up to K attempts and stops at the first that passes: pass@1 is whether the first
attempt passed, pass@K whether any did (the seed plan's hard/soft assertions with retries). The recording of a
failed attempt is kept for offline replay (``serve --cassette``); a passing attempt's is dropped. Scenarios tagged
``emulator_only`` (injected faults, scripted edge cases Bedrock does not produce on demand) are skipped.

``live_session`` (one scenario through the proxy onto one tape) is also what drift detection records with.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from harness.cassettes.files import write_atomic
from harness.endpoint.exchange import RequestError
from harness.endpoint.proxy import RecordingProxy, Tape, source_of
from harness.endpoint.server import BedrockServer
from harness.endpoint.upstream import Upstream
from harness.suite import checks
from harness.judge.laws import laws
from harness.judge.normalize import normalize
from harness.judge.protocol import AdapterFailure, AdapterSkip
from harness.report import adapter_info
from harness.suite.runner import Run, loopback_endpoint, replay
from harness.suite.scenario import Scenario
from harness.version import __version__

__all__ = ["EMULATOR_ONLY", "Attempt", "LiveResult", "Session", "certify_live", "exit_code", "judge", "live_session",
           "proxy_server", "render_json", "render_text"]

EMULATOR_ONLY = "emulator_only"
_SKIP_EMULATOR_ONLY = (f"tagged {EMULATOR_ONLY}: it depends on what only the emulator does on demand (injected "
                       "faults, scripted edge cases)")


@dataclass(frozen=True)
class Session:
    """One live scenario session: the adapter's run, its tape, and every request the proxy received."""

    run: Run
    tape: Tape
    requests: tuple


class _Idle:
    def respond(self, request):
        raise RequestError(400, "ValidationException", "no scenario is being recorded on this endpoint")


def proxy_server() -> BedrockServer:
    """The one loopback server of a live run (use it in ``with``); each session points it at its own tape."""
    return BedrockServer(_Idle(), validate=False)


def live_session(scenario: Scenario, adapter: Any, server: BedrockServer, upstream: Upstream, path: Path) -> Session:
    """Stream ``scenario`` through ``adapter`` against ``server`` proxying to ``upstream``, recording onto ``path``
    (in a scratch folder of the run's: its suite's folder is made here)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tape = Tape(path, overwrite=True, source=source_of(upstream.url))
    server.reset(RecordingProxy(upstream, tape), validate=False)
    try:
        run = replay(scenario, adapter, loopback_endpoint(server, upstream.region), server)
        tape.wait()
        return Session(run, tape, tuple(server.requests))
    finally:
        server.reset(_Idle())


@dataclass(frozen=True)
class Attempt:
    """One attempt's verdict: failures (hard checks, laws, request rules, a broken adapter), soft warnings."""

    number: int
    failures: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    cassette: str | None = None  # where the recording of a failed attempt was kept

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass(frozen=True)
class LiveResult:
    """A scenario's attempts; ``status`` pass (some attempt passed), fail, or skip with the reason."""

    scenario: str
    status: str
    reason: str = ""
    attempts: tuple[Attempt, ...] = ()

    def pass_at(self, k: int) -> int | None:
        """1 when one of the first ``k`` attempts passed, 0 when none did, None for a skip."""
        if self.status == "skip":
            return None
        return int(any(a.passed for a in self.attempts[:k]))


def judge(scenario: Scenario, session: Session, capabilities: frozenset[str]) -> tuple[list[str], list[str]]:
    """(failures, warnings) of one session: hard checks, laws, Bedrock's rules on every request; soft checks."""
    outcome = checks.evaluate(scenario.checks, [normalize(t["chunks"]) for t in session.run.turns],
                              source=str(scenario.path))
    failures = list(outcome.hard_failures)
    for index, turn in enumerate(session.run.turns):
        failures += [f"turn {index}: law: {violation}" for violation in laws(turn["chunks"], capabilities)]
    for n, request in enumerate(session.requests):
        failures += [f"request {n + 1} (turn {request.turn}): {problem}" for problem in request.problems]
    if session.tape.refused:
        failures.append(f"recording refused: {session.tape.refused}")
    return failures, list(outcome.soft_warnings)


def _fresh_conversation(scenario: Scenario, number: int) -> Scenario:
    """The scenario as attempt ``number`` runs it: from the second attempt on, its turns name another conversation
    (``<id>#attempt-N``), so an adapter that owns its history starts afresh instead of continuing the last try."""
    return scenario if number == 1 else dataclasses.replace(scenario, id=f"{scenario.id}#attempt-{number}")


def _attempt(scenario: Scenario, adapter: Any, server: BedrockServer, upstream: Upstream, path: Path,
             number: int) -> tuple[Attempt, Session | None]:
    try:
        session = live_session(_fresh_conversation(scenario, number), adapter, server, upstream, path)
    except AdapterSkip:
        raise
    except AdapterFailure as error:
        return Attempt(number, (f"the adapter broke: {error}",)), None
    failures, warnings = judge(scenario, session, frozenset(adapter.capabilities))
    return Attempt(number, tuple(failures), tuple(warnings)), session


def _keep(attempt: Attempt, session: Session | None, scenario: Scenario, keep_dir: Path) -> Attempt:
    """A failed attempt with its recording moved into ``keep_dir`` (never over an existing file)."""
    if attempt.passed or session is None or not session.tape.written:
        return attempt
    target = keep_dir / f"{scenario.id}.attempt-{attempt.number}.yaml"
    if target.exists():
        return dataclasses.replace(attempt, failures=attempt.failures + (f"recording not kept: {target} exists",))
    # Copied, not renamed: the scratch folder is in the system temp dir, often another file system than keep_dir.
    target.parent.mkdir(parents=True, exist_ok=True)  # keep_dir (its parent checked by the CLI) and the suite's
    write_atomic(target, session.tape.path.read_text(encoding="utf-8"))
    session.tape.path.unlink()
    return dataclasses.replace(attempt, cassette=str(target))


def _scenario_result(scenario: Scenario, adapter: Any, server: BedrockServer, upstream: Upstream, attempts: int,
                     keep_dir: Path, scratch: Path) -> LiveResult:
    if EMULATOR_ONLY in scenario.tags:
        return LiveResult(scenario.id, "skip", _SKIP_EMULATOR_ONLY)
    unmet = scenario.unmet(adapter.capabilities)
    if unmet:
        return LiveResult(scenario.id, "skip", f"adapter lacks {', '.join(sorted(unmet))}")
    done: list[Attempt] = []
    try:
        while len(done) < attempts and not (done and done[-1].passed):
            path = scratch / f"{scenario.id}.attempt-{len(done) + 1}.yaml"
            attempt, session = _attempt(scenario, adapter, server, upstream, path, len(done) + 1)
            done.append(_keep(attempt, session, scenario, keep_dir))
    except AdapterSkip as skip:
        return LiveResult(scenario.id, "skip", str(skip), tuple(done))
    passed = done[-1].passed
    return LiveResult(scenario.id, "pass" if passed else "fail", _reason(done), tuple(done))


def _reason(done: Sequence[Attempt]) -> str:
    """The first failure of each failed attempt, then the soft warnings of the passing one."""
    said = [f"attempt {a.number}: {a.failures[0]}" + (f" (+{len(a.failures) - 1} more)" if len(a.failures) > 1
                                                      else "") for a in done if not a.passed]
    if done and done[-1].passed and done[-1].warnings:
        said.append(f"attempt {done[-1].number} warned: {'; '.join(done[-1].warnings)}")
    return "; ".join(said)


def certify_live(scenarios: Sequence[Scenario], adapter: Any, upstream: Upstream, *, attempts: int = 3,
                 keep_dir: str | Path = "live-failures", model_id: str | None = None,
                 progress: Callable[[int, int, LiveResult], None] | None = None) -> list[LiveResult]:
    """Every scenario's live verdict with up to ``attempts`` tries; failed attempts' recordings go to ``keep_dir``."""
    results: list[LiveResult] = []
    step = adapter.follow(scenarios) if hasattr(adapter, "follow") else None  # a subprocess names the scenario
    with tempfile.TemporaryDirectory(prefix="bedrock-harness-live-") as scratch, proxy_server() as server:
        for done, scenario in enumerate(scenarios, 1):
            chosen = dataclasses.replace(scenario, model_id=model_id) if model_id else scenario
            results.append(_scenario_result(chosen, adapter, server, upstream, attempts, Path(keep_dir),
                                            Path(scratch)))
            if step:
                step(done, len(scenarios), results[-1])
            if progress:
                progress(done, len(scenarios), results[-1])
    return results


def exit_code(results: Sequence[LiveResult]) -> int:
    """1 when some scenario failed every attempt, else 0."""
    return int(any(r.status == "fail" for r in results))


def _mean(values: list[int]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _summary(results: Sequence[LiveResult], attempts: int) -> dict:
    judged = [r for r in results if r.status != "skip"]
    counts = {s: sum(1 for r in results if r.status == s) for s in ("pass", "fail", "skip")}
    return {"pass@1": _mean([r.pass_at(1) for r in judged]),
            f"pass@{attempts}": _mean([r.pass_at(attempts) for r in judged]), **counts}


def _cell(value: int | None) -> str:
    return "-" if value is None else str(value)


def render_text(results: Sequence[LiveResult], adapter: Any, upstream: str, attempts: int) -> str:
    """A row per scenario (attempts, pass@1, pass@K, status, reason), the summary, the kept recordings."""
    info = adapter_info(adapter)
    ks = sorted({1, attempts})  # one attempt: pass@1 once
    lines = [f"live certification of {info['name']} {info['version']} against {upstream}, up to {attempts} "
             "attempt(s) per scenario",
             f"{'scenario':<36} {'tries':>5} " + " ".join(f"{f'pass@{k}':>6}" for k in ks) + f"  {'status':<6} reason"]
    for r in results:
        lines.append(f"{r.scenario:<36} {len(r.attempts):>5} " + " ".join(f"{_cell(r.pass_at(k)):>6}" for k in ks)
                     + f"  {r.status:<6} {r.reason}".rstrip())
    s = _summary(results, attempts)
    lines.append(f"{len(results)} scenarios: " + ", ".join(f"pass@{k} {_rate(s[f'pass@{k}'])}" for k in ks)
                 + f" over {s['pass'] + s['fail']} judged; {s['pass']} pass, {s['fail']} fail, {s['skip']} skip")
    kept = [a.cassette for r in results for a in r.attempts if a.cassette]
    lines += [f"failed attempt recorded: {path}" for path in kept]
    return "\n".join(lines) + "\n"


def _attempt_json(a: Attempt) -> dict:
    return {"attempt": a.number, "passed": a.passed, "failures": list(a.failures), "warnings": list(a.warnings),
            "cassette": a.cassette}


def render_json(results: Sequence[LiveResult], adapter: Any, upstream: str, attempts: int) -> str:
    """One object: harness version, adapter, upstream, attempts, per-scenario results with pass@k, summary."""
    document = {"harness_version": __version__, "adapter": adapter_info(adapter), "upstream": upstream,
                "attempts": attempts,
                "results": [{"scenario": r.scenario, "status": r.status, "reason": r.reason,
                             "pass@1": r.pass_at(1), f"pass@{attempts}": r.pass_at(attempts),
                             "attempts": [_attempt_json(a) for a in r.attempts]} for r in results],
                "summary": _summary(results, attempts)}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
