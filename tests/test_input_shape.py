"""The request against botocore's own input shape: model ids, unknown members, members of the wrong type; and
every rule tolerating a wrong type anywhere in a request (a problem, never an exception)."""

from __future__ import annotations

import copy

import pytest

from harness.endpoint.rules.converse import check_request, validation_message
from harness.endpoint.rules.input_shape import INVALID_MODEL, MAX_SHOWN, input_problems, valid_model_id

MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
ROUND_TRIP = {
    "messages": [
        {"role": "user", "content": [{"text": "Read /tmp/a.txt"}]},
        {"role": "assistant", "content": [{"text": "Reading."},
                                          {"toolUse": {"toolUseId": "tooluse_A", "name": "read_file",
                                                       "input": {"path": "/tmp/a.txt"}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_A", "content": [{"text": "hello"}],
                                                     "status": "success"}}]},
    ],
    "system": [{"text": "Be brief."}],
    "inferenceConfig": {"maxTokens": 512, "temperature": 0.5},
    "toolConfig": {"tools": [{"toolSpec": {"name": "read_file", "description": "Read a file.",
                                           "inputSchema": {"json": {"type": "object"}}}}],
                   "toolChoice": {"tool": {"name": "read_file"}}},
}


def _paths(value, prefix=()):
    """Every member and list item of a JSON value, as key paths (documents included)."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        yield (*prefix, key)
        yield from _paths(inner, (*prefix, key))


def _replaced(body: dict, path: tuple, value) -> dict:
    body = copy.deepcopy(body)
    target = body
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return body


@pytest.mark.parametrize("model_id", [MODEL, "anthropic.claude-3-haiku-20240307-v1:0", "amazon.nova-micro-v1:0",
                                      "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.x-v1:0"])
def test_real_model_ids_fit_the_shape(model_id):
    assert valid_model_id(model_id, "ConverseStream") and valid_model_id(model_id, "InvokeModelWithResponseStream")


@pytest.mark.parametrize("model_id", ["", "\x00", "model id", "a" * 2049, "anthropic/claude"])
def test_model_ids_outside_the_shape_are_invalid(model_id):
    assert not valid_model_id(model_id, "ConverseStream")
    assert input_problems(ROUND_TRIP, "ConverseStream", model_id)[0].message == INVALID_MODEL


def test_a_valid_request_has_no_shape_problem():
    assert input_problems(ROUND_TRIP, "ConverseStream", MODEL) == []
    assert check_request(ROUND_TRIP, "Converse", MODEL) == []


@pytest.mark.parametrize("path, value, where", [
    (("messages", 0, "content"), 7, "messages.0.content"),
    (("inferenceConfig", "maxTokens"), "x", "inferenceConfig.maxTokens"),
    (("messages", 1, "content", 1, "toolUse", "toolUseId"), [], "messages.1.content.1.toolUse.toolUseId"),
    (("messages", 1, "content", 1, "toolUse", "name"), [], "messages.1.content.1.toolUse.name"),
    (("messages", 2, "content", 0, "toolResult", "toolUseId"), {}, "messages.2.content.0.toolResult.toolUseId"),
    (("toolConfig", "tools", 0, "toolSpec", "name"), [], "toolConfig.tools.0.toolSpec.name"),
    (("toolConfig", "toolChoice", "tool", "name"), {"a": 1}, "toolConfig.toolChoice.tool.name"),
])
def test_wrong_types_are_reported_first_with_botocores_words(path, value, where):
    problems = check_request(_replaced(ROUND_TRIP, path, value), "ConverseStream", MODEL)
    assert problems[0].rule == "input-shape" and problems[0].path == where
    assert "Invalid type for parameter" in problems[0].message
    assert validation_message(problems).startswith(("1 validation error detected: Invalid type",
                                                     f"{len(problems)} validation errors detected: Invalid type"))


def test_unknown_members_are_reported_and_nulls_are_absent_members():
    problems = input_problems({**ROUND_TRIP, "foo": 1}, "ConverseStream", MODEL)
    assert [p.rule for p in problems] == ["input-shape"] and 'Unknown parameter in input: "foo"' in problems[0].message
    assert problems[0].path == "foo"
    assert input_problems({**ROUND_TRIP, "system": None, "guardrailConfig": None}, "ConverseStream", MODEL) == []


def test_a_huge_misplaced_value_is_shortened():
    problems = input_problems(_replaced(ROUND_TRIP, ("messages", 0, "content"), "x" * 100_000), "Converse", MODEL)
    assert len(problems) == 1 and len(problems[0].message) <= MAX_SHOWN + 40


@pytest.mark.parametrize("value", [[], {}, 7, "x", True, None, [[]], {"toolUseId": []}])
def test_any_wrong_type_anywhere_gives_problems_never_an_exception(value):
    for path in _paths(ROUND_TRIP):
        body = _replaced(ROUND_TRIP, path, value)
        for operation in ("ConverseStream", "Converse"):
            problems = check_request(body, operation, MODEL)  # raising here is the bug this test guards
            assert all(p.rule and p.message for p in problems)
            if problems:
                assert validation_message(problems)


def test_the_twin_of_a_request_is_validated_against_its_own_operation():
    """Findings are reused for the same body sent to the other Converse operation only where the two input shapes
    agree: a guardrail setting only the streaming operation has is found on the other, each time."""
    streamed = {**ROUND_TRIP, "guardrailConfig": {"guardrailIdentifier": "g", "guardrailVersion": "1",
                                                  "streamProcessingMode": "async"}}
    for _ in range(2):
        assert input_problems(streamed, "ConverseStream", MODEL) == []
        problems = input_problems(streamed, "Converse", MODEL)
        assert [p.path for p in problems] == ["guardrailConfig.streamProcessingMode"]
    wrong = _replaced(ROUND_TRIP, ("inferenceConfig", "maxTokens"), "512")
    found = input_problems(wrong, "ConverseStream", MODEL)
    found.append("changed by a caller")
    assert len(input_problems(wrong, "Converse", MODEL)) == 1 and input_problems(ROUND_TRIP, "Converse", MODEL) == []
