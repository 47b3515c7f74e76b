"""Capture a scenario's cassette through the real record path: reference adapter -> boto3 -> vcrpy -> endpoint.

The endpoint is the local emulator (``--emulate``), real Bedrock (``--live``, default credential chain) or any
URL. Every attempt records into a temporary file beside the cassette; the cassette is replaced only when the
scenario's hard checks hold (soft checks retry while attempts remain, then warn), so a failed or refused
recording never touches an existing cassette.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from harness.suite import checks, roots
from harness.endpoint.faults import Faults
from harness.judge.normalize import normalize
from harness.cassettes.files import replace_keeping_mode
from harness.cassettes.secrets import SecretFound
from harness.cassettes.vcr import use_cassette
from harness.suite.runner import Run, cassette_path, loopback_endpoint, replay
from harness.suite.scenario import Scenario
from harness.endpoint.server import BedrockServer

__all__ = ["MODES", "Outcome", "Target", "record_scenario"]

# once: record only missing cassettes; rewrite/all: record again, replacing on success; none: record nothing.
MODES = ("once", "rewrite", "all", "none")


@dataclass(frozen=True)
class Target:
    """Where recordings go: the emulator, or an endpoint dict (live: no endpoint_url, default credentials)."""

    source: str  # what the cassette metadata says: emulator | live
    endpoint: dict | None = None  # None: run the local emulator; else an endpoint dict (no endpoint_url: AWS)
    model_id: str | None = None  # overrides the scenario's model id (live)


@dataclass(frozen=True)
class Outcome:
    scenario: str
    status: str  # recorded | exists | missing | failed | refused
    path: Path
    attempts: int = 0
    messages: tuple[str, ...] = ()  # what the checks said, per attempt
    reason: str = ""  # why a recording was refused or never made


def _attempt(scenario: Scenario, adapter: Any, target: Target, temp: Path, allowed: tuple[str, ...],
             refused: list) -> Run:
    """One recording of ``scenario`` into ``temp``; each refused secret is added to ``refused``."""
    with use_cassette(temp, record_mode="all", source=target.source, allowed_secrets=allowed, refused=refused):
        if target.endpoint is not None:
            return replay(scenario, adapter, target.endpoint)
        with BedrockServer.from_scenario(scenario, faults=Faults()) as server:
            return replay(scenario, adapter, loopback_endpoint(server), server)


def _judge(scenario: Scenario, run: Run) -> checks.CheckOutcome:
    return checks.evaluate(scenario.checks, [normalize(t["chunks"]) for t in run.turns], source=str(scenario.path))


def _refusal(scenario: Scenario, adapter: Any, target: Target, temp: Path, allowed: tuple[str, ...]):
    """(run, the first refused secret or None) of one attempt."""
    refused: list[SecretFound] = []
    try:
        run = _attempt(scenario, adapter, target, temp, allowed, refused)
    except SecretFound as err:  # raised when the cassette is written, after the calls
        return None, err
    return run, (refused[0] if refused else None)


def record_scenario(scenario: Scenario, adapter: Any, root: Path, target: Target, mode: str = "once",
                    attempts: int = 1, say: Callable[[str], None] = lambda _: None,
                    allowed: Iterable[str] = ()) -> Outcome:
    """Record ``scenario``'s cassette per ``mode``, retrying up to ``attempts`` times on failed checks; a
    secret-shaped value not ``allowed`` refuses the recording at once (status ``refused``, the finding said)."""
    path = cassette_path(root, scenario)
    if mode not in MODES:
        raise ValueError(f"unknown record mode {mode!r} (known: {', '.join(MODES)})")
    if mode == "none" or (mode == "once" and path.exists()):
        return Outcome(scenario.id, "exists" if path.exists() else "missing", path)
    if roots.installed(path):
        return Outcome(scenario.id, "refused", path, reason=roots.READ_ONLY)
    if target.model_id:
        scenario = dataclasses.replace(scenario, model_id=target.model_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.stem}.recording.yaml")
    outcome = None
    try:
        for n in range(1, attempts + 1):
            temp.unlink(missing_ok=True)
            run, refusal = _refusal(scenario, adapter, target, temp, tuple(allowed))
            if refusal is not None:  # the same call would hold the same value again: no retry
                return Outcome(scenario.id, "refused", path, n, reason=str(refusal))
            if not temp.is_file():
                return Outcome(scenario.id, "failed", path, n, reason="nothing was recorded (no call was answered)")
            verdict = _judge(scenario, run)
            outcome = Outcome(scenario.id, "failed", path, n, tuple(verdict.hard_failures + verdict.soft_warnings))
            for message in outcome.messages:
                say(f"{scenario.id} attempt {n}/{attempts}: {message}")
            if verdict.passed and (not verdict.soft_warnings or n == attempts):
                replace_keeping_mode(temp, path)
                return dataclasses.replace(outcome, status="recorded")
        return outcome
    finally:
        temp.unlink(missing_ok=True)
