"""Discovered scenarios are kept lean (harness.suite.discovered): each builds into what loading its file gives."""

import gc
import shutil
import tracemalloc
from pathlib import Path

import pytest
import yaml

from harness.report import cassette_files
from harness.suite import roots
from harness.suite.discovered import Discovered, ScenarioFile
from harness.suite.scenario import ScenarioError, discover, load_scenario

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(p for p in (ROOT / "suites").glob("*/*.yaml") if not p.name.endswith(".golden.yaml"))


def _copy_suite(target: Path, suite: str = "core") -> Path:
    shutil.copytree(ROOT / "suites" / suite, target / "suites" / suite)
    return target


def test_every_discovered_scenario_is_the_scenario_its_file_loads_as():
    found = discover(ROOT / "suites")
    assert isinstance(found, Discovered) and len(found) == len(SHIPPED)
    assert list(found) == [load_scenario(p, ROOT / "suites") for p in sorted(SHIPPED, key=lambda p: (p.parent.name, p.stem))]
    assert found.ids == [s.id for s in found]
    assert found[-1] == list(found)[-1] and found == list(found)


def test_a_discovery_that_is_not_lean_holds_the_same_scenarios_built_once(tmp_path):
    suites = _copy_suite(tmp_path) / "suites"
    whole, lean = discover(suites, lean=False), discover(suites)
    assert list(whole) == list(lean) and whole.ids == lean.ids
    assert whole[0] is whole[0] and lean[0] is not lean[0]  # list holds every one anyway: no packing, no rebuilding
    path = suites / "core" / "single-call.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["turns"][0]["options"] = {"max_tokenz": 5}
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"single-call\.yaml: turns\[0\]\.options\.max_tokenz: unknown field"):
        discover(suites, lean=False)


def test_each_build_is_a_fresh_copy_that_no_other_holds(tmp_path):
    found = discover(_copy_suite(tmp_path) / "suites", ids=["core/single-call"])
    first = found[0]
    first.tools[0]["name"] = "changed"
    first.turns[0].messages[0]["content"] = "changed"
    again = found[0]
    assert again is not first and again.tools[0]["name"] != "changed"
    assert again.turns[0].messages[0]["content"] != "changed"


def test_a_file_changed_or_removed_after_discovery_does_not_change_what_runs(tmp_path):
    suites = _copy_suite(tmp_path) / "suites"
    found = discover(suites, ids=["core/smoke-text"])
    before = load_scenario(suites / "core" / "smoke-text.yaml", suites)
    (suites / "core" / "smoke-text.yaml").write_text("title: [broken", encoding="utf-8")
    assert found[0] == before
    (suites / "core" / "smoke-text.yaml").unlink()
    assert found[0] == before and found.files() == [ScenarioFile("core/smoke-text", suites / "core" / "smoke-text.yaml")]


def test_every_file_is_still_validated_at_discovery(tmp_path):
    suites = _copy_suite(tmp_path) / "suites"
    path = suites / "core" / "single-call.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["turns"][0]["options"] = {"max_tokenz": 5}
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"single-call\.yaml: turns\[0\]\.options\.max_tokenz: unknown field"):
        discover(suites)


def test_a_document_marshal_cannot_hold_is_kept_as_its_scenario(tmp_path):
    suites = _copy_suite(tmp_path) / "suites"
    path = suites / "core" / "single-call.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["tools"][0]["input_schema"]["examples"] = ["placeholder"]
    text = yaml.safe_dump(data, sort_keys=False).replace("- placeholder", "- 2024-01-02")  # a !!timestamp
    path.write_text(text, encoding="utf-8")
    found = discover(suites)
    built = found[found.ids.index("core/single-call")]
    assert built == load_scenario(path, suites) and str(built.tools[0]["input_schema"]["examples"][0]) == "2024-01-02"


def test_slices_layered_roots_and_reports_work_on_the_lean_form(tmp_path):
    one, two = _copy_suite(tmp_path / "one"), _copy_suite(tmp_path / "two", "edge")
    layered = roots.load([one, two])
    assert isinstance(layered, Discovered) and layered.ids == sorted(layered.ids)
    assert {sid.split("/")[0] for sid in layered.ids} == {"core", "edge"}
    assert [s.path.parents[2] for s in layered] == [one if sid.startswith("core/") else two for sid in layered.ids]
    part = layered[1:3]
    assert isinstance(part, Discovered) and part.ids == layered.ids[1:3] and list(part) == list(layered)[1:3]
    assert cassette_files(layered, None) == cassette_files(list(layered), None)
    assert Discovered.joined([]) == []


def test_a_discovered_scenario_holds_under_two_kibibytes(tmp_path):
    """Issue 32's bound (benchmarks/bench_discovery.py measures it at 10,000): the shipped scenarios, copied 8 times."""
    suites = tmp_path / "suites"
    for copy in range(8):
        for path in SHIPPED:
            folder = suites / f"{path.parent.name}{copy}"
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, folder / path.name)
    discover(ROOT / "suites", ids=["core/smoke-text"])  # imports and caches outside the measure
    gc.collect()
    tracemalloc.start()
    try:
        found = discover(suites)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(found) == 8 * len(SHIPPED)
    assert held / len(found) <= 2048, f"{held / len(found):.0f} bytes per discovered scenario"


def test_checking_the_selected_cassettes_builds_no_scenario(tmp_path, monkeypatch):
    from harness.cli.common import BadUsage, scenarios
    from harness.suite import scenario as scenario_module

    root = _copy_suite(tmp_path)
    built = []
    real = scenario_module._rebuilt
    monkeypatch.setattr(scenario_module, "_rebuilt", lambda *args: built.append(args[0]) or real(*args))
    _, chosen = scenarios(root)
    assert len(chosen) > 1 and built == []  # the cassette paths come from the discovery's files
    (root / "cassettes").mkdir()
    (root / "cassettes" / "core").mkdir()
    (root / "cassettes" / chosen.ids[0]).with_suffix(".yaml").mkdir()
    with pytest.raises(BadUsage, match=f"the cassette of {chosen.ids[0]}, .*: not a regular file but a directory"):
        scenarios(root)
    assert built == []
