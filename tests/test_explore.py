"""bedrock-harness explore (harness.studies.explore): drawn conversations are valid Bedrock streams, the correct
adapter shows nothing, a planted bug is found, shrunk, written as a scenario that `run` replays failing, and re-run
first from the example database; the command's usage errors and exit codes.

The drawing test runs BEDROCK_EXPLORE_DRAWS examples (default 2000, about 20 s on a loaded 2-core machine).
"""

from __future__ import annotations

import json
import os
import sys

import pytest
import yaml
from click.testing import CliRunner

pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from explore_planted import SignaturePaddingStripped  # noqa: E402
from harness.cli import main  # noqa: E402
from harness.converse import ConverseAdapter  # noqa: E402
from harness.evidence import Claim, claim_problems  # noqa: E402
from harness.evidence.catalog import load_catalog  # noqa: E402
from harness.judge.protocol import CAPABILITIES  # noqa: E402
from harness.studies.explore.draw import DrawOptions, conversations  # noqa: E402
from harness.studies.explore.families import CLAIMS, ROBUSTNESS  # noqa: E402
from harness.studies.explore.invariants import example_invariants, stream_invariants  # noqa: E402
from harness.studies.explore.search import explore  # noqa: E402
from harness.studies.explore.summary import render_json, render_text  # noqa: E402
from harness.studies.explore.write import write_failure  # noqa: E402
from harness.suite.runner import run_scenario  # noqa: E402
from harness.suite.scenario import load_scenario, parse_scenario  # noqa: E402

DRAWS = int(os.environ.get("BEDROCK_EXPLORE_DRAWS", "2000"))
EVERYTHING = frozenset(CAPABILITIES) - {"own_history", "non_streaming"}


