"""The README's certification table is generated from certification/*.json, and a test holds them equal."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.suite import certification_table as tables

ROOT = Path(__file__).resolve().parents[1]


def report(name, version, statuses):
    return {"adapter": {"name": name, "version": version},
            "results": [{"scenario": s, "status": st} for s, st in statuses.items()]}


def test_the_readme_table_matches_the_committed_reports():
    done = CliRunner().invoke(main, ["certification-table", "--root", str(ROOT), "--readme", str(ROOT / "README.md"),
                                     "--check"])
    assert done.exit_code == 0, done.output


def test_every_certified_library_has_a_report_and_a_column():
    block = tables.table_block((ROOT / "README.md").read_text())
    heads = block.splitlines()[0]
    for path in sorted((ROOT / "certification").glob("*.json")):
        name = json.loads(path.read_text())["adapter"]["name"]
        assert f" {name} " in heads, f"{path.name}: no column for {name}"
    assert len(list((ROOT / "certification").glob("*.json"))) >= 8


def test_render_shows_known_failures_as_fail_and_counts_them():
    table = tables.render([report("a", "1.0", {"s/x": "pass", "s/y": "xfail"}),
                           report("b", "2.0", {"s/x": "error", "s/y": "skip"})])
    assert table.splitlines() == [
        "| scenario | a 1.0 | b 2.0 |", "|---|---|---|",
        "| s/x | pass | **error** |", "| s/y | **fail** | skip |",
        "| **pass / fail / skip** | 1 / 1 / 0 | 0 / 0 / 1 |"]


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
