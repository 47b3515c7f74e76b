import json
import re
import xml.etree.ElementTree as ET

import pytest

from harness import __version__
from harness import report as report_module
from harness.suite import results as results_module
from harness.judge.compare import diff_chunks, diff_request
from harness.report import (
    BaselineError,
    FORMATS,
    adapter_info,
    apply_baseline,
    exit_code,
    load_baseline,
    render,
    render_json,
    render_junit,
    render_markdown,
    render_text,
    results_from_json,
    summary,
)
from harness.suite.results import STATUSES, Result, TurnResult, verdict

ADAPTER = {"name": "reference", "version": "0.1.0", "capabilities": {"tool_use", "text", "usage"}}
CHUNK_DIFF = diff_chunks([{"type": "tool_call", "id": "tooluse_A", "name": "f", "input": {}}],
                         [{"type": "tool_call", "id": "tooluse_B", "name": "f", "input": {}}],
                         scenario="core/parallel-calls", turn=0)
REQUEST_DIFF = diff_request({"messages": [{"role": "user", "content": [{"text": "a"}]}]},
                            {"messages": [{"role": "user", "content": [{"text": "b"}]}]},
                            scenario="core/round-trip", turn=1)
LAW = "nothing_after_error: chunk 4 (usage) arrives after the error at chunk 3"
RULE = "messages.2.content: Expected toolResult blocks at messages.2.content for the following Ids: tooluse_B"
CASSETTES = {"core/parallel-calls": {"path": "cassettes/core/parallel-calls.yaml", "sha256": "ab" * 32},
             "core/round-trip": {"path": "cassettes/core/round-trip.yaml", "sha256": None}}


def results():
    return [
        Result("core/parallel-calls", "fail", CHUNK_DIFF.headline, (TurnResult(0, (CHUNK_DIFF,), (LAW,)),), 0.012),
        Result("core/round-trip", "fail", RULE, (TurnResult(0), TurnResult(1, (REQUEST_DIFF,), (), (RULE,))), 0.02),
        Result("core/smoke-text", "pass", "", (TurnResult(0),), 0.005),
        Result("edge/thinking", "skip", "adapter lacks reasoning", (), 0.0),
        Result("faults/throttle", "error", "adapter crashed: ValueError | boom\nstderr tail", (), 0.5),
        Result("edge/zero-args", "xfail", "known failure: sends '' (#12)", (), 0.01),
        Result("edge/nova", "xpass", "listed as a known failure (x) but passed; remove it from the baseline", (), 0.01),
    ]


def test_exported_members_exist():
    assert all(hasattr(report_module, name) for name in report_module.__all__)
    assert all(hasattr(results_module, name) for name in results_module.__all__)


# ---- results ----

def test_result_status_is_checked():
    with pytest.raises(ValueError, match=r"core/x: unknown status 'passed' \(known: pass, warn, fail, error, skip, xfail, xpass\)"):
        Result("core/x", "passed")


def test_turn_results_and_verdict():
    clean, dirty = TurnResult(0), TurnResult(1, (CHUNK_DIFF,), (LAW,))
    assert clean.ok and not dirty.ok and dirty.headline == CHUNK_DIFF.headline
    assert TurnResult(2, laws=(LAW,)).headline == LAW and TurnResult(3, request_problems=(RULE,)).headline == RULE
    assert verdict([clean]) == ("pass", "") and verdict([clean, dirty]) == ("fail", CHUNK_DIFF.headline)
    assert dirty.chunk_text() == CHUNK_DIFF.render() + "\n\n" + LAW
    assert TurnResult(1, (REQUEST_DIFF,), (), (RULE,)).request_texts() == [RULE, REQUEST_DIFF.render()]
    noted = TurnResult(4, request_notes=("warning alternating-roles (not enforced ...): ...",))
    assert noted.ok and verdict([noted]) == ("pass", "")  # a warning is shown, never a failure


# ---- text ----

