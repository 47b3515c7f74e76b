"""The certification page's tables (docs/certification/third-party.md) are generated from certification/*.json, and a
test holds them equal."""

import json
import os
import re
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.adapters import registry
from harness.cli import main
from harness.studies import certification_table as tables

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "certification" / "third-party.md"


def report(name, version, statuses):
    return {"adapter": {"name": name, "version": version},
            "results": [{"scenario": s, "status": st} for s, st in statuses.items()]}


def test_the_page_table_matches_the_committed_reports():
    done = CliRunner().invoke(main, ["certification-table", "--root", str(ROOT), "--readme", str(PAGE),
                                     "--check"])
    assert done.exit_code == 0, done.output


def newest_reports():
    return [p for p in sorted((ROOT / "certification").glob("*.json")) if not p.name.endswith(tables.FLOOR_SUFFIX)]


def test_every_certified_library_has_a_report_and_a_column():
    block = tables.table_block(PAGE.read_text())
    heads = block.splitlines()[0]
    for path in newest_reports():
        name = json.loads(path.read_text())["adapter"]["name"]
        assert f" {name} " in heads, f"{path.name}: no column for {name}"
    assert len(newest_reports()) >= 8


def test_render_shows_known_failures_as_fail_warnings_apart_and_counts_them():
    table = tables.render([report("a", "1.0", {"s/x": "pass", "s/y": "xfail", "s/z": "warn"}),
                           report("b", "2.0", {"s/x": "error", "s/y": "skip", "s/z": "pass"})])
    assert table.splitlines() == [
        "| scenario | a 1.0 | b 2.0 |", "|---|---|---|",
        "| s/x | pass | **error** |", "| s/y | **fail** | skip |", "| s/z | warn | pass |",
        "| **pass / warn / fail / skip** | 1 / 1 / 1 / 0 | 1 / 0 / 0 / 1 |"]


def test_check_fails_and_write_mends_a_readme_that_disagrees(tmp_path):
    reports = [tmp_path / "a.json"]
    reports[0].write_text(json.dumps(report("a", "1.0", {"s/x": "pass"})))
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{tables.BEGIN}\n| stale |\n{tables.END}\noutro\n")
    args = ["certification-table", str(reports[0]), "--readme", str(readme)]
    checked = CliRunner().invoke(main, [*args, "--check"])
    assert checked.exit_code == 1 and "-| stale |" in checked.stdout and "the certification table differs" in checked.stderr
    assert CliRunner().invoke(main, [*args, "--write"]).exit_code == 0
    assert readme.read_text() == f"intro\n{tables.BEGIN}\n{tables.render(tables.load_reports(reports))}{tables.END}\noutro\n"
    assert CliRunner().invoke(main, [*args, "--check"]).exit_code == 0


@pytest.mark.parametrize("content, message", [("{", "not a certification JSON report"),
                                              ('{"results": []}', "not a certification JSON report")])
def test_a_broken_report_is_a_usage_error_naming_the_file(tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    done = CliRunner().invoke(main, ["certification-table", str(bad)])
    assert done.exit_code == 2 and f"{bad}: {message}" in done.output


def test_a_report_that_is_no_regular_file_is_a_usage_error_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "fifo.json")
    done = CliRunner().invoke(main, ["certification-table", str(tmp_path / "fifo.json")])
    assert done.exit_code == 2 and "not a regular file but a FIFO" in done.output


