"""Upstream links (harness/report/links.py) and pointers (harness/report/pointers.py): the links file and its one-line
errors, a link's release range, `certify --links` saying in one line when a link is stale or missing, every report
format pointing a failing cell to its explanation, evidence and upstream bug, and the committed links files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.report.links import Link, LinksError, beside, check, for_cell, library_file, load_links
from harness.report.pointers import explanation, pointers, slug
from harness.suite.results import Result
from harness.suite.scenario import discover

ROOT = Path(__file__).resolve().parents[1]
BROKEN = "broken_adapters:SeparateToolResultMessages"  # fails edge/parallel-results-round-trip, passes the others
FAILING, PASSING = "edge/parallel-results-round-trip", "core/smoke-text"


def links_file(tmp_path: Path, entries: list[dict], name: str = "demo.links.yaml") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"links": entries}))  # JSON is YAML
    return path


def entry(scenario: str = FAILING, releases: str = "*", url: str = "https://github.com/o/r/issues/1",
          state: str = "open") -> dict:
    return {"scenario": scenario, "releases": releases, "url": url, "state": state}


@pytest.mark.parametrize("data, said", [
    ("[]", "expected a mapping with one key, links"),
    ("links: {}", "expected a mapping with one key, links"),
    ("links: [3]", "links[0]: expected a mapping"),
    ('{"links": [{"scenario": "core/smoke-text", "releases": "*", "state": "open"}]}',
     "links[0]: field 'url': required"),
    (json.dumps({"links": [entry(state="closed")]}), f"links[0] ({FAILING}): field 'state': 'closed' (known: open, fixed)"),
    (json.dumps({"links": [entry(releases="1.2 or so")]}), "field 'releases': '1.2 or so' is no PEP 440 specifier"),
    (json.dumps({"links": [entry(url="github.com/o/r/issues/1")]}), "field 'url': 'github.com/o/r/issues/1' is no http"),
    (json.dumps({"links": [{**entry(), "note": "x"}]}), "links[0]: field 'note': unknown"),
    (json.dumps({"links": [entry(scenario="core/nope")]}), "links[0] (core/nope): field 'scenario': no such scenario"),
    ("links: [", "cannot read"),
])
def test_a_bad_links_file_is_one_line_naming_file_entry_and_field(tmp_path, data, said):
    path = tmp_path / "demo.links.yaml"
    path.write_text(data)
    with pytest.raises(LinksError) as caught:
        load_links(path, [FAILING, PASSING])
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and said in message and "\n" not in message


def test_a_link_holds_for_the_releases_of_its_range():
    link = Link(FAILING, ">=1.2,<1.50.2", "https://x.invalid/1", "fixed")
    assert [link.holds(v) for v in ("1.1", "1.2", "1.50.1", "1.50.2", "2.0", "not-a-version")] == [
        False, True, True, False, False, False]
    assert Link(FAILING, "*", "https://x.invalid/1", "open").holds("anything at all")
    later = Link(FAILING, ">=2", "https://x.invalid/2", "open")
    assert for_cell([link, later], FAILING, "1.3") is link and for_cell([link, later], FAILING, "2.1") is later
    assert for_cell([link, later], FAILING, "1.60") is None and for_cell([link], PASSING, "1.3") is None


def test_check_says_stale_and_missing_links_in_one_line_each():
    results = [Result(FAILING, "fail", "x"), Result("core/a", "xfail", "known"), Result(PASSING, "pass"),
               Result("core/w", "warn", "judged"), Result("core/old", "pass")]
    links = [Link(FAILING, "*", "https://x.invalid/1", "open"), Link(PASSING, "<1", "https://x.invalid/2", "open"),
             Link("core/w", "*", "https://x.invalid/3", "open"), Link("core/old", ">=2", "https://x.invalid/4", "fixed")]
    lines = check(links, results, "0.5", "f.links.yaml")
    assert lines == [
        "f.links.yaml: missing link: core/a fails at 0.5 and no link names it (file the bug upstream and add its url)",
        "f.links.yaml: stale link: core/smoke-text is pass at 0.5 but is linked to https://x.invalid/2 (open) for "
        "releases <1; mark the range fixed before 0.5 or remove it",
        "f.links.yaml: stale link: core/w is warn at 0.5 but is linked to https://x.invalid/3 (open) for releases *; "
        "mark the range fixed before 0.5 or remove it"]


def certify(*args: str):
    return CliRunner().invoke(main, ["certify", "--root", str(ROOT), "--adapter", BROKEN, "--scenario", FAILING,
                                     "--scenario", PASSING, *args], catch_exceptions=False)


def test_certify_says_a_stale_link_in_one_line(tmp_path):
    path = links_file(tmp_path, [entry(), entry(PASSING, ">=0.1", "https://github.com/o/r/issues/2")])
    done = certify("--links", str(path), "--format", "text")
    said = [line for line in done.stderr.splitlines() if line.startswith("warning: ")]
    assert said == [f"warning: {path}: stale link: {PASSING} is pass at 0.1.0 but is linked to "
                    "https://github.com/o/r/issues/2 (open) for releases >=0.1; mark the range fixed before 0.1.0 or "
                    "remove it"]
    assert done.exit_code == 1  # the failure still fails: a link explains it, it does not excuse it


def test_certify_says_a_missing_link_in_one_line(tmp_path):
    path = links_file(tmp_path, [entry(releases="<0.1")])  # the range ends before the release run
    done = certify("--links", str(path), "--format", "text")
    said = [line for line in done.stderr.splitlines() if line.startswith("warning: ")]
    assert said == [f"warning: {path}: missing link: {FAILING} fails at 0.1.0 and no link names it (file the bug "
                    "upstream and add its url)"]


def test_a_bad_links_file_stops_certify_before_the_run(tmp_path):
    path = links_file(tmp_path, [entry(scenario="core/nope")])
    done = CliRunner().invoke(main, ["certify", "--root", str(ROOT), "--adapter", "reference", "--links", str(path)])
    assert done.exit_code == 2 and "field 'scenario': no such scenario in the suite" in done.output
    assert "scenarios:" not in done.output


PAGE = f"""# demo certification

