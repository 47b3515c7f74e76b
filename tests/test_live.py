"""Live certification (harness.studies.live) with the emulator standing in for Bedrock behind the recording proxy."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import sys
from pathlib import Path

import pytest
from botocore.credentials import Credentials
from click.testing import CliRunner

import broken_adapters
from harness import load_adapter
from harness.cassettes import cassette
from harness.cli import main
from harness.endpoint.server import BedrockServer
from harness.endpoint.upstream import Upstream
from harness.suite import checks
from harness.studies import live
from harness.judge.normalize import normalize
from harness.suite.runner import loopback_endpoint, replay
from harness.suite.scenario import load_scenario
from live_upstream import PROXY_CREDENTIALS, HistoryEmulator

ROOT = Path(__file__).resolve().parents[1]
PYTHON_EXAMPLE = ROOT / "examples" / "python_adapter" / "adapter.py"


def scenario(sid: str):
    return load_scenario(ROOT / "suites" / f"{sid}.yaml", ROOT / "suites")


def certify(sid: str, adapter, tmp_path, *, flaky=0, attempts=2, **emulator):
    """(results, upstream emulator) of one scenario certified live over the emulator."""
    emulator = HistoryEmulator(scenario(sid), flaky=flaky, **emulator)
    with BedrockServer(emulator, validate=False) as upstream:
        forward = Upstream(upstream.endpoint_url, "us-east-1", PROXY_CREDENTIALS)
        results = live.certify_live([scenario(sid)], adapter, forward, attempts=attempts, keep_dir=tmp_path / "kept")
    return results, emulator


def test_a_flaky_upstream_gives_pass_at_1_zero_and_pass_at_2_one_and_keeps_the_failed_recording(tmp_path):
    [result], emulator = certify("core/single-call", load_adapter("reference"), tmp_path, flaky=1)
    assert (result.status, result.pass_at(1), result.pass_at(2)) == ("pass", 0, 1)
    first, second = result.attempts
    assert first.failures[0].startswith("turn 0: tool_calls_at_least: 1 failed") and second.passed
    assert emulator.conversations == 2 and set(emulator.signature_problems) == {""}
    assert first.cassette == str(tmp_path / "kept" / "core" / "single-call.attempt-1.yaml") and second.cassette is None
    assert sorted(p.name for p in (tmp_path / "kept" / "core").iterdir()) == ["single-call.attempt-1.yaml"]
    # the kept recording replays offline and shows the same failure
    with BedrockServer.from_cassette(first.cassette) as replaying:
        again = replay(scenario("core/single-call"), load_adapter("reference"), loopback_endpoint(replaying), replaying)
    verdict = checks.evaluate(scenario("core/single-call").checks, [normalize(t["chunks"]) for t in again.turns])
    assert verdict.hard_failures[0] == first.failures[0]
    assert cassette.load(first.cassette).metadata["source"] == "emulator"


def test_a_scenario_failing_every_attempt_fails_with_every_recording_kept(tmp_path):
    results, _ = certify("core/single-call", load_adapter("reference"), tmp_path, flaky=5, attempts=3)
    [result] = results
    assert (result.status, result.pass_at(1), result.pass_at(3), len(result.attempts)) == ("fail", 0, 0, 3)
    assert live.exit_code(results) == 1
    assert [Path(a.cassette).name for a in result.attempts] == [f"single-call.attempt-{n}.yaml" for n in (1, 2, 3)]
    assert result.reason.startswith("attempt 1: turn 0: tool_calls_at_least: 1 failed")


def test_a_passing_first_attempt_stops_and_its_soft_warnings_are_reported(tmp_path):
    base = scenario("core/single-call")
    other_path = {"content": [{"tool_use": {"name": "read_file", "input": {"path": "/etc/hosts"}}}],
                  "stop_reason": "tool_use"}
    answers = dataclasses.replace(base, turns=(dataclasses.replace(base.turns[0], script=other_path),))
    with BedrockServer(HistoryEmulator(answers)) as upstream:
        forward = Upstream(upstream.endpoint_url, "us-east-1", PROXY_CREDENTIALS)
        [result] = live.certify_live([base], load_adapter("reference"), forward, attempts=3, keep_dir=tmp_path)
    assert (result.status, len(result.attempts), result.pass_at(1)) == ("pass", 1, 1)
    assert result.reason.startswith("attempt 1 warned: turn 0: tool_input_has")
    assert not any(tmp_path.iterdir())


def test_bedrock_rules_are_checked_on_every_request(tmp_path):
    [result], _ = certify("edge/parallel-results-round-trip", broken_adapters.SeparateToolResultMessages(), tmp_path,
                          attempts=1)
    assert result.status == "fail"
    assert any(f.startswith("request 2 (turn 1): ") for f in result.attempts[0].failures)


class LateText:
    """The reference adapter plus one text chunk after the stream ended (a stream-law violation)."""

    name, version = "late-text", "0"

    def __init__(self):
        self.inner = load_adapter("reference")
        self.capabilities = self.inner.capabilities

    def stream(self, turn, endpoint):
        yield from self.inner.stream(turn, endpoint)
        yield {"type": "text", "text": "one more thing"}


def test_stream_laws_are_checked(tmp_path):
    [result], _ = certify("core/single-call", LateText(), tmp_path, attempts=1)
    assert result.status == "fail"
    assert [f for f in result.attempts[0].failures if ": law: " in f] == [
        "turn 0: law: content_before_stop: chunk 7 (text) arrives after the stream ended at chunk 5 (stop)"]


def test_emulator_only_scenarios_are_skipped_with_the_reason(tmp_path):
    [result], emulator = certify("faults/truncated-stream", load_adapter("reference"), tmp_path)
    assert (result.status, result.pass_at(1), result.attempts) == ("skip", None, ())
    assert "emulator_only" in result.reason and emulator.conversations == 0


def test_certify_live_cli_over_a_flaky_upstream_with_a_subprocess_adapter(tmp_path):
    emulator = HistoryEmulator(scenario("core/single-call"), flaky=1, credentials=Credentials("testing", "testing"))
    with BedrockServer(emulator) as upstream:
        url = upstream.endpoint_url
        done = CliRunner().invoke(main, ["certify", "--live", "--upstream", url, "--root", str(ROOT),
                                         "--command", f"{sys.executable} {PYTHON_EXAMPLE}", "--attempts", "2",
                                         "--scenario", "core/single-call", "--scenario", "faults/truncated-stream",
                                         "--keep-failures", str(tmp_path), "--format", "json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    rows = {r["scenario"]: (r["status"], r["pass@1"], r["pass@2"]) for r in report["results"]}
    assert rows == {"core/single-call": ("pass", 0, 1), "faults/truncated-stream": ("skip", None, None)}
    assert report["summary"] == {"pass@1": 0.0, "pass@2": 1.0, "pass": 1, "fail": 0, "skip": 1}
    assert report["adapter"]["name"] == "example-python-boto3" and report["upstream"] == url
    assert (tmp_path / "core" / "single-call.attempt-1.yaml").is_file()


def test_certify_live_text_report(tmp_path):
    emulator = HistoryEmulator(scenario("core/single-call"), flaky=1, credentials=Credentials("testing", "testing"))
    with BedrockServer(emulator) as upstream:
        done = CliRunner().invoke(main, ["certify", "--live", "--upstream", upstream.endpoint_url, "--root", str(ROOT),
                                         "--adapter", "reference", "--attempts", "2", "--scenario", "core/single-call",
                                         "--keep-failures", str(tmp_path)])
    lines = done.stdout.splitlines()
    assert done.exit_code == 0 and "pass@1 pass@2" in " ".join(lines[1].split())
    assert lines[2].split()[:5] == ["core/single-call", "2", "0", "1", "pass"]
    assert "pass@1 0.00, pass@2 1.00 over 1 judged" in lines[3]
    assert lines[4] == f"failed attempt recorded: {tmp_path / 'core' / 'single-call.attempt-1.yaml'}"


@pytest.mark.parametrize("args, fragment", [
    (["--live", "--adapter", "reference"], "no AWS credentials found"),
    (["--live", "--adapter", "reference", "--format", "markdown"], "the markdown format is not available"),
    (["--live", "--adapter", "reference", "--baseline", "{baseline}"], "takes no --baseline"),
    (["--adapter", "reference", "--upstream", "http://127.0.0.1:9"], "go with --live"),
])
def test_certify_live_usage_errors_end_in_one_error_line(tmp_path, monkeypatch, args, fragment):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    baseline = tmp_path / "b.yaml"
    baseline.write_text("{}\n")
    done = CliRunner().invoke(main, ["certify", "--root", str(ROOT),
                                     *[a.replace("{baseline}", str(baseline)) for a in args]])
    last = done.output.strip().splitlines()[-1]
    assert done.exit_code == 2 and last.startswith("Error: ") and fragment in last


def test_an_adapter_owning_its_history_is_certified_live_in_conversation_mode(tmp_path):
    adapter = load_adapter("reference-conversation")
    assert "own_history" in adapter.capabilities
    [result], emulator = certify("core/round-trip", adapter, tmp_path, flaky=1)
    assert (result.status, result.pass_at(1), result.pass_at(2)) == ("pass", 0, 1)
    assert emulator.conversations == 2 and len(emulator.replies) == 3  # the refused attempt ends after turn 0


def test_a_kept_recording_never_replaces_an_existing_file(tmp_path):
    target = tmp_path / "kept" / "core" / "single-call.attempt-1.yaml"
    target.parent.mkdir(parents=True)
    target.write_text("an earlier run's recording\n")
    [result], _ = certify("core/single-call", load_adapter("reference"), tmp_path, flaky=1)
    first = result.attempts[0]
    assert first.cassette is None and first.failures[-1] == f"recording not kept: {target} exists"
    assert target.read_text() == "an earlier run's recording\n" and result.pass_at(2) == 1


def test_a_failed_attempt_is_kept_when_the_keep_folder_is_on_another_file_system(tmp_path, monkeypatch):
    """The scratch folder is under the system temp dir (often a tmpfs), --keep-failures where the user points."""
    rename = os.replace

    def same_folder_only(source, target, **kwargs):  # what a rename across file systems does: EXDEV
        if Path(source).parent != Path(target).parent:
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(source), None, str(target))
        rename(source, target, **kwargs)

    monkeypatch.setattr(os, "replace", same_folder_only)
    [result], _ = certify("core/single-call", load_adapter("reference"), tmp_path, flaky=1)
    first = result.attempts[0]
    assert first.cassette == str(tmp_path / "kept" / "core" / "single-call.attempt-1.yaml") and result.pass_at(2) == 1
    assert cassette.verify(first.cassette) == [] and cassette.load(first.cassette).interactions[0].status == 200
    assert sorted(p.name for p in Path(first.cassette).parent.iterdir()) == ["single-call.attempt-1.yaml"]


def test_one_attempt_shows_pass_at_1_once():
    emulator = HistoryEmulator(scenario("core/single-call"), credentials=Credentials("testing", "testing"))
    with BedrockServer(emulator) as upstream:
        done = CliRunner().invoke(main, ["certify", "--live", "--upstream", upstream.endpoint_url, "--root", str(ROOT),
                                         "--adapter", "reference", "--attempts", "1", "--scenario", "core/single-call"])
    lines = done.stdout.splitlines()
    assert done.exit_code == 0 and lines[1].split() == ["scenario", "tries", "pass@1", "status", "reason"]
    assert lines[2].split() == ["core/single-call", "1", "1", "pass"]
    assert lines[3] == "1 scenarios: pass@1 1.00 over 1 judged; 1 pass, 0 fail, 0 skip"
