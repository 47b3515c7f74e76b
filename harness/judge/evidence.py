"""Every claim the suite makes about Bedrock, with its sources, and what makes one unsupported (``evidence``).

The claims come from their owners: the request rules (harness/endpoint/rules/evidence.yaml), the emulator styles
(harness/endpoint/emulator/styles.yaml) and the scenarios (their ``claims:``); beside them, the judgements
(harness.judge.grade) findings rest on when no claim does. ``problems`` is what ``--check`` fails on: a claim
without a source, with an unknown one or with only the service model; a rule of the code without evidence (or
evidence for no rule); a style or a scenario that says nothing of what it rests on; a recording whose bytes changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from harness.endpoint.emulator.claims import style_claims
from harness.endpoint.emulator.plan import STYLES
from harness.endpoint.rules.converse import RULE_IDS
from harness.endpoint.rules.scope import EVIDENCE
from harness.evidence import Claim, Source, catalog, claim_problems, recording_problems
from harness.evidence.claims import resolve
from harness.judge.grade import JUDGEMENTS, Judgement

__all__ = ["Evidence", "gather", "rule_claims"]


def rule_claims() -> list[Claim]:
    """Each rule's evidence as a claim (what it rejects, for which families)."""
    return [Claim(f"rule {e.rule}", e.rule, f"{e.says} [{e.describe()}]", e.sources) for e in EVIDENCE.values()]


@dataclass(frozen=True)
class Evidence:
    """Everything ``bedrock-harness evidence`` lists."""

    claims: tuple[Claim, ...]
    judgements: tuple[Judgement, ...]
    named: Mapping[str, tuple[str, ...]]  # judgement id -> the scenarios naming it
    robustness: Mapping[str, str]  # scenario id -> why its stream is a robustness case
    sources: Mapping[str, Source]
    problems: tuple[str, ...]

    def cited(self, claim: Claim) -> list[Source]:
        return resolve(claim, self.sources)


def gather(scenarios: Sequence, recordings: str | Path | None = None) -> Evidence:
    """The claims of the rules, the styles and ``scenarios``; ``recordings`` (../shared/realworld) checks hashes."""
    sources = catalog()
    styles = style_claims()
    claims = rule_claims() + [c for name in styles for c in styles[name]] + [c for s in scenarios for c in s.claims]
    problems = [p for claim in claims for p in claim_problems(claim, sources)]
    problems += _rule_coverage() + [f"style {name}: no claims (say what the style renders and why)"
                                    for name in STYLES if not styles.get(name)]
    problems += [f"scenario {s.id}: no claims (say what of Bedrock it rests on)" for s in scenarios if not s.claims]
    problems += recording_problems(sources, recordings) if recordings is not None else []
    named = {j: tuple(s.id for s in scenarios if j in s.judgements) for j in JUDGEMENTS}
    robust = {s.id: s.robustness for s in scenarios if s.robustness}
    return Evidence(tuple(claims), tuple(JUDGEMENTS.values()), named, robust, sources, tuple(problems))


def _rule_coverage() -> list[str]:
    """Rules the code checks without evidence, and evidence for rules the code does not check."""
    checked = set(RULE_IDS)
    return ([f"rule {r}: checked by the code but has no entry in evidence.yaml" for r in sorted(checked - set(EVIDENCE))]
            + [f"rule {r}: has evidence but no rule checks it" for r in sorted(set(EVIDENCE) - checked)])
