"""A turn -> the boto3 keyword arguments of ``converse_stream`` / ``converse`` (inspectable, no I/O)."""

from __future__ import annotations

import json
import re
from typing import Any

from harness.converse.errors import TurnError
from harness.converse.history import to_converse_messages
from harness.converse.tools import CACHE_POINT, cache_block, cache_control, tool_config

__all__ = ["build_request", "converse_twin", "history_policy", "output_config", "served_options", "status_supported",
           "streams_tool_use", "system_blocks", "system_texts", "thinking_budget"]

# Model ids of the families Bedrock was seen accepting toolResult.status from (bedrock-wire.md §9 rule 29): Writer
# Palmyra rejects it, and for any other family (or an id naming none) nothing settles it, so it is left out there.
_STATUS_MODELS = re.compile(r"(^|[./])(anthropic|amazon\.nova|moonshot|moonshotai|meta|mistral|cohere)[.-]")


def status_supported(model_id: str) -> bool:
    """Whether a tool result carries ``status``: only to the families seen accepting it."""
    return bool(_STATUS_MODELS.search(model_id.lower()))


# Model ids of the families Bedrock was seen taking an image inside toolResult.content from (§13 rule 36: Claude, Nova,
# Llama 4; OpenAI, Mistral, Qwen, Kimi and others answer "This model doesn't support the image field for user
# messages", and take the image beside the result), and of those that take only text in an error result (rule 35).
_RESULT_IMAGE_MODELS = re.compile(r"(^|[./])(anthropic|amazon\.nova|meta)[.-]")
_ERROR_TEXT_ONLY_MODELS = re.compile(r"(^|[./])anthropic[.-]")


# Model ids of the families Bedrock takes unsigned reasoning back from (gpt-oss, langchain-aws #1229); Nova, Claude
# without thinking and DeepSeek reject it ("User messages cannot contain reasoning content", §13 rule 37), and
# leaving it out is accepted everywhere it was tried, so it is left out for every other family.
_UNSIGNED_REASONING_MODELS = re.compile(r"(^|[./])openai[.-]")


def history_policy(model_id: str) -> dict:
    """``to_converse_messages``' family keywords for a model: where an image or an error result's media may go, and
    whether unsigned reasoning goes back."""
    name = model_id.lower()
    return {"images": bool(_RESULT_IMAGE_MODELS.search(name)),
            "error_text_only": bool(_ERROR_TEXT_ONLY_MODELS.search(name)),
            "unsigned_reasoning": bool(_UNSIGNED_REASONING_MODELS.search(name))}


# Model ids of the families Bedrock refuses tool use for on ConverseStream ("This model doesn't support tool use in
# streaming mode.", bedrock-wire.md §13 rule 38): Writer Palmyra; their tool calls go through Converse.
_NO_STREAMED_TOOLS = re.compile(r"(^|[./])writer[.-]")


def streams_tool_use(request: dict) -> bool:
    """Whether a built request may go to ``converse_stream``: not when it has tools and its model refuses them there
    (the adapter then calls ``converse`` and yields the same chunks from the whole answer)."""
    return "toolConfig" not in request or not _NO_STREAMED_TOOLS.search(str(request.get("modelId", "")).lower())


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


def system_blocks(system: Any) -> list[tuple[str, dict | None]]:
    """The system prompt as (text, cache_control or None) pairs: a text block may ask for a cache point after it."""
    if not isinstance(system, list):
        return [(text, None) for text in system_texts(system)]
    pairs = []
    for i, item in enumerate(system):
        control = cache_control(item.get("cache_control"), f"system[{i}]") if isinstance(item, dict) else None
        pairs += [(text, control) for text in system_texts([item])]
    return pairs


def _system(turn: dict, options: dict) -> list[dict] | None:
    blocks = [b for text, control in system_blocks(turn.get("system"))
              for b in [{"text": text}] + ([cache_block(control)] if control else [])]
    if blocks and options.get("cache_points") and "cachePoint" not in blocks[-1]:
        blocks.append(CACHE_POINT)
    return blocks or None


def output_config(options: dict) -> dict | None:
    """``outputConfig.textFormat`` for ``options.output_format`` (a JSON schema the answer's text must follow): the
    schema travels as JSON text (``JsonSchemaDefinition.schema`` is a string), never in additionalModelRequestFields,
    where Bedrock ignores it."""
    wanted = options.get("output_format")
    if wanted is None:
        return None
    if not isinstance(wanted, dict) or wanted.get("type") != "json_schema" or not isinstance(wanted.get("schema"), dict):
        raise TurnError(f"options.output_format: expected {{'type': 'json_schema', 'schema': {{...}}}}, got {wanted!r:.80}")
    definition = {"schema": json.dumps(wanted["schema"], ensure_ascii=False), "name": wanted.get("name"),
                  "description": wanted.get("description")}
    return {"textFormat": {"type": "json_schema", "structure": {
        "jsonSchema": {k: v for k, v in definition.items() if v is not None}}}}


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
        "messages": to_converse_messages(turn.get("messages"), status_supported(turn["model_id"]),
                                         **history_policy(turn["model_id"])),
        "system": _system(turn, options),
        "inferenceConfig": _inference_config(options, budget is not None),
        "toolConfig": tool_config(turn.get("tools"), options.get("tool_choice"), thinking=budget is not None,
                                  cache_point=bool(options.get("cache_points"))),
        "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": budget}} if budget else None,
        "outputConfig": output_config(options),
        **served_options(options),
    }
    return {k: v for k, v in request.items() if v is not None}
