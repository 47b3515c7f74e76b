"""Issue 30's acceptance: explore finds every bug of tests/broken_adapters.py and each planted one of
tests/explore_planted.py (which pass every shipped scenario) within the ci profile; the shrunk failure, written as
a scenario, replays failing with the broken adapter and passes with the correct one.

Each case is a whole ci-profile exploration (tens of seconds on a loaded 2-core machine): the default run takes two;
BEDROCK_EXPLORE_VARIANTS=1 takes them all.
"""

from __future__ import annotations

import os

import pytest

pytest.importorskip("hypothesis")
from broken_adapters import VARIANTS, ConversationVariant, OpenAIFormat  # noqa: E402
from explore_planted import PLANTED  # noqa: E402

from harness.converse import ConverseAdapter  # noqa: E402
from harness.studies.explore.search import explore  # noqa: E402
from harness.studies.explore.write import write_failure  # noqa: E402
from harness.suite.runner import run_scenario  # noqa: E402
from harness.suite.scenario import load_scenario  # noqa: E402

EVERY = {**VARIANTS, **PLANTED}
DEFAULT = ("no_tool_calls", "third_call_after_text")
CHOSEN = sorted(EVERY) if os.environ.get("BEDROCK_EXPLORE_VARIANTS") else DEFAULT


def correct(cls) -> object:
    """The adapter the variant breaks: the reference (in conversation mode for an assembly bug; the correct
    OpenAI-format one for an OpenAI bug)."""
    if issubclass(cls, OpenAIFormat):
        return OpenAIFormat()
    return ConverseAdapter(conversation=True) if issubclass(cls, ConversationVariant) else ConverseAdapter()


@pytest.mark.parametrize("key", CHOSEN)
def test_explore_finds_the_bug_and_its_scenario_replays(key, tmp_path):
    cls = EVERY[key]
    adapter = cls()
    report = explore(adapter, profile="ci")
    assert report.failures, f"{key}: nothing found in {report.examples} examples"
    failure = min(report.failures, key=lambda f: (f.grade != "fail", f.key))
    written = write_failure(failure, tmp_path, f"bedrock-harness explore --adapter {key}", adapter)
    assert written.status in ("fail", "warn"), f"{key}: the written scenario {written.path} replays {written.status}"
    scenario = load_scenario(written.path, tmp_path / "suites")
    assert run_scenario(scenario, correct(cls), tmp_path).status == "pass"


@pytest.mark.parametrize("key, family", [("image_glued_into_text", "nova-2-omni"),
                                         ("server_result_as_answer", "nova-2")])
def test_the_services_own_blocks_are_drawn_and_their_bugs_found(key, family, tmp_path):
    """Nova 2's image output and system-tool blocks are drawn: a variant reading either as answer text is found on
    that family, and the written scenario replays failing with it and passing with the reference."""
    adapter = VARIANTS[key]()
    report = explore(adapter, profile="ci", families=(family,), examples=120)
    assert report.failures, f"{key}: nothing found in {report.examples} examples of {family}"
    failure = min(report.failures, key=lambda f: (f.grade != "fail", f.key))
    written = write_failure(failure, tmp_path, f"bedrock-harness explore --adapter {key} --family {family}", adapter)
    assert written.status == "fail", f"{key}: the written scenario {written.path} replays {written.status}"
    assert run_scenario(load_scenario(written.path, tmp_path / "suites"), ConverseAdapter(), tmp_path).status == "pass"
