"""Streaming parity (harness/judge/parity.py): the library's message from the stream against the one its
non-streaming call built, path by path, through the runner in-process and over the subprocess protocol."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

from harness.adapters.subprocess import SubprocessAdapter
from harness.converse import ConverseAdapter
from harness.judge.parity import EMPTY_ALIKE, check_parity, empty_alike
from harness.suite.runner import PARITY_HTTP_FAULT, run
from harness.suite.scenario import discover

ROOT = Path(__file__).resolve().parents[1]
MESSAGE = {"role": "assistant", "content": [{"type": "text", "text": "Reading."},
                                            {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "/a"}}]}


def natives(stream, converse):
    def chunk(path, value):
        return {"type": "native", "path": path, **({"error": value[1]} if isinstance(value, tuple) else
                                                   {"message": value})}
    return [{"type": "text", "text": "Reading."}, chunk("stream", stream), chunk("converse", converse)]


def test_equal_messages_agree():
    assert check_parity(natives(MESSAGE, copy.deepcopy(MESSAGE))) is None


def test_a_difference_is_named_at_its_path_with_both_types():
    whole = copy.deepcopy(MESSAGE)
    streamed = copy.deepcopy(MESSAGE)
    streamed["content"][1]["input"] = '{"path": "/a"}'
    diff = check_parity(natives(streamed, whole), scenario="core/x", turn=1)
    assert diff.subject == "parity" and diff.changes == (
        "core/x turn 1 native content[1].input: streamed a str '{\"path\": \"/a\"}', non-streamed a dict "
        '{"path": "/a"}',)


def test_json_text_compares_by_value_and_against_an_object_still_differs():
    def call(arguments):
        return {"role": "assistant", "tool_calls": [{"function": {"name": "read", "arguments": arguments}}]}
    assert check_parity(natives(call('{"path":"/a","n":"\\u00e9"}'), call('{"path": "/a", "n": "é"}'))) is None
    diff = check_parity(natives(call('{"path": "/a"}'), call('{"path": "/b"}')))
    assert diff.changes == ("native tool_calls[0].function.arguments: streamed '{\"path\": \"/a\"}' / non-streamed "
                            "'{\"path\": \"/b\"}'",)
    assert check_parity(natives(call('{"path": "/a"}'), call({"path": "/a"}))) is not None


def sent(chunks, stream_sent, converse_sent):
    """The chunks with each native one carrying what its library would send back (``sent``)."""
    return [chunks[0], {**chunks[1], "sent": stream_sent}, {**chunks[2], "sent": converse_sent}]


REASONING = {"type": "reasoning", "reasoning_content": {"text": "Hm."}}
SENT = {"role": "assistant", "content": [{"reasoningContent": {"reasoningText": {"text": "Hm."}}}]}


def test_empty_against_absent_that_the_library_sends_alike_is_no_finding_only_a_note():
    """langchain-aws: invoke's reasoning block holds signature "" where the stream's holds none, and the library's
    formatter drops the empty signature when it sends the message back: same bytes, same "no signature"."""
    empty = {"type": "reasoning", "reasoning_content": {"text": "Hm.", "signature": ""}}
    chunks = sent(natives({"content": [REASONING]}, {"content": [empty]}), SENT, copy.deepcopy(SENT))
    assert check_parity(chunks) is None
    assert empty_alike(chunks, scenario="edge/x", turn=0) == [
        f"{EMPTY_ALIKE}: edge/x turn 0 native content[0].reasoning_content.signature: streamed nothing / "
        "non-streamed ''"]
    nulled = {"type": "reasoning", "reasoning_content": {"text": "Hm.", "signature": None}}
    assert check_parity(sent(natives({"content": [empty]}, {"content": [nulled]}), SENT, SENT)) is None


@pytest.mark.parametrize("why, chunks", [
    ("the library sends them differently", sent(natives({"content": [REASONING]}, {"content": [
        {"type": "reasoning", "reasoning_content": {"text": "Hm.", "signature": ""}}]}), SENT,
        {"role": "assistant", "content": [{"reasoningContent": {"reasoningText": {"text": "Hm.", "signature": ""}}}]})),
    ("only one path says what it sends", natives({"content": [REASONING]}, {"content": [
        {"type": "reasoning", "reasoning_content": {"text": "Hm.", "signature": ""}}]})),
    ("a value, not an empty one, differs", sent(natives({"content": [REASONING]}, {"content": [
        {"type": "reasoning", "reasoning_content": {"text": "Hm!", "signature": ""}}]}), SENT, SENT)),
])
def test_empty_against_absent_stays_a_finding_unless_both_paths_send_it_alike(why, chunks):
    if why == "only one path says what it sends":
        chunks = [chunks[0], {**chunks[1], "sent": SENT}, chunks[2]]
    assert check_parity(chunks) is not None and empty_alike(chunks) == [], why


def test_a_declared_equivalence_hides_one_form_of_difference_and_shows_the_rest():
    def pair(streamed, whole, declared):
        return check_parity(natives({"content": streamed}, {"content": whole}), declared)
    lone = {"content as lone-text": "invoke holds a lone text block as a string"}
    assert pair([{"type": "text", "text": "Hi", "index": 0}], "Hi", lone) is None
    assert pair([{"type": "text", "text": "Hi"}], "Hello", lone).changes == (
        "native content: streamed 'Hi' / non-streamed 'Hello'",)
    assert pair([{"type": "text", "text": "Hi"}, {"type": "text", "text": "!"}], "Hi!", lone) is not None
    args = {"content[*].args as json-text": "args are JSON text or a dict"}
    assert pair([{"args": '{"a": 1}'}], [{"args": {"a": 1}}], args) is None
    assert pair([{"args": '{"a": 1}'}], [{"args": {"a": 2}}], args).changes == (
        "native content[0].args.a: streamed 1 / non-streamed 2",)
    assert pair([{"args": ""}], [{"args": {}}], args) is None  # a call without arguments streams ""
    assert pair([{"args": ""}], [{"args": {"a": 1}}], args) is not None
    assert "an unknown equivalence (known: json-text, lone-text)" in pair([], [], {"content as text": "x"}).changes[0]


def test_declared_differences_are_left_out_and_nothing_else():
    streamed, whole = copy.deepcopy(MESSAGE), copy.deepcopy(MESSAGE)
    streamed["id"], whole["id"] = "msg_1", "msg_2"
    streamed["content"][0]["text"] = "Reading!"
    diff = check_parity(natives(streamed, whole), {"id": "generated per call"})
    assert diff.changes == ("native content[0].text: streamed 'Reading!' / non-streamed 'Reading.'",)
    assert check_parity(natives(streamed, whole), {"id": "generated", "content[*].text": "x"}) is None


def test_one_call_failing_is_the_difference_and_both_failing_is_none():
    diff = check_parity(natives(MESSAGE, ("error", "ValidationException: no")))
    assert diff.changes == ("parity: the streamed call built a message / the non-streamed call raised "
                            "'ValidationException: no'",)
    assert check_parity(natives(("error", "a"), ("error", "b"))) is None


def test_a_missing_native_chunk_is_a_finding_unless_the_adapter_raised_before_reporting():
    diff = check_parity(natives(MESSAGE, MESSAGE)[:2], turn=0)
    assert "no native chunk from the converse call" in diff.changes[0]
    raised = [{"type": "error", "code": "adapter_exception", "message": "KeyError: 'x'"}]
    assert check_parity(raised) is None


def test_the_two_requests_are_compared_as_the_golden_request_is():
    body = {"messages": [{"role": "user", "content": [{"text": "hi"}]}], "inferenceConfig": {"maxTokens": 5}}
    other = copy.deepcopy(body)
    other["inferenceConfig"] = {"maxTokens": 9}  # not material: the golden comparison ignores it
    assert check_parity(natives(MESSAGE, MESSAGE), requests=(body, other)) is None
    other["messages"][0]["content"][0]["text"] = "hello"
    diff = check_parity(natives(MESSAGE, MESSAGE), requests=(body, other))
    assert diff.changes == ("request messages[0].content[0].text: streamed 'hi' / non-streamed 'hello'",)
    assert check_parity(natives(MESSAGE, MESSAGE), requests=(body, copy.deepcopy(body))) is None
    typed = copy.deepcopy(body)
    typed["messages"][0]["content"] = [{"toolResult": {"toolUseId": "t", "content": [{"json": {"ok": True}}]}}]
    ones = copy.deepcopy(typed)
    ones["messages"][0]["content"][0]["toolResult"]["content"][0]["json"]["ok"] = 1  # equal in Python, not in JSON
    assert check_parity(natives(MESSAGE, MESSAGE), requests=(typed, ones)) is not None


class InputStringWhenWhole(ConverseAdapter):
    """The non-streaming path keeps each tool input as its JSON text; the stream's is right."""

    name = "parity-bug"

    def _stream(self, turn, endpoint=None):
        for chunk in super()._stream(turn, endpoint):
            if chunk.get("type") == "native" and chunk["path"] == "converse" and "message" in chunk:
                for block in chunk["message"]["content"]:
                    if block["type"] == "tool_use":
                        block["input"] = str(block["input"])
            yield chunk


