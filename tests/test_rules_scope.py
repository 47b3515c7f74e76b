"""Rules scoped by evidence: a rule rejects only for the model families its evidence covers."""

from __future__ import annotations

import pytest
from realworld import ids, interactions, requires_realworld

from harness.endpoint.rules.converse import RULES, check_request
from harness.endpoint.rules.scope import ALL, EVIDENCE, applies, family, split


@pytest.mark.parametrize("model_id, expected", [
    ("us.anthropic.claude-sonnet-4-20250514-v1:0", "anthropic"),
    ("anthropic.claude-3-haiku-20240307-v1:0", "anthropic"),
    ("global.anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic"),
    ("arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0", "anthropic"),
    ("arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-pro-v1:0", "nova"),
    ("us.amazon.nova-2-lite-v1:0", "nova"),
    ("amazon.titan-text-express-v1", "titan"),
    ("openai.gpt-oss-120b-1:0", "openai"),
    ("moonshotai.kimi-k2-thinking", "kimi"),
    ("moonshot.kimi-k2-thinking", "kimi"),
    ("us.deepseek.r1-v1:0", "deepseek"),
    ("meta.llama3-2-1b-instruct-v1:0", "meta"),
    ("qwen.qwen3-32b-v1:0", "qwen"),
    ("arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123", None),
    ("m:0", None),
    ("", None),
])
def test_family_of_a_model_id(model_id, expected):
    assert family(model_id) == expected


def test_every_rule_says_which_families_its_evidence_covers():
    names = {rule.__name__.replace("_", "-") for rule in RULES}
    assert names == set(EVIDENCE)
    assert all(e.sources and (e.families is ALL or e.families) for e in EVIDENCE.values())


TWO_USERS = {"messages": [{"role": "user", "content": [{"text": "Hi"}]}, {"role": "user", "content": [{"text": "?"}]}]}


def test_a_rule_applies_inside_its_evidence_and_warns_outside():
    [problem] = check_request(TWO_USERS)
    assert applies(problem, "us.anthropic.claude-sonnet-4-20250514-v1:0")
    assert not applies(problem, "amazon.titan-text-express-v1")
    assert not applies(problem, "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123")
    enforced, warnings = split([problem], "amazon.titan-text-express-v1")
    assert enforced == [] and len(warnings) == 1 and problem.message in warnings[0]


def test_coral_shape_rules_hold_for_every_model():
    body = {"messages": [{"role": "system", "content": [{"text": "Hi"}]}]}
    problems = [p for p in check_request(body) if p.rule == "role-enum"]
    assert problems and all(applies(p, m) for p in problems for m in ("amazon.titan-text-express-v1", "m:0"))


def test_tool_result_status_is_rejected_only_where_the_model_documents_no_status():
    body = {"messages": [{"role": "user", "content": [{"text": "Hi"}]},
                         {"role": "assistant", "content": [{"toolUse": {"toolUseId": "functions.f:0", "name": "f",
                                                                        "input": {}}}]},
                         {"role": "user", "content": [{"toolResult": {"toolUseId": "functions.f:0", "status": "success",
                                                                      "content": [{"json": [1, 2]}]}}]}],
            "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]}}
    for model, rejected in (("moonshotai.kimi-k2-thinking", True), ("openai.gpt-oss-120b-1:0", True),
                            ("us.amazon.nova-pro-v1:0", None), ("us.anthropic.claude-sonnet-4-20250514-v1:0", None)):
        found = [p for p in check_request(body, model_id=model) if p.rule == "tool-result-status"]
        assert (bool(found) and applies(found[0], model)) == bool(rejected), model


ACCEPTED = [i for i in interactions() if i.operation in ("Converse", "ConverseStream") and i.status < 300
            and isinstance(i.request, dict)]


@requires_realworld
@pytest.mark.parametrize("interaction", ACCEPTED, ids=ids(ACCEPTED))
def test_no_real_request_bedrock_accepted_is_rejected_for_its_model(interaction):
    found = check_request(interaction.request, interaction.operation, interaction.model_id)
    assert split(found, interaction.model_id)[0] == []
