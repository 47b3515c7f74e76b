"""Drift detection (harness.studies.drift and ``bedrock-harness drift``) over the emulator standing in for Bedrock."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from botocore.credentials import Credentials
from click.testing import CliRunner

from harness import load_adapter
from harness.cli import main
from harness.endpoint.exchange import error_reply
from harness.endpoint.server import BedrockServer
from harness.endpoint.upstream import Upstream
from harness.studies import drift
from harness.suite.scenario import load_scenario
from harness.studies.shape import Difference
from harness.wire import eventstream as es
from live_upstream import PROXY_CREDENTIALS, HistoryEmulator

ROOT = Path(__file__).resolve().parents[1]
DUMMY_CHAIN = Credentials("testing", "testing")  # conftest's environment: what the CLI signs with


def scenario(sid: str):
    return load_scenario(ROOT / "suites" / f"{sid}.yaml", ROOT / "suites")


def altered_style(frames: list[bytes]) -> list[bytes]:
    """Bedrock, changed: metadata carries a new field, and arrives before messageStop."""
    decoded = [f for raw in frames for f in es.decode_frames(raw)]
    out = []
    for frame in decoded:
        body = {k: v for k, v in frame.json().items() if k != "p"}
        if frame.type == "metadata":
            body["performanceConfig"] = {"latency": "standard"}
        out.append(es.encode_event(frame.type, body, 5))
    out[-2], out[-1] = out[-1], out[-2]
    return out


def drift_of(sids, **emulator) -> list[drift.DriftResult]:
    results = []
    for sid in sids:
        with BedrockServer(HistoryEmulator(scenario(sid), **emulator), validate=False) as upstream:
            forward = Upstream(upstream.endpoint_url, "us-east-1", PROXY_CREDENTIALS)
            results += drift.drift([scenario(sid)], load_adapter("reference"), forward, ROOT)
    return results


def test_the_unaltered_emulator_shows_no_drift():
    results = drift_of(["core/single-call", "core/thinking-tools", "edge/parallel-results-round-trip"])
    assert [(r.status, r.differences) for r in results] == [("same", ())] * 3
    assert drift.exit_code(results) == 0


def test_an_altered_style_reports_exactly_the_new_field_and_the_reordered_event():
    [result] = drift_of(["core/single-call"], alter=altered_style)
    assert result.status == "changed" and drift.exit_code([result]) == 1
    assert result.differences == (
        Difference("event order (interaction 0)", "… messageStop metadata", "… metadata messageStop"),
        Difference("fields of metadata: new", "-", "performanceConfig.latency"),
    )


def test_each_turn_of_a_conversation_is_compared():
    [result] = drift_of(["core/round-trip"], alter=altered_style)
    assert [d.what for d in result.differences] == ["event order (interaction 0)", "event order (interaction 1)",
                                                    "fields of metadata: new"]


def test_emulator_only_scenarios_are_skipped_and_a_missing_cassette_is_an_error(tmp_path):
    [skipped] = drift_of(["faults/truncated-stream"])
    assert skipped.status == "skip" and "emulator_only" in skipped.reason
    (tmp_path / "suites" / "core").mkdir(parents=True)
    shutil.copy(ROOT / "suites" / "core" / "single-call.yaml", tmp_path / "suites" / "core")
    alone = load_scenario(tmp_path / "suites" / "core" / "single-call.yaml", tmp_path / "suites")
    with BedrockServer(HistoryEmulator(alone)) as upstream:
        forward = Upstream(upstream.endpoint_url, "us-east-1", PROXY_CREDENTIALS)
        [missing] = drift.drift([alone], load_adapter("reference"), forward, tmp_path)
    assert missing.status == "error" and "no shipped cassette" in missing.reason
    assert drift.exit_code([missing]) == 1


@pytest.mark.parametrize("alter, code", [(None, 0), (altered_style, 1)])
def test_the_drift_command_prints_a_table_and_exits_1_on_a_change(alter, code):
    emulator = HistoryEmulator(scenario("core/single-call"), alter=alter, credentials=DUMMY_CHAIN)
    with BedrockServer(emulator) as upstream:
        url = upstream.endpoint_url
        done = CliRunner().invoke(main, ["drift", "core/single-call", "--endpoint-url", url, "--root", str(ROOT)])
    lines = done.stdout.splitlines()
    assert done.exit_code == code and lines[0].startswith(f"drift against {url}:")
    assert lines[1].split() == ["scenario", "what", "shipped", "fresh"]
    if alter is None:
        assert lines[2:] == ["core/single-call  same", "1 scenarios: 0 changed, 1 same, 0 skip, 0 error"]
    else:
        assert [line.split("  ")[0] for line in lines[2:4]] == ["core/single-call"] * 2
        assert "performanceConfig.latency" in lines[3] and "… metadata messageStop" in lines[2]
        assert lines[4] == "1 scenarios: 1 changed, 0 same, 0 skip, 0 error"
    assert emulator.signature_problems == [""]


def test_the_drift_command_json():
    with BedrockServer(HistoryEmulator(scenario("core/single-call"), alter=altered_style,
                                       credentials=DUMMY_CHAIN)) as upstream:
        done = CliRunner().invoke(main, ["drift", "core/single-call", "--endpoint-url", upstream.endpoint_url,
                                         "--root", str(ROOT), "--format", "json"])
    report = json.loads(done.stdout)
    assert report["summary"] == {"changed": 1, "same": 0, "skip": 0, "error": 0}
    assert report["results"][0]["differences"][1] == {"what": "fields of metadata: new", "shipped": "-",
                                                      "fresh": "performanceConfig.latency"}


@pytest.mark.parametrize("args, fragment", [
    (["--live"], "no AWS credentials found (default chain: environment, AWS_PROFILE, SSO, instance role); "
                 "`drift --live` needs them"),
    ([], "give exactly one of --live or --endpoint-url URL"),
    (["--live", "--endpoint-url", "http://127.0.0.1:9"], "give exactly one of --live or --endpoint-url URL"),
])
def test_drift_usage_errors_are_one_line(monkeypatch, args, fragment):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    done = CliRunner().invoke(main, ["drift", "core/single-call", *args])
    assert done.exit_code == 2 and done.output.strip() == f"Error: {fragment}"


class Denied:
    """Bedrock refusing the signer: no access to the model (an account matter, not a wire change)."""

    def respond(self, request):
        return error_reply(403, "AccessDeniedException", "You don't have access to the model with the specified model ID.")


def test_an_error_answer_is_an_error_naming_it_not_a_changed_shape():
    with BedrockServer(Denied(), validate=False) as upstream:
        forward = Upstream(upstream.endpoint_url, "us-east-1", PROXY_CREDENTIALS)
        [result] = drift.drift([scenario("core/single-call")], load_adapter("reference"), forward, ROOT)
    assert (result.status, result.differences) == ("error", ())
    assert result.reason == ("the upstream answered with an error, no shape to compare: interaction 0: HTTP 403 "
                             "AccessDeniedException: You don't have access to the model with the specified model ID.")
    assert drift.exit_code([result]) == 1


def test_an_unreachable_upstream_is_an_error_naming_why():
    with BedrockServer(Denied()) as gone:
        url = gone.endpoint_url
    forward = Upstream(url, "us-east-1", PROXY_CREDENTIALS)
    [result] = drift.drift([scenario("core/single-call")], load_adapter("reference"), forward, ROOT)
    assert result.status == "error" and result.reason.startswith(
        "recording failed: nothing was recorded (turn 0: ServiceUnavailableException: bedrock-harness proxy: cannot "
        f"reach upstream {url}: ConnectionRefusedError")
