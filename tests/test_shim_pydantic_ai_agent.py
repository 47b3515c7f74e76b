"""The pydantic-ai-agent shim (a pydantic-ai Agent run): its verdicts against the baseline, its tool results, and
that its loop runs a call that came with end_turn. Skipped unless pydantic-ai is installed (tox env
``shim-pydantic-ai-agent``)."""

from __future__ import annotations

import asyncio
import importlib.metadata

import pytest

pytest.importorskip("pydantic_ai")

import pydantic_ai.providers.bedrock
import pydantic_ai.tools
from pydantic_ai import exceptions

from harness import load_adapter
from harness.adapters import CAPABILITIES, OWN_HISTORY, USAGE_INCLUDES_CACHE
from harness.adapters.shims import pydantic_ai_agent as shim

from shim_verdicts import assert_baseline_lists, assert_refused, assert_verdict  # noqa: E402

SPEC = "harness.adapters.shims.pydantic_ai_agent:PydanticAiAgentAdapter"
# A cut stream ends as a complete response (only messageStop sets finish_reason, and nothing checks it came).
CUT = 'turn 0 chunk 1 (error): missing; expected error {"code": "adapter_error"} / actual nothing'
METADATA_LOST = "turn 0 chunk 3 (metadata): missing; expected metadata"
KNOWN = {"faults/truncated-stream": CUT,
         "edge/cache-point-before-document": "document.name 'release-notes' / actual 'Document 1'",
         # request_stream streams whatever the model: Writer refuses tools on ConverseStream (rule 38)
         "edge/tool-result-no-status": "This model doesn't support tool use in streaming mode.",
         # unsigned reasoning carried into the user's turn as <assistant_thinking> text
         "edge/unsigned-reasoning-to-claude": "assistant_thinking",
         # the metadata event's serviceTier and performanceConfig are dropped (only its trace is kept)
         **{sid: METADATA_LOST for sid in ("edge/latency-optimized", "edge/service-tier-flex")}}
# Graded warn: every streamed call's arguments are held as JSON text (ToolCallPart.args), which the shim reports as
# held, and a call cut off by max_tokens kept as its partial text; unsigned reasoning sent as text; Writer's error
# text wrapped in {"error": ...} (the agent continues from the stored history); a cut stream ending quietly.
WARNED = {**{sid: "judgement arguments-as-object" for sid in (
    "core/parallel-calls", "core/thinking-tools", "edge/end-turn-with-tool-use", "edge/redacted-reasoning-tool",
    "edge/tool-result-is-error", "edge/interleaved-reasoning-tools", "edge/max-tokens-mid-tool",
    "edge/unsigned-reasoning-round-trip", "edge/structured-output", "edge/cache-points", "edge/nova-cache-points")},
    # content_items splits a list return into one text block per item: the same items in another form
    "edge/tool-result-json-values": "the request holds the golden's content in another form"}
PASSING = ["edge/empty-text-before-reasoning", "edge/guardrail-async", "edge/prompt-router-trace",
           "faults/model-stream-error-mid-tool"]
# At the extra's floor the floor certification applies (certification/pydantic-ai-agent.floor.*).
FLOOR = "1.23.0"
KNOWN_AT_FLOOR = {
    "edge/cache-usage": "turn 0 chunk 2 (usage): expected cache_write_input_tokens 1843 / actual 0",
    "edge/cache-both-spellings": "turn 0 chunk 2 (usage): expected cache_write_input_tokens 2048 / actual 0",
    "edge/server-tool-then-client-tool": 'actual tool_call {"id": "tooluse_86QZr6KytxFeqOIjxu477l", "name": "nova_co',
    "edge/server-tool-text-result": 'actual tool_call {"id": "tooluse_hPFgKIuCSc0_qhY3swN-kJ", "name": "nova_code',
    "edge/tool-result-is-error": "/tmp/missing.txt'\\n\\nFix the errors and try",
    "edge/tool-result-no-status": "does not exist\\n\\nFix the errors and try again.'",
    "faults/truncated-stream": CUT}
# 1.23.0 has no bedrock_service_tier: the shim does not declare service_tier there.
SKIPPED_AT_FLOOR = {sid: "adapter lacks service_tier" for sid in ("edge/latency-optimized", "edge/service-tier-flex")}
# nor native output or strict tools: no structured_output
SKIPPED_AT_FLOOR["edge/structured-output"] = "adapter lacks structured_output"
SKIPPED_AT_FLOOR |= {sid: "adapter lacks cache_points" for sid in ("edge/cache-points", "edge/nova-cache-points",
                                                                  "edge/cache-point-before-document")}
