"""Findings common to most failing scenarios: found with the scenario's parts taken out, stated once at the top of
every human format and left out of each scenario's own findings; the JSON keeps every finding and lists them."""

import json
import xml.etree.ElementTree as ET

from harness.judge.compare import diff_chunks
from harness.report import render
from harness.report.recurring import common_findings, generic, without
from harness.suite.results import Result, TurnResult

STOP = {"type": "stop", "reason": "end_turn"}
COMMON = 'turn N chunk N (stop): missing; expected stop {"reason": "end_turn"} / actual nothing'


def _failing(scenario, turn, own=None, stop=True):
    """A failing result whose turn misses its stop chunk (when ``stop``) and differs in text ``own``."""
    expected = [{"type": "text", "text": "hello"}] + ([STOP] if stop else [])
    actual = [{"type": "text", "text": own or "hello"}]
    diff = diff_chunks(expected, actual, scenario=scenario, turn=turn)
    return Result(scenario, "fail", diff.headline, tuple(TurnResult(i) for i in range(turn)) + (TurnResult(turn, (diff,)),))


def results():
    return [_failing("core/a", 0, "howdy"), _failing("core/b", 1, "hi"), _failing("core/c", 0),
            _failing("core/d", 0, "yo", stop=False), Result("core/e", "pass")]


def test_a_finding_in_most_failing_scenarios_is_common_whatever_its_turn_and_chunk():
    (common,) = common_findings(results())
    assert (common.finding, common.scenarios, common.of) == (COMMON, ("core/a", "core/b", "core/c"), 4)
    assert common.line() == f"in 3 of 4 failing scenarios: {COMMON}"
    assert generic("core/b", "core/b turn 12 chunk 3 (text): x; chunks 4 and 5") == "turn N chunk N (text): x; chunks N and N"


def test_half_is_not_most_and_one_scenario_alone_has_nothing_in_common():
    assert common_findings(results()[:2] + [_failing("core/d", 0, "yo", stop=False)] * 2) == []
    assert common_findings([_failing("core/a", 0)]) == []


def test_each_scenario_shows_its_own_findings_first_and_its_reason_is_its_own():
    common = common_findings(results())
    mine = without(results()[1], common)
    assert mine.reason == "core/b turn 1 chunk 0 (text): expected text 'hello' / actual 'hi'"
    assert "(stop)" not in mine.turns[1].chunk_text() and "expected text 'hello'" in mine.turns[1].chunk_text()
    alone = without(results()[2], common)  # nothing of its own: its reason stays
    assert alone.reason == results()[2].reason and alone.turns[0].ok
    assert without(results()[3], common) == results()[3]


def test_the_text_report_states_it_once_at_the_top_and_leaves_it_out_below():
    text = render(results(), {"name": "old", "version": "0.1"}, "text")
    # once at the top, and for core/c (its row and its findings), which has no finding of its own
    assert text.count("(stop): missing") == 3 and text.count("turn 0 chunk 1 (stop): missing") == 2
    assert text.index(f"in 3 of 4 failing scenarios: {COMMON}") < text.index("scenario  ")
    assert "core/a    fail      0.00s  turn 0 chunk 0 (text): expected text" in text and "expected text 'hello' / actual 'howdy'" in text


def test_markdown_junit_and_html_state_it_once_at_the_top():
    markdown = render(results(), None, "markdown")
    assert markdown.count("(stop): missing") == 2 and markdown.index("in 3 of 4") < markdown.index("| scenario |")
    assert "| `core/b` | fail | core/b turn 1 chunk 0 (text): expected text 'hello' / actual 'hi' |" in markdown
    suite = ET.fromstring(render(results(), None, "junit")).find("testsuite")
    assert suite.find("properties/property[@name='common_finding_0']").get("value") == f"in 3 of 4 failing scenarios: {COMMON}"
    texts = {case.get("name"): case.find("failure").text for case in suite.iter("testcase") if case.find("failure") is not None}
    assert ["(stop): missing" in texts[sid] for sid in ("core/a", "core/b", "core/c")] == [False, False, True]
    html = render(results(), None, "html")
    assert html.count("(stop): missing") == 1 + html.count("turn 0 chunk 1 (stop)") and html.index('class="common"') < html.index('class="results"')


def test_the_json_keeps_every_finding_per_result_and_adds_the_common_ones():
    document = json.loads(render(results(), None, "json"))
    assert [("(stop): missing" in r["turns"][-1]["diff"]) for r in document["results"][:4]] == [True, True, True, False]
    assert document["common_findings"] == [{"finding": COMMON, "count": 3, "of": 4,
                                            "scenarios": ["core/a", "core/b", "core/c"]}]
    assert json.loads(render(results()[:1], None, "json"))["common_findings"] == []


def test_report_merge_finds_them_again_over_every_shard_even_in_reports_that_lacked_them():
    from harness.studies.merge import merge

    halves = [json.loads(render(part, None, "json")) for part in (results()[:2], results()[2:])]
    for half in halves:
        half.pop("common_findings")
    merged = merge(halves, ["one.json", "two.json"])
    assert merged["common_findings"] == json.loads(render(results(), None, "json"))["common_findings"] != []
