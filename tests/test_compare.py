import ast
import json
from pathlib import Path

import pytest

import harness
from harness.judge import compare as compare_module
from harness.judge.excerpt import pair
from harness.judge.compare import Diff, diff_chunks, diff_pair, diff_request, diff_turn_count, note

TEXT = {"type": "text", "text": "I'll read all three files."}
STOP = {"type": "stop", "reason": "tool_use"}


def call(cid, path="/tmp/a.txt"):
    return {"type": "tool_call", "id": cid, "name": "read_file", "input": {"path": path}}


EXPECTED = [TEXT, call("tooluse_A", "/tmp/a.txt"), call("tooluse_B", "/tmp/b.txt"), call("tooluse_C", "/tmp/c.txt"), STOP]


def test_exported_members_exist():
    assert all(hasattr(compare_module, name) for name in compare_module.__all__)


def test_deepdiff_is_imported_only_here():
    importers = []
    for path in Path(harness.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(name.split(".")[0] == "deepdiff" for name in names):
                importers.append(path.name)
    assert importers == ["compare.py"]


def test_equal_lists_have_no_diff():
    assert diff_chunks(EXPECTED, [dict(c) for c in EXPECTED]) is None
    assert diff_chunks([], []) is None


def test_changed_tool_id_names_scenario_turn_chunk_and_field():
    actual = [TEXT, call("tooluse_A", "/tmp/a.txt"), call("tooluse_X", "/tmp/b.txt"), call("tooluse_C", "/tmp/c.txt"), STOP]
    diff = diff_chunks(EXPECTED, actual, scenario="core/parallel-calls", turn=0)
    assert diff.changes == ("core/parallel-calls turn 0 chunk 2 (tool_call): expected id 'tooluse_B' / actual 'tooluse_X'",)
    assert (diff.subject, diff.scenario, diff.turn, diff.headline) == ("chunks", "core/parallel-calls", 0, diff.changes[0])
    rows = diff.listing
    assert rows[0].split() == ["expected", "chunks", "|", "actual", "chunks"]
    assert [row[0] for row in rows[1:]] == [" ", " ", "!", " ", " "]
    assert 'tool_call {"id": "tooluse_B"' in rows[3] and 'tool_call {"id": "tooluse_X"' in rows[3].split("|")[1]
    assert len({row.index("|") for row in rows}) == 1  # the columns are aligned


def test_missing_tool_call_leaves_a_gap_not_a_cascade():
    actual = [TEXT, call("tooluse_A", "/tmp/a.txt"), call("tooluse_C", "/tmp/c.txt"), STOP]
    diff = diff_chunks(EXPECTED, actual, scenario="core/parallel-calls", turn=0)
    assert diff.changes == ('core/parallel-calls turn 0 chunk 2 (tool_call): missing; expected tool_call {"id": '
                            '"tooluse_B", "name": "read_file", "input": {"path": "/tmp/b.txt"}} / actual nothing',)
    marked = [row for row in diff.listing if row.startswith("!")]
    assert len(marked) == 1 and marked[0].split("|")[1].strip() == "-"
    assert diff.listing[4].split("|")[1].split()[0] == "2"  # tooluse_C is actual chunk 2, beside expected 3


def test_extra_text_is_unexpected():
    actual = [TEXT, {"type": "text", "text": "extra"}, *EXPECTED[1:]]
    diff = diff_chunks(EXPECTED, actual, turn=1)
    assert diff.changes == ('turn 1 actual chunk 1 (text): unexpected; expected nothing / actual text {"text": "extra"}',)
    assert diff.listing[2].startswith("!   -") and diff.listing[2].endswith('1 text {"text": "extra"}')


def test_nested_input_and_missing_fields_have_paths():
    expected = [{"type": "tool_call", "id": "t", "name": "f", "input": {"a": {"b": [1, 2]}, "c": 1}},
                {"type": "reasoning", "text": "r", "signature": "SIG1"}]
    actual = [{"type": "tool_call", "id": "t", "name": "f", "input": {"a": {"b": [1, 3]}, "d": 1}},
              {"type": "reasoning", "text": "r", "signature": "SIG1SIG2"}]
    assert diff_chunks(expected, actual).changes == (
        "chunk 0 (tool_call): expected input.a.b[1] 2 / actual 3",
        "chunk 0 (tool_call): expected input.c 1 / actual no input.c",
        "chunk 0 (tool_call): expected no input.d / actual input.d 1",
        "chunk 1 (reasoning): expected signature 'SIG1' / actual 'SIG1SIG2'",
    )


def test_types_are_strict_and_unparsed_input_shows():
    assert diff_chunks([{"type": "usage", "input_tokens": 1}], [{"type": "usage", "input_tokens": True}]) is not None
    assert diff_chunks([call("t")], [{**call("t"), "input": ""}]).changes == (
        "chunk 0 (tool_call): expected input {\"path\": \"/tmp/a.txt\"} / actual ''",)
    glued = {"type": "tool_call", "id": "tooluse_Atooluse_B", "name": "read_file", "input": {"__unparsed__": '{"p":1}{"p":2}'}}
    changes = diff_chunks([call("tooluse_A")], [glued]).changes
    assert changes[0] == "chunk 0 (tool_call): expected id 'tooluse_A' / actual 'tooluse_Atooluse_B'"
    assert "__unparsed__" in changes[1]


def test_rendering_is_deterministic_and_complete():
    actual = [call("tooluse_A", "/x"), {"type": "stop", "reason": "end_turn"}]
    first, second = diff_chunks(EXPECTED, actual, scenario="s/x", turn=0), diff_chunks(EXPECTED, actual, scenario="s/x", turn=0)
    assert first == second and first.render() == str(second)
    assert first.render() == "\n".join([*first.changes, "", *first.listing])
    assert all(line.startswith("s/x turn 0 ") for line in first.changes)


def test_long_cells_are_cut_in_the_listing_and_the_change_shows_where_the_values_part():
    long_text = "x" * 300
    diff = diff_chunks([{"type": "text", "text": long_text}], [{"type": "text", "text": long_text + "y"}])
    assert diff.changes[0] == ("chunk 0 (text): expected text …'" + "x" * 24 + "' / actual …'" + "x" * 24 + "y', "
                               "first difference at character 300 of 300 / 301")
    assert all(len(row) < 150 for row in diff.listing) and "..." in diff.listing[1]


def test_a_long_signature_is_shown_around_its_first_difference_with_an_ellipsis_on_each_side():
    expected, actual = "A" * 200 + "Bcdefgh" + "Z" * 200, "A" * 200 + "Xcdefgh" + "Z" * 200
    diff = diff_chunks([{"type": "reasoning", "text": "t", "signature": expected}],
                       [{"type": "reasoning", "text": "t", "signature": actual}], scenario="s/x", turn=1)
    (line,) = diff.changes
    window = "'" + "A" * 24 + "{}cdefgh" + "Z" * 17 + "'"
    assert line == (f"s/x turn 1 chunk 0 (reasoning): expected signature …{window.format('B')}… / actual "
                    f"…{window.format('X')}…, first difference at character 200 of 407 / 407")


def test_a_long_json_value_is_shown_around_its_first_difference():
    left, right = {"rows": list(range(40)) + [1]}, {"rows": list(range(40)) + [2]}
    whole, other = json.dumps(left), json.dumps(right)
    at = len(whole) - 3
    assert pair(left, right) == (f"…{whole[at - 24:]}", f"…{other[at - 24:]}",
                                 f", first difference at character {at} of {len(whole)} / {len(other)}")


def test_values_of_two_types_are_each_shown_from_their_start():
    rows = {"rows": list(range(60))}
    text = json.dumps(rows)
    (line,) = diff_pair({"input": rows}, {"input": text}, ("streamed", "converse"), "message")
    assert line == (f"message input: streamed a dict {text[:200]}… ({len(text)} characters), converse a str "
                    f"{text[:200]!r}… ({len(text)} characters)")


def test_a_value_streamed_as_two_blocks_is_named_as_the_other_two_joined():
    diff = diff_chunks([{"type": "text", "text": "ab"}, STOP], [{"type": "text", "text": "a"},
                                                                {"type": "text", "text": "b"}, STOP])
    assert diff.headline == "chunk 0 (text): expected text 'ab' is the texts of actual chunks 0 and 1 joined: 'a' + 'b'"
    merged = diff_chunks([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}, STOP],
                         [{"type": "text", "text": "ab"}, STOP], scenario="s/x", turn=0)
    assert merged.headline == ("s/x turn 0 actual chunk 0 (text): actual text 'ab' is the texts of expected chunks 0 "
                               "and 1 joined: 'a' + 'b'")
    other = diff_chunks([{"type": "text", "text": "ab"}, STOP], [{"type": "text", "text": "a"},
                                                                 {"type": "text", "text": "c"}, STOP])
    assert "joined" not in other.render()