## Verdicts

| scenario | 0.1.0 | finding |
|---|---|---|
| {FAILING} | **fail** | F2 |

## Findings (failures; `site-packages/demo`)

**F2 parallel results sent as separate user messages.** Bedrock rejects the follow-up.

## Warnings

### newest 0.1.0

- `{PASSING}`: nothing to say
"""


def test_every_format_points_a_failing_cell_to_its_explanation_evidence_and_upstream_bug(tmp_path):
    path = links_file(tmp_path, [entry()])
    path.with_name("demo.md").write_text(PAGE)
    anchor = f"{path.with_name('demo.md').as_posix()}#findings-failures-site-packagesdemo"
    evidence = f"bedrock-harness evidence --scenario {FAILING}"
    text = certify("--links", str(path), "--format", "text").stdout
    assert f"  explained: {anchor} (F2)\n  evidence: {evidence}\n  upstream: https://github.com/o/r/issues/1 (open)" in text
    markdown = certify("--links", str(path), "--format", "markdown").stdout
    assert "## Where each finding is explained" in markdown
    assert (f"- `{FAILING}` (fail): [{anchor}]({anchor}) (F2) · evidence: `{evidence}` · upstream: "
            "[https://github.com/o/r/issues/1](https://github.com/o/r/issues/1) (open)") in markdown
    page = certify("--links", str(path), "--format", "html").stdout
    assert '<a class="upstream" href="https://github.com/o/r/issues/1">' in page
    assert f'evidence: <code class="evidence">{evidence}</code>' in page and f"<code>{anchor}</code> (F2)" in page
    results = {r["scenario"]: r for r in json.loads(certify("--links", str(path), "--format", "json").stdout)["results"]}
    assert results[FAILING]["upstream"] == "https://github.com/o/r/issues/1" and results[FAILING]["explanation"] == anchor
    assert results[FAILING]["upstream_state"] == "open" and results[FAILING]["evidence"] == evidence
    assert results[PASSING]["upstream"] is None and "explanation" not in results[PASSING]


def test_without_links_a_report_holds_no_pointer():
    text = certify("--format", "text").stdout
    assert "evidence: bedrock-harness" not in text and "upstream:" not in text
    assert "Where each finding is explained" not in certify("--format", "markdown").stdout


def test_the_explanation_is_the_section_naming_the_scenario_or_its_code():
    assert slug("Findings (failures; evidence: `site-packages/litellm/...` of the release named)") == \
        "findings-failures-evidence-site-packageslitellm-of-the-release-named"
    assert slug("newest 2.68.0") == "newest-2680" and slug("Warnings (each rests on a judgement; `--strict`)") == \
        "warnings-each-rests-on-a-judgement---strict"
    section, codes = explanation(PAGE, FAILING, "fail")
    assert section.heading.startswith("Findings") and codes == ("F2",)
    warned, _ = explanation(PAGE, PASSING, "warn")
    assert warned.heading == "newest 0.1.0" and warned.parent == "Warnings"
    assert explanation(PAGE, "core/other", "fail") == (None, ())
    found = pointers([Result(FAILING, "fail"), Result(PASSING, "pass")], "0.1.0", (), "x/demo.md", PAGE)
    assert list(found) == [FAILING] and found[FAILING].explanation == "x/demo.md#findings-failures-site-packagesdemo"


# ---- the committed links files ----------------------------------------------------------------------------------

REPORTS = sorted((ROOT / "certification").glob("*.json"))


def test_each_committed_links_file_loads_against_the_suite_and_names_real_upstream_addresses():
    known = [s.id for s in discover(ROOT / "suites")]
    files = sorted((ROOT / "certification").glob("*.links.yaml"))
    assert files, "the libraries' links files are committed"
    for path in files:
        for link in load_links(path, known):
            assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+", link.url), (path, link)


def test_no_committed_link_is_stale_for_the_committed_reports():
    """Every link whose range holds a committed report's release names a cell failing there: check() finds no stale
    link (missing ones are allowed: not every finding is filed upstream yet)."""
    used = 0
    for report in REPORTS:
        links = beside(report)
        document = json.loads(report.read_text())
        results = [Result(r["scenario"], r["status"]) for r in document["results"]]
        stale = [line for line in check(links, results, document["adapter"]["version"], report.name) if "stale" in line]
        assert not stale, stale
        used += sum(1 for r in results if for_cell(links, r.scenario, document["adapter"]["version"]))
    assert used >= 10


def test_a_report_finds_its_librarys_files():
    folder = ROOT / "certification"
    assert library_file(folder / "litellm.floor.json", ".links.yaml") == folder / "litellm.links.yaml"
    assert library_file(folder / "strands-persisted.json", ".links.yaml") == folder / "strands.links.yaml"
    assert library_file(folder / "strands-agent.floor.json", ".md") == folder / "strands-agent.md"
    assert library_file(folder / "reference.json", ".links.yaml") is None


def test_the_certification_tables_show_the_upstream_bug_of_a_failing_cell(tmp_path):
    page = (ROOT / "docs" / "certification" / "third-party.md").read_text()
    assert "**fail** [fixed bug](https://github.com/BerriAI/litellm/pull/19506) at 1.80.6" in page
    assert "**fail** [fixed bug](https://github.com/strands-agents/harness-sdk/issues/3425) at 1.19.0" in page
    from harness.studies import certification_table

    document = json.loads((ROOT / "certification" / "reference.json").read_text())
    document["results"][0]["status"] = "fail"
    (tmp_path / "demo.json").write_text(json.dumps(document))
    links_file(tmp_path, [entry(document["results"][0]["scenario"])], "demo.links.yaml")
    table = certification_table.render(certification_table.load_reports([tmp_path / "demo.json"]))
    assert "| **fail** [open bug](https://github.com/o/r/issues/1) |" in table


def test_certify_with_jobs_links_the_merged_report(tmp_path):
    path = links_file(tmp_path, [entry(), entry(PASSING, "*", "https://github.com/o/r/issues/2")])
    done = certify("--links", str(path), "--format", "text", "--jobs", "2")
    assert done.stderr.count("warning: ") == 1 and f"stale link: {PASSING} is pass" in done.stderr
    assert "  upstream: https://github.com/o/r/issues/1 (open)" in done.stdout
