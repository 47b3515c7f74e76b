"""`bedrock-harness certify` and its reports (harness/studies/certify.py, harness/cli/certify.py): the run engine on an
in-process or subprocess adapter, markdown / JSON / JUnit with versions and cassette hashes, exit codes."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import botocore
import pytest
from click.testing import CliRunner

from harness import __version__
from harness.studies import certify as certify_module
from harness.studies.certify import build, cassette_sha256, render
from harness.cli import main
from harness.suite.results import Result
from harness.suite.scenario import discover

ROOT = Path(__file__).resolve().parents[1]
BRIDGE = f"{shlex.quote(sys.executable)} -m harness.adapters.bridge"
REFERENCE = f"{BRIDGE} reference"


def certify(*args: str):
    return CliRunner().invoke(main, ["certify", "--root", str(ROOT), *args], catch_exceptions=False)


def sha256_of(sid: str) -> str:
    return hashlib.sha256((ROOT / "cassettes" / f"{sid}.yaml").read_bytes()).hexdigest()


class TextOnly:
    """An in-process adapter declaring only text: scenarios needing more are skipped."""

    name, version, capabilities = "text-only", "0.3", frozenset({"text", "stop_reason"})

    def stream(self, turn, endpoint):
        raise AssertionError("a skipped scenario never reaches the adapter")


# ---- a passing subprocess certification, written in all three formats -----------------------------------

@pytest.fixture(scope="module")
def passing(tmp_path_factory):
    out = tmp_path_factory.mktemp("certification")
    done = certify("--command", REFERENCE, "--scenario", "core/smoke-text", "--scenario", "core/round-trip",
                   "--output-dir", str(out))
    return done, out


def test_output_dir_gets_markdown_json_and_junit_and_the_exit_code_is_0(passing):
    done, out = passing
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in out.iterdir()) == ["certification.json", "certification.md", "certification.xml"]
    assert "2 scenarios: 2 pass" in done.stdout and "certification.md" in done.stderr


def test_output_dir_writes_through_a_symlinked_report_and_replaces_its_own_files(tmp_path):
    """A user who links certification.md to a file elsewhere (a docs folder) keeps the link; the target is updated."""
    out, docs = tmp_path / "out", tmp_path / "docs"
    out.mkdir(), docs.mkdir()
    (docs / "adapter.md").write_text("stale\n")
    (out / "certification.md").symlink_to(docs / "adapter.md")
    (out / "certification.json").write_text("old\n")
    done = certify("--adapter", "reference", "--scenario", "core/smoke-text", "--output-dir", str(out))
    assert done.exit_code == 0, done.output
    assert (out / "certification.md").is_symlink() and "core/smoke-text" in (docs / "adapter.md").read_text()
    assert json.loads((out / "certification.json").read_text())["summary"]["pass"] == 1
    assert sorted(p.name for p in out.iterdir()) == ["certification.json", "certification.md", "certification.xml"]


def test_the_json_report_names_adapter_versions_and_cassette_hashes(passing):
    report = json.loads((passing[1] / "certification.json").read_text())
    assert report["adapter"]["name"] == "reference" and report["adapter"]["version"] == __version__
    assert report["adapter"]["command"] == REFERENCE and "tool_use" in report["adapter"]["capabilities"]
    assert (report["harness_version"], report["botocore_version"]) == (__version__, botocore.__version__)
    assert [(r["scenario"], r["status"]) for r in report["results"]] == [("core/round-trip", "pass"),
                                                                         ("core/smoke-text", "pass")]
    for result in report["results"]:
        assert result["cassette_sha256"] == sha256_of(result["scenario"])
        assert result["cassette"] == f"cassettes/{result['scenario']}.yaml"
    assert report["summary"]["pass"] == 2 and report["date"].endswith("+00:00")


def test_the_markdown_report_names_adapter_versions_and_cassette_hashes(passing):
    text = (passing[1] / "certification.md").read_text()
    assert text.startswith(f"# Certification: `reference` {__version__}\n")
    assert f"subprocess `{REFERENCE}`" in text and f"botocore {botocore.__version__}" in text
    assert f"bedrock-harness {__version__}" in text
    assert f"| `core/smoke-text` | pass |  | `{sha256_of('core/smoke-text')}` |" in text
    assert "## Findings" not in text


def test_the_junit_report_carries_versions_and_a_cassette_hash_per_testcase(passing):
    root = ET.fromstring((passing[1] / "certification.xml").read_text())
    suite = root.find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["botocore_version"] == botocore.__version__ and props["harness_version"] == __version__
    assert props["adapter"] == "reference" and props["adapter_run_as"] == f"subprocess `{REFERENCE}`"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert set(cases) == {"core/smoke-text", "core/round-trip"} and suite.get("failures") == "0"
    for sid, case in cases.items():
        values = {p.get("name"): p.get("value") for p in case.find("properties")}
        assert values == {"cassette": f"cassettes/{sid}.yaml", "cassette_sha256": sha256_of(sid)}


# ---- a failing in-process certification: findings, baseline ----------------------------------------------

FAILING = ("--adapter", "broken_adapters:DroppedSignature", "--scenario", "core/thinking-tools",
           "--scenario", "core/smoke-text")


def test_a_failing_certification_exits_1_and_shows_each_diff_and_request_problem(tmp_path):
    done = certify(*FAILING, "--output-dir", str(tmp_path))
    assert done.exit_code == 1
    report = json.loads((tmp_path / "certification.json").read_text())
    result = next(r for r in report["results"] if r["scenario"] == "core/thinking-tools")
    assert result["status"] == "fail" and report["adapter"]["spec"] == "broken_adapters:DroppedSignature"
    diff, problems = result["turns"][0]["diff"], result["turns"][1]["request_problems"]
    assert "chunk 0 (reasoning): expected signature" in diff
    assert any("thinking.signature: Field required" in p for p in problems)
    markdown = (tmp_path / "certification.md").read_text()
    assert "## Findings" in markdown and "### `core/thinking-tools`: fail" in markdown
    assert "turn 0 chunks:" in markdown and "chunk 0 (reasoning): expected signature" in markdown
    assert "turn 1 request:" in markdown and "thinking.signature: Field required" in markdown
    junit = ET.fromstring((tmp_path / "certification.xml").read_text())
    assert junit.find(".//testcase[@name='core/thinking-tools']/failure") is not None


RECOMMENDED_ONLY = ("--adapter", "broken_adapters:NoToolCallsWhileStreaming", "--scenario",
                    "faults/http-429-then-success", "--scenario", "core/smoke-text")


def test_the_report_states_each_level_and_level_required_fails_only_on_required_scenarios(tmp_path):
    everything = certify(*RECOMMENDED_ONLY, "--output-dir", str(tmp_path))
    assert everything.exit_code == 1  # the default level, recommended: every scenario can fail the run
    report = json.loads((tmp_path / "certification.json").read_text())
    assert report["levels"] == {"required": {"met": 1, "of": 1, "percent": 100.0},
                                "recommended": {"met": 0, "of": 1, "percent": 0.0}}
    assert {r["scenario"]: r["level"] for r in report["results"]} == {"faults/http-429-then-success": "recommended",
                                                                      "core/smoke-text": "required"}
    assert report["service_model"].startswith("bedrock-runtime 20") and report["suite"].startswith(__version__ + "+")
    markdown = (tmp_path / "certification.md").read_text()
    assert "| level | required 100 % (1 of 1), recommended 0 % (0 of 1) |" in markdown
    assert f"| judged against | service model {report['service_model']} (botocore {botocore.__version__})" in markdown
    assert certify(*RECOMMENDED_ONLY, "--level", "required", "--output", str(tmp_path / "r.md")).exit_code == 0
    assert certify(*FAILING, "--level", "required", "--output", str(tmp_path / "f.md")).exit_code == 1


def test_certify_with_more_jobs_than_scenarios_merges_shards_of_one_suite(tmp_path):
    out = tmp_path / "report.json"
    done = certify("--adapter", "harness.converse:ConverseAdapter", "--scenario", "core/smoke-text", "--jobs", "2",
                   "--output", str(out))
    assert done.exit_code == 0, done.output  # one child owns no scenario: the suite it was judged against is the same
    assert json.loads(out.read_text())["suite"].startswith(__version__ + "+")


def test_the_suite_digest_is_the_whole_suites_whichever_scenarios_ran_and_follows_a_changed_level(tmp_path):
    from harness.studies.certify import suite_digest
    from harness.suite.scenario import discover

    shutil.copytree(ROOT / "suites", tmp_path / "suites")
    mine = discover(tmp_path / "suites")
    before = suite_digest(mine, tmp_path)
    assert before == suite_digest(mine[:1], tmp_path) == suite_digest(discover(ROOT / "suites"), ROOT)
    path = mine[0].path
    path.write_text(path.read_text().replace("level: required", "level: recommended"))
    assert suite_digest(mine, tmp_path) != before


def test_a_baseline_turns_known_failures_into_xfail_with_their_reason(tmp_path):
    baseline = tmp_path / "known.yaml"
    baseline.write_text("core/thinking-tools: drops reasoning signatures (upstream issue 42)\n")
    done = certify(*FAILING, "--baseline", str(baseline), "--format", "json")
    assert done.exit_code == 0
    results = {r["scenario"]: r for r in json.loads(done.stdout)["results"]}
    assert results["core/thinking-tools"]["status"] == "xfail"
    assert results["core/thinking-tools"]["reason"] == "known failure: drops reasoning signatures (upstream issue 42)"


def test_a_baseline_entry_that_passes_is_an_xpass_and_fails_the_run(tmp_path):
    baseline = tmp_path / "known.yaml"
    baseline.write_text("core/smoke-text: thought to be broken\n")
    done = certify("--adapter", "reference", "--scenario", "core/smoke-text", "--baseline", str(baseline),
                   "--format", "text")
    assert done.exit_code == 1 and "xpass" in done.stdout


# ---- issue 29: what an application cannot do without fails certify, in-process and over the protocol -----

ISSUE_29 = {  # broken adapter (tests/broken_adapters.py) -> (its scenario, what the report names)
    "MissingIdAsEmpty": ("faults/missing-tool-use-id", "tool_call_ids_present: chunk 3 (tool_call) has an empty id"),
    "MissingIdAsEmptyWithoutErrors": ("faults/missing-tool-use-id", "tool_call_ids_present: chunk 3 (tool_call) has "
                                                                    "an empty id"),
    "CutStreamAsComplete": ("faults/truncated-stream", 'actual stop {"reason": "end_turn"}'),
    "GenericErrorCode": ("faults/throttling-mid-tool", "expected code 'throttlingException' / actual 'adapter_error'"),
}


# Over the protocol for the missing id; tests/test_bridge.py shows every variant gets the same findings that way.
@pytest.mark.parametrize("name, how", [("MissingIdAsEmpty", "subprocess"), *((n, "in-process") for n in ISSUE_29)])
def test_a_call_passed_on_without_its_id_a_cut_stream_or_a_lost_error_code_makes_certify_exit_1(name, how):
    scenario, finding = ISSUE_29[name]
    adapter = (["--adapter", f"broken_adapters:{name}"] if how == "in-process"
               else ["--command", f"{BRIDGE} tests.broken_adapters:{name}"])
    done = certify(*adapter, "--scenario", scenario, "--scenario", "core/smoke-text", "--format", "json")
    assert done.exit_code == 1, done.output
    results = {r["scenario"]: r for r in json.loads(done.stdout)["results"]}
    assert results[scenario]["status"] == "fail" and results["core/smoke-text"]["status"] == "pass"
    assert finding in "\n".join([results[scenario]["reason"]] + [t["diff"] for t in results[scenario]["turns"]])


def test_an_adapter_without_the_errors_capability_runs_the_missing_id_scenario_and_a_correct_one_passes():
    done = certify("--adapter", "broken_adapters:WithoutErrors", "--scenario", "faults/missing-tool-use-id",
                   "--format", "json")
    assert done.exit_code == 0, done.output
    (result,) = json.loads(done.stdout)["results"]
    assert result["status"] == "pass", result


# ---- capabilities: an adapter is not judged on what it does not declare ---------------------------------

HELLO_ONLY = textwrap.dedent('''
    import json, sys
    for line in sys.stdin:
        if json.loads(line)["type"] == "hello":
            print(json.dumps({"type": "hello", "name": "texty", "version": "9", "capabilities": ["text"]}), flush=True)
        else:
            sys.exit("a skipped scenario never reaches the adapter")
''')


def test_undeclared_capabilities_skip_scenarios_in_process_and_through_a_subprocess(tmp_path):
    script = tmp_path / "hello_only.py"
    script.write_text(HELLO_ONLY)
    for how in (["--adapter", "test_certify:TextOnly"], ["--command", f"{shlex.quote(sys.executable)} {script}"]):
        done = certify(*how, "--scenario", "core/single-call", "--format", "json")
        assert done.exit_code == 0, done.output
        (result,) = json.loads(done.stdout)["results"]
        assert result["status"] == "skip" and result["reason"].startswith("adapter lacks ")
        assert "tool_use" in result["reason"]


# ---- usage errors and output choices ----------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    ((), "give exactly one of --adapter SPEC or --command CMD"),
    (("--adapter", "reference", "--command", "true"), "give exactly one of --adapter SPEC or --command CMD"),
    (("--command", "surely-not-a-command-xyz"), "cannot start adapter command 'surely-not-a-command-xyz'"),
    (("--command", "'unbalanced"), "--command: No closing quotation"),
    (("--adapter", "reference", "--output", "a.md", "--output-dir", "d"), "give --output or --output-dir, not both"),
    (("--adapter", "reference", "--output-dir", "d", "--format", "html"), "--format goes with --output"),
    (("--adapter", "nope_module_xyz:Adapter"), "module 'nope_module_xyz' not found"),
    (("--adapter", "reference", "--scenario", "core/no-such-scenario"), "core/no-such-scenario"),
])
def test_bad_usage_exits_2_with_one_line(args, message):
    done = certify(*args)
    assert done.exit_code == 2 and message in done.output


@pytest.mark.parametrize("command", ["surely-not-a-command-xyz", "'unbalanced"])
def test_a_command_that_does_not_start_is_one_error_line(command):
    done = certify("--command", command)
    assert done.exit_code == 2 and done.output.startswith("Error: --command: ") and done.output.count("\n") == 1
    assert "Traceback" not in done.output


def test_a_command_that_dies_at_start_names_its_last_stderr_line(tmp_path):
    script = tmp_path / "dies.py"
    script.write_text("import sys\nsys.exit('ImportError: no module named bedrock_sdk')\n")
    done = certify("--command", f"{shlex.quote(sys.executable)} {script}")
    assert done.exit_code == 2
    assert "crashed: exited with code 1 during the hello handshake; its last stderr line: ImportError: no module " \
           "named bedrock_sdk" in done.output


def test_a_crashing_adapter_is_an_error_verdict_and_exit_1(tmp_path):
    script = tmp_path / "crashes.py"
    script.write_text(HELLO_ONLY.replace('"capabilities": ["text"]', '"capabilities": ["text", "stop_reason"]')
                      .replace("sys.exit(", "print('segfault-ish', file=sys.stderr); sys.exit("))
    done = certify("--command", f"{shlex.quote(sys.executable)} {script}", "--scenario", "core/smoke-text",
                   "--format", "json")
    assert done.exit_code == 1
    (result,) = json.loads(done.stdout)["results"]
    assert result["status"] == "error" and "crashed: exited with code 1 during core/smoke-text turn 0" in result["reason"]
    assert "segfault-ish" in result["reason"]


@pytest.mark.parametrize("name, fmt, check", [
    ("report.xml", None, lambda text: ET.fromstring(text).tag == "testsuites"),
    ("report.json", None, lambda text: json.loads(text)["adapter"]["name"] == "reference"),
    ("report.md", None, lambda text: text.startswith("# Certification: `reference`")),
    ("report.out", "junit", lambda text: ET.fromstring(text).tag == "testsuites"),
    ("report.txt", None, lambda text: "core/smoke-text" in text and text.startswith("certification, in-process")),
    ("report.html", None, lambda text: text.startswith("<!DOCTYPE html>") and "run as</th><td>in-process reference"
     in text and f"{sha256_of('core/smoke-text')[:12]}…" in text),
])
def test_output_takes_its_format_from_the_suffix_unless_given(tmp_path, name, fmt, check):
    output = tmp_path / name
    done = certify("--adapter", "reference", "--scenario", "core/smoke-text", "--output", str(output),
                   *(["--format", fmt] if fmt else []))
    assert done.exit_code == 0 and done.stdout == "" and check(output.read_text())


def test_without_output_the_markdown_report_is_printed():
    done = certify("--adapter", "reference", "--scenario", "core/smoke-text")
    assert done.exit_code == 0 and done.stdout.startswith("# Certification: `reference`")


# ---- the module -------------------------------------------------------------------------------------------

def test_cassette_sha256_is_the_files_hash_or_none(tmp_path):
    assert cassette_sha256(ROOT / "cassettes" / "core" / "smoke-text.yaml") == sha256_of("core/smoke-text")
    assert cassette_sha256(tmp_path / "missing.yaml") is None


def test_a_missing_cassette_shows_as_missing(tmp_path):
    scenario = discover(ROOT / "suites", ids=["core/smoke-text"])[0]
    cert = build([Result(scenario.id, "error", "no cassette")], {"name": "a", "version": "1"}, [scenario], tmp_path)
    assert json.loads(render(cert, "json"))["results"][0]["cassette_sha256"] is None
    assert "| `core/smoke-text` | error | no cassette | missing |" in render(cert, "markdown")
    assert "cassette_sha256\" value=\"missing\"" in render(cert, "junit")


def test_unknown_formats():
    with pytest.raises(ValueError, match="unknown report format 'pdf'"):
        render(build([], {"name": "a"}, [], ROOT), "pdf")


def test_the_module_exports_what_it_names():
    assert all(hasattr(certify_module, name) for name in certify_module.__all__)


def test_verbose_text_shows_the_skips_findings():
    args = ("--adapter", "test_certify:TextOnly", "--scenario", "core/round-trip", "--format", "text")
    plain, verbose = certify(*args).stdout, certify(*args, "-v").stdout
    assert "== core/round-trip: skip\n  adapter lacks round_trip, tool_use" in verbose
    assert "== core/round-trip" not in plain and plain.startswith("certification, in-process")


# ---- processes: nothing an adapter starts outlives certify -----------------------------------------------

# Starts a child that stays in the adapter's process group and a grandchild that calls setsid (leaving group
# and session) and holds the adapter's stdout; then serves the reference adapter through the bridge, and
# crashes on the scenario named in argv[1] while both are still running.
SPAWNING = textwrap.dedent(r'''
    import json, os, sys, time
    from harness import load_adapter
    from harness.adapters.bridge import answer

    def linger(escape):
        if os.fork() == 0:
            if escape:
                os.setsid()
                if os.fork():
                    os._exit(0)  # the grandchild is orphaned, outside the adapter's group and session
            time.sleep(3600)
            os._exit(0)

    linger(escape=False)
    linger(escape=True)
    adapter = load_adapter("reference")
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "turn" and message["scenario"] == sys.argv[1]:
            os._exit(3)  # its lingering processes still hold stdout
        for reply in answer(adapter, message):
            print(json.dumps(reply), flush=True)
''')


def _processes_running(marker: str) -> list[int]:
    """Live processes whose command line names ``marker`` (zombies left out)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            alive = " Z " not in (entry / "stat").read_text().rsplit(")", 1)[1][:3]
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes().decode(errors="replace") and alive:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts processes through /proc")
def test_no_process_an_adapter_started_outlives_certify(tmp_path):
    script = tmp_path / "spawning_adapter.py"
    script.write_text(SPAWNING)
    try:
        done = certify("--command", f"{shlex.quote(sys.executable)} {script} core/single-call", "--scenario",
                       "core/smoke-text", "--scenario", "core/single-call", "--scenario", "core/round-trip",
                       "--format", "json", "--timeout", "60")
        leftovers = _processes_running(str(script))
    finally:
        for pid in _processes_running(str(script)):  # a failing run must not leave them behind either
            os.kill(pid, 9)
    results = {r["scenario"]: r for r in json.loads(done.stdout)["results"]}
    assert {sid: r["status"] for sid, r in results.items()} == {
        "core/smoke-text": "pass", "core/single-call": "error", "core/round-trip": "pass"}
    # the crash is seen at once, not after the 60 s timeout, though a setsid grandchild held stdout
    assert "crashed: exited with code 3 during core/single-call turn 0" in results["core/single-call"]["reason"]
    assert leftovers == []


def test_the_timeout_bounds_the_hello_handshake_too(tmp_path):
    script = tmp_path / "silent.py"
    script.write_text("import time\ntime.sleep(3600)\n")
    done = certify("--command", f"{shlex.quote(sys.executable)} {script}", "--timeout", "1")
    assert done.exit_code == 2 and "no answer within 1s during the hello handshake" in done.output
    assert _processes_running(str(script)) == []


def test_the_markdown_table_keeps_a_skips_reason_whole_and_cuts_a_failures_whose_findings_hold_it():
    scenario = discover(ROOT / "suites", ids=["core/smoke-text"])[0]
    long = "adapter lacks reasoning; " + "the library folds thinking into text, " * 5 + "END"
    skipped = build([Result(scenario.id, "skip", long)], {"name": "a", "version": "1"}, [scenario], ROOT)
    failed = build([Result(scenario.id, "fail", long)], {"name": "a", "version": "1"}, [scenario], ROOT)
    assert f"| skip | {long} |" in render(skipped, "markdown")
    table, findings = render(failed, "markdown").split("## Findings")
    assert "END" not in table and long in findings
