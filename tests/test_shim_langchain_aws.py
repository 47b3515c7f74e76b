"""The langchain-aws shim: its history and chunk mapping, and its verdicts on core scenarios against the baseline.

Skipped unless langchain-aws is installed (tox env ``shim-langchain-aws``). Known failures must fail for the
documented reason (the report shows the evidence); every other scenario run here must pass.
"""

from __future__ import annotations

import base64
import importlib.metadata

import pytest

pytest.importorskip("langchain_aws")

from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from harness import load_adapter
from harness.adapters import CAPABILITIES
from harness.adapters.shims import langchain_aws as shim

from shim_verdicts import assert_baseline_lists, assert_verdict  # noqa: E402

SPEC = "harness.adapters.shims.langchain_aws:LangchainAwsAdapter"
# Each known failure and what its report must show: the library's own output that makes it a finding.
KNOWN = {
    "edge/max-tokens-mid-tool": "presents call 'tooluse_E53Ks2JAXr1Et_EFUMCMia' as complete although the stream "
                                "ended badly",
    "edge/server-tool-then-client-tool": 'actual tool_call {"id": null, "name": null, "input": {"code"',
    "faults/missing-tool-use-id": 'unexpected; expected nothing / actual tool_call {"id": null, "name": "read_file"',
}
PASSING = ["core/parallel-calls", "core/thinking-tools", "edge/redacted-reasoning-tool",
           "faults/model-stream-error-mid-tool"]


@pytest.fixture(scope="module")
def adapter():
    return load_adapter(SPEC)


def test_identity_is_the_library_and_capabilities_are_known(adapter):
    assert adapter.name == "langchain-aws"
    assert adapter.version == importlib.metadata.version("langchain-aws")
    assert adapter.capabilities <= CAPABILITIES and "streaming" in adapter.capabilities


def test_baseline_lists_exactly_the_known_failures():
    assert_baseline_lists("langchain-aws", KNOWN)


@pytest.mark.parametrize("sid", PASSING + sorted(KNOWN))
def test_verdict_matches_the_baseline(adapter, sid):
    assert_verdict(adapter, "langchain-aws", sid, KNOWN)


def test_history_maps_to_langchain_messages():
    turn = {"system": "sys", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "SIG"},
            {"type": "redacted_thinking", "data": base64.b64encode(b"opaque").decode()},
            {"type": "text", "text": "calling"},
            {"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": True},
            {"type": "text", "text": "and?"}]}]}
    system, human, ai, tool, follow = shim.to_langchain(turn)
    assert isinstance(system, SystemMessage) and system.content == "sys"
    assert isinstance(human, HumanMessage) and isinstance(ai, AIMessage)
    assert ai.content[0] == {"type": "reasoning_content", "reasoning_content": {"text": "hmm", "signature": "SIG"}}
    assert ai.content[1]["reasoning_content"]["redacted_content"] == b"opaque"
    assert ai.tool_calls == [{"id": "t1", "name": "f", "args": {}, "type": "tool_call"}]
    assert isinstance(tool, ToolMessage) and (tool.tool_call_id, tool.status, tool.content) == ("t1", "error", "boom")
    assert isinstance(follow, HumanMessage) and follow.content == [{"type": "text", "text": "and?"}]


def test_stream_chunks_map_back():
    start = AIMessageChunk(content=[{"type": "tool_use", "id": "t1", "name": "f", "index": 1}],
                           tool_call_chunks=[{"id": "t1", "name": "f", "args": None, "index": 1}])
    delta = AIMessageChunk(content=[{"type": "reasoning_content", "reasoning_content": {"signature": "S"},
                                     "index": 0}])
    assert list(shim.from_chunk(start)) == [{"type": "tool_call", "index": 1, "input_delta": "", "id": "t1",
                                             "name": "f"}]
    assert list(shim.from_chunk(delta)) == [{"type": "reasoning", "index": 0, "signature": "S"}]


def test_assembled_gives_the_aggregated_tool_calls_with_an_id():
    message = AIMessageChunk(content="", tool_call_chunks=[
        {"id": "t1", "name": "f", "args": '{"a": 1}', "index": 1}, {"id": None, "name": "g", "args": "{}", "index": 2}])
    assert list(shim.assembled(message)) == [{"type": "tool_call", "id": "t1", "name": "f", "input": {"a": 1}}]


def test_usage_takes_cache_tokens_out_of_langchain_input_tokens():
    metadata = {"input_tokens": 130, "output_tokens": 7, "total_tokens": 137,
                "input_token_details": {"cache_read": 100, "cache_creation": 20}}
    assert shim.usage(metadata) == {"type": "usage", "input_tokens": 10, "output_tokens": 7,
                                    "cache_read_input_tokens": 100, "cache_write_input_tokens": 20}
