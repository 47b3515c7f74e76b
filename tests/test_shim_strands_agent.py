"""The strands-agent shim (a strands Agent loop): its verdicts against the baseline, and that a loop which ignores
the calls it was given is caught. Skipped unless strands-agents is installed (tox env ``shim-strands-agent``)."""

from __future__ import annotations

import importlib.metadata

import pytest

pytest.importorskip("strands")

import strands.event_loop.streaming as streaming
import strands.models.bedrock

from harness import load_adapter
from harness.adapters import CAPABILITIES, OWN_HISTORY
from harness.adapters.shims.agent_loop import LOOP_ENDED
from harness.report import render_text
from harness.suite.runner import run_scenario

from shim_verdicts import ROOT, SCENARIOS, assert_baseline_lists, assert_refused, assert_verdict  # noqa: E402

SPEC = "harness.adapters.shims.strands_agent:StrandsAgentAdapter"
# Each known failure and what its report must show: the library's own output that makes it a finding.
KNOWN = {
    "edge/max-tokens-mid-tool": 'actual tool_call {"id": "tooluse_E53Ks2JAXr1Et_EFUMCMia", "name": "read_file", '
                                '"input": {}}',
    "edge/server-tool-then-client-tool": '"name": "nova_code_interpreter"',
    "edge/tool-result-json-values": 'toolResult.content[0] {"text": "310"} / actual {"json": 310}',
    # the stream was cut before messageStop; the AgentResult the application gets says end_turn all the same
    "faults/truncated-stream": 'actual chunk 1 (stop): unexpected; expected nothing / actual stop {"reason": '
                               '"end_turn"}',
    "edge/server-tool-text-result": '"name": "nova_code_interpreter"',
    "edge/tool-result-no-status": "This model doesn't support tool use in streaming mode.",
    # every ToolResultContent item stays inside the result, whatever the model
    "edge/openai-tool-result-image": "This model doesn't support the image field for user messages.",
    "edge/tool-result-error-with-image": "all content must be ty",
}
WARNED = {"edge/interleaved-parallel-deltas": "warning (robustness: no real recording shows Bedrock interleaving",
          "edge/nova-parallel-calls": "judgement schema-unchanged", "edge/unicode-nested-input": "judgement schema-unchanged"}
# edge/tool-result-no-status: the agent continues from a stored history that ends in the failed result
PASSING = ["core/parallel-calls", "core/thinking-tools", "edge/end-turn-with-tool-use", "edge/redacted-reasoning-tool",
           "edge/tool-result-is-error", "faults/throttling-mid-tool", "edge/parallel-results-round-trip",
           "edge/tool-result-no-status", "edge/guardrail-async", "edge/response-field-paths", "edge/prompt-router-trace"]
# At the floor release (tox env shim-strands-agent-oldest) the floor baseline holds two more.
FLOOR = importlib.metadata.version("strands-agents") == "1.19.0"
NAME = "strands-agent.floor" if FLOOR else "strands-agent"
if FLOOR:
    KNOWN |= {"edge/signature-only-reasoning": "assembled nothing (block dropped)",
              "edge/two-signed-reasoning-blocks": "turn 0 assembled message block 1 (reasoning): streamed signature",
              # which result lands first varies between runs (see LastCallFirst): the first is never the object's
              "edge/tool-result-json-values": 'toolResult.content[0].json {"lines": 42} / actual ',
              "edge/unsigned-reasoning-to-claude": "User messages cannot contain reasoning content.",
              "edge/cache-points": "actual no toolConfig.tools[1].cachePoint.ttl"}
    WARNED = {sid: why for sid, why in WARNED.items() if sid != "edge/nova-parallel-calls"}
# Up to 1.41 results go back in the order the tools finish, each with its own toolUseId: in the golden's order or in
# another (the shim's tools return last call first, but a run may finish them in order), the same content, which no
# rule or evidence says Bedrock needs in the golden's order: a pass or a warning.
REORDERED = ("edge/parallel-results-round-trip", "edge/nova-parallel-calls", "edge/zero-arg-after-text",
             "edge/tool-result-media", "edge/nova-tool-result-media") if FLOOR else ()
