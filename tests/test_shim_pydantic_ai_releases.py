"""The pydantic-ai shims' branches for older releases (1.23 up to the newest), on fake modules shaped like each
release's API: they run without pydantic-ai installed, so CI catches a break of a branch no installed release takes."""

from __future__ import annotations

import dataclasses
import importlib.abc
import importlib.machinery
import sys
import types

import pytest

from harness.adapters.shims import pydantic_ai as shim
from harness.adapters.shims import pydantic_ai_history as history
from harness.adapters.shims import pydantic_ai_agent as agent_shim
from harness.adapters.shims import pydantic_ai_native as native


@dataclasses.dataclass
class OldToolCallPart:
    """A ToolCallPart before 1.70: ``args_as_dict()`` has no ``raise_if_invalid`` and asserts on malformed args."""

    tool_name: str
    args: str
    tool_call_id: str

    def args_as_dict(self) -> dict:
        import json

        args = json.loads(self.args)
        assert isinstance(args, dict), "args should be a dict"
        return args


@dataclasses.dataclass
class NewToolCallPart(OldToolCallPart):
    """From 1.70: malformed args become ``{"INVALID_JSON": raw}`` unless ``raise_if_invalid=True``."""

    def args_as_dict(self, *, raise_if_invalid: bool = False) -> dict:
        try:
            return super().args_as_dict()
        except (ValueError, AssertionError):
            if raise_if_invalid:
                raise
            return {"INVALID_JSON": self.args}


@dataclasses.dataclass
class OldToolReturnPart:
    """A ToolReturnPart before 1.67: no ``outcome``."""

    tool_name: str
    content: object
    tool_call_id: str


@dataclasses.dataclass
class NewToolReturnPart(OldToolReturnPart):
    outcome: str = "success"


@dataclasses.dataclass
class RetryPromptPart:
    content: object
    tool_name: str | None = None
    tool_call_id: str = ""


@dataclasses.dataclass
class UserPromptPart:
    content: object


@dataclasses.dataclass
class TextPart:
    content: str


@dataclasses.dataclass
class ThinkingPart:
    content: str
    id: str | None = None
    signature: str | None = None


@dataclasses.dataclass
class NativeToolCallPart:
    tool_name: str


@dataclasses.dataclass
class FilePart:
    """A part kind the message mapping has no block for."""

    content: str
    part_kind: str = "file"


class ModelRetry(Exception):
    pass


class ToolFailed(Exception):
    pass


def _library(monkeypatch, *, tool_call=NewToolCallPart, tool_return=NewToolReturnPart, tool_failed=True) -> None:
    """Fake ``pydantic_ai``, ``pydantic_ai.messages`` and ``pydantic_ai.exceptions`` modules in sys.modules."""
    messages = types.SimpleNamespace(ToolCallPart=tool_call, ToolReturnPart=tool_return, RetryPromptPart=RetryPromptPart,
                                     UserPromptPart=UserPromptPart, TextPart=TextPart, ThinkingPart=ThinkingPart)
    exceptions = types.SimpleNamespace(ModelRetry=ModelRetry, **({"ToolFailed": ToolFailed} if tool_failed else {}))
    package = types.SimpleNamespace(messages=messages, exceptions=exceptions, __path__=[])
    for name, module in [("pydantic_ai", package), ("pydantic_ai.messages", messages),
                         ("pydantic_ai.exceptions", exceptions)]:
        monkeypatch.setitem(sys.modules, name, module)


@pytest.mark.parametrize("part_type", [OldToolCallPart, NewToolCallPart])
def test_parsed_args_raise_on_malformed_arguments_at_every_release(part_type):
    assert shim.parsed_args(part_type("f", '{"a": 1}', "t1")) == {"a": 1}
    for malformed in ('{"a"', "[1]"):
        with pytest.raises((ValueError, AssertionError)):
            shim.parsed_args(part_type("f", malformed, "t1"))


@pytest.mark.parametrize("part_type", [OldToolCallPart, NewToolCallPart])
def test_the_final_response_leaves_an_unfinished_call_to_its_deltas_at_every_release(monkeypatch, part_type):
    _library(monkeypatch, tool_call=part_type)
    usage = types.SimpleNamespace(input_tokens=5, output_tokens=2, cache_read_tokens=0, cache_write_tokens=0)
    response = types.SimpleNamespace(parts=[part_type("f", '{"a": 1}', "t1"), part_type("g", '{"a"', "t2")],
                                     provider_details=None, finish_reason="length", usage=usage)
    assert list(shim.from_response(response)) == [
        {"type": "tool_call", "id": "t1", "name": "f", "input": {"a": 1}}, {"type": "stop", "reason": "max_tokens"},
        {"type": "usage", "input_tokens": 5, "output_tokens": 2, "cache_read_input_tokens": 0,
         "cache_write_input_tokens": 0}]
    assert native.anthropic_parts(types.SimpleNamespace(parts=[])) == []


