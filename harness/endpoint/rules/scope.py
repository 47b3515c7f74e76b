"""Which model families each rule's evidence covers: there a problem is Bedrock's 400, elsewhere a warning.

Bedrock's Converse layer validates per model: a conversation starting with an assistant message was accepted for
Kimi K2 (pydantic-ai PR 6318, verified live), while the same request to Claude or Nova is rejected. So a rule
rejects only for the families its evidence was gathered on; where a family was seen to accept what the rule objects
to, there is no finding at all; for any other family, or a model id that names no family (an application
inference profile ARN), the problem is reported as a warning and the request is served.

``EVIDENCE`` maps each rule id to an ``Evidence`` read from ``evidence.yaml`` beside this module: what the rule
claims, the families it rejects for (``ALL`` for the service's own validation, which does not depend on the model),
the families seen accepting, and the ids of its sources (harness/evidence/sources.yaml, checked by
``bedrock-harness evidence --check``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from harness.cassettes.parsed import load_yaml_bytes
from harness.endpoint.rules.shape import Problem

__all__ = ["ALL", "EVIDENCE", "Evidence", "applies", "family", "load_evidence", "split", "verdict", "warning"]

ALL = frozenset({"*"})
EVIDENCE_FILE = Path(__file__).with_name("evidence.yaml")
_REGION_PREFIX = re.compile(r"^(?:us-gov|us|eu|apac|ap|ca|jp|au|global)\.")
# Provider prefix of a foundation model id -> its family; Amazon's own models are told apart by name.
_PROVIDERS = {"anthropic": "anthropic", "meta": "meta", "mistral": "mistral", "openai": "openai",
              "deepseek": "deepseek", "moonshot": "kimi", "moonshotai": "kimi", "qwen": "qwen", "cohere": "cohere",
              "ai21": "ai21", "writer": "writer", "minimax": "minimax", "google": "google", "nvidia": "nvidia",
              "twelvelabs": "twelvelabs", "stability": "stability"}
_AMAZON = (("nova", "nova"), ("titan", "titan"))


@dataclass(frozen=True)
class Evidence:
    """What a rule claims of Bedrock, where it rejects, where it was seen accepting, and its source ids."""

    rule: str
    says: str
    rejects: frozenset
    accepts: frozenset = frozenset()
    sources: tuple[str, ...] = ()

    def verdict(self, name: str | None) -> str:
        """``reject`` (Bedrock's 400), ``accept`` (no finding) or ``warn`` for a model family (None: unknown)."""
        if self.rejects is ALL or (name is not None and name in self.rejects):
            return "reject"
        return "accept" if name is not None and name in self.accepts else "warn"

    def describe(self) -> str:
        rejects = "every model" if self.rejects is ALL else ", ".join(sorted(self.rejects)) or "no family"
        accepts = f"; seen accepted by {', '.join(sorted(self.accepts))}" if self.accepts else ""
        return f"rejects for {rejects}{accepts}"


def load_evidence(path: str | Path = EVIDENCE_FILE) -> dict[str, Evidence]:
    """The rules' evidence file, each entry checked for its fields (a ValueError names the rule and field)."""
    data = load_yaml_bytes(Path(path).read_bytes())  # read at import: parsed once (harness.cassettes.parsed)
    return {rule: _evidence(rule, entry, Path(path)) for rule, entry in data.items()}


def _evidence(rule: str, entry: dict, path: Path) -> Evidence:
    unknown = set(entry) - {"says", "rejects", "accepts", "sources"}
    rejects, accepts, sources = entry.get("rejects"), entry.get("accepts", []), entry.get("sources")
    ok = not unknown and isinstance(entry.get("says"), str) and (rejects == "all" or isinstance(rejects, list)) \
        and isinstance(accepts, list) and isinstance(sources, list)
    if not ok:
        raise ValueError(f"{path}: {rule}: expected says, rejects (all or a list of families), accepts and sources")
    return Evidence(rule, " ".join(entry["says"].split()), ALL if rejects == "all" else frozenset(rejects),
                    frozenset(accepts), tuple(sources))


def family(model_id: str | None) -> str | None:
    """The model family of a model id, inference profile or foundation-model ARN; None when it names none."""
    if not isinstance(model_id, str) or not model_id:
        return None
    name = model_id.rsplit("/", 1)[-1].lower()
    name = _REGION_PREFIX.sub("", name)
    provider, dot, rest = name.partition(".")
    if not dot:
        return None
    if provider == "amazon":
        return next((fam for word, fam in _AMAZON if rest.startswith(word)), "amazon")
    return _PROVIDERS.get(provider, provider)


EVIDENCE: dict[str, Evidence] = load_evidence()


def verdict(problem: Problem, model_id: str | None) -> str:
    """``reject``, ``accept`` or ``warn``: what Bedrock does with this problem for this model, by the evidence."""
    evidence = EVIDENCE.get(problem.rule)
    return "reject" if evidence is None else evidence.verdict(family(model_id))


def applies(problem: Problem, model_id: str | None) -> bool:
    """Whether Bedrock rejects this problem for this model (its rule's evidence covers the model's family)."""
    return verdict(problem, model_id) == "reject"


def warning(problem: Problem, model_id: str | None) -> str:
    """A problem no evidence shows Bedrock rejecting for this model, as the captured request's warning."""
    evidence = EVIDENCE[problem.rule]
    return (f"warning {problem.rule} (not enforced: its evidence {evidence.describe()}; the model "
            f"{model_id or '(none)'} is of family {family(model_id) or 'unknown'}): {problem.message}")


def split(problems: Iterable[Problem], model_id: str | None) -> tuple[list[Problem], list[str]]:
    """(problems Bedrock rejects for this model, warnings for those no evidence settles; accepted ones: neither)."""
    problems = list(problems)
    return ([p for p in problems if verdict(p, model_id) == "reject"],
            [warning(p, model_id) for p in problems if verdict(p, model_id) == "warn"])
