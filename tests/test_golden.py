import yaml
import pytest

from hostile import laughs

from harness.suite import golden as golden_module
from harness.suite.golden import GoldenError, check, golden_path, load_golden, unused_goldens, write_golden
from harness.judge.normalize import ALL
from harness.suite.scenario import discover, load_scenario

SCENARIO = """\
title: Round trip
model_id: us.anthropic.claude-sonnet-4-20250514-v1:0
tools:
  - {name: read_file, description: Read a file, input_schema: {type: object}}
turns:
  - messages: [{role: user, content: "Read /tmp/a.txt"}]
    tool_results: {read_file: {content: "contents of {input[path]}"}}
  - messages: []
"""

USAGE = {"type": "usage", "input_tokens": 412, "output_tokens": 96, "cache_read_input_tokens": 7,
         "cache_write_input_tokens": 0}
TURNS = [
    {"chunks": [{"type": "reasoning", "text": "First line.\nSecond line, ünïcødé ✓.", "signature": "EqQB+/=="},
                {"type": "text", "text": "yes"},
                {"type": "tool_call", "id": "tooluse_A", "name": "read_file", "input": {"path": "/tmp/a.txt", "on": "no"}},
                {"type": "stop", "reason": "tool_use"}, USAGE],
     "request": {"messages": [{"role": "user", "content": [{"text": "Read /tmp/a.txt"}]}],
                 "toolConfig": {"tools": [{"toolSpec": {"name": "read_file", "description": "Read a file",
                                                        "inputSchema": {"json": {"type": "object"}}}}]}}},
    {"chunks": [{"type": "text", "text": "It says hello."}, {"type": "stop", "reason": "end_turn"}], "request": None},
]


@pytest.fixture
def root(tmp_path):
    root = tmp_path / "suites"
    (root / "core").mkdir(parents=True)
    (root / "core/round-trip.yaml").write_text(SCENARIO, encoding="utf-8")
    return root


@pytest.fixture
def scenario(root):
    return load_scenario(root / "core/round-trip.yaml", root)


def test_exported_members_exist():
    assert all(hasattr(golden_module, name) for name in golden_module.__all__)


def test_golden_lives_beside_the_scenario(scenario, root):
    assert golden_path(scenario) == root / "core/round-trip.golden.yaml"


def test_round_trip(scenario):
    assert load_golden(scenario) is None
    assert write_golden(scenario, TURNS) is True
    assert load_golden(scenario) == [{"index": i, **turn} for i, turn in enumerate(TURNS)]


def test_written_yaml_is_readable_block_style(scenario):
    shared = {"path": "/tmp/a.txt"}
    turns = [{"chunks": [{"type": "tool_call", "id": "A", "name": "f", "input": shared},
                         {"type": "tool_call", "id": "B", "name": "f", "input": shared},
                         {"type": "text", "text": "line one\nline two"}], "request": None}]
    write_golden(scenario, turns)
    text = golden_path(scenario).read_text(encoding="utf-8")
    assert text.startswith("# Written by `bedrock-harness golden update`")
    assert "&id" not in text and "*id" not in text  # no anchors for shared objects
    assert "- type: tool_call\n" in text and "{" not in text  # block style throughout
    assert "text: |-\n" in text and "line two" in text
    assert yaml.safe_load(text)["turns"][0]["chunks"][1]["input"] == shared


def test_unicode_and_yaml_lookalikes_survive(scenario):
    write_golden(scenario, TURNS)
    text = golden_path(scenario).read_text(encoding="utf-8")
    assert "ünïcødé ✓" in text
    assert load_golden(scenario)[0]["chunks"][2]["input"] == {"path": "/tmp/a.txt", "on": "no"}


def test_write_is_atomic_and_skips_unchanged_content(scenario, root):
    assert write_golden(scenario, TURNS) is True
    path = golden_path(scenario)
    stamp = path.stat().st_mtime_ns
    assert write_golden(scenario, TURNS) is False and path.stat().st_mtime_ns == stamp
    assert write_golden(scenario, TURNS[:1]) is True and len(load_golden(scenario)) == 1
    assert sorted(p.name for p in (root / "core").iterdir()) == ["round-trip.golden.yaml", "round-trip.yaml"]


