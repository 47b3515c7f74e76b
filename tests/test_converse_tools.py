"""Tool definitions -> toolConfig / Anthropic tools (harness/converse/tools.py)."""

from __future__ import annotations

import pytest

from harness.converse import TurnError, anthropic_tools, tool_config
from harness.converse.tools import anthropic_tool_choice

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
ANTHROPIC = [{"name": "read_file", "description": "Read a file.", "input_schema": SCHEMA},
             {"name": "now", "input_schema": {"type": "object", "properties": {}}}]
OPENAI = [{"type": "function", "function": {"name": "read_file", "description": "Read a file.", "parameters": SCHEMA}},
          {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}}]
SPECS = [{"toolSpec": {"name": "read_file", "description": "Read a file.", "inputSchema": {"json": SCHEMA}}},
         {"toolSpec": {"name": "now", "inputSchema": {"json": {"type": "object", "properties": {}}}}}]


@pytest.mark.parametrize("tools", [ANTHROPIC, OPENAI, SPECS], ids=["anthropic", "openai", "bedrock"])
def test_definitions_map_to_tool_specs(tools):
    assert tool_config(tools) == {"tools": SPECS}


@pytest.mark.parametrize("tools", [ANTHROPIC, OPENAI], ids=["anthropic", "openai"])
@pytest.mark.parametrize("choice, expected", [
    ("auto", {"auto": {}}), ("any", {"any": {}}), ({"name": "now"}, {"tool": {"name": "now"}}),
    ({"type": "tool", "name": "now"}, {"tool": {"name": "now"}}), ({"type": "any"}, {"any": {}}),
])
def test_tool_choice_without_thinking(tools, choice, expected):
    assert tool_config(tools, choice) == {"tools": SPECS, "toolChoice": expected}


@pytest.mark.parametrize("tools", [ANTHROPIC, OPENAI], ids=["anthropic", "openai"])
@pytest.mark.parametrize("choice", [None, "auto", "any", {"name": "now"}])
def test_thinking_forces_auto(tools, choice):
    assert tool_config(tools, choice, thinking=True) == {"tools": SPECS, "toolChoice": {"auto": {}}}


def test_no_choice_and_no_thinking_leaves_tool_choice_out():
    assert "toolChoice" not in tool_config(ANTHROPIC)


@pytest.mark.parametrize("tools", [None, []])
def test_no_tools_means_no_tool_config(tools):
    assert tool_config(tools, "any", thinking=True) is None


def test_cache_point_follows_the_tools():
    assert tool_config(ANTHROPIC, cache_point=True)["tools"] == SPECS + [{"cachePoint": {"type": "default"}}]


def test_openai_function_without_parameters_takes_no_arguments():
    tools = [{"type": "function", "function": {"name": "ping"}}]
    assert tool_config(tools) == {"tools": [{"toolSpec": {"name": "ping", "inputSchema": {
        "json": {"type": "object", "properties": {}}}}}]}


@pytest.mark.parametrize("tool, message", [
    ({"description": "x", "input_schema": SCHEMA}, "tools[1]: tool has no name"),
    ({"name": "", "input_schema": SCHEMA}, "tools[1]: tool has no name"),
    ({"type": "function", "function": {"parameters": SCHEMA}}, "tools[1]: tool has no name"),
    ({"name": "bad", "input_schema": {"type": "array"}}, "tools[1] 'bad': input schema must be a JSON object schema"),
    ({"name": "bad", "input_schema": "string"}, "tools[1] 'bad': input schema must be a JSON object schema"),
    ({"name": "bad"}, "tools[1] 'bad': input schema must be a JSON object schema"),
    ("read_file", "tools[1]: a tool definition must be an object"),
])
def test_bad_definitions_raise_naming_the_tool(tool, message):
    with pytest.raises(TurnError) as info:
        tool_config([ANTHROPIC[0], tool])
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("choice, message", [
    ({"name": "missing"}, "options.tool_choice names 'missing', which is not among the tools"),
    ("none", "options.tool_choice: expected 'auto', 'any' or {'name': ...}, got 'none'"),
])
def test_bad_tool_choice_raises(choice, message):
    with pytest.raises(TurnError) as info:
        tool_config(ANTHROPIC, choice)
    assert str(info.value).startswith(message)


def test_anthropic_tools_from_either_format():
    expected = [{"name": "read_file", "description": "Read a file.", "input_schema": SCHEMA},
                {"name": "now", "input_schema": {"type": "object", "properties": {}}}]
    assert anthropic_tools(OPENAI) == anthropic_tools(ANTHROPIC) == expected
    assert anthropic_tools(OPENAI, cache_point=True)[-1]["cache_control"] == {"type": "ephemeral"}


@pytest.mark.parametrize("choice, thinking, expected", [
    ("any", False, {"type": "any"}), ({"name": "now"}, False, {"type": "tool", "name": "now"}),
    ({"name": "now"}, True, {"type": "auto"}), (None, False, None),
])
def test_anthropic_tool_choice(choice, thinking, expected):
    assert anthropic_tool_choice(ANTHROPIC, choice, thinking=thinking) == expected
