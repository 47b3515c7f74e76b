"""A turn -> boto3 converse_stream kwargs (harness/converse/request.py)."""

from __future__ import annotations

import pytest
from test_converse_stream import (
    START,
    fold,
    message_stop,
    metadata,
    reasoning_delta,
    start_tool,
    stop,
    tool_delta,
)

from harness.converse import TurnError, build_request, chunks_from_events

MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}
TOOLS = [{"name": "get_weather", "description": "Weather for a city.", "input_schema": SCHEMA}]
SPEC = {"toolSpec": {"name": "get_weather", "description": "Weather for a city.", "inputSchema": {"json": SCHEMA}}}
USER = {"role": "user", "content": "Weather in Paris?"}


def turn(**options):
    return {"model_id": MODEL, "system": "Be brief.", "messages": [USER], "tools": TOOLS,
            "options": {"max_tokens": 512, "temperature": 0.2, "thinking_budget": None, "tool_choice": None, **options}}


def test_plain_turn_gives_the_exact_request():
    assert build_request(turn(tool_choice="any")) == {
        "modelId": MODEL,
        "messages": [{"role": "user", "content": [{"text": "Weather in Paris?"}]}],
        "system": [{"text": "Be brief."}],
        "inferenceConfig": {"maxTokens": 512, "temperature": 0.2},
        "toolConfig": {"tools": [SPEC], "toolChoice": {"any": {}}},
    }


def test_thinking_adds_the_budget_drops_temperature_and_forces_auto():
    request = build_request(turn(thinking_budget=1024, tool_choice={"name": "get_weather"}, top_p=0.9))
    assert request["additionalModelRequestFields"] == {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    assert request["inferenceConfig"] == {"maxTokens": 512}
    assert request["toolConfig"]["toolChoice"] == {"auto": {}}


@pytest.mark.parametrize("budget", [None, 0])
def test_no_thinking_budget_means_no_thinking(budget):
    assert "additionalModelRequestFields" not in build_request(turn(thinking_budget=budget))


def test_none_values_and_empty_parts_are_left_out():
    request = build_request({"model_id": MODEL, "system": None, "messages": [USER], "tools": [],
                             "options": {"max_tokens": None, "temperature": None}})
    assert request == {"modelId": MODEL, "messages": [{"role": "user", "content": [{"text": "Weather in Paris?"}]}]}


def test_stop_sequences_and_top_p_pass_through():
    assert build_request(turn(top_p=0.5, stop_sequences=["\nObservation:"]))["inferenceConfig"] == {
        "maxTokens": 512, "temperature": 0.2, "topP": 0.5, "stopSequences": ["\nObservation:"]}


def test_cache_points_follow_system_and_tools():
    request = build_request(turn(cache_points=True))
    assert request["system"] == [{"text": "Be brief."}, {"cachePoint": {"type": "default"}}]
    assert request["toolConfig"]["tools"] == [SPEC, {"cachePoint": {"type": "default"}}]


@pytest.mark.parametrize("bad, error", [
    ({"model_id": ""}, "turn has no model_id"),
    ({"options": {"thinking_budget": -5}}, "options.thinking_budget must be a positive integer"),
    ({"system": 7}, "system must be a string or a list of text blocks"),
])
def test_bad_turns_raise(bad, error):
    with pytest.raises(TurnError, match=error):
        build_request({**turn(), **bad})


SIG = "EqQBCkgIAxABGAIiQK9x/+Tz0Y8r1dPrX8s2w6bXqZl8k5vLZ1Jj1w0Z3q1Xb+Lq6oL9gE5Xb1dR7k3Fh2kq0Jc8H5yL9W2wvQ=="


def _assistant_from(items):
    """What an application stores from a turn's output: Anthropic blocks, in output order."""
    convert = {"reasoning": lambda i: {"type": "thinking", "thinking": i["text"], "signature": i["signature"]},
               "text": lambda i: {"type": "text", "text": i["text"]},
               "tool_call": lambda i: {"type": "tool_use", "id": i["id"], "name": i["name"], "input": i["input"]}}
    return {"role": "assistant", "content": [convert[i["type"]](i) for i in items if i["type"] in convert]}


def test_thinking_tool_call_round_trip_starts_the_turn_with_the_signed_reasoning():
    events = [START, reasoning_delta(0, text="Need the "), reasoning_delta(0, text="weather."),
              reasoning_delta(0, signature=SIG), stop(0), start_tool(1, "tooluse_W", "get_weather"),
              tool_delta(1, ""), tool_delta(1, '{"city": "Paris"}'), stop(1), message_stop(), metadata()]
    items = fold(chunks_from_events(events))
    assert [i["type"] for i in items] == ["reasoning", "tool_call", "stop", "usage"]
    follow_up = {**turn(thinking_budget=1024), "messages": [
        USER, _assistant_from(items), {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tooluse_W", "content": "18C, sunny"}]}]}
    messages = build_request(follow_up)["messages"]
    assert messages[1] == {"role": "assistant", "content": [
        {"reasoningContent": {"reasoningText": {"text": "Need the weather.", "signature": SIG}}},
        {"toolUse": {"toolUseId": "tooluse_W", "name": "get_weather", "input": {"city": "Paris"}}}]}
    assert messages[2]["content"] == [
        {"toolResult": {"toolUseId": "tooluse_W", "content": [{"text": "18C, sunny"}], "status": "success"}}]


def test_two_signed_blocks_round_trip_with_two_signatures():
    events = [START, reasoning_delta(0, text="a"), reasoning_delta(0, signature=SIG), stop(0),
              reasoning_delta(1, text="b"), reasoning_delta(1, signature=SIG[::-1]), stop(1),
              start_tool(2, "tooluse_W", "get_weather"), tool_delta(2, "{}"), stop(2), message_stop()]
    follow_up = {**turn(thinking_budget=1024), "messages": [USER, _assistant_from(fold(chunks_from_events(events)))]}
    content = build_request(follow_up)["messages"][1]["content"]
    assert [b["reasoningContent"]["reasoningText"]["signature"] for b in content[:2]] == [SIG, SIG[::-1]]


RESULT_TURN = [USER, {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "boom",
                                             "is_error": True}]}]


@pytest.mark.parametrize("model_id, status", [
    ("us.anthropic.claude-sonnet-4-20250514-v1:0", "error"), ("us.amazon.nova-pro-v1:0", "error"),
    ("moonshot.kimi-k2-thinking", "error"), ("us.meta.llama4-maverick-17b-instruct-v1:0", "error"),
    ("mistral.mistral-large-2407-v1:0", "error"), ("cohere.command-r-plus-v1:0", "error"),
    ("us.writer.palmyra-x5-v1:0", None),  # rejects it (§9 rule 29)
    ("arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123", None),  # no family: unsettled
    ("openai.gpt-oss-120b-1:0", None), ("us.deepseek.r1-v1:0", None)])  # no source either way
def test_tool_result_status_only_for_families_seen_accepting_it(model_id, status):
    request = build_request({"model_id": model_id, "messages": RESULT_TURN, "tools": [],
                             "options": {"max_tokens": 10}})
    result = request["messages"][2]["content"][0]["toolResult"]
    assert result.get("status") == status and result["content"] == [{"text": "boom"}]


def test_the_status_families_are_the_rules_accepting_families():
    """The reference sends status exactly where the rule's evidence shows it accepted (harness/endpoint/rules)."""
    from harness.endpoint.rules.scope import EVIDENCE, family
    from harness.converse.request import status_supported
    ids = {"anthropic": "us.anthropic.claude-sonnet-4-20250514-v1:0", "nova": "us.amazon.nova-pro-v1:0",
           "kimi": "moonshotai.kimi-k2-thinking", "meta": "us.meta.llama4-maverick-17b-instruct-v1:0",
           "mistral": "mistral.mistral-large-2407-v1:0", "cohere": "cohere.command-r-plus-v1:0",
           "writer": "us.writer.palmyra-x5-v1:0", "openai": "openai.gpt-oss-120b-1:0", "qwen": "qwen.qwen3-32b-v1:0"}
    accepts = EVIDENCE["tool-result-status"].accepts
    assert {family(m) for m in ids.values() if status_supported(m)} == set(accepts)


def test_a_json_result_that_is_not_an_object_goes_as_text():
    turn = [USER, {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "f", "input": {}}
                                                    for i in range(4)]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": [{"json": value}]}
                                         for i, value in enumerate(({"n": 1}, 42, ["a", "b"], "plain"))]}]
    request = build_request({"model_id": "us.anthropic.claude-sonnet-4-20250514-v1:0", "messages": turn, "tools": [],
                             "options": {"max_tokens": 10}})
    contents = [b["toolResult"]["content"] for b in request["messages"][2]["content"]]
    assert contents == [[{"json": {"n": 1}}], [{"text": "42"}], [{"text": '["a", "b"]'}], [{"text": "plain"}]]