SCENARIOS = discover(ROOT / "suites", ids=["core/single-call", "core/smoke-text"])


def test_the_runner_asks_for_both_calls_and_catches_what_only_parity_shows():
    results = {r.scenario: r for r in run(SCENARIOS, InputStringWhenWhole(), ROOT)}
    assert results["core/smoke-text"].status == "pass"  # no tool call: the two paths agree
    found = results["core/single-call"]
    assert found.status == "fail" and " native content[0].input: streamed a dict " in found.reason
    assert "non-streamed a str" in found.reason


class CutCallKeptWhenStreamed(ConverseAdapter):
    """The streamed message keeps an extra call holding partial JSON text, as a library keeping a cut-off call does."""

    name = "cut-call-kept"

    def _stream(self, turn, endpoint=None):
        for chunk in super()._stream(turn, endpoint):
            if chunk.get("type") == "native" and chunk["path"] == "stream" and "message" in chunk:
                chunk["message"]["content"].append({"type": "tool_use", "id": "t", "name": "read_file",
                                                    "input": '{"path": "/home/an'})
            yield chunk


def test_a_call_the_stream_cut_off_kept_as_partial_text_is_a_warning_since_converse_leaves_it_out():
    scenarios = discover(ROOT / "suites", ids=["edge/max-tokens-mid-tool", "core/single-call"])
    results = {r.scenario: r for r in run(scenarios, CutCallKeptWhenStreamed(), ROOT)}
    cut = results["edge/max-tokens-mid-tool"]
    assert cut.status == "warn", cut.reason
    (warned,) = [w for t in cut.turns for w in t.warnings]
    assert "native content[" in warned.finding and warned.reason.startswith("judgement cut-call-on-both-paths")
    assert results["core/single-call"].status == "fail"  # no call was cut off there: parity is judged


