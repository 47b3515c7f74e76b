"""Scenario roots: one folder or several layered (a later root's suite replaces an earlier one's), ``shipped``."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.suite import roots
from harness.suite.runner import cassette_path, shipped_root
from harness.suite.scenario import ScenarioError

REPO = Path(__file__).resolve().parents[1]
SHIPPED_IDS = sorted(f"{p.parent.name}/{p.stem}" for p in (REPO / "suites").glob("*/*.yaml")
                     if not p.name.endswith(".golden.yaml"))


def copy_scenario(root: Path, sid: str, as_id: str) -> None:
    """``sid``'s scenario, golden and cassette from the checkout under ``root`` as ``as_id``."""
    (suite, name), (new_suite, new_name) = sid.split("/"), as_id.split("/")
    for suffix in (".yaml", ".golden.yaml"):
        target = root / "suites" / new_suite / f"{new_name}{suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / "suites" / suite / f"{name}{suffix}", target)
    target = root / "cassettes" / new_suite / f"{new_name}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "cassettes" / suite / f"{name}.yaml", target)


@pytest.fixture
def mine(tmp_path):
    """A user's root: a suite of its own (mine/hello) and a `core` holding one scenario only."""
    copy_scenario(tmp_path / "mine", "core/smoke-text", "mine/hello")
    copy_scenario(tmp_path / "mine", "core/single-call", "core/single-call")
    return tmp_path / "mine"


def test_resolve_the_default_shipped_and_relative_roots(tmp_path):
    assert roots.resolve([], tmp_path) == [shipped_root()] == [REPO]
    assert roots.resolve(["shipped", "x", "x"], tmp_path) == [REPO, tmp_path / "x"]
    assert roots.single([REPO]) == REPO and roots.single([REPO, tmp_path]) is None


def test_one_root_is_that_root_only(mine):
    assert [s.id for s in roots.load([mine])] == ["core/single-call", "mine/hello"]


def test_a_later_roots_suite_replaces_the_earlier_one_and_adds_its_own(mine):
    layered = roots.load([REPO, mine])
    ids = [s.id for s in layered]
    assert "mine/hello" in ids and "edge/zero-arg-tool" in ids
    assert [sid for sid in ids if sid.startswith("core/")] == ["core/single-call"]  # mine's core replaced the shipped
    assert roots.layered_ids([REPO, mine]) == ids
    core = next(s for s in layered if s.id == "core/single-call")
    assert cassette_path(None, core) == mine / "cassettes" / "core" / "single-call.yaml"
    edge = next(s for s in layered if s.id.startswith("edge/"))
    assert cassette_path(None, edge).is_relative_to(REPO / "cassettes")


def test_selection_spans_the_layered_roots_and_unknown_names_fail(mine):
    assert [s.id for s in roots.load([REPO, mine], suites=["mine"], ids=["edge/zero-arg-tool"])] == \
        ["edge/zero-arg-tool", "mine/hello"]
    with pytest.raises(ScenarioError, match="unknown scenario 'core/round-trip'"):
        roots.load([REPO, mine], ids=["core/round-trip"])


def test_run_shipped_plus_mine_from_the_cli(mine, monkeypatch):
    monkeypatch.chdir(mine.parent)
    done = CliRunner().invoke(main, ["run", "--root", "shipped", "--root", "mine", "--format", "json",
                                     "--suite", "mine", "--suite", "core", "--baseline", str(_baseline(mine))])
    report = json.loads(done.stdout)
    assert done.exit_code == 0, done.output
    assert [r["scenario"] for r in report["results"]] == ["core/single-call", "mine/hello"]
    assert [r["status"] for r in report["results"]] == ["pass", "pass"]


def _baseline(mine: Path) -> Path:
    """An empty baseline: a baseline's unknown-id check must see the layered ids (none stale here)."""
    path = mine.parent / "baseline.yaml"
    path.write_text("{}\n")
    return path


def test_a_baseline_naming_a_replaced_scenario_is_stale(mine, monkeypatch):
    monkeypatch.chdir(mine.parent)
    (mine.parent / "baseline.yaml").write_text("core/round-trip: replaced by mine\n")
    done = CliRunner().invoke(main, ["run", "--root", "shipped", "--root", "mine", "--suite", "mine",
                                     "--baseline", "baseline.yaml", "--format", "json"])
    stale = [r for r in json.loads(done.stdout)["results"] if r["scenario"] == "core/round-trip"]
    assert done.exit_code == 1 and "unknown scenario" in stale[0]["reason"]


def test_certify_names_each_cassette_under_its_own_root(mine, monkeypatch):
    monkeypatch.chdir(mine.parent)
    done = CliRunner().invoke(main, ["certify", "--adapter", "reference", "--root", "shipped", "--root", "mine",
                                     "--suite", "mine", "--format", "json"])
    (result,) = json.loads(done.stdout)["results"]
    assert done.exit_code == 0 and result["cassette"] == "cassettes/mine/hello.yaml" and result["cassette_sha256"]


def test_golden_check_works_on_a_users_root(mine):
    done = CliRunner().invoke(main, ["golden", "check", "--root", str(mine)])
    assert done.exit_code == 0 and "2 scenario(s) checked, 0 drift(s)" in done.output
