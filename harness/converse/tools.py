"""Tool definitions (Anthropic, OpenAI or Bedrock format) -> Bedrock ``toolConfig`` or Anthropic ``tools``."""

from __future__ import annotations

from typing import Any, NamedTuple

from harness.converse.errors import TurnError

__all__ = ["CACHE_POINT", "ToolDef", "anthropic_tool_choice", "anthropic_tools", "tool_config", "tool_defs"]

CACHE_POINT = {"cachePoint": {"type": "default"}}
_NO_PARAMETERS = {"type": "object", "properties": {}}


class ToolDef(NamedTuple):
    """One tool, whatever format it came in."""

    name: str
    description: str | None
    schema: dict


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
    return ToolDef(name, description or None, schema)


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
    spec = {"name": tool.name, "description": tool.description, "inputSchema": {"json": tool.schema}}
    return {"toolSpec": {k: v for k, v in spec.items() if v is not None}}


def tool_config(tools: list | None, tool_choice: Any = None, *, thinking: bool = False,
                cache_point: bool = False) -> dict | None:
    """Bedrock ``toolConfig``, or None when there are no tools (Bedrock rejects an empty list)."""
    defs = tool_defs(tools)
    if not defs:
        return None
    config: dict = {"tools": [_tool_spec(t) for t in defs] + ([CACHE_POINT] if cache_point else [])}
    choice = _choice(tool_choice, [t.name for t in defs], thinking)
    if choice:
        config["toolChoice"] = {"tool": {"name": choice[1]}} if choice[0] == "tool" else {choice[0]: {}}
    return config


def anthropic_tools(tools: list | None, *, cache_point: bool = False) -> list[dict]:
    """Anthropic Messages ``tools`` (InvokeModel path); a cache point marks the last tool."""
    out = [{k: v for k, v in (("name", t.name), ("description", t.description), ("input_schema", t.schema))
            if v is not None} for t in tool_defs(tools)]
    if cache_point and out:
        out[-1]["cache_control"] = {"type": "ephemeral"}
    return out


def anthropic_tool_choice(tools: list | None, tool_choice: Any, *, thinking: bool = False) -> dict | None:
    """Anthropic Messages ``tool_choice``, or None when there are no tools or no choice."""
    defs = tool_defs(tools)
    choice = _choice(tool_choice, [t.name for t in defs], thinking) if defs else None
    if not choice:
        return None
    return {"type": "tool", "name": choice[1]} if choice[0] == "tool" else {"type": choice[0]}