def test_a_long_value_split_in_two_is_named_with_the_lengths_of_its_parts():
    signature = "S" * 450
    diff = diff_chunks([{"type": "reasoning", "signature": signature}],
                       [{"type": "reasoning", "signature": signature[:50]}, {"type": "reasoning", "signature": signature[50:]}])
    assert diff.headline == (f"chunk 0 (reasoning): expected signature '{'S' * 200}'… (450 characters) is the "
                             "signatures of actual chunks 0 and 1 joined: '" + "S" * 50 + "' + '" + "S" * 200 +
                             "'… (400 characters)")


def test_a_cut_cell_starts_both_sides_at_the_differing_key():
    def long_call(path):
        return {"type": "tool_call", "id": "tooluse_" + "Q" * 30, "name": "read_file",
                "input": {"note": "n" * 40, "path": path}}
    diff = diff_chunks([long_call("/tmp/a.txt"), STOP], [long_call("/tmp/b.txt"), STOP])
    row = diff.listing[1]
    assert row.startswith("!   0 tool_call ...\"path\": \"/tmp/a.txt\"}}") and row.endswith('tool_call ..."path": "/tmp/b.txt"}}')
    assert row.index("/tmp/a.txt") < row.index("|") < row.index("/tmp/b.txt")
    assert diff.listing[2].startswith("    1 stop {\"reason\": \"tool_use\"}")
    same = diff_chunks([long_call("/tmp/a.txt"), TEXT], [long_call("/tmp/a.txt"), STOP]).listing[1]
    assert same.startswith('    0 tool_call {"id": "tooluse_QQQ') and "..." in same  # equal rows: a plain cut


