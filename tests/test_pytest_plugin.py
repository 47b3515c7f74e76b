"""The pytest plugin as users run it: ``pytest --bedrock-adapter SPEC`` in a project holding a few scenarios."""

import hashlib
import shutil
import xml.etree.ElementTree as ET

import pytest
import pytest_recording.plugin

from harness.cassettes import cassette

from harness.pytest import items as pytest_items

from harness.pytest import plugin as pytest_plugin
from harness.suite.record import MODES
from harness.suite.runner import project_root

pytest_plugins = ["pytester"]

SHIPPED = project_root()
SCENARIOS = ("core/smoke-text", "core/parallel-calls", "core/thinking-tools", "edge/zero-arg-tool")
ARGS = ("-p", "no:cacheprovider", "--bedrock-root", ".")
REFERENCE = (*ARGS, "--bedrock-adapter", "reference")

LIMITED = """
from harness.converse import ConverseAdapter


class Limited(ConverseAdapter):
    capabilities = frozenset({"text", "tool_use", "parallel_tool_use", "usage", "stop_reason", "streaming"})
"""

# Connects to a Unix socket that does not exist: pytest-recording's guard refuses it (RuntimeError) before
# anything is touched; without the guard the attempt fails with an OSError, and the probe says so in its text
# (so the golden diff shows it). Nothing leaves the machine.
PROBE = """
import socket

from harness.converse import ConverseAdapter

PROBE_PATH = "/nonexistent/bedrock-harness-probe.sock"


class Probe(ConverseAdapter):
    def stream(self, turn, endpoint):
        sock = socket.socket(socket.AF_UNIX)
        try:
            sock.connect(PROBE_PATH)
        except RuntimeError as exc:
            assert "Network is disabled" in str(exc), exc
        except OSError:
            yield {"type": "text", "text": "UNBLOCKED "}
        finally:
            sock.close()
        yield from super().stream(turn, endpoint)
"""

# Hangs on core/smoke-text's turn (returns after 5 s: the abandoned worker thread ends on its own).
HANGING = """
import time

from harness.converse import ConverseAdapter


class Hanging(ConverseAdapter):
    def stream(self, turn, endpoint):
        if "Say hello" in str(turn["messages"]):
            time.sleep(5)
        yield from super().stream(turn, endpoint)
"""

USER_CONFTEST = """
import pytest

import harness.cassettes.vcr


@pytest.fixture(scope="module")
def vcr_config():
    return harness.cassettes.vcr.vcr_config()
"""

USER_TEST = """
import boto3
import pytest


@pytest.mark.vcr
def test_smoke_text():
    client = boto3.client("bedrock-runtime", region_name="us-east-1",
                          endpoint_url="https://bedrock-runtime.us-east-1.amazonaws.com",
                          aws_access_key_id="AKIAFAKEFAKEFAKEFAKE", aws_secret_access_key="fake-secret")
    response = client.converse_stream(
        modelId="us.anthropic.claude-sonnet-4-20250514-v1:0",
        system=[{"text": "You are a helpful assistant."}],
        messages=[{"role": "user", "content": [{"text": "Say hello in exactly 3 words."}]}],
        inferenceConfig={"maxTokens": 1024, "temperature": 0},
    )
    events = list(response["stream"])
    deltas = [e["contentBlockDelta"]["delta"]["text"] for e in events if "contentBlockDelta" in e]
    assert "".join(deltas) == "Hello there, friend!"
    assert events[-2] == {"messageStop": {"stopReason": "end_turn"}}
    assert events[-1]["metadata"]["usage"]["inputTokens"] == 19
"""


USERS_OWN = "def test_mine():\n    pass\n"


def cassette_file(root, sid):
    return root / "cassettes" / f"{sid}.yaml"


@pytest.fixture
def project(pytester):
    """A user's project: the SCENARIOS with goldens and cassettes, and two adapters of its own."""
    for sid in SCENARIOS:
        suite, name = sid.split("/")
        (pytester.path / "suites" / suite).mkdir(parents=True, exist_ok=True)
        for suffix in (".yaml", ".golden.yaml"):
            shutil.copy(SHIPPED / "suites" / suite / f"{name}{suffix}", pytester.path / "suites" / suite)
        cassette_file(pytester.path, sid).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(cassette_file(SHIPPED, sid), cassette_file(pytester.path, sid))
    pytester.makepyfile(limited=LIMITED, probe=PROBE, hanging=HANGING)
    pytester.syspathinsert()  # module:attribute adapters from the project, for in-process runs
    return pytester


