"""A turn -> the boto3 keyword arguments of ``converse_stream`` / ``converse`` (inspectable, no I/O)."""

from __future__ import annotations

import re
from typing import Any

from harness.converse.errors import TurnError
from harness.converse.history import to_converse_messages
from harness.converse.tools import CACHE_POINT, tool_config

__all__ = ["build_request", "converse_twin", "served_options", "status_supported", "system_texts", "thinking_budget"]

# Model ids of the families Bedrock was seen accepting toolResult.status from (bedrock-wire.md §9 rule 29): Writer
# Palmyra rejects it, and for any other family (or an id naming none) nothing settles it, so it is left out there.
_STATUS_MODELS = re.compile(r"(^|[./])(anthropic|amazon\.nova|moonshot|moonshotai|meta|mistral|cohere)[.-]")


def status_supported(model_id: str) -> bool:
    """Whether a tool result carries ``status``: only to the families seen accepting it."""
    return bool(_STATUS_MODELS.search(model_id.lower()))


def thinking_budget(options: dict) -> int | None:
    """The thinking budget in tokens, or None when thinking is off (absent, null or 0)."""
    budget = options.get("thinking_budget")
    if budget in (None, 0, False):
        return None
    if not isinstance(budget, int) or budget < 0:
        raise TurnError(f"options.thinking_budget must be a positive integer, got {budget!r}")
    return budget


def system_texts(system: Any) -> list[str]:
    """The system prompt as non-blank texts (a string, or a list of strings / text blocks)."""
    items = [system] if isinstance(system, str) else system or []
    texts = [item if isinstance(item, str) else item.get("text") if isinstance(item, dict) else None
             for item in (items if isinstance(items, list) else [None])]
    if not all(isinstance(t, str) for t in texts):
        raise TurnError(f"system must be a string or a list of text blocks, got {system!r:.80}")
    return [t for t in texts if t.strip()]


def _system(turn: dict, options: dict) -> list[dict] | None:
    blocks = [{"text": t} for t in system_texts(turn.get("system"))]
    if blocks and options.get("cache_points"):
        blocks.append(CACHE_POINT)
    return blocks or None


def _inference_config(options: dict, thinking: bool) -> dict | None:
    """maxTokens, temperature (left out with thinking: Bedrock rejects it), topP, stopSequences."""
    config = {"maxTokens": options.get("max_tokens"),
              "temperature": None if thinking else options.get("temperature"),
              "topP": None if thinking else options.get("top_p"),
              "stopSequences": options.get("stop_sequences") or None}
    return {k: v for k, v in config.items() if v is not None} or None


_GUARDRAIL = (("identifier", "guardrailIdentifier"), ("version", "guardrailVersion"), ("trace", "trace"),
              ("stream_processing_mode", "streamProcessingMode"))


def served_options(options: dict) -> dict:
    """How the turn asks to be served: ``serviceTier``, ``performanceConfig``, ``guardrailConfig`` and
    ``additionalModelResponseFieldPaths`` from the options service_tier, latency, guardrail, response_field_paths."""
    guardrail = options.get("guardrail") or {}
    if not isinstance(guardrail, dict):
        raise TurnError(f"options.guardrail must be a mapping, got {guardrail!r:.80}")
    paths = options.get("response_field_paths")
    if paths is not None and not (isinstance(paths, list) and all(isinstance(p, str) for p in paths)):
        raise TurnError(f"options.response_field_paths must be a list of JSON Pointers, got {paths!r:.80}")
    served = {"serviceTier": {"type": options["service_tier"]} if options.get("service_tier") else None,
              "performanceConfig": {"latency": options["latency"]} if options.get("latency") else None,
              "guardrailConfig": {wire: guardrail[key] for key, wire in _GUARDRAIL if guardrail.get(key)} or None,
              "additionalModelResponseFieldPaths": paths or None}
    return {key: value for key, value in served.items() if value is not None}


def converse_twin(request: dict) -> dict:
    """The ``converse`` kwargs for a ``converse_stream`` request: Converse's guardrailConfig has no
    streamProcessingMode (GuardrailConfiguration, not GuardrailStreamConfiguration)."""
    guardrail = request.get("guardrailConfig")
    if not isinstance(guardrail, dict) or "streamProcessingMode" not in guardrail:
        return request
    return {**request, "guardrailConfig": {k: v for k, v in guardrail.items() if k != "streamProcessingMode"}}


def build_request(turn: dict) -> dict:
    """``modelId``, ``messages``, ``system``, ``inferenceConfig``, ``toolConfig``, thinking, how it is served; None
    values omitted."""
    if not turn.get("model_id"):
        raise TurnError("turn has no model_id")
    options = turn.get("options") or {}
    budget = thinking_budget(options)
    request = {
        "modelId": turn["model_id"],
        "messages": to_converse_messages(turn.get("messages"), status_supported(turn["model_id"])),
        "system": _system(turn, options),
        "inferenceConfig": _inference_config(options, budget is not None),
        "toolConfig": tool_config(turn.get("tools"), options.get("tool_choice"), thinking=budget is not None,
                                  cache_point=bool(options.get("cache_points"))),
        "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": budget}} if budget else None,
        **served_options(options),
    }
    return {k: v for k, v in request.items() if v is not None}