def test_text_table_rows_summary_and_details():
    text = render_text(results(), ADAPTER)
    lines = text.splitlines()
    assert lines[0] == "adapter reference 0.1.0"
    assert lines[1].split() == ["scenario", "status", "time", "reason"]
    rows = lines[2:9]
    assert [row.split()[:2] for row in rows] == [[r.scenario, r.status] for r in results()]
    assert rows[2].rstrip().endswith("pass      0.01s") and "0.50s" in rows[4]
    status_at, time_end = lines[1].index("status"), lines[1].index("time") + len("time")
    assert all(row[status_at:].startswith(r.status) and row[time_end - 1] == "s" for row, r in zip(rows, results()))
    assert "adapter crashed: ValueError | boom stderr tail" in rows[4]  # one line per row
    assert rows[0].endswith("0.01s  turn 0 chunk 0 (tool_call): expected id 'tooluse_A' / actual 'tooluse_B'")
    assert "7 scenarios: 1 pass, 0 warn, 2 fail, 1 error, 1 skip, 1 xfail, 1 xpass in 0.56s" in lines
    details = text.split("\n== ")[1:]
    assert [d.splitlines()[0] for d in details] == ["core/parallel-calls: fail", "core/round-trip: fail",
                                                     "faults/throttle: error", "edge/nova: xpass"]
    assert "    " + CHUNK_DIFF.changes[0] in details[0] and "    " + LAW in details[0]
    assert "  turn 1:" in details[1] and "  turn 0:" not in details[1] and "    " + RULE in details[1]
    assert "expected messages[0].content[0].text 'a' / actual 'b'" in details[1]
    assert "  stderr tail" in details[2]


def test_text_reason_is_cut_in_the_table():
    long = Result("core/x", "fail", "y" * 500)
    row = render_text([long]).splitlines()[1]
    assert row.endswith("...") and len(row) < 150
    assert "y" * 500 in render_text([long])


def test_a_skip_reason_cut_in_the_table_says_how_to_see_it_whole():
    long = "adapter lacks reasoning; " + "the library folds thinking into text, " * 6 + "END"
    skipped = [Result("edge/thinking", "skip", long), Result("core/x", "pass")]
    text = render_text(skipped)
    assert "END" not in text and "(reasons cut at 100 characters; -v shows them whole)" in text
    assert "-v shows" not in render_text([Result("core/x", "fail", "y" * 500)])  # its findings hold it whole


def test_verbose_text_shows_every_reason_whole_with_findings_for_skips_and_xfails():
    long = "adapter lacks reasoning; " + "the library folds thinking into text, " * 6 + "END"
    verbose = render_text(results() + [Result("edge/long", "skip", long)], ADAPTER, verbose=True)
    row = next(line for line in verbose.splitlines() if line.startswith("edge/long "))
    assert row.endswith("END") and "..." not in row and "-v shows" not in verbose
    details = [d.splitlines()[0] for d in verbose.split("\n== ")[1:]]
    assert details == ["core/parallel-calls: fail", "core/round-trip: fail", "edge/thinking: skip",
                       "faults/throttle: error", "edge/zero-args: xfail", "edge/nova: xpass", "edge/long: skip"]
    assert "\n  " + long + "\n" in verbose + "\n"


# ---- json ----

