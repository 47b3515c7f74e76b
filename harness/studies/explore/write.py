"""A shrunk failure written as an ordinary scenario root: ``suites/explore/<name>.yaml`` (script, faults, claims),
its cassette recorded from the emulator through the reference adapter (``cassettes/explore/<name>.yaml``, the real
record path) and its golden from the reference (``<name>.golden.yaml``). ``bedrock-harness run --root DIR`` (or
``certify --root DIR``) replays it like any other scenario; ``replays`` runs it at once, so the report says whether it
fails the same way for the explored adapter.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from harness.cassettes.files import write_atomic
from harness.converse import ConverseAdapter
from harness.studies.explore.search import Failure
from harness.suite import golden
from harness.suite.record import Target, record_scenario
from harness.suite.runner import iter_runs, run_scenario
from harness.suite.scenario import load_scenario

__all__ = ["SUITE", "Written", "scenario_name", "write_failure"]

SUITE = "explore"


@dataclass(frozen=True)
class Written:
    scenario: str  # its id
    path: Path
    status: str  # what `run` says with the explored adapter: fail / warn (the same way) or pass (it does not replay)
    reason: str
    failure: Failure


def scenario_name(failure: Failure) -> str:
    """``<oracle>-<law>-<field>-<hash>``: readable, and stable for the same shrunk example."""
    words = re.sub(r"[^a-z0-9]+", "-", "-".join(part for part in failure.key if part).lower()).strip("-")
    drawn = {"document": failure.example.document, "cuts": sorted(failure.example.cuts.items())}
    digest = hashlib.sha256(json.dumps(drawn, sort_keys=True, default=str).encode()).hexdigest()
    return f"{words[:60]}-{digest[:8]}"


def _document(failure: Failure, command: str, sid: str) -> dict:
    head = failure.headline
    document = dict(failure.example.materialized(sid))
    document["title"] = f"explore: {head.label()}"
    document["description"] = (f"Found by `bedrock-harness explore` ({command}) and shrunk: {head.message}. The "
                               "stream is drawn from the claims below; re-run the search with the same command.")
    document["checks"] = {"hard": [], "soft": []}
    return document


def write_failure(failure: Failure, root: Path, command: str, adapter: Any | None = None) -> Written:
    """Write ``failure`` under ``root`` (scenario, cassette, golden); with ``adapter``, replay it and say how it ends."""
    name = scenario_name(failure)
    path = root / "suites" / SUITE / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "# Written by `bedrock-harness explore`: a shrunk failure, reviewed and committed like any scenario.\n"
    write_atomic(path, text + yaml.safe_dump(_document(failure, command, f"{SUITE}/{name}"), sort_keys=False,
                                             allow_unicode=True,
                                             width=110))
    scenario = load_scenario(path, root / "suites")
    reference = ConverseAdapter()
    outcome = record_scenario(scenario, reference, root, Target("emulator"), mode="all")
    if outcome.status != "recorded":
        return Written(scenario.id, path, "error", f"the cassette was not recorded: {outcome.status} {outcome.reason}",
                       failure)
    for _, run in iter_runs([scenario], reference, root):
        golden.write_golden(scenario, run.golden_turns())
    if adapter is None:
        return Written(scenario.id, path, "written", "", failure)
    result = run_scenario(scenario, adapter, root)
    return Written(scenario.id, path, result.status, result.reason, failure)
