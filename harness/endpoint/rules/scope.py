"""Which model families each rule's evidence covers: there a problem is Bedrock's 400, elsewhere a warning.

Bedrock's Converse layer validates per model: two consecutive user messages to ``amazon.titan-text-express-v1``
were answered HTTP 200, while the same request to Claude is rejected (bedrock-wire.md §9 rule 2). So a rule
holds only for the families its evidence was gathered on (§9's sources, the service model's documentation and
the real recordings in ``../shared/realworld``); for any other family, or a model id that names no family (an
application inference profile ARN), its problem is reported as a warning and the request is served.

``EVIDENCE`` maps each rule id to an ``Evidence``: the families (``ALL`` for Coral's shape validation and
documented API limits, which do not depend on the model), whether the rule holds for every family *except*
those (a feature documented for some families only), and the sources.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from harness.endpoint.rules.shape import Problem

__all__ = ["ALL", "EVIDENCE", "Evidence", "applies", "family", "split", "warning"]

ALL = frozenset({"*"})
ANTHROPIC = frozenset({"anthropic"})
_REGION_PREFIX = re.compile(r"^(?:us-gov|us|eu|apac|ap|ca|jp|au|global)\.")
# Provider prefix of a foundation model id -> its family; Amazon's own models are told apart by name.
_PROVIDERS = {"anthropic": "anthropic", "meta": "meta", "mistral": "mistral", "openai": "openai",
              "deepseek": "deepseek", "moonshot": "kimi", "moonshotai": "kimi", "qwen": "qwen", "cohere": "cohere",
              "ai21": "ai21", "writer": "writer", "minimax": "minimax", "google": "google", "nvidia": "nvidia",
              "twelvelabs": "twelvelabs", "stability": "stability"}
_AMAZON = (("nova", "nova"), ("titan", "titan"))


@dataclass(frozen=True)
class Evidence:
    """The families a rule was seen (or documented) to hold for, and where that was seen."""

    families: frozenset
    sources: str
    except_families: bool = False  # True: the rule holds for every known family but these

    def covers(self, name: str | None) -> bool:
        if self.families is ALL:
            return True
        if name is None:
            return False
        return (name not in self.families) if self.except_families else (name in self.families)

    def describe(self) -> str:
        names = ", ".join(sorted(self.families))
        return "every model" if self.families is ALL else f"every family but {names}" if self.except_families \
            else names


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


# Bedrock's own wording (its Converse layer, not the model's); Nova pairs tool uses and results the same way in
# the real recordings and rejects a misplaced toolResult itself (§1.5: "extraneous key [toolResult]").
TOOL_PAIRING = frozenset({"anthropic", "nova"})
_NOVA_TOOLS = "; Nova: real round trips in pydantic-ai's recordings, its own 400 on a misplaced toolResult (§1.5)"
_CORAL = Evidence(ALL, "Coral validation of the service model's shapes (§2, §2.4 [M]); model-independent")
_DOC = Evidence(ALL, "Message.content / ToolSpecification documentation in the service model (§2.3 [M])")
_ANTHROPIC_TEXT = Evidence(ANTHROPIC, "Anthropic's own error text relayed by Bedrock (§9 [I]); "
                                      "reports on Claude models only")

EVIDENCE: dict[str, Evidence] = {
    **dict.fromkeys(("messages-missing", "block-shape", "role-enum", "member-required", "tool-name-pattern",
                     "non-empty-string", "tool-use-id-pattern", "inference-range", "tools-empty",
                     "prompt-arn-conflict", "response-field-paths"), _CORAL),
    "first-message-user": Evidence(ANTHROPIC, "§9 rule 1: aws-sdk-rust logs (Claude)"),
    # Titan accepted two consecutive user messages (HTTP 200), so this is Claude's rule, not Bedrock's.
    "alternating-roles": Evidence(ANTHROPIC, "§9 rule 2: langchain-aws#130, dify#9294, langchainjs#6724, "
                                             "semantic-kernel#10281 (Claude); Titan accepted consecutive user turns"),
    "content-empty": Evidence(ANTHROPIC, "§9 rule 4: langchain#26968 (Claude)"),
    "text-blank": Evidence(frozenset({"anthropic", "nova", "meta"}),
                           "§9 rule 5: OpenHands#5339, litellm#7169 (Claude), epam dial adapter tests (Nova, Llama)"),
    "toolconfig-required": Evidence(TOOL_PAIRING, "§9 rule 9: many reports (Claude)" + _NOVA_TOOLS),
    "tool-use-duplicate-id": Evidence(TOOL_PAIRING, "§9 rule 8 (Claude logs)" + _NOVA_TOOLS),
    "tool-result-exceeds": Evidence(TOOL_PAIRING, "§9 rule 7 (Claude logs)" + _NOVA_TOOLS),
    "tool-result-missing": Evidence(TOOL_PAIRING, "§9 rule 6: agno#6698 (Claude)" + _NOVA_TOOLS),
    "tool-result-unknown-id": Evidence(TOOL_PAIRING, "§9 rule 7 (Claude logs)" + _NOVA_TOOLS),
    "tool-result-first": _ANTHROPIC_TEXT,
    "tool-use-input-object": _ANTHROPIC_TEXT,
    "document-needs-text": _DOC,
    "media-in-user": _DOC,
    "media-limit": _DOC,
    "tool-schema-object": Evidence(ALL, "§9 rule 22: ToolSpecification doc [M], Kiro#11026"),
    "tool-name-duplicate": _ANTHROPIC_TEXT,
    "tool-choice-unknown": Evidence(frozenset({"anthropic", "nova"}),
                                    "§2.2: toolChoice.tool is only supported by Anthropic Claude 3 and Amazon Nova"),
    "tool-result-status": Evidence(frozenset({"anthropic", "nova"}),
                                   "§2.3: ToolResultBlock.status is only supported by Amazon Nova and Anthropic "
                                   "Claude 3 and 4 models [M]", except_families=True),
    "reasoning-signature-empty": Evidence(frozenset({"openai", "deepseek", "kimi", "qwen", "minimax", "mistral"}),
                                          "issue 13: an empty signature sent back to a model whose reasoning has "
                                          "none is rejected (gpt-oss, DeepSeek-R1, Kimi streams are unsigned)"),
    **dict.fromkeys(("thinking-forced-tool", "thinking-temperature", "thinking-top-p", "thinking-top-k",
                     "thinking-budget-min", "thinking-budget", "thinking-prefill", "thinking-block-first",
                     "reasoning-signature-missing", "reasoning-signature-invalid"),
                    Evidence(ANTHROPIC, "§9 rules 12-17: Anthropic's extended thinking (Claude only)")),
}


def applies(problem: Problem, model_id: str | None) -> bool:
    """Whether Bedrock rejects this problem for this model (its rule's evidence covers the model's family)."""
    evidence = EVIDENCE.get(problem.rule)
    return evidence is None or evidence.covers(family(model_id))


def warning(problem: Problem, model_id: str | None) -> str:
    """A problem the evidence does not cover, as the captured request's note."""
    evidence = EVIDENCE[problem.rule]
    return (f"warning {problem.rule} (not enforced: its evidence covers {evidence.describe()}, the model "
            f"{model_id or '(none)'} is of family {family(model_id) or 'unknown'}): {problem.message}")


def split(problems: Iterable[Problem], model_id: str | None) -> tuple[list[Problem], list[str]]:
    """(problems Bedrock rejects for this model, warnings for the others)."""
    problems = list(problems)
    return [p for p in problems if applies(p, model_id)], [warning(p, model_id) for p in problems
                                                            if not applies(p, model_id)]