def tamper_golden(root, old="Hello there, friend!", new="Hello there, pal!"):
    golden = root / "suites" / "core" / "smoke-text.golden.yaml"
    text = golden.read_text()
    assert old in text
    golden.write_text(text.replace(old, new))


def collected(result):
    """The node ids ``--collect-only -q`` listed."""
    return [line for line in result.outlines if line and " " not in line]


# ------------------------------------------------------------------------------------ collection


def test_without_an_adapter_the_plugin_adds_nothing(project):
    project.makepyfile(test_mine=USERS_OWN)
    result = project.runpytest(*ARGS, "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["test_mine.py::test_mine PASSED*"])
    assert "::core/" not in result.stdout.str() and "core/smoke-text" not in result.stdout.str()  # no scenario items
    assert collected(project.runpytest(*ARGS, "--co", "-q")) == ["test_mine.py::test_mine"]


def test_with_an_adapter_only_the_scenarios_are_collected_unless_paths_are_named(project):
    project.makepyfile(test_mine=USERS_OWN)
    project.makeini("[pytest]\ntestpaths = .\n")  # an ini's testpaths are not paths the user named
    assert collected(project.runpytest(*REFERENCE, "--co", "-q")) == sorted(SCENARIOS)
    assert project.runpytest_subprocess(*REFERENCE, "-n", "2").parseoutcomes() == {"passed": len(SCENARIOS)}


def test_bedrock_root_layers_the_users_suites_over_the_shipped_ones(project):
    result = project.runpytest("-p", "no:cacheprovider", "--bedrock-adapter", "reference", "--bedrock-root", "shipped",
                               "--bedrock-root", ".", "--co", "-q")
    ids = collected(result)
    shipped_faults = sorted(f"faults/{p.stem}" for p in (SHIPPED / "suites" / "faults").glob("*.yaml")
                            if not p.name.endswith(".golden.yaml"))
    assert ids == sorted([*SCENARIOS, *shipped_faults])  # the project's core and edge replace the shipped ones


def test_every_scenario_is_an_item_named_by_its_id_beside_the_users_named_tests(project):
    project.makepyfile(test_mine=USERS_OWN)
    result = project.runpytest(*REFERENCE, "-v", "test_mine.py")
    result.assert_outcomes(passed=len(SCENARIOS) + 1)
    result.stdout.fnmatch_lines_random([f"{sid} PASSED*" for sid in SCENARIOS] + ["test_mine.py::test_mine PASSED*"])
    assert result.ret == 0


@pytest.mark.parametrize("options, expected", [
    (("-k", "parallel"), ["core/parallel-calls"]),
    (("-k", "core and not tools"), ["core/parallel-calls", "core/smoke-text"]),
    (("--deselect", "core/smoke-text", "-m", "bedrock"), ["core/parallel-calls", "core/thinking-tools",
                                                           "edge/zero-arg-tool"]),
    (("--deselect", "core/", "-m", "bedrock"), ["edge/zero-arg-tool"]),
    (("--bedrock-suite", "edge", "--bedrock-scenario", "core/smoke-text", "-m", "bedrock"),
     ["core/smoke-text", "edge/zero-arg-tool"]),
    (("-k", "multi_turn"), ["core/thinking-tools", "edge/zero-arg-tool"]),  # scenario tags are keywords too
])
def test_k_deselect_and_selection_options_pick_scenarios(project, options, expected):
    result = project.runpytest(*REFERENCE, "--co", "-q", *options)
    assert collected(result) == expected


@pytest.mark.parametrize("options, message", [
    (("--bedrock-adapter", "nosuch:Adapter"), "bedrock-harness: module 'nosuch' not found"),
    (("--bedrock-adapter", "reference", "--bedrock-suite", "nope"), "bedrock-harness: unknown suite 'nope' *"),
    (("--bedrock-adapter", "reference", "--bedrock-baseline", "baseline.yaml"),
     "bedrock-harness: *baseline.yaml: lists unknown scenario 'core/gone'; remove the entry"),
])
def test_bad_configuration_is_a_one_line_collection_error(project, options, message):
    project.makefile(".yaml", baseline="core/gone: removed long ago\n")
    result = project.runpytest(*ARGS, *options)
    result.stdout.fnmatch_lines(["*ERROR collecting bedrock-harness*", message, "*1 error*"])
    assert result.ret == pytest.ExitCode.INTERRUPTED and "Traceback" not in result.stdout.str()


# ------------------------------------------------------------------------------------ verdicts


def test_a_failing_scenario_shows_the_aligned_diff_without_a_traceback(project):
    tamper_golden(project.path)
    result = project.runpytest(*REFERENCE)
    result.assert_outcomes(failed=1, passed=len(SCENARIOS) - 1)
    result.stdout.fnmatch_lines([
        "*_ core/smoke-text _*",
        "fail: core/smoke-text turn 0 chunk 0 (text): expected text 'Hello there, pal!' / actual 'Hello there, friend!'",
        "turn 0:",
        "*expected chunks*|*actual chunks",
        '*!*0 text {"text": "Hello there, pal!"}*|*0 text {"text": "Hello there, friend!"}',
        "*FAILED core/smoke-text - fail: *",
    ])
    assert "Traceback" not in result.stdout.str() and "pytest_items.py" not in result.stdout.str()


def test_a_hung_turn_fails_its_scenario_naming_the_turn_and_bedrock_timeout(project):
    result = project.runpytest(*ARGS, "--bedrock-adapter", "hanging:Hanging", "--bedrock-timeout", "0.5")
    result.assert_outcomes(failed=1, passed=len(SCENARIOS) - 1)
    result.stdout.fnmatch_lines(["error: timed out: turn 0 did not finish within the 0.5s per-turn timeout "
                                 "(--bedrock-timeout); the hung call was abandoned"])


@pytest.mark.parametrize("value", ["inf", "nan", "0", "soon"])
def test_bedrock_timeout_takes_a_finite_positive_number(project, value):
    result = project.runpytest(*REFERENCE, "--bedrock-timeout", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*argument --bedrock-timeout: {value!r} is not a*"])


def test_junitxml_carries_each_scenarios_status_cassette_and_sha256(project):
    tamper_golden(project.path)
    project.runpytest(*REFERENCE, "--junitxml=report.xml")
    testcases = ET.parse(project.path / "report.xml").iter("testcase")
    cases = {case.get("name").replace(".", "/", 1): case for case in testcases}  # junitxml writes core.smoke-text
    assert set(cases) == set(SCENARIOS)
    for sid, case in cases.items():
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        sha = hashlib.sha256(cassette_file(project.path, sid).read_bytes()).hexdigest()
        assert props == {"bedrock_status": "fail" if sid == "core/smoke-text" else "pass",
                         "cassette": f"cassettes/{sid}.yaml", "cassette_sha256": sha}


def test_an_unmet_capability_skips_with_the_reason(project):
    result = project.runpytest(*ARGS, "--bedrock-adapter", "limited:Limited", "-rs")
    result.assert_outcomes(passed=2, skipped=2)
    result.stdout.fnmatch_lines_random([
        "SKIPPED [[]1[]] suites/core/thinking-tools.yaml*: adapter lacks reasoning, reasoning_signature, round_trip",
        "SKIPPED [[]1[]] suites/edge/zero-arg-tool.yaml*: adapter lacks round_trip",
    ])


def test_baseline_entries_are_strict_xfails(project):
    tamper_golden(project.path)
    project.makefile(".yaml", baseline="core/smoke-text: golden expects pal\ncore/parallel-calls: thought broken\n")
    result = project.runpytest(*REFERENCE, "--bedrock-baseline", "baseline.yaml", "-rfxX")
    result.assert_outcomes(xfailed=1, failed=1, passed=len(SCENARIOS) - 2)
    result.stdout.fnmatch_lines_random([
        "XFAIL core/smoke-text - known failure (baseline): golden expects pal",
        "[[]XPASS(strict)[]] known failure (baseline): thought broken",
        "FAILED core/parallel-calls*",
    ])


# ------------------------------------------------------------------------------------ pytest-recording


def test_every_pytest_recording_mode_maps_to_a_record_mode():
    assert set(pytest_items.RECORD_MODES) == set(pytest_recording.plugin.RECORD_MODES)
    assert {mode for mode in pytest_items.RECORD_MODES.values() if mode} <= set(MODES)


def test_record_modes_record_missing_cassettes_and_rewrite_broken_ones(project):
    root, only = project.path, ("--bedrock-scenario", "core/smoke-text", "--bedrock-scenario", "core/parallel-calls")
    cassette_file(root, "core/smoke-text").unlink()
    result = project.runpytest(*REFERENCE, *only)  # record mode none: replay only
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines([("error: no cassette at *smoke-text.yaml; record it with "
                                  "`bedrock-harness record --emulate core/smoke-text`, "
                                  "or rerun pytest with --record-mode=once")])
    untouched = cassette_file(root, "core/parallel-calls").read_bytes()
    project.runpytest(*REFERENCE, *only, "--record-mode=once", "--block-network").assert_outcomes(passed=2)
    assert cassette.load(cassette_file(root, "core/smoke-text")).metadata["source"] == "emulator"
    assert cassette_file(root, "core/parallel-calls").read_bytes() == untouched
    cassette_file(root, "core/parallel-calls").write_text("garbage: [\n")
    project.runpytest(*REFERENCE, *only, "--record-mode=once").assert_outcomes(failed=1, passed=1)  # once keeps it
    project.runpytest(*REFERENCE, *only, "--record-mode=rewrite").assert_outcomes(passed=2)
    assert cassette.load(cassette_file(root, "core/parallel-calls")).metadata["source"] == "emulator"


def test_block_network_blocks_all_but_the_loopback_endpoint(project):
    one = ("--bedrock-adapter", "probe:Probe", "--bedrock-scenario", "core/smoke-text")
    project.runpytest(*ARGS, *one, "--block-network").assert_outcomes(passed=1)
    unblocked = project.runpytest(*ARGS, *one)
    unblocked.assert_outcomes(failed=1)
    unblocked.stdout.fnmatch_lines(["*expected text 'Hello there, friend!' / actual 'UNBLOCKED Hello there, friend!'"])
    allowed = project.runpytest(*ARGS, *one, "--block-network", "--allowed-hosts", "/nonexistent/.*")
    allowed.assert_outcomes(failed=1)  # --allowed-hosts lets the probe through, so it sees no guard


def test_users_vcr_tests_replay_shipped_cassettes_offline(pytester):
    pytester.makeconftest(USER_CONFTEST)
    pytester.makepyfile(test_user=USER_TEST)
    (pytester.path / "cassettes" / "test_user").mkdir(parents=True)
    shutil.copy(cassette_file(SHIPPED, "core/smoke-text"), pytester.path / "cassettes" / "test_user" / "test_smoke_text.yaml")
    offline = ("-p", "no:cacheprovider", "--record-mode=none", "--block-network")
    pytester.runpytest_subprocess(*offline).assert_outcomes(passed=1)
    unregistered = pytester.runpytest(*offline, "-p", "no:bedrock_harness")  # the plugin registers the serializer
    unregistered.assert_outcomes(errors=1)
    unregistered.stdout.fnmatch_lines(["*Serializer bedrock doesn't exist or isn't registered*"])


# ------------------------------------------------------------------------------------ xdist


def test_runs_under_xdist(project):
    result = project.runpytest_subprocess(*REFERENCE, "-n", "2", "-v")
    result.assert_outcomes(passed=len(SCENARIOS))
    result.stdout.fnmatch_lines_random([f"*PASSED {sid}*" for sid in SCENARIOS])
    assert "[gw0]" in result.stdout.str() and "[gw1]" in result.stdout.str()


def test_auto_workers_are_as_many_as_shorten_the_run():
    """A worker's start costs more than the shipped suite saves by sharing it; a suite many times bigger pays."""
    assert pytest_plugin.workers_for(33, 2) == 0
    assert pytest_plugin.workers_for(0, 8) == 0
    assert pytest_plugin.workers_for(400, 2) == 2
    big = round(3 * pytest_plugin.WORKER_START_S / pytest_plugin.SCENARIO_S)
    assert 0 < pytest_plugin.workers_for(big, 8) <= 8


def test_n_auto_keeps_a_small_suite_in_process_and_spreads_one_that_pays(project, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    small = project.runpytest_subprocess(*REFERENCE, "-n", "auto", "-v")
    small.assert_outcomes(passed=len(SCENARIOS))
    assert "[gw0]" not in small.stdout.str()
    named = project.runpytest_subprocess(*REFERENCE, "-n", "auto", "-v", "--bedrock-scenario", "core/smoke-text")
    named.assert_outcomes(passed=1)
    project.makeconftest("import harness.pytest.plugin as plugin\nplugin.SCENARIO_S = 100.0\n")  # as if slow
    costly = project.runpytest_subprocess(*REFERENCE, "-n", "auto", "-v")
    costly.assert_outcomes(passed=len(SCENARIOS))
    assert "[gw0]" in costly.stdout.str()
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "2")  # xdist's own override still wins
    project.makeconftest("")
    told = project.runpytest_subprocess(*REFERENCE, "-n", "auto", "-v")
    told.assert_outcomes(passed=len(SCENARIOS))
    assert "[gw1]" in told.stdout.str()


def test_exported_members():
    assert all(hasattr(pytest_items, name) for name in pytest_items.__all__)
    assert all(hasattr(pytest_plugin, name) for name in pytest_plugin.__all__)
