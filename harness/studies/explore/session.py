"""One drawn example run against an adapter the way a scenario runs, and judged by the oracles.

The example's document becomes an ordinary ``Scenario`` (harness.suite.scenario.parse_scenario); the emulator
serves its scripts with its faults on one loopback endpoint that lives as long as the ``Session`` (a new session of
the server per example), and harness.suite.runner.replay streams its turns through the adapter (stateless, or in
conversation mode when the adapter owns its history; paired with the non-streamed call when it declares
``non_streaming``). An adapter that breaks itself (crash, hang, protocol error) is a finding, never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.endpoint.faults import Faults
from harness.endpoint.responders import HTTP_ERRORS, EmulatorResponder, turn_seed
from harness.endpoint.server import BedrockServer, RequestError
from harness.judge.normalize import comparable, normalize
from harness.judge.parity import declared_paths
from harness.judge.protocol import NON_STREAMING, AdapterFailure
from harness.studies.explore.draw import Example
from harness.studies.explore.oracles import Finding, asked, delivered, expected_items, grade, judge_turn, round_trip
from harness.suite.runner import loopback_endpoint, replay
from harness.suite.scenario import Scenario, effective_options, parse_scenario

__all__ = ["EXAMPLE_ID", "Outcome", "Session", "scenario_of"]

EXAMPLE_ID = "explore/example"  # examples run as <EXAMPLE_ID>-<n> (their ids and deltas do not depend on it)


def scenario_of(example: Example, sid: str = EXAMPLE_ID, path: str = "explore/example.yaml") -> Scenario:
    return parse_scenario(example.materialized(sid), sid, path)


@dataclass
class Outcome:
    """What one example showed: its findings and each turn's normalized chunks (for ``--compare``)."""

    findings: list[Finding]
    outputs: list[list[dict]] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.findings)


class _Idle:
    def respond(self, request):
        raise RequestError(400, "ValidationException", "no example is being served on this endpoint")


class _Emulator(EmulatorResponder):
    """The emulator, but a script's in-stream exception fails the non-streamed call with its HTTP error, as a
    recording served as Converse does (harness.endpoint.responders.HTTP_ERRORS)."""

    def respond(self, request):
        script = self.scripts[request.turn] if request.turn is not None and request.turn < len(self.scripts) else {}
        failure = (script or {}).get("exception")
        if request.operation == "Converse" and failure:
            status, kind = HTTP_ERRORS[failure["type"]]
            raise RequestError(status, kind, failure.get("message", "The model stream failed."))
        return super().respond(request)


class Session:
    """A loopback endpoint for a whole exploration; ``run(example)`` serves one example on it."""

    def __init__(self, adapter: Any, in_process: bool = True):
        self.adapter = adapter
        self.capabilities = frozenset(adapter.capabilities)
        self.declared = declared_paths(adapter)
        self.paired = NON_STREAMING in self.capabilities
        self.server = BedrockServer(_Idle(), in_process=in_process).start()
        self.count = 0  # each example is a conversation of its own: an adapter keeping history starts afresh

    def close(self) -> None:
        self.server.close()

    def __enter__(self) -> Session:  # noqa: PYI034 -- typing.Self needs Python 3.11
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def run(self, example: Example) -> Outcome:
        self.count += 1
        sid = f"{EXAMPLE_ID}-{self.count}"
        scenario = parse_scenario(example.materialized(sid), sid, "explore/example.yaml")
        scripts = [turn.script for turn in scenario.turns]
        responder = _Emulator(scripts, scenario.style, scenario.id, scenario.id, scenario.model_id)
        faults = Faults.from_scenario(scenario.faults, **(scenario.delivery or {}))
        self.server.reset(responder, faults=faults, pairs=self.paired)
        try:
            run_ = replay(scenario, self.adapter, loopback_endpoint(self.server), self.server, self.paired)
        except AdapterFailure as exc:
            return Outcome([Finding("adapter", exc.status, "", 0, f"turn 0: {exc}")])
        finally:
            requests = self.server.requests
            self.server.reset(_Idle())
        findings = self._judged(scenario, run_, requests, example.cuts)
        if run_.failure is not None:
            findings.append(Finding("adapter", run_.failure.status, "", len(run_.turns),
                                    f"turn {len(run_.turns)}: {run_.failure}"))
        outputs = [normalize(t["chunks"], self.capabilities) for t in run_.turns]
        return Outcome(grade(findings, bool(scenario.robustness)), outputs)

    def _judged(self, scenario: Scenario, run_: Any, requests: list, cuts: dict) -> list[Finding]:
        findings: list[Finding] = []
        previous: list[dict] | None = None
        for index, record in enumerate(run_.turns):
            script, seed = scenario.turns[index].script, turn_seed(scenario.id, index)
            served = [r for r in requests if r.turn == index]
            served = [r for r in served if r.operation != "Converse"] or served  # the stream's, not its twin's
            whole = bool(served) and all(r.operation == "Converse" for r in served)  # tools through Converse
            record = {**record, "index": index, "paired": self.paired, "whole": whole,
                      "http_error": any(isinstance(r.status, int) and r.status >= 400 for r in served[-1:])}
            cut = cuts[index][0] if index in cuts else None
            findings += judge_turn(record, script, scenario.style, seed, self.capabilities, self.declared,
                                   _rules(served), cut)
            findings += asked(record["request"], effective_options(scenario, index), self.capabilities, index)
            if index and previous is not None and record["request"] is not None:
                findings += round_trip(record["request"], previous, index, self.capabilities,
                                       _media(scenario.turns[index - 1].tool_results))
            previous = expected_items(*delivered(script, scenario.style, seed, cut))[0]
        return findings


def _media(results: dict) -> list[str]:
    """The base64 data of every image and document part of a turn's tool-result templates."""
    return [part["source"]["data"] for spec in (results or {}).values() if isinstance(spec.get("content"), list)
            for part in spec["content"] if isinstance(part, dict) and part.get("type") in ("image", "document")]


def _rules(served: list) -> list[tuple[str, str, str]]:
    """(rule id, grade, Bedrock's text) of the rules the turn's last request broke (earlier attempts were retries)."""
    if not served:
        return []
    last = served[-1]
    out = [(getattr(p, "rule", "request"), "fail", str(p)) for p in last.problems]
    return out + [("rule-unsettled", "warn", str(w)) for w in last.warnings]


def outputs_differ(mine: list[list[dict]], theirs: list[list[dict]], capabilities: frozenset[str]) -> list[Finding]:
    """``--compare``: turns whose normalized chunks differ between two adapters on what both declare (a warning: the
    other may be the wrong one)."""
    found = []
    for index, (a, b) in enumerate(zip(mine, theirs)):
        a, b = comparable(a, capabilities), comparable(b, capabilities)
        if a != b:
            found.append(Finding("compare", "chunks", "", index, f"turn {index}: normalized chunks differ from the "
                                 f"compared adapter's ({len(a)} items vs {len(b)})", "warn"))
    return found
