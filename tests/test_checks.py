"""harness.suite.checks: each check passes and fails on small normalized lists; entries are validated strictly."""

from __future__ import annotations

import re

import pytest

from harness.suite import checks
from harness.suite.checks import CHECKS, CheckError, CheckOutcome, evaluate, register_check, validate

SIG = "EqQBCkgIBhABGAIidG6BC37n6CeHiJeb0pYleWTedQ9kbrPnCP"


def call(cid="tooluse_a", name="read_file", **input_):
    return {"type": "tool_call", "id": cid, "name": name, "input": input_ or {"path": "/tmp/a.txt"}}


def text(value):
    return {"type": "text", "text": value}


STOP = {"type": "stop", "reason": "tool_use"}
USAGE = {"type": "usage", "input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 0,
         "cache_write_input_tokens": 0}
THROTTLED = {"type": "error", "code": "throttlingException", "message": "Too many requests, please wait."}
PARTIAL = {"type": "tool_call", "id": "tooluse_p", "name": "read_file", "input": {"__unparsed__": '{"path": "/tm'}}
PARALLEL = [text("Reading all three."), call("tooluse_a", path="/tmp/a.txt"), call("tooluse_b", path="/tmp/b.txt"),
            call("tooluse_c", path="/tmp/c.txt"), STOP, USAGE]
REASONED = [{"type": "reasoning", "text": "Need the file.", "signature": SIG}, call(), STOP, USAGE]

# (check, argument, a list it passes on, a list it fails on)
CASES = [
    ("tool_calls_at_least", 2, PARALLEL, [call(), STOP]),
    ("tool_calls_at_least", 1, [call()], [text("hi"), PARTIAL, THROTTLED]),
    ("tool_calls_exactly", 3, PARALLEL, PARALLEL[:3]),
    ("tool_calls_exactly", 0, [text("hi"), PARTIAL, THROTTLED], [call()]),
    ("distinct_tool_ids_at_least", 3, PARALLEL, [call("tooluse_a"), call("tooluse_a"), call("tooluse_a")]),
    ("distinct_tool_ids_at_least", 2, [call("a"), call("b")], [call("a"), call("")]),
    ("tool_called", "read_file", [call(name="read_file")], [call(name="list_files"), text("read_file")]),
    ("tool_input_has", {"path": "/tmp/b.txt"}, PARALLEL, [call(path="/tmp/bb.txt")]),
    ("tool_input_has", {"a": {"b": [1, 2]}}, [call(a={"b": [1, 2]}, c=3)], [call(a={"b": [1]})]),
    ("tool_input_is", {}, [{"type": "tool_call", "id": "t", "name": "list_files", "input": {}}], [call()]),
    ("tool_ids_nonempty", True, PARALLEL, [call(""), call("tooluse_b")]),
    ("tool_ids_nonempty", True, [text("no calls at all")], [{**call(), "id": None}]),
    ("text_nonempty", True, [text("Hello there, friend!")], [text("  "), call()]),
    ("text_nonempty", False, [call()], [text("x")]),
    ("text_contains", "hello", [text("Hel"), text("lo there")], [text("Help")]),
    ("text_before_tool_call", True, [text("I'll read it."), call()], [call(), text("Read it.")]),
    ("text_before_tool_call", True, [text("x"), call()], [text("no call here")]),
    ("text_after_tool_call", True, [text("a"), call(), text("Then I'll summarize.")], [text("a"), call(), STOP]),
    ("text_or_tool_call", True, [call(), STOP], [STOP, USAGE]),
    ("text_or_tool_call", True, [text("The file says hi."), STOP], [PARTIAL, THROTTLED]),
    ("reasoning_present", True, REASONED, [call(), {"type": "redacted_reasoning", "data": "RXRr"}]),
    ("reasoning_signed", True, REASONED, [{"type": "reasoning", "text": "x", "signature": None}, call()]),
    ("reasoning_signed", True, [{"type": "reasoning", "text": "", "signature": SIG}], [call()]),
    ("reasoning_signed", True, REASONED * 2, [REASONED[0], {"type": "reasoning", "text": "y", "signature": ""}]),
    ("reasoning_blocks_at_least", 2, REASONED[:1] * 2, REASONED),
    ("redacted_reasoning_present", True, [{"type": "redacted_reasoning", "data": "RXRr"}, call()], REASONED),
    ("usage_present", True, PARALLEL, PARALLEL[:-1]),
    ("stop_reason", "tool_use", PARALLEL, [text("x"), {"type": "stop", "reason": "end_turn"}]),
    ("stop_reason", ["end_turn", "max_tokens"], [{"type": "stop", "reason": "max_tokens"}], [STOP]),
    ("stop_reason", "end_turn", [{"type": "stop", "reason": "end_turn"}], [text("no stop chunk")]),
    ("no_error", True, PARALLEL, [text("x"), THROTTLED]),
    ("no_error", False, [text("x"), PARTIAL, THROTTLED], PARALLEL),
    ("error_code", "throttlingException", [THROTTLED], [{**THROTTLED, "code": "modelStreamErrorException"}]),
    ("error_contains", "tooluseid", [{"type": "error", "code": "BedrockResponseError",
                                       "message": "contentBlockStart at index 1: toolUse has no toolUseId"}],
     [THROTTLED, text("toolUseId")]),
]