def test_json_follows_the_design_schema():
    report = json.loads(render_json(results(), ADAPTER))
    assert list(report) == ["harness_version", "adapter", "results", "summary", "levels", "common_findings"]
    assert report["levels"] == {"required": {"met": 1, "of": 6, "percent": 16.7},
                                "recommended": {"met": 0, "of": 0, "percent": None}}
    assert report["harness_version"] == __version__
    assert report["adapter"] == {"name": "reference", "version": "0.1.0", "capabilities": ["text", "tool_use", "usage"]}
    assert report["summary"] == {"pass": 1, "warn": 0, "fail": 2, "error": 1, "skip": 1, "xfail": 1, "xpass": 1}
    assert list(report["summary"]) == list(STATUSES)
    for entry in report["results"]:
        assert list(entry) == ["scenario", "status", "level", "reason", "turns", "duration_s"]
        assert isinstance(entry["reason"], str) and isinstance(entry["duration_s"], float)
        for turn in entry["turns"]:
            assert list(turn) == ["index", "diff", "request_problems", "request_diffs", "request_notes", "warnings"]
            assert isinstance(turn["diff"], str) and all(isinstance(p, str) for p in turn["request_problems"])
    first, second = report["results"][0], report["results"][1]
    assert first["turns"] == [{"index": 0, "diff": CHUNK_DIFF.render() + "\n\n" + LAW, "request_problems": [],
                               "request_diffs": [], "request_notes": [], "warnings": []}]
    assert second["turns"][1] == {"index": 1, "diff": "", "request_problems": [RULE, REQUEST_DIFF.render()],
                                  "request_diffs": [REQUEST_DIFF.render()], "request_notes": [], "warnings": []}
    assert second["turns"][0] == {"index": 0, "diff": "", "request_problems": [], "request_diffs": [],
                                  "request_notes": [], "warnings": []}


@pytest.mark.parametrize("cassettes", [None, CASSETTES], ids=["plain", "with-cassettes"])
def test_json_reads_back_into_the_same_report_in_every_format(cassettes):
    back, found = results_from_json(json.loads(render_json(results(), ADAPTER, cassettes)))
    assert found == cassettes
    for fmt in FORMATS:
        assert render(back, ADAPTER, fmt, cassettes=found) == render(results(), ADAPTER, fmt, cassettes=cassettes), fmt


def test_json_with_cassettes_names_each_results_file_and_hash():
    entries = json.loads(render_json(results(), ADAPTER, CASSETTES))["results"]
    assert list(entries[0]) == ["scenario", "status", "level", "reason", "turns", "duration_s", "cassette",
                                "cassette_sha256"]
    assert (entries[0]["cassette"], entries[0]["cassette_sha256"]) == ("cassettes/core/parallel-calls.yaml", "ab" * 32)
    assert (entries[1]["cassette"], entries[1]["cassette_sha256"]) == ("cassettes/core/round-trip.yaml", None)
    assert (entries[2]["cassette"], entries[2]["cassette_sha256"]) == (None, None)


def test_json_without_adapter():
    report = json.loads(render_json([]))
    assert report["adapter"] == {"name": "", "version": "", "capabilities": []}
    assert report["results"] == [] and set(report["summary"].values()) == {0}


def test_adapter_info_from_an_object():
    class Adapter:
        name, version, capabilities = "shim", 2, frozenset({"text", "errors"})
    assert adapter_info(Adapter()) == {"name": "shim", "version": "2", "capabilities": ["errors", "text"]}


def test_the_packages_a_javascript_shim_ran_are_in_its_reports():
    """A shim that states the packages it ran on (name: installed version) has them in the JSON and markdown reports."""
    from harness.studies import certify

    class Shim:
        name, version, capabilities = "ai-sdk", "4.0.159", {"text"}
        packages = {"@ai-sdk/amazon-bedrock": "4.0.159", "ai": "6.0.326", "zod": "4.6.7"}
    info = adapter_info(Shim())
    assert info["packages"] == Shim.packages and adapter_info(info) == info  # read back from a JSON report alike
    assert json.loads(render_json([], Shim()))["adapter"]["packages"] == Shim.packages
    cert = certify.Certification(info | {"command": "node ai_sdk.mjs"}, (), {},
                                 {"harness": __version__, "botocore": "1", "boto3": "1", "python": "3"}, "2026-01-01")
    assert "| packages | @ai-sdk/amazon-bedrock 4.0.159, ai 6.0.326, zod 4.6.7 |" in certify.render(cert, "markdown")
    assert "packages" not in adapter_info(ADAPTER)


# ---- junit ----

