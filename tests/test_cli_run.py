"""The main job and its neighbours as a user runs them: record --emulate, golden update/check, run, list."""

import hashlib
import json
import os
import shlex
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from harness.cli import main
from harness.cli.record import is_loopback
from harness.converse import ConverseAdapter
from harness.endpoint.server import BedrockServer
from harness.suite.scenario import load_scenario

REPO = Path(__file__).resolve().parents[1]
PICKED = ("core/single-call", "core/round-trip", "faults/throttling-mid-tool")


def invoke(*args, root=None):
    extra = ["--root", str(root)] if root is not None and args[0] != "golden" else []
    if args[0] == "golden":
        args = (*args, "--root", str(root))
    return CliRunner().invoke(main, [*args, *extra], catch_exceptions=False)


@pytest.fixture
def project(tmp_path):
    """A project folder with three scenarios copied from suites/, nothing recorded yet."""
    for sid in PICKED:
        dest = tmp_path / "suites" / f"{sid}.yaml"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / "suites" / f"{sid}.yaml", dest)
    return tmp_path


@pytest.fixture
def recorded(project):
    assert invoke("record", "--emulate", root=project).exit_code == 0
    assert invoke("golden", "update", root=project).exit_code == 0
    return project


def test_record_emulate_writes_emulator_cassettes(project):
    result = invoke("record", "--emulate", root=project)
    assert result.exit_code == 0, result.output
    for sid in PICKED:
        doc = yaml.safe_load((project / "cassettes" / f"{sid}.yaml").read_text())
        assert doc["metadata"]["source"] == "emulator"
        assert doc["metadata"]["model_id"] == load_scenario(project / "suites" / f"{sid}.yaml", project / "suites").model_id
    assert "recorded core/round-trip" in result.output


def test_record_once_never_overwrites_and_rewrite_replaces(project):
    invoke("record", "--emulate", "core/single-call", root=project)
    path = project / "cassettes" / "core" / "single-call.yaml"
    path.write_text(path.read_text() + "# reviewed\n")
    again = invoke("record", "--emulate", "core/single-call", root=project)
    assert again.exit_code == 0 and "exists" in again.output
    assert path.read_text().endswith("# reviewed\n")
    path.chmod(0o664)
    old_umask = os.umask(0o077)
    try:
        assert invoke("record", "--emulate", "--record-mode", "rewrite", "core/single-call", root=project).exit_code == 0
    finally:
        os.umask(old_umask)
    assert not path.read_text().endswith("# reviewed\n")
    assert path.stat().st_mode & 0o777 == 0o664, "a re-recorded cassette keeps its mode"
    assert not list(path.parent.glob(".*recording*")), "no temporary file left behind"


def test_failed_checks_leave_the_existing_cassette_untouched(project):
    invoke("record", "--emulate", "core/single-call", root=project)
    path = project / "cassettes" / "core" / "single-call.yaml"
    before = path.read_bytes()
    scenario = project / "suites" / "core" / "single-call.yaml"
    doc = yaml.safe_load(scenario.read_text())
    doc["checks"] = {"hard": [{"turn": 0, "tool_calls_at_least": 2}], "soft": []}
    scenario.write_text(yaml.safe_dump(doc))
    result = invoke("record", "--emulate", "--record-mode", "rewrite", "--attempts", "2", "core/single-call",
                    root=project)
    assert result.exit_code == 1
    assert "failed" in result.output and "attempt 2/2" in result.output
    assert path.read_bytes() == before


def test_record_live_without_credentials_is_a_one_line_usage_error(project, monkeypatch):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    result = invoke("record", "--live", root=project)
    assert result.exit_code == 2
    assert "no AWS credentials found" in result.output
    assert not (project / "cassettes").exists()


def test_record_needs_exactly_one_target(project):
    result = invoke("record", root=project)
    assert result.exit_code == 2 and "exactly one of --live, --emulate, --endpoint-url" in result.output


