"""What every shim's test module checks of its library's verdicts against its certification baseline."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

from harness.report import apply_baseline, load_baseline, render_text
from harness.suite.runner import run_scenario
from harness.suite.scenario import discover

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = {s.id: s for s in discover(ROOT / "suites")}
# Where a shim builds its client in tests that never send a request (port 9: discard).
ENDPOINT = {"endpoint_url": "http://127.0.0.1:9", "region": "eu-west-1",
            "aws_access_key_id": "AKIAFAKEFAKEFAKEFAKE", "aws_secret_access_key": "fake"}


def floor(extra: str, distribution: str) -> str:
    """The floor release of ``distribution``: the lower bound (``>=FLOOR``) the harness extra gives it."""
    line = re.search(rf"^{re.escape(extra)} = \[(.*?)\]", (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    return re.search(rf'"{re.escape(distribution)}(?:\[[^\]]*\])?>=([^,"]+)', line).group(1)


def certified_name(name: str, extra: str, distribution: str) -> str:
    """``NAME.floor`` when the installed release is the extra's floor (its own baseline), else ``NAME``."""
    at_floor = importlib.metadata.version(distribution) == floor(extra, distribution)
    return f"{name}.floor" if at_floor else name


def baseline(name: str) -> Path:
    return ROOT / "certification" / f"{name}.baseline.yaml"


def assert_baseline_lists(name: str, known: dict) -> None:
    """The baseline lists exactly the known failures, so neither side can drift."""
    assert set(load_baseline(baseline(name))) == set(known)


def assert_verdict(adapter, name: str, sid: str, known: dict, skipped: dict | None = None,
                   warned: dict | None = None) -> None:
    """A known failure fails with its evidence in the report and is xfail under the baseline; a skip says why; a
    warned scenario is a warning naming its reason (``warned``: the graded findings the committed baselines predate);
    everything else passes."""
    result = run_scenario(SCENARIOS[sid], adapter, ROOT)
    report = render_text([result])
    if warned and sid in warned:
        assert result.status == "warn" and warned[sid] in report, report
    elif sid in known:
        assert result.status == "fail" and known[sid] in report, report
        assert apply_baseline([result], load_baseline(baseline(name)), SCENARIOS)[0].status == "xfail"
    elif skipped and sid in skipped:
        assert result.status == "skip" and skipped[sid] in result.reason, result.reason
    else:
        assert result.status == "pass", report


def assert_refused(adapter, sid: str = "core/single-call") -> None:
    """The shim refuses a client that points elsewhere than the endpoint: the scenario errors, nothing is sent."""
    result = run_scenario(SCENARIOS[sid], adapter, ROOT)
    assert result.status == "error", render_text([result])
    assert "not the loopback endpoint" in result.reason and "never reaches a real AWS host" in result.reason


def assert_sends_what_the_library_assembled(adapter, sid: str, evidence: str) -> None:
    """With the library's assembly tampered with (by the caller), the next turn's request shows the tampering."""
    result = run_scenario(SCENARIOS[sid], adapter, ROOT)
    report = render_text([result])
    assert result.status == "fail" and len(result.turns) > 1 and result.turns[1].request_texts(), report
    assert evidence in "\n".join(result.turns[1].request_texts()), report


def report(adapter, sid: str) -> tuple[str, str]:
    """(status, text report) of ``sid`` against ``adapter``."""
    result = run_scenario(SCENARIOS[sid], adapter, ROOT)
    return result.status, render_text([result])
