"""``pytest --bedrock-adapter SPEC --bedrock-explore N``: one more item explores the adapter; it passes for the
reference and fails with the summary (and writes the shrunk scenarios with --bedrock-explore-out) for a planted bug."""

import shutil
from pathlib import Path

import pytest

from harness.suite.runner import project_root

pytest.importorskip("hypothesis")
pytest_plugins = ["pytester"]

SHIPPED = project_root()
ARGS = ("-p", "no:cacheprovider", "--bedrock-root", ".", "--bedrock-scenario", "core/smoke-text")
PADDING = Path(__file__).with_name("explore_planted.py")


@pytest.fixture
def project(pytester):
    for kind, suffixes in (("suites", (".yaml", ".golden.yaml")), ("cassettes", (".yaml",))):
        (pytester.path / kind / "core").mkdir(parents=True)
        for suffix in suffixes:
            shutil.copy(SHIPPED / kind / "core" / f"smoke-text{suffix}", pytester.path / kind / "core")
    for helper in ("explore_planted.py", "broken_adapters.py"):
        shutil.copy(PADDING.with_name(helper), pytester.path / helper)
    pytester.syspathinsert()
    return pytester


def test_the_explore_item_passes_for_the_reference(project):
    result = project.runpytest(*ARGS, "--bedrock-adapter", "reference", "--bedrock-explore", "8", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*bedrock-explore PASSED*"])


def test_without_the_option_there_is_no_explore_item(project):
    result = project.runpytest(*ARGS, "--bedrock-adapter", "reference", "--co", "-q")
    assert "bedrock-explore" not in result.stdout.str()


def test_the_explore_item_fails_with_the_summary_and_writes_the_scenarios(project):
    result = project.runpytest(*ARGS, "--bedrock-adapter", "explore_planted:SignaturePaddingStripped",
                               "--bedrock-explore", "150", "--bedrock-explore-out", "found")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*conservation/reasoning*", "*fail [[]reasoning.signature[]] seen in *",
                                 "*wrote *found/suites/explore/*.yaml (run: fail)*"])
    assert list((project.path / "found" / "cassettes" / "explore").glob("*.yaml"))