def test_junit_parses_back_with_one_testcase_per_scenario():
    root = ET.fromstring(render_junit(results(), ADAPTER))
    suite = root.find("testsuite")
    assert suite.attrib["tests"] == "7" and suite.attrib["failures"] == "3"
    assert (suite.attrib["errors"], suite.attrib["skipped"]) == ("1", "1")
    props = {p.attrib["name"]: p.attrib["value"] for p in suite.find("properties")}
    assert props == {"harness_version": __version__, "adapter": "reference", "adapter_version": "0.1.0",
                     "capabilities": "text,tool_use,usage",
                     "levels": "levels: required 16.7 % (1 of 6), recommended n/a (0 of 0)"}
    cases = {case.attrib["name"]: case for case in suite.findall("testcase")}
    assert list(cases) == [r.scenario for r in results()]
    assert cases["core/parallel-calls"].attrib["classname"] == "core"
    assert cases["core/parallel-calls"].attrib["time"] == "0.012"
    failure = cases["core/parallel-calls"].find("failure")
    assert failure.attrib == {"message": CHUNK_DIFF.headline, "type": "fail"}
    assert CHUNK_DIFF.changes[0] in failure.text and LAW in failure.text
    assert cases["faults/throttle"].find("error").attrib["message"] == "adapter crashed: ValueError | boom stderr tail"
    assert cases["edge/thinking"].find("skipped").attrib["message"] == "adapter lacks reasoning"
    assert cases["edge/nova"].find("failure").attrib["type"] == "xpass"
    assert list(cases["core/smoke-text"]) == []
    xfail = cases["edge/zero-args"]
    assert [child.tag for child in xfail] == ["properties"]
    assert xfail.find("properties/property").attrib == {"name": "xfail", "value": "known failure: sends '' (#12)"}


# ---- markdown ----

def test_markdown_table():
    lines = render_markdown(results(), ADAPTER).splitlines()
    assert lines[0] == f"**bedrock-harness {__version__}**, adapter `reference` 0.1.0 (capabilities: text, tool_use, usage)"
    assert lines[2:4] == ["| scenario | status | reason | duration |", "|---|---|---|---:|"]
    rows = lines[4:11]
    assert rows[2] == "| `core/smoke-text` | pass |  | 0.01s |"
    assert rows[4] == "| `faults/throttle` | error | adapter crashed: ValueError \\| boom stderr tail | 0.50s |"
    assert all(len(re.split(r"(?<!\\)\|", row)) == 6 for row in rows)
    assert lines[-3].startswith("7 scenarios: 1 pass, 0 warn, 2 fail")
    assert lines[-1] == "levels: required 16.7 % (1 of 6), recommended n/a (0 of 0)"


def test_render_dispatches_and_refuses_unknown_formats():
    assert set(FORMATS) == {"text", "json", "junit", "markdown", "html"}
    assert render(results(), ADAPTER, "markdown") == render_markdown(results(), ADAPTER)
    assert render(results(), ADAPTER, "junit", cassettes=CASSETTES) == render_junit(results(), ADAPTER, CASSETTES)
    assert render(results(), ADAPTER, "text", verbose=True) == render_text(results(), ADAPTER, True)
    with pytest.raises(ValueError, match=r"unknown report format 'pdf' \(known: text, json, junit, markdown, html\)"):
        render(results(), ADAPTER, "pdf")


# ---- baseline and exit code ----

def test_exit_code():
    assert exit_code([Result("a/b", s) for s in ("pass", "skip", "xfail")]) == 0
    assert exit_code([]) == 0
    for bad in ("fail", "error", "xpass"):
        assert exit_code([Result("a/b", "pass"), Result("a/c", bad)]) == 1
    assert summary([Result("a/b", "pass"), Result("a/c", "pass")]) == {"pass": 2, "warn": 0, "fail": 0, "error": 0,
                                                                       "skip": 0, "xfail": 0, "xpass": 0}
    warned = [Result("a/b", "pass"), Result("a/c", "warn")]
    assert exit_code(warned) == 0 and exit_code(warned, strict=True) == 1