def test_how_the_turn_is_served_goes_into_the_request():
    guardrail = {"identifier": "grd1", "version": "2", "trace": "enabled", "stream_processing_mode": "async"}
    request = build_request(turn(service_tier="flex", latency="optimized", guardrail=guardrail,
                                 response_field_paths=["/stop_sequence"]))
    assert {k: request[k] for k in ("serviceTier", "performanceConfig", "guardrailConfig",
                                    "additionalModelResponseFieldPaths")} == {
        "serviceTier": {"type": "flex"}, "performanceConfig": {"latency": "optimized"},
        "guardrailConfig": {"guardrailIdentifier": "grd1", "guardrailVersion": "2", "trace": "enabled",
                            "streamProcessingMode": "async"},
        "additionalModelResponseFieldPaths": ["/stop_sequence"]}
    assert not {"serviceTier", "performanceConfig", "guardrailConfig"} & set(build_request(turn()))


def test_the_converse_twin_leaves_out_the_stream_processing_mode():
    from harness.converse.request import converse_twin
    request = build_request(turn(guardrail={"identifier": "grd1", "version": "2", "stream_processing_mode": "async"}))
    assert converse_twin(request)["guardrailConfig"] == {"guardrailIdentifier": "grd1", "guardrailVersion": "2"}
    assert request["guardrailConfig"]["streamProcessingMode"] == "async"  # the stream's request is left as it was
    plain = build_request(turn())
    assert converse_twin(plain) is plain


@pytest.mark.parametrize("bad, error", [
    ({"guardrail": "grd1"}, "options.guardrail must be a mapping"),
    ({"response_field_paths": "/stop_sequence"}, "options.response_field_paths must be a list of JSON Pointers"),
])
def test_bad_served_options_raise(bad, error):
    with pytest.raises(TurnError, match=error):
        build_request(turn(**bad))