def test_record_through_endpoint_url_pointed_at_the_emulator(project):
    """The --live path end to end (real credential chain, checks, attempts) against the loopback emulator."""
    scenario = load_scenario(project / "suites" / "core" / "single-call.yaml", project / "suites")
    with BedrockServer.from_scenario(scenario) as server:
        result = invoke("record", "--endpoint-url", server.endpoint_url, "--attempts", "2", "core/single-call",
                        root=project)
        assert len(server.requests) == 1 and server.requests[0].body_json["messages"][0]["role"] == "user"
    assert result.exit_code == 0, result.output
    doc = yaml.safe_load((project / "cassettes" / "core" / "single-call.yaml").read_text())
    assert doc["metadata"]["source"] == "emulator"
    assert "testing" not in json.dumps(doc["interactions"][0]["request"]["headers"])  # dummy key id scrubbed


def test_record_endpoint_url_on_loopback_needs_no_credentials(project, monkeypatch):
    """`serve` on 127.0.0.1: dummy credentials sign the requests, whatever the environment holds, and it says so."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name)
    scenario = load_scenario(project / "suites" / "core" / "single-call.yaml", project / "suites")
    with BedrockServer.from_scenario(scenario) as server:
        url = server.endpoint_url
        result = invoke("record", "--endpoint-url", url, "core/single-call", root=project)
        assert "AKIAFAKE" in server.requests[0].headers.get("Authorization", "")
    assert result.exit_code == 0, result.output
    assert f"record --endpoint-url {url}: a loopback endpoint, signed with dummy credentials" \
        in result.output


def test_record_endpoint_url_elsewhere_uses_the_default_chain_and_names_the_option(project, monkeypatch):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name)
    result = invoke("record", "--endpoint-url", "https://bedrock.example.invalid", "core/single-call", root=project)
    assert result.exit_code == 2 and "`record --endpoint-url https://bedrock.example.invalid` needs them" in result.output
    assert "--live" not in result.output and not (project / "cassettes").exists()


@pytest.mark.parametrize("url, loopback", [
    ("http://127.0.0.1:8080", True), ("http://127.8.0.2", True), ("http://localhost:1/", True),
    ("http://[::1]:9000", True), ("https://bedrock-runtime.us-east-1.amazonaws.com", False),
    ("http://10.0.0.1", False), ("http://127.0.0.1.example.com", False), ("not a url", False),
])
def test_is_loopback(url, loopback):
    assert is_loopback(url) is loopback


def test_run_passes_everything_recorded_and_golden_check_is_clean(recorded):
    result = invoke("run", root=recorded)
    assert result.exit_code == 0, result.output
    for sid in PICKED:
        assert f"{sid}" in result.output
    assert "3 scenarios: 3 pass" in result.output
    check = invoke("golden", "check", root=recorded)
    assert check.exit_code == 0 and "0 drift(s), 0 unused golden(s)" in check.output


def test_golden_drift_fails_run_and_check_with_an_aligned_diff(recorded):
    golden = recorded / "suites" / "core" / "single-call.golden.yaml"
    doc = yaml.safe_load(golden.read_text())
    doc["turns"][0]["chunks"][0]["input"] = {"path": "/tmp/other.txt"}
    golden.write_text(yaml.safe_dump(doc, sort_keys=False))
    run = invoke("run", root=recorded)
    assert run.exit_code == 1
    assert "core/single-call turn 0 chunk 0 (tool_call)" in run.output
    assert "/tmp/other.txt" in run.output and "/tmp/test.txt" in run.output
    check = invoke("golden", "check", "core/single-call", root=recorded)
    assert check.exit_code == 1 and "1 drift(s)" in check.output


def test_golden_check_reports_unused_goldens(recorded):
    stray = recorded / "suites" / "core" / "deleted-scenario.golden.yaml"
    stray.write_text("turns: []\n")
    result = invoke("golden", "check", root=recorded)
    assert result.exit_code == 1 and f"unused golden: {stray}" in result.output


def test_missing_cassette_is_an_error_result_naming_the_command(project):
    invoke("record", "--emulate", "core/single-call", root=project)
    invoke("golden", "update", "core/single-call", root=project)
    result = invoke("run", "--format", "json", root=project)
    report = json.loads(result.output)
    verdicts = {r["scenario"]: r for r in report["results"]}
    assert verdicts["core/round-trip"]["status"] == "error"
    assert "record --emulate core/round-trip" in verdicts["core/round-trip"]["reason"]
    assert result.exit_code == 1


def test_json_report_follows_the_design_schema(recorded):
    report = json.loads(invoke("run", "--format", "json", root=recorded).output)
    assert set(report) == {"harness_version", "adapter", "results", "summary", "levels", "common_findings"}
    assert report["adapter"]["name"] == "reference" and "tool_use" in report["adapter"]["capabilities"]
    first = report["results"][0]
    assert set(first) == {"scenario", "status", "level", "reason", "turns", "duration_s", "cassette",
                          "cassette_sha256"}
    assert set(first["turns"][0]) == {"index", "diff", "request_problems", "request_diffs", "request_notes", "warnings"}
    path = recorded / first["cassette"]
    assert first["cassette"] == f"cassettes/{first['scenario']}.yaml"
    assert first["cassette_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert report["summary"] == {"pass": 3, "warn": 0, "fail": 0, "error": 0, "skip": 0, "xfail": 0, "xpass": 0}


class TextOnly(ConverseAdapter):
    """The reference, declaring text only: every tool scenario is a skip with its (long) reason."""

    name = "text-only"
    capabilities = frozenset({"text", "stop_reason", "usage", "streaming"})


def test_verbose_text_shows_whole_reasons_and_the_skips_findings(recorded):
    plain = invoke("run", "--adapter", "test_cli_run:TextOnly", root=recorded).output
    verbose = invoke("run", "-v", "--adapter", "test_cli_run:TextOnly", root=recorded).output
    assert "== core/round-trip: skip\n  adapter lacks round_trip, tool_use" in verbose
    assert "== core/round-trip" not in plain
    (recorded / "cassettes" / "core" / "single-call.yaml").unlink()  # an error with a long reason
    rows = [invoke("run", *flag, root=recorded).output.splitlines() for flag in ((), ("--verbose",))]
    cut, whole = (next(line for line in lines if line.startswith("core/single-call ")) for lines in rows)
    assert cut.endswith("...")
    assert whole.endswith(f"record it with `bedrock-harness record --emulate core/single-call --root {recorded}`")


def test_a_missing_cassettes_hint_records_it_where_the_run_looked(recorded, monkeypatch):
    """The hinted command, run from the same folder, records the cassette the run missed, then the run passes."""
    (recorded / "cassettes" / "core" / "single-call.yaml").unlink()
    monkeypatch.chdir(recorded.parent)
    args = ("--root", recorded.name, "--scenario", "core/single-call")
    reason = json.loads(CliRunner().invoke(main, ["run", *args, "--format", "json"]).stdout)["results"][0]["reason"]
    hinted = shlex.split(reason.rsplit("record it with ", 1)[1].strip("`"))
    assert hinted[:4] == ["bedrock-harness", "record", "--emulate", "core/single-call"]
    assert CliRunner().invoke(main, hinted[1:]).exit_code == 0
    assert CliRunner().invoke(main, ["run", *args]).exit_code == 0


def test_junit_and_markdown_reports_and_output_file(recorded):
    out = recorded / "report.xml"
    assert invoke("run", "--format", "junit", "--output", str(out), root=recorded).exit_code == 0
    cases = list(ET.parse(out).getroot().iter("testcase"))
    assert sorted(c.get("name") for c in cases) == sorted(PICKED)
    for case in cases:
        props = {p.get("name"): p.get("value") for p in case.find("properties")}
        path = recorded / "cassettes" / f"{case.get('name')}.yaml"
        assert props == {"cassette": f"cassettes/{case.get('name')}.yaml",
                         "cassette_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    markdown = invoke("run", "--format", "markdown", root=recorded).output
    assert "| core/single-call |" in markdown.replace("`", "")


def test_baseline_turns_a_known_failure_into_xfail_and_a_stale_entry_fails(recorded):
    golden = recorded / "suites" / "core" / "single-call.golden.yaml"
    doc = yaml.safe_load(golden.read_text())
    doc["turns"][0]["chunks"][0]["name"] = "renamed"
    golden.write_text(yaml.safe_dump(doc, sort_keys=False))
    baseline = recorded / "known.yaml"
    baseline.write_text("core/single-call: \"tool renamed upstream, tracked in #12\"\n")
    result = invoke("run", "--baseline", str(baseline), root=recorded)
    assert result.exit_code == 0, result.output
    assert "xfail" in result.output and "tracked in #12" in result.output
    baseline.write_text("core/round-trip: was flaky\n")  # passes now: the entry is stale
    assert invoke("run", "--baseline", str(baseline), root=recorded).exit_code == 1


def test_unknown_scenario_and_adapter_are_usage_errors(recorded):
    bad = invoke("run", "--scenario", "core/nope", root=recorded)
    assert bad.exit_code == 2 and bad.output.startswith("Error: unknown scenario 'core/nope'")
    bad = invoke("run", "--adapter", "nosuchmodule:Adapter", root=recorded)
    assert bad.exit_code == 2 and bad.output == "Error: module 'nosuchmodule' not found\n"  # one line, no usage


def test_a_broken_scenario_file_is_one_line_naming_it(recorded):
    path = recorded / "suites" / "core" / "broken.yaml"
    path.write_text("title: [unclosed\n")
    for command in (["run"], ["list"], ["golden", "check"]):
        bad = invoke(*command, root=recorded)
        assert bad.exit_code == 2 and bad.output.startswith(f"Error: {path}: cannot read: "), (command, bad.output)
        assert bad.output.count("\n") == 1, bad.output


def test_capability_skip_is_a_result_with_the_reason(recorded, tmp_path):
    (tmp_path / "textonly.py").write_text(
        "from harness.converse import ConverseAdapter\n"
        "class TextOnly(ConverseAdapter):\n"
        "    name = 'text-only'\n"
        "    capabilities = frozenset({'text', 'stop_reason', 'usage', 'streaming'})\n")
    import sys
    sys.path.insert(0, str(tmp_path))
    try:
        result = invoke("run", "--adapter", "textonly:TextOnly", root=recorded)
    finally:
        sys.path.remove(str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "skip" in result.output and "adapter lacks tool_use" in result.output


def test_list_shows_tags_and_capabilities(project):
    result = invoke("list", root=project)
    assert result.exit_code == 0
    line = next(line for line in result.output.splitlines() if line.startswith("core/round-trip"))
    assert "round_trip" in line and "requires: round_trip, tool_use" in line


def test_shipped_suite_passes_and_goldens_are_clean():
    """The main job on the shipped cassettes, exactly as the README runs it."""
    result = CliRunner().invoke(main, ["run", "--root", str(REPO)])
    assert result.exit_code == 0, result.output
    check = CliRunner().invoke(main, ["golden", "check", "--root", str(REPO)])
    assert check.exit_code == 0, check.output


class Hostile(TextOnly):
    """The reference under a name and version meant to repaint a terminal and forge a report line."""

    name = "evil\x1b[2J\x1b[31m\nALL 3 PASS\r"
    version = "6.6\x1b]0;pwned\x07"


@pytest.mark.parametrize("fmt", ["text", "markdown", "junit", "html"])
def test_run_prints_an_adapters_name_and_version_escaped_in_every_report_format(recorded, fmt):
    out = invoke("run", "--adapter", "test_cli_run:Hostile", "--format", fmt, root=recorded).output
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    assert "evil\\x1b[2J\\x1b[31m\\nALL 3 PASS\\r" in out.replace("&#10;", "\\n")
    assert not any(line.startswith("ALL 3 PASS") for line in out.splitlines())