SKIPPED: dict = {}
FLOOR_ONLY = set(KNOWN_AT_FLOOR) - set(KNOWN)  # failures only the floor has
if importlib.metadata.version("pydantic-ai-slim") == FLOOR:
    NAME, KNOWN, PASSING = (
        "pydantic-ai-agent.floor", KNOWN_AT_FLOOR,
        [s for s in PASSING if s not in KNOWN_AT_FLOOR | SKIPPED_AT_FLOOR.keys()])
    SKIPPED = SKIPPED_AT_FLOOR
    WARNED = {**{sid: why for sid, why in WARNED.items() if sid not in FLOOR_ONLY | SKIPPED_AT_FLOOR.keys()},
              "edge/interleaved-parallel-deltas": "warning (robustness: no real recording shows Bedrock interleaving",
              "edge/tool-result-json-values": "judgement object-result-as-json"}
else:
    NAME = "pydantic-ai-agent"
# ToolFailed arrived in 2.16; before it a tool's failure is a ModelRetry.
FAILURE = getattr(exceptions, "ToolFailed", exceptions.ModelRetry)


@pytest.fixture
def adapter():
    return load_adapter(SPEC)


def test_identity_is_the_library_and_its_conventions_are_declared(adapter):
    assert adapter.name == "pydantic-ai-agent"
    assert adapter.version == importlib.metadata.version("pydantic-ai-slim")
    assert adapter.capabilities <= CAPABILITIES and {OWN_HISTORY, USAGE_INCLUDES_CACHE} <= adapter.capabilities
    assert "non_streaming" not in adapter.capabilities and adapter.store() is None  # why: the shim's docstring


def test_baseline_lists_exactly_the_known_failures():
    assert_baseline_lists(NAME, KNOWN)


@pytest.mark.parametrize("sid", sorted({*PASSING, *KNOWN, *WARNED, *SKIPPED}))
def test_verdict_matches_the_baseline(adapter, sid):
    assert_verdict(adapter, NAME, sid, KNOWN, skipped=SKIPPED, warned=WARNED)


def test_a_tool_returns_the_scenarios_result_and_fails_with_an_error_result():
    assert shim.tool_return({"type": "tool_result", "tool_use_id": "t1", "content": {"size": 3}}) == {"size": 3}
    with pytest.raises(FAILURE, match="no such file"):
        shim.tool_return({"type": "tool_result", "tool_use_id": "t1", "content": "no such file", "is_error": True})


def test_a_provider_that_ignores_the_endpoint_is_refused(adapter, monkeypatch):
    class Ignoring(pydantic_ai.providers.bedrock.BedrockProvider):  # a release that drops base_url
        def __init__(self, base_url, **kwargs):
            super().__init__(**kwargs)

    monkeypatch.setattr(pydantic_ai.providers.bedrock, "BedrockProvider", Ignoring)
    assert_refused(adapter)


def test_the_output_format_is_the_agents_native_output_and_strict_tools_a_prepared_toolset():
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    wanted = {"type": "json_schema", "name": "answer", "description": "The answer.", "schema": schema}
    output = shim.output_type({"output_format": wanted})["output_type"]
    assert (output.name, output.description) == ("answer", "The answer.")
    assert shim.output_type({}) == {}
    turn = {"tools": [{"name": "f", "input_schema": {"type": "object"}, "strict": True}]}
    assert shim._tools({"tools": []}, []) == {"tools": []}
    toolset = shim._tools(turn, [])["toolsets"][0]
    definitions = [pydantic_ai.tools.ToolDefinition(name=n, parameters_json_schema={"type": "object"}) for n in "fg"]
    marked = asyncio.run(toolset.prepare_func(None, definitions))
    assert [d.strict for d in marked] == [True, None]


def test_a_marked_result_is_the_tools_return_value_with_its_cache_point():
    from pydantic_ai.messages import CachePoint, ToolReturn

    marked = {"type": "tool_result", "tool_use_id": "t1", "content": "ok", "cache_control": {"type": "ephemeral",
                                                                                          "ttl": "5m"}}
    returned = shim.tool_return(marked)
    assert isinstance(returned, ToolReturn) and returned.return_value == "ok"
    assert returned.content == [CachePoint(ttl="5m")]
    assert shim.tool_return({**marked, "cache_control": None}) == "ok"
    assert shim.PydanticAiAgentAdapter.result_cache_points