@settings(max_examples=DRAWS, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(conversations(DrawOptions(capabilities=EVERYTHING)))
def test_every_drawn_stream_keeps_the_grammar_and_the_family_invariants(example):
    """No finding may come from a stream Bedrock could not send: every turn's rendering passes the stream grammar
    (botocore's parser too) and each style's claims; the document is an ordinary scenario whose claims name
    sources of the ledger."""
    assert example_invariants(example.document) == []
    scenario = parse_scenario(example.materialized("explore/drawn"), "explore/drawn", "explore/drawn.yaml")
    assert {c.id for c in scenario.claims} == set(example.claims)
    assert bool(scenario.robustness) == any(c in ROBUSTNESS for c in example.claims)


def test_the_invariants_name_the_claim_a_stream_breaks():
    """The check above can fail: Nova tool input in fragments, a Kimi id that does not count the calls, an open-weight
    text block without its closing empty delta, a stopReason tool_use without a call."""
    use = {"tool_use": {"name": "read_file", "id": "tooluse_" + "A" * 22, "raw_input": ['{"path"', ': "a"}']}}
    assert stream_invariants({"content": [use]}, "nova") == [("style nova: whole-input", "block 0 has 2 input deltas")]
    kimi = {"tool_use": {"name": "read_file", "id": "functions.read_file:3", "input": {"path": "a"}}}
    assert [c for c, _ in stream_invariants({"content": [kimi]}, "open-weight")] == ["style open-weight: kimi-ids"]
    plain = {"content": [{"text": ["Hello", " there"]}], "stop_reason": "tool_use"}
    found = [c for c, _ in stream_invariants(plain, "open-weight")]
    assert found == ["style open-weight: closing-empty-delta", "explore: stop-tool-use"]


def test_every_choice_rests_on_sources_of_the_ledger():
    catalog = load_catalog()
    for cid, (says, sources) in CLAIMS.items():
        assert claim_problems(Claim("explore", cid, says, sources), catalog) == [], cid


def test_the_reference_shows_nothing():
    report = explore(ConverseAdapter(), profile="ci", examples=30, seed=7)
    assert report.failures == [] and report.examples >= 30


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    """A planted bug explored in the ci profile, its failures written as a scenario root."""
    root = tmp_path_factory.mktemp("explored")
    adapter = SignaturePaddingStripped()
    report = explore(adapter, profile="ci", examples=200, families=("claude",), db=root / "db")
    written = [write_failure(f, root, "bedrock-harness explore --adapter x", adapter) for f in report.failures]
    return root, adapter, report, written


def test_a_planted_bug_is_found_and_shrunk(found):
    _, _, report, _ = found
    keys = {f.key for f in report.failures}
    assert ("conservation", "reasoning", "reasoning.signature") in keys
    failure = next(f for f in report.failures if f.key[2] == "reasoning.signature")
    turns = failure.example.document["turns"]
    assert len(turns) == 1 and failure.grade == "fail"  # shrunk: one turn holds it
    assert any(b.get("signature", "").endswith("=") for b in turns[0]["script"]["content"] if "reasoning" in b)


def test_the_written_scenario_replays_failing_and_passes_with_the_reference(found):
    root, adapter, report, written = found
    mine = next(w for w in written if w.failure.key[2] == "reasoning.signature")
    assert mine.status == "fail" and "signature" in mine.reason
    scenario = load_scenario(mine.path, root / "suites")
    assert (root / "cassettes" / f"{scenario.id}.yaml").is_file()
    assert (mine.path.with_name(mine.path.stem + ".golden.yaml")).is_file()
    assert run_scenario(scenario, adapter, root).status == "fail"
    assert run_scenario(scenario, ConverseAdapter(), root).status == "pass"
    catalog = load_catalog()
    assert scenario.claims and all(claim_problems(c, catalog) == [] for c in scenario.claims)


def test_failing_examples_are_rerun_first_from_the_database(found):
    """One new example only: the failures come from the database's kept examples (Hypothesis' reuse phase)."""
    root, adapter, report, _ = found
    again = explore(adapter, profile="ci", examples=1, families=("claude",), db=root / "db")
    assert {f.key for f in again.failures} >= {("conservation", "reasoning", "reasoning.signature")}
    without = explore(adapter, profile="ci", examples=1, families=("nova",), db=None)
    assert without.failures == []


def test_the_summary_names_each_failure_once_by_law_and_field(found):
    root, _, report, written = found
    text = render_text(report, written)
    assert "conservation/reasoning\n  fail [reasoning.signature] seen in " in text
    assert text.count("[reasoning.signature]") == 1 and f"wrote {written[0].path}" in text
    document = render_json(report, written)
    assert {(f["oracle"], f["law"], f["field"]) for f in document["failures"]} == {f.key for f in report.failures}


def invoke(*args):
    return CliRunner().invoke(main, ["explore", *args], catch_exceptions=False)


def test_explore_exits_0_when_nothing_is_found(tmp_path):
    result = invoke("--adapter", "reference", "--examples", "5", "--no-db", "--family", "nova")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("explore reference: ") and "nothing found" in result.output


def test_explore_exits_1_and_writes_what_it_found(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(os.path.dirname(__file__))
    out = tmp_path / "found"
    result = invoke("--adapter", "explore_planted:SignaturePaddingStripped", "--profile", "ci", "--examples", "150",
                    "--family", "claude", "--db", str(tmp_path / "db"), "--out", str(out), "--format", "json")
    assert result.exit_code == 1, result.output
    document = json.loads(result.output)
    assert document["failures"] and all(f["replays"] in ("fail", "warn") for f in document["failures"])
    written = sorted((out / "suites" / "explore").glob("*.golden.yaml"))
    assert written and yaml.safe_load(written[0].read_text())["turns"]
    run = CliRunner().invoke(main, ["run", "--root", str(out), "--adapter", "explore_planted:SignaturePaddingStripped"])
    assert run.exit_code == 1
    assert CliRunner().invoke(main, ["run", "--root", str(out)]).exit_code == 0


@pytest.mark.parametrize("args, message", [
    ((), "give exactly one of --adapter SPEC or --command CMD"),
    (("--adapter", "reference", "--command", "x"), "give exactly one of --adapter SPEC or --command CMD"),
    (("--adapter", "reference", "--db", "d", "--no-db"), "give --db DIR or --no-db, not both"),
    (("--adapter", "no-such-adapter"), "no-such-adapter"),
    (("--adapter", "reference", "--family", "gpt-5"), "'gpt-5' is not one of"),
])
def test_usage_errors_are_one_line_and_exit_2(args, message):
    result = CliRunner().invoke(main, ["explore", *args])
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_without_hypothesis_explore_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "hypothesis", None)
    for name in [n for n in sys.modules if n.startswith("harness.studies.explore.")]:  # as in a fresh process
        monkeypatch.delitem(sys.modules, name)
    result = CliRunner().invoke(main, ["explore", "--adapter", "reference"])
    assert result.exit_code == 2
    assert result.output.strip() == "Error: explore needs Hypothesis: pip install 'bedrock-harness[explore]'"


def test_compare_finds_where_two_adapters_differ_as_warnings():
    """Explored: the reference; compared with a planted bug: every difference is a warning (the other may be wrong)."""
    report = explore(ConverseAdapter(), profile="ci", examples=150, families=("claude",), compare=SignaturePaddingStripped())
    assert report.failures and {f.key for f in report.failures} == {("compare", "chunks", "")}
    assert all(f.grade == "warn" for f in report.failures)


def test_the_time_budget_bounds_the_search(capsys, monkeypatch):
    from harness.studies.explore import search

    stops = []

    class Counted(search.OutOfTime):
        def __init__(self, *args):
            stops.append(args)
            super().__init__(*args)

    monkeypatch.setattr(search, "OutOfTime", Counted)
    report = explore(ConverseAdapter(), examples=10**6, time_budget=2.0, families=("nova",))
    assert report.seconds < 120 and report.examples < 10**4
    assert report.failures == [] and report.notes == [f"time budget of 2s spent after {report.examples} examples"]
    # The stop is raised once and ends the search: Hypothesis neither shrinks nor replays it (which made it flaky)
    assert len(stops) == 1 and not issubclass(search.OutOfTime, Exception)
    assert capsys.readouterr() == ("", "")  # and prints nothing of its own (no seed to add)


def test_a_flaky_note_names_what_the_example_raised_the_first_time():
    from hypothesis.errors import Flaky, FlakyFailure

    from harness.studies.explore.search import _first_cause

    assert _first_cause(FlakyFailure("unreliable", [ValueError("boom\n  at turn 1")])) == ": ValueError: boom at turn 1"
    assert _first_cause(FlakyFailure("unreliable", [KeyError()])) == ": KeyError"
    assert _first_cause(Flaky("inconsistent data")) == ""


def test_a_scenarios_delivery_splits_its_replies_for_an_http_client(tmp_path, monkeypatch):
    """``delivery: {chunking: 3}``: the replayed frames reach an adapter over HTTP three bytes at a time, and the
    example adapter (its own process, botocore's parser) still passes; the value is what the scenario says."""
    from harness.adapters.subprocess import SubprocessAdapter
    from harness.suite.runner import project_root

    shipped = project_root()
    for kind, suffix in (("suites", ".yaml"), ("suites", ".golden.yaml"), ("cassettes", ".yaml")):
        (tmp_path / kind / "core").mkdir(parents=True, exist_ok=True)
        text = (shipped / kind / "core" / f"parallel-calls{suffix}").read_text()
        if kind == "suites" and suffix == ".yaml":
            text += "delivery: {chunking: 3}\n"
        (tmp_path / kind / "core" / f"parallel-calls{suffix}").write_text(text)
    scenario = load_scenario(tmp_path / "suites" / "core" / "parallel-calls.yaml", tmp_path / "suites")
    assert scenario.delivery == {"chunking": 3, "delay": 0.0}
    from harness.endpoint import faults as faults_module
    from harness.suite import runner

    bounds = []
    original = faults_module.Faults.deliver

    def deliver(self, frames, turn, offsets=None):
        delivery = original(self, frames, turn, offsets)
        bounds.append(list(delivery.bounds))
        return delivery

    monkeypatch.setattr(runner.Faults, "deliver", deliver)
    adapter = SubprocessAdapter(f"{sys.executable} {shipped / 'examples' / 'python_adapter' / 'adapter.py'}")
    try:
        assert run_scenario(scenario, adapter, tmp_path).status == "pass"
    finally:
        adapter.close()
    assert bounds and all(b == list(range(0, len(b) * 3, 3)) for b in bounds)  # every reply in 3-byte writes


def test_conservation_expects_citations_response_fields_and_metadata():
    """The items a correct adapter yields: a citation is an item of its own before the text it cites, then the stop,
    messageStop's response fields, usage and the metadata a prompt router's trace carries."""
    from harness.studies.explore.oracles import delivered, expected_items

    cite = {"title": "T", "sourceContent": [{"text": "ab"}], "location": {"documentChar": {"documentIndex": 0,
                                                                                          "start": 0, "end": 2}}}
    script = {"content": [{"text": ["Hello"]}, {"text": ["ab"], "citations": [cite]}], "stop_reason": "end_turn",
              "additional_model_response_fields": {"stop_sequence": None},
              "trace": {"promptRouter": {"invokedModelId": "arn:x"}}}
    items, _ = expected_items(*delivered(script, "claude", "s"))
    assert [i["type"] for i in items] == ["text", "citation", "text", "stop", "response_fields", "usage", "metadata"]
    assert items[1]["citation"] == cite and items[-1]["invoked_model_id"] == "arn:x"


def test_the_request_must_carry_what_the_turn_asked():
    from harness.studies.explore.oracles import asked

    options = {"service_tier": "flex", "output_format": {"type": "json_schema", "schema": {"type": "object"}}}
    caps = frozenset({"service_tier", "structured_output"})
    found = asked({"messages": []}, options, caps, 0)
    assert {f.key for f in found} == {("request", "asked", "serviceTier"), ("request", "asked", "outputConfig")}
    right = {"serviceTier": {"type": "flex"}, "outputConfig": {"textFormat": {"type": "json_schema", "structure": {
        "jsonSchema": {"schema": '{"type": "object"}'}}}}}
    assert asked(right, options, caps, 0) == [] and asked({}, options, frozenset(), 0) == []


def test_round_trip_needs_the_citations_and_the_results_media_back():
    from harness.studies.explore.oracles import round_trip

    cite = {"title": "T", "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 2}}}
    previous = [{"type": "citation", "citation": cite}, {"type": "text", "text": "ab"}]
    plain = {"messages": [{"role": "assistant", "content": [{"text": "ab"}]},
                          {"role": "user", "content": [{"text": "data:image/png;base64,iVBO"}]}]}
    caps = frozenset({"citations", "tool_result_media"})
    assert {f.key for f in round_trip(plain, previous, 1, caps, ["iVBO"])} == {
        ("round_trip", "citations", "citationsContent"), ("round_trip", "results", "toolResult.media")}
    kept = {"messages": [{"role": "assistant", "content": [{"citationsContent": {"citations": [cite],
                                                                                 "content": [{"text": "ab"}]}}]},
                         {"role": "user", "content": [{"toolResult": {"toolUseId": "t", "content": [
                             {"image": {"format": "png", "source": {"bytes": "iVBO"}}}]}}]}]}
    assert round_trip(kept, previous, 1, caps, ["iVBO"]) == []


def test_writers_tool_calls_are_drawn_through_converse():
    """Writer's tools go through Converse (rule 38): the reference shows nothing there, and a variant sending them on
    ConverseStream breaks the rule."""
    from broken_adapters import ToolsStreamedToEveryModel

    assert explore(ConverseAdapter(), profile="ci", examples=25, families=("writer",)).failures == []
    report = explore(ToolsStreamedToEveryModel(), profile="ci", examples=25, families=("writer",))
    assert ("rule", "streamed-tool-use", "request") in {f.key for f in report.failures}