@pytest.mark.parametrize(("name", "arg", "good", "bad"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_check_passes_and_fails(name, arg, good, bad):
    entry = {"hard": [{"turn": 0, name: arg}]}
    assert evaluate(entry, [good]) == CheckOutcome([], [])
    (failure,) = evaluate(entry, [bad]).hard_failures
    assert failure.startswith(f"turn 0: {name}: ") and "failed" in failure


def test_every_registered_check_has_a_case():
    assert {case[0] for case in CASES} == set(CHECKS)


def test_soft_failures_are_warnings_and_do_not_fail():
    outcome = evaluate({"hard": [{"turn": 0, "tool_calls_at_least": 1}],
                        "soft": [{"turn": 0, "distinct_tool_ids_at_least": 2}]}, [[call(), STOP]])
    assert outcome.passed and outcome.hard_failures == []
    assert outcome.soft_warnings == ["turn 0: distinct_tool_ids_at_least: 2 failed: got "
                                     "[tool_call read_file id='tooluse_a' {\"path\": \"/tmp/a.txt\"}, stop tool_use]"]


def test_messages_name_the_turn_and_show_what_was_seen():
    (failure,) = evaluate({"hard": [{"turn": 1, "text_nonempty": True}]}, [[text("x")], [PARTIAL, THROTTLED]]).hard_failures
    assert failure == ("turn 1: text_nonempty: true failed: got "
                       "[tool_call read_file (incomplete), error throttlingException]")
    (empty,) = evaluate({"hard": [{"turn": 0, "usage_present": True}]}, [[]]).hard_failures
    assert empty.endswith("got no chunks")


def test_a_check_without_turn_applies_to_every_turn():
    outcome = evaluate({"hard": [{"no_error": True}]}, [[text("a")], [THROTTLED], [text("b")], [THROTTLED]])
    assert [m.split(":")[0] for m in outcome.hard_failures] == ["turn 1", "turn 3"]


def test_a_turn_that_was_not_recorded_fails_the_check():
    outcome = evaluate({"hard": [{"turn": 2, "no_error": True}]}, [[text("a")]])
    assert outcome.hard_failures == ["turn 2: no_error: true failed: turn not recorded (1 turn(s))"]


def test_no_checks_means_nothing_to_fail():
    assert evaluate(None, [[THROTTLED]]) == CheckOutcome([], [])
    assert evaluate({"hard": [], "soft": None}, [[THROTTLED]]) == CheckOutcome([], [])


def test_unknown_check_is_one_line_naming_it_and_the_file():
    with pytest.raises(CheckError) as info:
        evaluate({"soft": [{"turn": 0, "tool_call_at_least": 1}]}, [[]], source="suites/core/x.yaml")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("suites/core/x.yaml: checks.soft[0]: unknown check 'tool_call_at_least' (known: ")
    assert "tool_calls_at_least" in message


def test_unknown_check_without_a_source_still_names_it():
    with pytest.raises(CheckError, match=r"^checks\.hard\[1\]: unknown check 'bogus'"):
        validate({"hard": [{"no_error": True}, {"bogus": 1}]})


@pytest.mark.parametrize(("entry", "problem"), [
    ({"tool_calls_at_least": "1"}, "tool_calls_at_least takes an integer >= 0, got '1'"),
    ({"tool_calls_at_least": True}, "tool_calls_at_least takes an integer >= 0"),
    ({"tool_calls_exactly": -1}, "tool_calls_exactly takes an integer >= 0"),
    ({"text_nonempty": "yes"}, "text_nonempty takes true or false"),
    ({"tool_called": ""}, "tool_called takes a non-empty string"),
    ({"tool_input_has": ["path"]}, "tool_input_has takes a mapping"),
    ({"stop_reason": []}, "stop_reason takes a stop reason or a list"),
    ({"turn": -1, "no_error": True}, "turn must be an integer >= 0"),
    ({"turn": 0}, "expected exactly one check besides 'turn', got none"),
    ({"turn": 0, "no_error": True, "text_nonempty": True}, "expected exactly one check besides 'turn'"),
    ("no_error", "expected a mapping like"),
])
def test_malformed_entries_are_rejected(entry, problem):
    with pytest.raises(CheckError, match=r"^f.yaml: checks.hard\[0\]: " + re.escape(problem)):
        validate({"hard": [entry]}, source="f.yaml")


@pytest.mark.parametrize("bad", [["hard"], {"hard": [], "loose": []}, {"hard": {"no_error": True}}])
def test_malformed_sections_are_rejected(bad):
    with pytest.raises(CheckError, match="^f.yaml: checks"):
        validate(bad, source="f.yaml")


def test_validate_lists_every_entry():
    got = validate({"hard": [{"turn": 0, "tool_calls_at_least": 1}], "soft": [{"text_contains": "hi"}]})
    assert got == [("hard", 0, "tool_calls_at_least", 1), ("soft", None, "text_contains", "hi")]


def test_register_check_adds_a_named_plugin():
    try:
        register_check("text_longer_than", "count")(lambda chunks, n: sum(len(c.get("text", "")) for c in chunks) > n)
        assert evaluate({"hard": [{"turn": 0, "text_longer_than": 3}]}, [[text("abcd")]]).passed
        assert not evaluate({"hard": [{"turn": 0, "text_longer_than": 4}]}, [[text("abcd")]]).passed
    finally:
        CHECKS.pop("text_longer_than", None)
    with pytest.raises(ValueError, match="unknown argument kind 'number'"):
        register_check("x", "number")


def test_the_unparsed_mark_is_the_normalizers():
    from harness.judge.normalize import parse_input

    assert set(parse_input('{"path": "/tm')) == {checks.UNPARSED}


def test_public_surface():
    assert set(checks.__all__) == {"CHECKS", "Check", "CheckError", "CheckOutcome", "register_check", "validate",
                                   "evaluate"}