def test_a_difference_deep_in_a_long_value_stays_in_view_with_what_precedes_it():
    diff = diff_chunks([{"type": "text", "text": "y" * 300 + "A tail"}], [{"type": "text", "text": "y" * 300 + "B tail"}])
    left, right = diff.listing[1][1:].split("|")
    assert "yyyyyyyyyyyyA tail" in left and "yyyyyyyyyyyyB tail" in right and "text ..." in left


def test_request_diff_names_paths_and_lists_messages():
    assistant = {"role": "assistant", "content": [{"toolUse": {"toolUseId": "A", "name": "f", "input": {}}},
                                                  {"toolUse": {"toolUseId": "B", "name": "f", "input": {}}}]}
    def result(cid):
        return {"toolResult": {"toolUseId": cid, "content": [{"text": cid}]}}
    expected = {"messages": [{"role": "user", "content": [{"text": "go"}]}, assistant,
                             {"role": "user", "content": [result("A"), result("B")]}]}
    actual = {"messages": [{"role": "user", "content": [{"text": "go"}]}, assistant,
                           {"role": "user", "content": [result("A")]}, {"role": "user", "content": [result("B")]}]}
    diff = diff_request(expected, actual, scenario="edge/parallel-results", turn=1)
    assert diff.subject == "request"
    assert diff.changes == (
        'edge/parallel-results turn 1 request expected messages[2].content[1] {"toolResult": {"toolUseId": "B", '
        '"content": [{"text": "B"}]}} / actual no messages[2].content[1]',
        'edge/parallel-results turn 1 request expected no messages[3] / actual messages[3] {"role": "user", "content": '
        '[{"toolResult": {"toolUseId": "B", "content": [{"text": "B"}]}}]}',
    )
    assert [row.split("|")[1].strip() for row in diff.listing[1:]] == [
        "0 user: text", "1 assistant: toolUse(A), toolUse(B)", "2 user: toolResult(A)", "3 user: toolResult(B)"]
    assert [row[0] for row in diff.listing[1:]] == [" ", " ", "!", "!"]
    assert diff_request(expected, {**expected}) is None


