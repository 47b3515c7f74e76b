"""OpenAI streaming laws on the native chunks an OpenAI-format adapter reports (harness/judge/openai_laws.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from harness.judge.laws import laws
from harness.judge.openai_laws import OPENAI_LAWS, openai_calls, openai_laws


def native(delta=None, finish=None, index=0, choices=None):
    choice = {"index": index, "delta": delta or {}, "finish_reason": finish}
    return {"type": "openai_chunk", "chunk": {"object": "chat.completion.chunk", "choices": choices or [choice]}}


def start(index, cid, name, arguments=""):
    return {"tool_calls": [{"index": index, "id": cid, "type": "function",
                            "function": {"name": name, "arguments": arguments}}]}


def args(index, arguments):
    return {"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}


def harness_call(cid, name):
    return {"type": "tool_call", "id": cid, "name": name, "input_delta": ""}


GOOD = [native({"role": "assistant", "content": "Reading."}), {"type": "text", "text": "Reading."},
        native(start(0, "t1", "read_file")), harness_call("t1", "read_file"),
        native(args(0, '{"path": ')), native(args(0, '"/a"}')),
        native(start(1, "t2", "list_files", "{}")), harness_call("t2", "list_files"),
        native(finish="tool_calls"), {"type": "stop", "reason": "tool_use"}]


def test_a_well_formed_stream_breaks_no_law_and_a_stream_without_native_chunks_is_not_judged():
    assert openai_laws(GOOD) == []
    assert openai_laws([{"type": "text", "text": "x"}]) == []
    assert [(c.index, c.id, c.name, "".join(c.arguments)) for c in openai_calls(GOOD)] == [
        (0, "t1", "read_file", '{"path": "/a"}'), (1, "t2", "list_files", "{}")]


def test_a_second_choice_and_a_nonzero_choice_index():
    stream = [native({"content": "a"}, index=1),
              native(choices=[{"index": 0, "delta": {"content": "b"}}, {"index": 1, "delta": {"content": "c"}}])]
    assert openai_laws(stream) == [
        "openai_single_choice: chunk 0 (openai_chunk) has choices[0].index 1; a single-choice stream uses index 0 only",
        "openai_single_choice: chunk 1 (openai_chunk) carries 2 choices; a single-choice stream carries one",
        "openai_single_choice: chunk 1 (openai_chunk) has choices[1].index 1; a single-choice stream uses index 0 only"]


def test_tool_call_index_taken_from_content_block_index():
    stream = [native({"content": "Reading."}), native(start(1, "t1", "read_file", "{}")),
              native(start(2, "t2", "read_file", "{}")), native(finish="tool_calls")]
    assert openai_laws(stream) == [
        "openai_tool_call_index: chunk 1 (openai_chunk) starts tool call 't1' at index 1; expected 0 (indexes run "
        "0..n-1 in order of first appearance, never Bedrock's contentBlockIndex)",
        "openai_tool_call_index: chunk 2 (openai_chunk) starts tool call 't2' at index 2; expected 1 (indexes run "
        "0..n-1 in order of first appearance, never Bedrock's contentBlockIndex)"]


def test_id_and_name_arrive_once_and_never_change():
    repeated = {"tool_calls": [{"index": 0, "id": "t1", "function": {"name": "read_file", "arguments": "{}"}}]}
    changed = {"tool_calls": [{"index": 0, "id": "t9", "function": {"arguments": ""}}]}
    nameless = {"tool_calls": [{"index": 1, "id": "t2", "function": {"arguments": "{}"}}]}
    stream = [native(start(0, "t1", "read_file")), native(repeated), native(changed), native(nameless),
              native(finish="tool_calls")]
    assert openai_laws(stream) == [
        "openai_tool_call_identity: chunk 1 (openai_chunk) repeats the id 't1' of tool call 0; it arrives once "
        "(clients that accumulate deltas would double it)",
        "openai_tool_call_identity: chunk 1 (openai_chunk) repeats the name 'read_file' of tool call 0; it arrives "
        "once (clients that accumulate deltas would double it)",
        "openai_tool_call_identity: chunk 2 (openai_chunk) changes the id of tool call 0 from 't1' to 't9'",
        "openai_tool_call_identity: chunk 3 (openai_chunk) starts tool call at index 1 without a name"]


def test_arguments_join_into_a_json_object_and_zero_arguments_are_braces():
    stream = [native(start(0, "t1", "read_file", '{"path": ')), native(args(0, '"/a"')),
              native(start(1, "t2", "list_files")), native(start(2, "t3", "x", "[1]")), native(finish="tool_calls")]
    assert openai_laws(stream) == [
        "openai_tool_call_arguments: chunk 1 (openai_chunk) ends tool call 0 ('t1') whose arguments join into "
        "'{\"path\": \"/a\"', which is not valid JSON",
        "openai_tool_call_arguments: chunk 2 (openai_chunk) ends tool call 1 ('t2') whose arguments are empty; a "
        "zero-argument call's arguments are '{}'",
        "openai_tool_call_arguments: chunk 3 (openai_chunk) ends tool call 2 ('t3') whose arguments join into a JSON "
        "list, not an object"]


def test_cut_off_arguments_are_not_judged_when_the_stream_ended_badly():
    stream = [native(start(0, "t1", "read_file", '{"pa')), native(finish="length")]
    assert openai_laws(stream) == []
    assert openai_laws([*stream[:1], {"type": "error", "code": "x", "message": "y"}]) == []


def test_a_zero_argument_call_is_one_call_not_two():
    stream = [native(start(0, "t1", "list_files")), native(start(1, "t1", "list_files", "{}")),
              harness_call("t1", "list_files"), native(finish="tool_calls")]
    found = openai_laws(stream)
    assert ("openai_tool_call_identity: chunk 1 (openai_chunk) starts tool call 1 with the id 't1' of tool call 0: "
            "one call, not two") in found
    assert ("openai_one_call_each: chunk 1 (openai_chunk) brings the native stream to 2 tool calls; the adapter "
            "streamed 1 (t1)") in found


@pytest.mark.parametrize("finish, expected", [("stop", '"stop"'), (None, "null")])
def test_finish_reason_is_tool_calls_when_calls_were_made(finish, expected):
    stream = [native(start(0, "t1", "read_file", "{}")), native(finish=finish)]
    assert openai_laws(stream) == [f"openai_finish_reason: chunk 1 (openai_chunk) "
                                   f"finishes with {expected} although tool calls were made; expected \"tool_calls\""]


def test_the_stream_laws_include_the_openai_laws():
    broken = [native({"content": "a"}, index=1), {"type": "text", "text": "a"}]
    assert [law for law in laws(broken) if law.startswith("openai_")] == openai_laws(broken) != []
    assert all(law.__doc__ and "\n" not in law.__doc__ for law in OPENAI_LAWS)


json_values = st.recursive(st.none() | st.booleans() | st.integers(-2, 3) | st.sampled_from(["", "t1", "{}", "{", "x"]),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                               st.sampled_from(["index", "id", "function", "name", "arguments", "choices", "delta",
                                                "tool_calls", "finish_reason", "chunk", "type"]), inner, max_size=4),
                           max_leaves=15)


@given(st.lists(st.fixed_dictionaries({"type": st.sampled_from(["openai_chunk", "tool_call", "stop", "error"]),
                                       "chunk": json_values, "id": json_values, "reason": json_values}), max_size=6))
def test_any_native_chunks_are_judged_without_crashing(chunks):
    assert all(isinstance(problem, str) for problem in openai_laws(chunks))