def test_a_readme_without_markers_is_a_usage_error(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("no table here\n")
    done = CliRunner().invoke(main, ["certification-table", "--root", str(ROOT), "--readme", str(readme), "--check"])
    assert done.exit_code == 2 and "no certification table markers" in done.output


def test_the_committed_reports_cover_every_shipped_scenario():
    """A scenario added to the suite without re-certifying leaves the table stale: name the reports that lack it."""
    shipped = {p.relative_to(ROOT / "suites").with_suffix("").as_posix() for p in (ROOT / "suites").rglob("*.yaml")
               if not p.name.endswith(".golden.yaml")}
    for path in sorted((ROOT / "certification").glob("*.json")):
        covered = {r["scenario"] for r in json.loads(path.read_text())["results"]}
        assert shipped <= covered, f"{path.name} lacks {sorted(shipped - covered)}: re-certify and regenerate the table"


def floor_files(folder, floor, newest, explanations):
    """NAME.floor.json, NAME.json and NAME.differences.yaml in ``folder``; the floor report's path."""
    (folder / "lib.floor.json").write_text(json.dumps(floor))
    (folder / "lib.json").write_text(json.dumps(newest))
    (folder / "lib.differences.yaml").write_text(explanations)
    return folder / "lib.floor.json"


def test_the_floor_table_counts_both_releases_and_explains_each_difference(tmp_path):
    path = floor_files(tmp_path, report("lib", "1.0", {"s/x": "xfail", "s/y": "pass", "s/z": "skip"}),
                       report("lib", "2.0", {"s/x": "pass", "s/y": "pass", "s/z": "xfail"}),
                       "s/x: >-\n  fixed in 1.5, the parser\n  keeps ids.\ns/z: 2.0 streams reasoning.\n")
    assert tables.render_floors(tables.load_floors([path])).splitlines() == [
        "| adapter | floor release | pass / warn / fail / skip | newest release | pass / warn / fail / skip | "
        "verdicts that differ |",
        "|---|---|---|---|---|---|",
        "| lib | 1.0 | 1 / 0 / 1 / 1 | 2.0 | 2 / 0 / 1 / 0 | 2 |",
        "",
        "- **lib** `s/x`: **fail** at 1.0, pass at 2.0. fixed in 1.5, the parser keeps ids.",
        "- **lib** `s/z`: skip at 1.0, **fail** at 2.0. 2.0 streams reasoning."]


@pytest.mark.parametrize("explanations, message", [
    ("{}\n", "lib.differences.yaml: no explanation for s/x (fail at 1.0, pass at 2.0)"),
    ("s/x: fixed.\ns/y: same.\n", "lib.differences.yaml: s/y: its verdict is the same at 1.0 and 2.0"),
    ("s/x: ''\n", "lib.differences.yaml: s/x: every known failure needs a reason"),
    ("[1, 2]\n", "lib.differences.yaml: expected a mapping"),
])
def test_an_unexplained_or_needless_explanation_is_an_error_naming_the_file(tmp_path, explanations, message):
    path = floor_files(tmp_path, report("lib", "1.0", {"s/x": "fail", "s/y": "pass"}),
                       report("lib", "2.0", {"s/x": "pass", "s/y": "pass"}), explanations)
    with pytest.raises(tables.TableError, match=re.escape(message)):
        tables.load_floors([path])


def test_a_floor_report_needs_its_newest_report_and_its_explanations(tmp_path):
    path = floor_files(tmp_path, report("lib", "1.0", {}), report("lib", "2.0", {}), "{}\n")
    (tmp_path / "lib.differences.yaml").unlink()
    with pytest.raises(tables.TableError, match="lib.floor.json: a floor report needs .*lib.differences.yaml"):
        tables.load_floors([path])
    (tmp_path / "lib.json").unlink()
    with pytest.raises(tables.TableError, match="lib.floor.json: a floor report needs the newest release's report"):
        tables.load_floors([path])


def test_check_and_write_cover_the_floor_table_too(tmp_path):
    path = floor_files(tmp_path, report("lib", "1.0", {"s/x": "fail"}), report("lib", "2.0", {"s/x": "pass"}),
                       "s/x: fixed.\n")
    readme = tmp_path / "README.md"
    readme.write_text(f"{tables.BEGIN}\n| stale |\n{tables.END}\nmiddle\n")
    args = ["certification-table", str(tmp_path / "lib.json"), str(path), "--readme", str(readme)]
    missing = CliRunner().invoke(main, [*args, "--check"])
    assert missing.exit_code == 2 and "no floor table markers" in missing.output
    readme.write_text(readme.read_text() + f"{tables.FLOOR_BEGIN}\n| stale floor |\n{tables.FLOOR_END}\n")
    checked = CliRunner().invoke(main, [*args, "--check"])
    assert checked.exit_code == 1 and "-| stale floor |" in checked.stdout and "-| stale |" in checked.stdout
    assert CliRunner().invoke(main, [*args, "--write"]).exit_code == 0
    text = readme.read_text()
    assert "middle" in text and "| lib | 1.0 | 0 / 0 / 1 / 0 | 2.0 | 1 / 0 / 0 / 0 | 1 |" in text and "| s/x | pass |" in text
    assert CliRunner().invoke(main, [*args, "--check"]).exit_code == 0


def _js_floor(name: str) -> str | None:
    """The FLOOR a JavaScript shim's module states (its factory takes a release), None for any other adapter."""
    try:
        factory = registry.resolve(name)
    except registry.AdapterLoadError:  # a Python shim whose library is not installed here
        return None
    return getattr(sys.modules[factory.__module__], "FLOOR", "") if getattr(factory, "takes_release", False) else None


def test_each_committed_floor_is_the_lower_bound_of_its_extra():
    """The floor a report certifies is the floor the adapter states: a Python shim's extra (the extra named by the
    adapter, its longest prefix among the extras) lists the library first, with ``>=FLOOR``; a JavaScript shim has no
    extra, its module states ``FLOOR``."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for path in sorted((ROOT / "certification").glob(f"*{tables.FLOOR_SUFFIX}")):
        adapter = json.loads(path.read_text())["adapter"]
        stated = _js_floor(adapter["name"])
        if stated is not None:
            assert stated == adapter["version"], f"{path.name}: certifies {adapter['version']}, but the shim's FLOOR is {stated!r}"
            continue
        extra = max((name for name in extras if adapter["name"].startswith(name)), key=len, default=None)
        assert extra, f"{path.name}: no extra for {adapter['name']}"
        assert f">={adapter['version']}," in extras[extra][0] or extras[extra][0].endswith(f">={adapter['version']}"), \
            f"{path.name}: certifies {adapter['version']}, but the extra {extra!r} says {extras[extra][0]!r}"


def test_a_javascript_floor_report_is_checked_against_the_shims_floor(monkeypatch):
    """The check above reads the shim's FLOOR: a stated floor other than the report's is caught (first in
    ai-sdk-agent.floor.json, whose factory lives in the same module and states the same FLOOR)."""
    from harness.adapters.js import ai_sdk

    assert _js_floor("ai-sdk") == ai_sdk.FLOOR == json.loads((ROOT / "certification/ai-sdk.floor.json").read_text())[
        "adapter"]["version"]
    monkeypatch.setattr(ai_sdk, "FLOOR", "4.0.101")
    assert _js_floor("ai-sdk-agent") == "4.0.101"
    with pytest.raises(AssertionError, match="ai-sdk-agent.floor.json: certifies 4.0.159, but the shim's FLOOR is "
                                             "'4.0.101'"):
        test_each_committed_floor_is_the_lower_bound_of_its_extra()