def test_load_baseline(tmp_path):
    path = tmp_path / "known-failures.yaml"
    path.write_text("core/parallel-calls: tracks calls in one slot (#7)\nedge/zero-args: sends ''\n")
    assert load_baseline(path) == {"core/parallel-calls": "tracks calls in one slot (#7)", "edge/zero-args": "sends ''"}
    path.write_text("")
    assert load_baseline(path) == {}


@pytest.mark.parametrize("text, message", [
    ("core/x:\n", "core/x: every known failure needs a reason"),
    ("core/x: '  '\n", "core/x: every known failure needs a reason"),
    ("core/x: [a]\n", "core/x: every known failure needs a reason"),
    ("- core/x\n", "expected a mapping of scenario id -> reason"),
    ("core/x: [\n", "cannot read: "),
])
def test_bad_baseline_names_file_and_entry(tmp_path, text, message):
    path = tmp_path / "baseline.yaml"
    path.write_text(text)
    with pytest.raises(BaselineError) as error:
        load_baseline(path)
    assert str(error.value).startswith(f"{path}: {message}") and "\n" not in str(error.value)
    with pytest.raises(BaselineError, match="cannot read"):
        load_baseline(tmp_path / "missing.yaml")


def test_apply_baseline_xfail_xpass_and_stale():
    run = [Result("core/a", "fail", "diff", (TurnResult(0, laws=(LAW,)),), 0.1), Result("core/b", "error", "crash"),
           Result("core/c", "pass"), Result("core/d", "skip", "no reasoning"), Result("core/e", "fail", "other")]
    baseline = {"core/a": "bug #1", "core/b": "bug #2", "core/c": "bug #3", "core/d": "bug #4", "core/gone": "old"}
    applied = apply_baseline(run, baseline)
    assert [(r.scenario, r.status) for r in applied] == [
        ("core/a", "xfail"), ("core/b", "xfail"), ("core/c", "xpass"), ("core/d", "skip"), ("core/e", "fail"),
        ("core/gone", "error")]
    assert applied[0].reason == "known failure: bug #1" and applied[0].turns == run[0].turns
    assert applied[2].reason == "listed as a known failure (bug #3) but passed; remove it from the baseline"
    assert applied[5].reason == "baseline lists unknown scenario 'core/gone'; remove the entry"
    assert exit_code(applied) == 1
    assert exit_code(apply_baseline([run[0], run[1]], {"core/a": "x", "core/b": "y"})) == 0


def test_apply_baseline_in_a_filtered_run_knows_every_scenario():
    run = [Result("core/a", "fail", "diff")]
    baseline = {"core/a": "bug", "core/not-run": "bug", "core/gone": "old"}
    applied = apply_baseline(run, baseline, known={"core/a", "core/not-run"})
    assert [(r.scenario, r.status) for r in applied] == [("core/a", "xfail"), ("core/gone", "error")]


def test_junit_with_cassettes_carries_cassette_and_sha256_per_testcase():
    suite = ET.fromstring(render_junit(results(), ADAPTER, CASSETTES)).find("testsuite")
    cases = {case.attrib["name"]: case for case in suite.findall("testcase")}
    props = {sid: {p.get("name"): p.get("value") for p in case.find("properties")} for sid, case in cases.items()}
    assert props["core/parallel-calls"] == {"cassette": "cassettes/core/parallel-calls.yaml", "cassette_sha256": "ab" * 32}
    assert props["core/round-trip"] == {"cassette": "cassettes/core/round-trip.yaml", "cassette_sha256": "missing"}
    assert props["edge/zero-args"] == {"xfail": "known failure: sends '' (#12)", "cassette": "none",
                                       "cassette_sha256": "missing"}
    assert [child.tag for child in cases["core/parallel-calls"]] == ["properties", "failure"]


# ---- text from adapters is printed, never obeyed ----

HOSTILE = {"name": "evil\x1b[31m\nFAKE: 33 pass\r", "version": "1.0\x1b]0;pwned\x07\u202e",
           "capabilities": {"text", "tool_use\x1b[2J"}, "packages": {"zod\x1b[2J": "4\u202e"}}