@pytest.mark.parametrize("part_type", [OldToolCallPart, NewToolCallPart])
def test_the_message_chunk_carries_what_pydantic_ai_holds_unrepaired(monkeypatch, part_type):
    _library(monkeypatch, tool_call=part_type)
    parts = [TextPart(""), ThinkingPart("", signature="S"), ThinkingPart("", id="redacted_content"),
             part_type("f", '{"a": 1}', "t1"), part_type("g", '{"a"', "t2"), NativeToolCallPart("code"),
             FilePart("x")]
    blocks = native.anthropic_parts(types.SimpleNamespace(parts=parts))
    assert blocks == [{"type": "text", "text": ""}, {"type": "thinking", "thinking": "", "signature": "S"},
                      {"type": "redacted_thinking", "data": None},
                      {"type": "tool_use", "id": "t1", "name": "f", "input": '{"a": 1}'},  # as held: text
                      {"type": "tool_use", "id": "t2", "name": "g", "input": '{"a"'},
                      {"type": "file", "content": "x", "part_kind": "file"}]  # no block for it: passed on whole


def test_a_failed_result_is_a_failed_tool_return_where_the_release_has_outcome(monkeypatch):
    _library(monkeypatch, tool_return=NewToolReturnPart)
    failed = history.tool_return_part("f", "boom", "t1", True)
    assert failed == NewToolReturnPart("f", "boom", "t1", outcome="failed")
    assert history.tool_return_part("f", {"ok": 1}, "t1", False) == NewToolReturnPart("f", {"ok": 1}, "t1")


def test_a_failed_result_is_a_retry_prompt_before_outcome_existed(monkeypatch):
    _library(monkeypatch, tool_return=OldToolReturnPart)
    assert history.tool_return_part("f", "boom", "t1", True) == RetryPromptPart("boom", tool_name="f", tool_call_id="t1")
    assert history.tool_return_part("f", ["a", 42], "t1", True).content == '["a", 42]'
    assert history.tool_return_part("f", "fine", "t1", False) == OldToolReturnPart("f", "fine", "t1")


@pytest.mark.parametrize(("tool_failed", "raised"), [(True, ToolFailed), (False, ModelRetry)])
def test_an_agent_tool_fails_with_tool_failed_else_model_retry(monkeypatch, tool_failed, raised):
    _library(monkeypatch, tool_failed=tool_failed)
    assert agent_shim.tool_return({"type": "tool_result", "tool_use_id": "t1", "content": "fine"}) == "fine"
    with pytest.raises(raised, match="no such file") as caught:
        agent_shim.tool_return({"type": "tool_result", "tool_use_id": "t1", "content": "no such file",
                                "is_error": True})
    assert type(caught.value) is raised


class _Unimportable(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``pydantic_ai`` and fails its import as a release does whose own import is missing ``missing``."""

    def __init__(self, missing: str) -> None:
        self.missing = missing

    def find_spec(self, name, path=None, target=None):
        return importlib.machinery.ModuleSpec(name, self) if name == "pydantic_ai" else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        raise ModuleNotFoundError(f"No module named {self.missing!r}", name=self.missing)


def _unimportable(monkeypatch, missing: str) -> None:
    monkeypatch.delitem(sys.modules, "pydantic_ai", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_Unimportable(missing), *sys.meta_path])


def test_a_release_that_imports_the_removed_opentelemetry_events_says_which_pin_it_needs(monkeypatch):
    _unimportable(monkeypatch, "opentelemetry._events")
    with pytest.raises(ImportError, match=r"pydantic-ai-slim 1\.23\.0 imports opentelemetry\._events.*"
                                          r"'opentelemetry-api<1\.44'"):
        shim.importable("1.23.0")


def test_any_other_missing_module_is_raised_as_it_is(monkeypatch):
    _unimportable(monkeypatch, "boto3")
    with pytest.raises(ModuleNotFoundError) as caught:
        shim.importable("2.68.0")
    assert caught.value.name == "boto3"
