"""Tool definitions (Anthropic, OpenAI or Bedrock format) -> Bedrock ``toolConfig`` or Anthropic ``tools``."""

from __future__ import annotations

from typing import Any, NamedTuple

from harness.converse.errors import TurnError

__all__ = ["CACHE_POINT", "CACHE_TTLS", "ToolDef", "anthropic_tool_choice", "anthropic_tools", "cache_control",
           "cache_block", "tool_config", "tool_defs"]

CACHE_POINT = {"cachePoint": {"type": "default"}}
CACHE_TTLS = ("5m", "1h")  # Bedrock's CacheTTL enum; no ttl is the default, 5m


def cache_control(value: Any, where: str) -> dict | None:
    """An Anthropic ``cache_control`` (``{"type": "ephemeral", "ttl"?: "5m" | "1h"}``) checked, or None when absent."""
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("type") != "ephemeral" or value.get("ttl", "5m") not in CACHE_TTLS \
            or set(value) - {"type", "ttl"}:
        raise TurnError(f"{where}.cache_control: expected {{'type': 'ephemeral', 'ttl': '5m' or '1h'}}, got {value!r:.80}")
    return dict(value)


def cache_block(control: dict) -> dict:
    """The Converse ``cachePoint`` block a ``cache_control`` asks for: after the block it marks, its TTL kept."""
    return {"cachePoint": {"type": "default", **({"ttl": control["ttl"]} if control.get("ttl") else {})}}
_NO_PARAMETERS = {"type": "object", "properties": {}}


class ToolDef(NamedTuple):
    """One tool, whatever format it came in."""

    name: str
    description: str | None
    schema: dict
    cache: dict | None = None  # cache_control: a cache point after this tool
    strict: bool = False  # the tool's input must follow its schema exactly (ToolSpecification.strict)


def _fields(tool: dict) -> tuple[Any, Any, Any]:
    """(name, description, schema) from an OpenAI, Bedrock ``toolSpec`` or Anthropic definition."""
    if isinstance(tool.get("function"), dict):
        fn = tool["function"]
        return fn.get("name"), fn.get("description"), fn.get("parameters", _NO_PARAMETERS)
    if isinstance(tool.get("toolSpec"), dict):
        spec = tool["toolSpec"]
        return spec.get("name"), spec.get("description"), (spec.get("inputSchema") or {}).get("json")
    return tool.get("name"), tool.get("description"), tool.get("input_schema", tool.get("inputSchema"))


def _tool_def(tool: Any, where: str) -> ToolDef:
    if not isinstance(tool, dict):
        raise TurnError(f"{where}: a tool definition must be an object, got {type(tool).__name__}")
    name, description, schema = _fields(tool)
    if not isinstance(name, str) or not name:
        raise TurnError(f"{where}: tool has no name")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        got = schema.get("type") if isinstance(schema, dict) else type(schema).__name__
        raise TurnError(f"{where} '{name}': input schema must be a JSON object schema (type 'object'), got {got!r}")
    strict = tool.get("strict", False)
    if not isinstance(strict, bool):
        raise TurnError(f"{where} '{name}': strict must be true or false, got {strict!r}")
    return ToolDef(name, description or None, schema, cache_control(tool.get("cache_control"), where), strict)


def tool_defs(tools: list | None) -> list[ToolDef]:
    """Validate and read every tool definition; errors name ``tools[i]``."""
    return [_tool_def(tool, f"tools[{i}]") for i, tool in enumerate(tools or ())]


def _choice(choice: Any, names: list[str], thinking: bool) -> tuple[str, str | None] | None:
    """(kind, tool name) of a tool choice; thinking forces ``auto`` (Bedrock rejects forced tool use)."""
    if thinking:
        return ("auto", None)
    if choice is None:
        return None
    if isinstance(choice, dict):
        kind, name = choice.get("type", "tool" if "name" in choice else None), choice.get("name")
    else:
        kind, name = choice, None
    if kind in ("auto", "any"):
        return (kind, None)
    if kind == "tool" and name in names:
        return ("tool", name)
    if kind == "tool":
        raise TurnError(f"options.tool_choice names {name!r}, which is not among the tools {names}")
    raise TurnError(f"options.tool_choice: expected 'auto', 'any' or {{'name': ...}}, got {choice!r}")


def _tool_spec(tool: ToolDef) -> dict:
    spec = {"name": tool.name, "description": tool.description, "inputSchema": {"json": tool.schema},
            "strict": True if tool.strict else None}
    return {"toolSpec": {k: v for k, v in spec.items() if v is not None}}


def _tool_elements(tool: ToolDef) -> list[dict]:
    """A tool's ``toolConfig.tools`` elements: its toolSpec, then the cache point it asks for as its own element (a
    tools element is a union: toolSpec and cachePoint never share one, rule 33a)."""
    return [_tool_spec(tool)] + ([cache_block(tool.cache)] if tool.cache else [])


def tool_config(tools: list | None, tool_choice: Any = None, *, thinking: bool = False,
                cache_point: bool = False) -> dict | None:
    """Bedrock ``toolConfig``, or None when there are no tools (Bedrock rejects an empty list)."""
    defs = tool_defs(tools)
    if not defs:
        return None
    tools = [element for t in defs for element in _tool_elements(t)]
    config: dict = {"tools": tools + ([CACHE_POINT] if cache_point and "cachePoint" not in tools[-1] else [])}
    choice = _choice(tool_choice, [t.name for t in defs], thinking)
    if choice:
        config["toolChoice"] = {"tool": {"name": choice[1]}} if choice[0] == "tool" else {choice[0]: {}}
    return config


def anthropic_tools(tools: list | None, *, cache_point: bool = False) -> list[dict]:
    """Anthropic Messages ``tools`` (InvokeModel path); a cache point marks the last tool."""
    out = [{k: v for k, v in (("name", t.name), ("description", t.description), ("input_schema", t.schema))
            if v is not None} for t in tool_defs(tools)]
    for tool, definition in zip(out, tool_defs(tools)):
        if definition.cache:
            tool["cache_control"] = definition.cache
    if cache_point and out:
        out[-1].setdefault("cache_control", {"type": "ephemeral"})
    return out


def anthropic_tool_choice(tools: list | None, tool_choice: Any, *, thinking: bool = False) -> dict | None:
    """Anthropic Messages ``tool_choice``, or None when there are no tools or no choice."""
    defs = tool_defs(tools)
    choice = _choice(tool_choice, [t.name for t in defs], thinking) if defs else None
    if not choice:
        return None
    return {"type": "tool", "name": choice[1]} if choice[0] == "tool" else {"type": choice[0]}