TRACEBACK = "adapter crashed: Traceback\n  File \"x\", line 1\x1b[8m hidden\nValueError: boom\r\x08\x08pass"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def hostile_results():
    return [Result("core/smoke-text", "error", TRACEBACK, (), 0.5),
            Result("core/round-trip", "fail", "streamed \x1b[32mok\x1b[0m", (TurnResult(0, (), ("law: \x1b[1mx",)),),
                   0.1),
            Result("edge/zero-args", "xfail", "known \x1b[33mfailure\x07", (), 0.0)]


@pytest.mark.parametrize("fmt", ["text", "markdown", "junit", "html"])
def test_no_control_character_from_an_adapter_reaches_a_human_report(fmt):
    out = render(hostile_results(), HOSTILE, fmt, cassettes=CASSETTES)
    assert RAW.findall(out) == []  # line breaks and tabs are the only controls left
    assert "\\x1b" in out and "\\u202e" in out
    assert not any(line.lstrip("|* `").startswith("FAKE") for line in out.splitlines())  # no line break injected
    assert "evil\\x1b[31m\\nFAKE: 33 pass\\r" in out.replace("&#10;", "\\n") or fmt == "html"


def test_the_junit_report_stays_well_formed_xml_with_the_escapes_as_text():
    root = ET.fromstring(render_junit(hostile_results(), HOSTILE))
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["adapter"] == "evil\\x1b[31m\\nFAKE: 33 pass\\r" and props["adapter_version"] == "1.0\\x1b]0;pwned\\x07\\u202e"
    assert "\\x1b[8m hidden" in root.find(".//error").text


C0 = re.compile("[\x00-\x08\x0b-\x1f]")


def test_the_json_report_keeps_the_values_as_they_were_json_escapes_them():
    text = render_json(hostile_results(), HOSTILE)
    assert C0.findall(text) == [] and json.loads(text)["adapter"]["name"] == HOSTILE["name"]


@pytest.mark.parametrize("fmt", ["text", "markdown", "junit", "html", "json"])
def test_no_control_character_reaches_a_certification_report(fmt):
    from harness.studies import certify

    identity = {**adapter_info(HOSTILE), "command": "node\x1b[31m adapter.js"}
    cert = certify.Certification(identity, tuple(hostile_results()), CASSETTES,
                                 {"harness": __version__, "botocore": "1", "boto3": "1", "python": "3"}, "2026-01-01")
    out = certify.render(cert, fmt)
    assert (C0 if fmt == "json" else RAW).findall(out) == []  # JSON escapes C0 itself and keeps the rest as sent
    assert not any(line.lstrip("|#* `").startswith("FAKE") for line in out.splitlines())


def test_a_reason_cannot_close_its_markdown_fence():
    from harness.studies import certify

    sneaky = [Result("core/smoke-text", "fail", "```\n# Certified: all pass\n```", (), 0.1)]
    cert = certify.Certification(adapter_info(ADAPTER) | {"spec": "reference"}, tuple(sneaky), CASSETTES,
                                 {"harness": __version__, "botocore": "1", "boto3": "1", "python": "3"}, "2026-01-01")
    lines = certify.render(cert, "markdown").splitlines()
    opened = lines.index("# Certified: all pass") - 2
    assert lines[opened] == "````" and lines[opened + 4] == "````"  # a fence longer than any run inside


def test_the_certification_table_and_the_matrix_print_names_escaped():
    from harness.studies import certification_table, matrix

    document = json.loads(render_json(hostile_results(), HOSTILE))
    table = certification_table.render([document])
    assert RAW.findall(table) == [] and "| scenario | evil\\x1b[31m FAKE: 33 pass 1.0\\x1b]0;pwned" in table
    rows = [matrix.Row("1.0\x1b[31m", tuple(hostile_results()), "", dict(HOSTILE))]
    for fmt in ("text", "markdown"):
        assert RAW.findall(matrix.render(rows, "evil\x1b[31m\nadapter", fmt)) == []
