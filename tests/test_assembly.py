"""The assembled message an adapter reports, judged against what it streamed (harness/judge/assembly.py)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from harness.judge.assembly import assembled_items, check_assembly, layout
from harness.judge.normalize import ALL

SIG1, SIG2 = "U0lHMQ==", "U0lHMg=="
STREAM = [
    {"type": "reasoning", "index": 0, "text": "First."}, {"type": "reasoning", "index": 0, "signature": SIG1},
    {"type": "reasoning", "index": 1, "text": "Second."}, {"type": "reasoning", "index": 1, "signature": SIG2},
    {"type": "text", "index": 2, "text": "Reading."},
    {"type": "tool_call", "index": 3, "id": "t1", "name": "read_file", "input_delta": ""},
    {"type": "tool_call", "index": 3, "id": "t1", "name": "read_file", "input_delta": '{"path": "/a"}'},
    {"type": "tool_call", "index": 4, "id": "t2", "name": "list_files", "input_delta": ""},
    {"type": "stop", "reason": "tool_use"},
]
MESSAGE = {"role": "assistant", "content": [
    {"type": "thinking", "thinking": "First.", "signature": SIG1},
    {"type": "thinking", "thinking": "Second.", "signature": SIG2},
    {"type": "text", "text": "Reading."},
    {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "/a"}},
    {"type": "tool_use", "id": "t2", "name": "list_files", "input": {}},
]}


def reported(message):
    return [*STREAM, {"type": "message", "message": message}]


def changed(**edits):
    content = [dict(block) for block in MESSAGE["content"]]
    for position, block in edits.items():
        index = int(position[1:])
        if block is None:
            del content[index]
        else:
            content[index] = {**content[index], **block}
    return {"role": "assistant", "content": content}


def lines(chunks, capabilities=ALL):
    diff = check_assembly(chunks, capabilities, scenario="edge/x", turn=0)
    return list(diff.changes) if diff else []


def test_an_agreeing_message_and_no_message_are_no_finding():
    assert lines(reported(MESSAGE)) == [] and lines(STREAM) == []


def test_acceptable_layout_differences_are_no_finding():
    merged = {"role": "assistant", "content": [
        MESSAGE["content"][1], MESSAGE["content"][0], *MESSAGE["content"][3:],  # reasoning order kept below
        {"type": "text", "text": "Read"}, {"type": "text", "text": ""}, {"type": "text", "text": "ing."}]}
    merged["content"][:2] = MESSAGE["content"][:2]
    assert lines(reported(merged)) == []


def test_concatenated_signatures_name_the_block():
    assert lines(reported(changed(b1={"signature": SIG1 + SIG2}))) == [
        f"edge/x turn 0 assembled message block 1 (reasoning): streamed signature '{SIG2}' / assembled '{SIG1 + SIG2}'"]


def test_input_kept_as_a_json_string():
    assert lines(reported(changed(b3={"input": '{"path": "/a"}'}))) == [
        "edge/x turn 0 assembled message block 3 (tool_call): streamed input {\"path\": \"/a\"} / "
        "assembled '{\"path\": \"/a\"}'"]


def test_a_dropped_block_is_named_with_what_was_streamed():
    assert lines(reported(changed(b4=None))) == [
        'edge/x turn 0 assembled message: streamed tool_call {"id": "t2", "name": "list_files", "input": {}} / '
        "assembled nothing (block dropped)"]
    signature_only = lines(reported(changed(b1=None)))
    assert len(signature_only) == 1 and "streamed reasoning" in signature_only[0] and SIG2 in signature_only[0]


def test_an_added_block_and_a_malformed_message():
    extra = {"role": "assistant", "content": [*MESSAGE["content"], {"type": "tool_use", "id": "t3", "name": "x",
                                                                     "input": {}}]}
    assert lines(reported(extra)) == [
        'edge/x turn 0 assembled message block 5: streamed nothing / assembled tool_call {"id": "t3", "name": "x", '
        '"input": {}}']
    assert lines(reported({"role": "user", "content": []})) == [
        'edge/x turn 0 chunk 9 (message): not an assembled assistant message: expected {"role": "assistant", '
        '"content": [blocks]}']


def test_fields_the_adapter_does_not_declare_are_not_compared():
    unsigned = changed(b0={"signature": None}, b1={"signature": None})
    assert lines(reported(unsigned), ALL - {"reasoning_signature"}) == []
    assert lines(reported(unsigned)) != []


def test_layout_and_items():
    assert [i["type"] for i in layout(assembled_items(changed()))] == ["reasoning", "reasoning", "text", "tool_call",
                                                                        "tool_call"]
    assert assembled_items({"role": "assistant", "content": "Hi"}) == [{"type": "text", "text": "Hi"}]


def test_merged_block_types_are_not_an_assembled_message():
    merged = {"role": "assistant", "content": [{"type": "texttextsignature", "text": "ab", "signature": SIG1}]}
    assert lines(reported(merged)) == [
        "edge/x turn 0 chunk 9 (message): not an assembled assistant message: content must be text, thinking, "
        'redacted_thinking and tool_use blocks, got [{"type": "texttextsignature", "text": "ab", "signature": '
        f'"{SIG1}"}}]']


def test_one_response_held_as_two_messages_is_named_and_its_blocks_still_compared():
    first = {"role": "assistant", "content": MESSAGE["content"][:3]}
    second = {"role": "assistant", "content": MESSAGE["content"][3:]}
    split = [*STREAM, {"type": "message", "message": first}, {"type": "message", "message": second}]
    assert lines(split) == ["edge/x turn 0 assembled message: the library holds 2 assistant messages (chunks 9, 10) for "
                            "one streamed response; they go back to Bedrock as 2 assistant messages in a row"]
    second["content"] = second["content"][:1]
    assert lines(split)[1:] == ["edge/x turn 0 assembled message: streamed tool_call {\"id\": \"t2\", \"name\": "
                                "\"list_files\", \"input\": {}} / assembled nothing (block dropped)"]


messages = st.recursive(st.none() | st.booleans() | st.integers() | st.sampled_from(["", "assistant", "text", "tool_use",
                                                                                   "thinking", "x"]),
                        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                            st.sampled_from(["role", "content", "type", "text", "thinking", "signature", "id",
                                             "name", "input", "data"]), inner, max_size=4), max_leaves=15)


@given(messages)
def test_any_reported_message_is_judged_without_crashing(message):
    diff = check_assembly([*STREAM, {"type": "message", "message": message}], ALL, turn=0)
    assert diff is None or all(isinstance(line, str) for line in diff.changes)