PASSING = [sid for sid in PASSING if sid not in KNOWN and sid not in REORDERED]
TIERED = ["edge/service-tier-flex", "edge/latency-optimized"]  # BedrockConfig.service_tier: 1.19.0 has none
PASSING += [] if FLOOR else TIERED
# the citation scenarios ask a question between model calls, which an agent run does not take
SKIPPED = {"edge/document-citations": "an agent loop takes no user content between its model calls",
           **({sid: "adapter lacks service_tier" for sid in TIERED} if FLOOR else {})}

@pytest.fixture
def adapter():
    return load_adapter(SPEC)


def test_identity_is_the_library_and_it_owns_its_history(adapter):
    assert adapter.name == "strands-agent"
    assert adapter.version == importlib.metadata.version("strands-agents")
    assert adapter.capabilities <= CAPABILITIES and OWN_HISTORY in adapter.capabilities
    assert "non_streaming" not in adapter.capabilities and adapter.store() is None  # why: the shim's docstring


def test_baseline_lists_exactly_the_known_failures():
    assert_baseline_lists(NAME, KNOWN)


@pytest.mark.parametrize("sid", sorted({*PASSING, *KNOWN, *WARNED, *SKIPPED}))
def test_verdict_matches_the_baseline(adapter, sid):
    assert_verdict(adapter, NAME, sid, KNOWN, skipped=SKIPPED, warned=WARNED)


@pytest.mark.parametrize("sid", REORDERED)
def test_results_in_the_order_the_tools_finish_are_at_most_a_warning(adapter, sid):
    result = run_scenario(SCENARIOS[sid], adapter, ROOT)
    assert result.status in ("pass", "warn"), render_text([result])
    # the order itself, or (Nova, in the golden's order) only the schema descriptions the Agent adds
    allowed = ("the request holds the golden's content in another form", "judgement schema-unchanged")
    assert all(w.reason.startswith(allowed) for w in result.warnings), [w.reason for w in result.warnings]


def test_a_loop_that_ignores_a_call_that_came_with_end_turn_is_caught(adapter, monkeypatch):
    # No override of Bedrock's end_turn (this scenario's every stop reason): newer releases override it in
    # handle_message_stop(event, content), older ones in BedrockModel._stream before the event reaches it.
    monkeypatch.setattr(streaming, "handle_message_stop", lambda event, *_content: "end_turn")
    result = run_scenario(SCENARIOS["edge/end-turn-with-tool-use"], adapter, ROOT)
    assert result.status == "fail" and LOOP_ENDED in render_text([result]), render_text([result])


def test_a_model_that_ignores_the_endpoint_is_refused(adapter, monkeypatch):
    class Ignoring(strands.models.bedrock.BedrockModel):  # a release that drops endpoint_url
        def __init__(self, endpoint_url, **kwargs):
            super().__init__(**kwargs)

    monkeypatch.setattr(strands.models.bedrock, "BedrockModel", Ignoring)
    assert_refused(adapter)


class _Emitted:
    """What ModelCall hands the agent loop, in order."""

    def __init__(self):
        self.chunks = []

    def emit(self, chunk):
        self.chunks.append(chunk)


def test_a_model_call_closes_with_its_response_fields_usage_and_served_metadata():
    from harness.adapters.shims.strands_agent import LastCallFirst, ModelCall

    emitted = _Emitted()
    call = ModelCall(emitted, LastCallFirst())
    citation = {"title": "Returns", "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 4}}}
    for event in [{"event": {"messageStart": {"role": "assistant"}}},
                  {"citation": citation, "delta": {"citation": citation}}, {"data": "OK", "delta": {"text": "OK"}},
                  {"event": {"messageStop": {"stopReason": "end_turn",
                                             "additionalModelResponseFields": {"stop_sequence": None}}}},
                  {"event": {"metadata": {"usage": {"inputTokens": 3, "outputTokens": 1, "totalTokens": 4},
                                          "serviceTier": {"type": "flex"}}}},
                  {"message": {"role": "assistant", "content": [{"text": "OK"}]}}]:
        call.feed(event)
    assert emitted.chunks == [
        {"type": "citation", "citation": citation}, {"type": "text", "text": "OK"}, {"type": "stop", "reason": "end_turn"},
        {"type": "response_fields", "fields": {"stop_sequence": None}},
        {"type": "usage", "input_tokens": 3, "output_tokens": 1, "cache_read_input_tokens": 0,
         "cache_write_input_tokens": 0},
        {"type": "metadata", "invoked_model_id": None, "service_tier": "flex", "latency": None},
        {"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": "OK"}]}}]
