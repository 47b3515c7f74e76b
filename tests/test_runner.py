"""The runner's own decisions: exceptions as findings, capability skips, broken inputs as error results."""

from pathlib import Path

from harness.suite import report
from harness.converse import ConverseAdapter
from harness.suite.runner import ADAPTER_EXCEPTION, project_root, run_scenario, stream_turn
from harness.suite.scenario import discover

REPO = Path(__file__).resolve().parents[1]
BY_ID = {s.id: s for s in discover(REPO / "suites")}


class Raising(ConverseAdapter):
    """Raises before yielding anything: an adapter bug, judged against the golden like any output."""

    name = "raising"

    def stream(self, turn, endpoint=None):
        raise RuntimeError("boom while parsing")
        yield  # pragma: no cover


class TextOnly(ConverseAdapter):
    name = "text-only"
    capabilities = frozenset({"text", "stop_reason", "usage", "streaming"})


def test_an_exception_from_the_adapter_closes_the_turn_as_an_error_chunk():
    chunks = stream_turn(Raising(), {"messages": []}, {})
    assert chunks == [{"type": "error", "code": ADAPTER_EXCEPTION, "message": "RuntimeError: boom while parsing"}]


def test_a_raising_adapter_fails_and_the_report_shows_its_error_text():
    result = run_scenario(BY_ID["core/smoke-text"], Raising(), REPO)
    assert result.status == "fail"
    text = report.render_text([result])
    assert "core/smoke-text turn 0 chunk 0 (text): missing" in text
    assert "adapter error" in text and "RuntimeError: boom while parsing" in text


def test_a_passing_turn_carries_no_adapter_error_note():
    """The reference raises on a toolUse without toolUseId, which is what the golden expects."""
    result = run_scenario(BY_ID["faults/missing-tool-use-id"], ConverseAdapter(), REPO)
    assert result.status == "pass" and all(not t.diffs for t in result.turns)


def test_a_missing_capability_is_a_skip_naming_it():
    result = run_scenario(BY_ID["core/parallel-calls"], TextOnly(), REPO)
    assert (result.status, result.reason) == ("skip", "adapter lacks parallel_tool_use, tool_use")


def test_a_corrupt_cassette_is_an_error_result_not_a_crash(tmp_path):
    scenario = BY_ID["core/smoke-text"]
    (tmp_path / "cassettes" / "core").mkdir(parents=True)
    (tmp_path / "cassettes" / "core" / "smoke-text.yaml").write_text("interactions: [\n")
    result = run_scenario(scenario, ConverseAdapter(), tmp_path)
    assert result.status == "error"
    assert "smoke-text.yaml" in result.reason and "\n" not in result.reason


def test_project_root_prefers_a_working_directory_with_suites(tmp_path):
    (tmp_path / "suites").mkdir()
    assert project_root(tmp_path) == tmp_path
    assert project_root(tmp_path / "elsewhere") == REPO
