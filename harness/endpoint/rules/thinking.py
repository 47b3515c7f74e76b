"""Extended-thinking rules: what a request to an Anthropic model with thinking on must and must not do.

Thinking is on when ``additionalModelRequestFields.thinking`` (or the older ``reasoning_config``) has type
``enabled`` (manual, with ``budget_tokens``) or ``adaptive``. Anthropic's own errors reach the client wrapped
as "The model returned the following errors: ..." (bedrock-wire.md §9 rules 12-17).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable

from harness.endpoint.rules.shape import Problem, blocks, kind, messages

__all__ = ["THINKING_RULES", "thinking"]

WRAP = "The model returned the following errors: "
MIN_BUDGET = 1024
# Anthropic's block type for each Converse member, as named in its "found `...`" text.
_ANTHROPIC_TYPE = {"toolUse": "tool_use", "toolResult": "tool_result", "reasoningContent": "thinking",
                   "citationsContent": "text", "searchResult": "search_result"}
_FINAL_TURN = (WRAP + "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. "
               "When `thinking` is enabled, a final `assistant` message must start with a thinking block "
               "(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include "
               "thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult "
               "our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking")


def thinking(body: dict) -> tuple[str, dict] | None:
    """(path, config) of the thinking configuration when thinking is on, else None."""
    fields = body.get("additionalModelRequestFields")
    for key in ("thinking", "reasoning_config") if isinstance(fields, dict) else ():
        config = fields.get(key)
        if isinstance(config, dict) and config.get("type") in ("enabled", "adaptive"):
            return f"additionalModelRequestFields.{key}", config
    return None


def _manual(body: dict) -> tuple[str, dict] | None:
    """The thinking configuration when it is manual (type enabled): only then are budgets and forced rules in force."""
    found = thinking(body)
    return found if found and found[1].get("type") == "enabled" else None


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _section(body: dict, name: str) -> dict:
    value = body.get(name)
    return value if isinstance(value, dict) else {}


def thinking_forced_tool(body: dict) -> Iterable[Problem]:
    """Manual thinking may not be combined with a toolChoice that forces tool use (any or tool) (§9 rule 15)."""
    choice = _section(body, "toolConfig").get("toolChoice")
    if _manual(body) and isinstance(choice, dict) and (choice.get("any") is not None or choice.get("tool") is not None):
        # Anthropic's text; the Bedrock wrapping of this one is unconfirmed (§12).
        yield Problem("thinking-forced-tool", "toolConfig.toolChoice",
                      WRAP + "Thinking may not be enabled when tool_choice forces tool use.")


def thinking_temperature(body: dict) -> Iterable[Problem]:
    """With thinking on, temperature may only be 1 (§9 rule 15)."""
    value = _section(body, "inferenceConfig").get("temperature")
    if thinking(body) and _number(value) and value != 1:
        yield Problem("thinking-temperature", "inferenceConfig.temperature",
                      WRAP + "`temperature` may only be set to 1 when thinking is enabled.")


def thinking_top_p(body: dict) -> Iterable[Problem]:
    """With thinking on, topP may only be lowered to 0.95 (§9 rule 15)."""
    value = _section(body, "inferenceConfig").get("topP")
    if thinking(body) and _number(value) and value < 0.95:
        # Not verbatim: Anthropic's documented limit, wording not captured from Bedrock.
        yield Problem("thinking-top-p", "inferenceConfig.topP",
                      WRAP + "`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled.")


def thinking_top_k(body: dict) -> Iterable[Problem]:
    """With thinking on, top_k may not be set (§9 rule 15)."""
    if thinking(body) and _section(body, "additionalModelRequestFields").get("top_k") is not None:
        # Not verbatim: Bedrock's text for this was not captured.
        yield Problem("thinking-top-k", "additionalModelRequestFields.top_k",
                      WRAP + "`top_k` may not be set when thinking is enabled.")


def thinking_budget_min(body: dict) -> Iterable[Problem]:
    """Manual thinking needs budget_tokens of at least 1024 (Anthropic's minimum)."""
    found = _manual(body)
    budget = found[1].get("budget_tokens") if found else None
    if _number(budget) and budget < MIN_BUDGET:
        # Anthropic's text as reported by users; the Bedrock wrapping is assumed.
        yield Problem("thinking-budget-min", f"{found[0]}.budget_tokens",
                      WRAP + f"thinking.enabled.budget_tokens: Input should be greater than or equal to {MIN_BUDGET}")


def thinking_budget(body: dict) -> Iterable[Problem]:
    """maxTokens must be greater than thinking.budget_tokens (§9 rule 16)."""
    found = _manual(body)
    budget = found[1].get("budget_tokens") if found else None
    max_tokens = _section(body, "inferenceConfig").get("maxTokens")
    if _number(budget) and _number(max_tokens) and max_tokens <= budget:
        yield Problem("thinking-budget", "inferenceConfig.maxTokens",
                      WRAP + "`max_tokens` must be greater than `thinking.budget_tokens`.")


def thinking_prefill(body: dict) -> Iterable[Problem]:
    """With thinking on the conversation must end with a user message: no assistant prefill (§9 rule 17)."""
    items = _list(body.get("messages"))
    if thinking(body) and items and isinstance(items[-1], dict) and items[-1].get("role") == "assistant":
        yield Problem("thinking-prefill", f"messages.{len(items) - 1}",
                      "This model does not support assistant message prefill. "
                      "The conversation must end with a user message.")


def _has(message, member: str, role: str) -> bool:
    return isinstance(message, dict) and message.get("role") == role and any(
        member in block for _, block in blocks(message))


def _final_turn_start(body: dict) -> int | None:
    """Index of the assistant message opening the trailing tool-use loop, or None when the request ends otherwise."""
    items = _list(body.get("messages"))
    start, i = None, len(items) - 1
    # A tool-use loop (assistant toolUse, user toolResult, ...) is one assistant turn (Anthropic's thinking docs):
    # only its first assistant message must carry thinking, later ones may legitimately have none.
    while i >= 1 and _has(items[i], "toolResult", "user") and _has(items[i - 1], "toolUse", "assistant"):
        start, i = i - 1, i - 2
    return start


def thinking_block_first(body: dict) -> Iterable[Problem]:
    """With manual thinking, the final assistant turn's tool-use message starts with a reasoning block (§9 rule 12)."""
    i = _final_turn_start(body) if _manual(body) else None
    if i is None:
        return
    first = body["messages"][i]["content"][0]
    name = kind(first) if isinstance(first, dict) else None
    if name != "reasoningContent":
        yield Problem("thinking-block-first", f"messages.{i}.content.0",
                      _FINAL_TURN.format(i=i, found=_ANTHROPIC_TYPE.get(name, name or "unknown")))


def _signatures(body: dict):
    """(path, signature or None) of every reasoningText in an assistant message."""
    for i, message in messages(body):
        for j, block in blocks(message) if message.get("role") == "assistant" else ():
            reasoning = block.get("reasoningContent")
            text = reasoning.get("reasoningText") if isinstance(reasoning, dict) else None
            if isinstance(text, dict):
                yield f"messages.{i}.content.{j}", text.get("signature")


def reasoning_signature_missing(body: dict) -> Iterable[Problem]:
    """With thinking on, every reasoningText carries its signature (§9 rules 12-13)."""
    for path, signature in _signatures(body) if thinking(body) else ():
        if signature is None:
            # Not verbatim: Anthropic's field-required wording, Bedrock's rendering not captured.
            yield Problem("reasoning-signature-missing", f"{path}.reasoningContent.reasoningText.signature",
                          WRAP + f"{path}.thinking.signature: Field required")


def reasoning_unsigned(body: dict) -> Iterable[Problem]:
    """Unsigned reasoning goes back to no model that rejects it: Claude without thinking, Nova (§13 rule 37)."""
    for path, signature in () if thinking(body) else _signatures(body):  # with thinking: signature-missing
        if signature is None:
            # Bedrock's text, verbatim (can1357/oh-my-pi#9086 for Nova, vercel/ai#17591 for Claude 3 Haiku).
            yield Problem("reasoning-unsigned", path,
                          "User messages cannot contain reasoning content. Please remove the reasoning content and "
                          "try again.")


def _valid_base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def reasoning_signature_invalid(body: dict) -> Iterable[Problem]:
    """With thinking on, a signature is unmodified: not empty and valid base64, so not glued from two (§9 rule 14)."""
    for path, signature in _signatures(body) if thinking(body) else ():
        if isinstance(signature, str) and not (signature and _valid_base64(signature)):
            yield Problem("reasoning-signature-invalid", f"{path}.reasoningContent.reasoningText.signature",
                          WRAP + f"{path}: Invalid `signature` in `thinking` block")


def reasoning_signature_empty(body: dict) -> Iterable[Problem]:
    """Without Claude's thinking, an unsigned reasoning block leaves signature out rather than sending "" (issue 13)."""
    for path, signature in () if thinking(body) else _signatures(body):
        if signature == "":
            # Bedrock's text, verbatim (strands #682, pi #686); it names no path.
            yield Problem("reasoning-signature-empty", f"{path}.reasoningContent.reasoningText.signature",
                          "This model doesn't support the reasoningContent.reasoningText.signature field. Remove "
                          "reasoningContent.reasoningText.signature and try again.")


THINKING_RULES = (thinking_forced_tool, thinking_temperature, thinking_top_p, thinking_top_k, thinking_budget_min,
                  thinking_budget, thinking_prefill, thinking_block_first, reasoning_signature_missing,
                  reasoning_signature_invalid, reasoning_signature_empty, reasoning_unsigned)