def test_a_pre_stream_error_met_by_one_call_only_is_noted_not_graded_as_parity():
    # no retries: the stream meets the 429, its twin (the next request) the answer
    (result,) = run(discover(ROOT / "suites", ids=["faults/http-429-then-success"]), ConverseAdapter(max_attempts=1),
                    ROOT)
    assert result.status == "warn", result.reason
    assert "judgement retry-throttled-request" in result.turns[0].warnings[0].reason
    assert any(n.startswith(PARITY_HTTP_FAULT) and "parity: the streamed call raised" in n
               for n in result.turns[0].request_notes)


def test_on_a_turn_with_a_pre_stream_error_both_calls_built_messages_are_still_compared():
    (result,) = run(discover(ROOT / "suites", ids=["faults/http-429-then-success"]), InputStringWhenWhole(), ROOT)
    assert result.status == "fail" and " native content[0].input: streamed a dict " in result.reason


def test_the_reference_passes_with_both_calls_in_both_modes():
    for adapter in (ConverseAdapter(), ConverseAdapter(conversation=True)):
        assert {r.status for r in run(SCENARIOS, adapter, ROOT)} == {"pass"}


ADAPTER = f"""
import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_parity import InputStringWhenWhole
from harness.adapters.bridge import main
import harness.adapters.bridge as bridge
adapter = InputStringWhenWhole()
adapter.native_differences = {{"content[*].input": "the library keeps a whole call's input as text"}}
bridge.load_adapter = lambda spec: adapter
sys.exit(main(["x"]))
"""


@pytest.mark.parametrize("declared", [False, True])
def test_over_the_subprocess_protocol_the_hello_declares_documented_differences(tmp_path, declared):
    script = tmp_path / "adapter.py"
    script.write_text(ADAPTER if declared else ADAPTER.replace("adapter.native_differences =", "_ ="))
    with SubprocessAdapter([sys.executable, str(script)], timeout=60) as adapter:
        assert "non_streaming" in adapter.capabilities
        [result] = [r for r in run(SCENARIOS, adapter, ROOT) if r.scenario == "core/single-call"]
        assert adapter.native_differences == ({"content[*].input": "the library keeps a whole call's input as text"}
                                              if declared else {})
    assert result.status == ("pass" if declared else "fail")