def test_changes_sort_by_path_numerically():
    expected = [{"type": "tool_call", "id": "t", "name": "f", "input": {"xs": list(range(12))}}]
    actual = [{"type": "tool_call", "id": "t", "name": "f", "input": {"xs": [*range(2), -2, *range(3, 10), -10, 11]}}]
    assert diff_chunks(expected, actual).changes == ("chunk 0 (tool_call): expected input.xs[2] 2 / actual -2",
                                                     "chunk 0 (tool_call): expected input.xs[10] 10 / actual -10")


def test_request_diff_against_nothing():
    diff = diff_request({"system": [{"text": "s"}]}, None)
    assert diff.changes == ('request expected system [{"text": "s"}] / actual no system',)


def test_turn_count_and_notes():
    assert diff_turn_count(2, 2, scenario="x/y") is None
    diff = diff_turn_count(3, 1, scenario="core/round-trip")
    assert diff.changes == ("core/round-trip expected 3 turn(s) / actual 1",) and diff.subject == "turns"
    assert note("golden", "no golden", scenario="a/b", turn=2) == Diff("golden", ("a/b turn 2 no golden",), scenario="a/b", turn=2)


@pytest.mark.parametrize("expected, actual", [
    ([call("A"), call("B")], [call("B"), call("A")]),
    ([call("A")], [{"type": "text", "text": "A"}]),
    ([STOP], []),
    ([], [STOP, STOP]),
])
def test_every_difference_is_reported_and_rows_cover_both_sides(expected, actual):
    diff = diff_chunks(expected, actual)
    assert diff is not None and diff.changes
    left = [row.split("|")[0][2:].split()[0] for row in diff.listing[1:]]
    right = [row.split("|")[1].split()[0] for row in diff.listing[1:]]
    assert sorted(int(i) for i in left if i != "-") == list(range(len(expected)))
    assert sorted(int(j) for j in right if j != "-") == list(range(len(actual)))


def test_deepdiff_runs_one_thread_at_a_time(monkeypatch):
    """CPython 3.11's parser is not safe across threads, and deepdiff parses every path key it renders."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    import deepdiff

    real, inside, most, guard = deepdiff.DeepDiff, [0], [0], threading.Lock()

    def counting(*args, **kwargs):
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.02)
        try:
            return real(*args, **kwargs)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(deepdiff, "DeepDiff", counting)
    expected = [{"type": "tool_call", "id": "a", "name": "x", "input": {"k": 1}}]
    actuals = [[{"type": "tool_call", "id": "a", "name": "x", "input": {"k": n}}] for n in range(2, 10)]
    with ThreadPoolExecutor(8) as pool:
        diffs = list(pool.map(lambda actual: diff_chunks(expected, actual, scenario="s"), actuals))
    assert most[0] == 1
    assert [d.headline for d in diffs] == [f"s chunk 0 (tool_call): expected input.k 1 / actual {n}"
                                           for n in range(2, 10)]


@pytest.mark.parametrize("messages", [5, "text", {"role": "user"}, [{"role": ["user"], "content": []}], [[1], 2]],
                         ids=["number", "string", "mapping", "role-a-list", "items-not-messages"])
def test_a_request_whose_messages_are_shaped_oddly_is_still_diffed(messages):
    """An adapter may send any JSON (and a golden may be edited by hand): the diff names it, never a TypeError."""
    expected = {"messages": [{"role": "user", "content": [{"text": "hi"}]}]}
    diff = diff_request(expected, {"messages": messages}, scenario="core/smoke-text", turn=0)
    assert diff is not None and diff.changes and diff.listing
    assert diff_request({"messages": messages}, expected) is not None