@pytest.mark.parametrize("text, message", [
    ("[1, 2]\n", "turns: expected a mapping with a list of turns"),
    ("turns:\n  - {index: 1, chunks: []}\n", "turns[0].index: expected 0"),
    ("turns:\n  - {index: 0, chunks: [{text: no type}]}\n", "turns[0].chunks: expected a list of chunks, each with a type"),
    ("turns:\n  - {index: 0, chunks: [], request: [1]}\n", "turns[0].request: expected a mapping"),
    ("turns: [unclosed\n", "cannot read: "),
    ("turns: []\n" + laughs(""), "cannot read: line 9, column 12: YAML aliases would expand"),  # billion laughs
    ("turns: !!bool maybe\n", "cannot read: 'maybe' is no valid bool (KeyError)"),
])
def test_malformed_golden_names_file_and_field(scenario, text, message):
    golden_path(scenario).write_text(text, encoding="utf-8")
    with pytest.raises(GoldenError) as error:
        load_golden(scenario)
    assert str(error.value).startswith(f"{golden_path(scenario)}: {message}") and "\n" not in str(error.value)


def test_unused_goldens(root, scenario):
    write_golden(scenario, TURNS)
    (root / "core/deleted.golden.yaml").write_text("turns: []\n")
    (root / "edge").mkdir()
    (root / "edge/renamed.golden.yaml").write_text("turns: []\n")
    scenarios = discover(root)
    assert unused_goldens(root, scenarios) == [root / "core/deleted.golden.yaml", root / "edge/renamed.golden.yaml"]
    assert unused_goldens(root, []) == [root / "core/deleted.golden.yaml", root / "core/round-trip.golden.yaml",
                                        root / "edge/renamed.golden.yaml"]


def actual_from(turns):
    return [{"chunks": [dict(c) for c in t["chunks"]], "request": t["request"]} for t in turns]


def test_check_clean_run(scenario):
    write_golden(scenario, TURNS)
    assert check(scenario, actual_from(TURNS)) == []


def test_check_reports_chunk_and_request_drift_per_turn(scenario):
    write_golden(scenario, TURNS)
    actual = actual_from(TURNS)
    actual[0]["chunks"][2] = {**actual[0]["chunks"][2], "id": ""}
    actual[0]["request"] = {"messages": [{"role": "user", "content": [{"text": "Read /tmp/a.txt"}]}]}
    diffs = check(scenario, actual)
    assert [(d.subject, d.turn) for d in diffs] == [("chunks", 0), ("request", 0)]
    assert diffs[0].headline == "core/round-trip turn 0 chunk 2 (tool_call): expected id 'tooluse_A' / actual ''"
    assert diffs[1].headline.startswith("core/round-trip turn 0 request expected toolConfig ")


def test_check_compares_only_declared_capabilities(scenario):
    write_golden(scenario, TURNS)
    without_cache = actual_from(TURNS)
    without_cache[0]["chunks"][4] = {"type": "usage", "input_tokens": 412, "output_tokens": 96}
    assert check(scenario, without_cache, ALL - {"cache_usage"}) == []
    diffs = check(scenario, without_cache, ALL)
    assert len(diffs) == 1 and diffs[0].changes == (
        "core/round-trip turn 0 chunk 4 (usage): expected cache_read_input_tokens 7 / actual no cache_read_input_tokens",
        "core/round-trip turn 0 chunk 4 (usage): expected cache_write_input_tokens 0 / actual no cache_write_input_tokens",
    )
    unsigned = actual_from(TURNS)
    unsigned[0]["chunks"][0] = {"type": "reasoning", "text": TURNS[0]["chunks"][0]["text"], "signature": None}
    assert check(scenario, unsigned, ALL - {"reasoning_signature"}) == []
    assert check(scenario, unsigned, ALL)[0].headline.endswith("expected signature 'EqQB+/==' / actual null")


def test_check_without_a_request_on_either_side_skips_the_request(scenario):
    write_golden(scenario, TURNS)
    actual = [{"chunks": t["chunks"]} for t in TURNS]
    assert check(scenario, actual) == []
    assert TURNS[1]["request"] is None  # the golden pins no request for turn 1
    with_request = actual_from(TURNS)
    with_request[1]["request"] = {"messages": [{"role": "user", "content": [{"text": "anything"}]}]}
    assert check(scenario, with_request) == []


def test_check_missing_golden_and_turn_count(scenario):
    missing = check(scenario, actual_from(TURNS))
    assert len(missing) == 1 and missing[0].subject == "golden"
    assert "run `bedrock-harness golden update core/round-trip`" in missing[0].headline
    write_golden(scenario, TURNS)
    short = check(scenario, actual_from(TURNS[:1]))
    assert [d.headline for d in short] == ["core/round-trip expected 2 turn(s) / actual 1"]


def test_a_rewritten_golden_keeps_its_mode(scenario):
    write_golden(scenario, TURNS)
    golden_path(scenario).chmod(0o664)
    assert write_golden(scenario, TURNS[:1]) is True
    assert golden_path(scenario).stat().st_mode & 0o777 == 0o664
