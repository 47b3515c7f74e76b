"""`bedrock-harness site` (harness/studies/site.py): the results site built from the committed reports, its links
checked as files and anchors, its rows, filters and links checked in a real headless Chromium with a screenshot."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from test_report_html import CHROMIUM, chromium

ROOT = Path(__file__).resolve().parents[1]
REPORTS = sorted((ROOT / "certification").glob("*.json"))


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = CliRunner().invoke(main, ["site", "--output", str(out), "--root", str(ROOT)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    assert re.match(r"wrote .*index\.html: \d+ scenarios x \d+ reports, \d+ failing cells, \d+ reproductions", done.output)
    return out


def failing_cells() -> set[tuple[str, str]]:
    """(report stem, scenario) of every failing cell of the committed reports (a known failure too)."""
    return {(path.name.removesuffix(".json"), r["scenario"]) for path in REPORTS
            for r in json.loads(path.read_text())["results"] if r["status"] in ("fail", "xfail")}


def test_every_failing_cell_links_to_a_reproduction_written_from_its_report(site):
    index = (site / "index.html").read_text()
    linked = {html.unescape(m.group(1)) for m in re.finditer(r'class="repro" href="repro/([^"]+)/README\.md"', index)}
    cells = failing_cells()
    assert cells and linked == {f"{stem}/{sid.replace('/', '-')}" for stem, sid in cells}
    for folder in linked:
        made = site / "repro" / folder
        assert {"README.md", "repro.py", "expected.json"} <= {p.name for p in made.iterdir()}
        expected = json.loads((made / "expected.json").read_text())
        assert expected["status"] in ("fail", "xfail") and expected["headline"]
        assert (made / "cassettes" / f"{expected['scenario']}.yaml").is_file()


def test_every_explanation_link_lands_on_a_heading_of_its_page(site):
    index = (site / "index.html").read_text()
    links = re.findall(r'class="explained" href="explanations/([^"#]+)#([^"]+)"', index)
    assert len(links) > 100
    for page, anchor in links:
        assert f'id="{html.unescape(anchor)}"' in (site / "explanations" / html.unescape(page)).read_text()


def test_a_linked_upstream_bug_shows_on_its_cells(site):
    index = (site / "index.html").read_text()
    upstream = re.findall(r'class="upstream" href="([^"]+)"', index)
    assert upstream.count("https://github.com/BerriAI/litellm/pull/19506") == 10  # litellm 1.80.6's S1 cells
    # strands, strands-agent and strands-persisted at 1.19.0
    assert upstream.count("https://github.com/strands-agents/harness-sdk/issues/3425") == 3


def test_a_folder_without_reports_is_one_line(tmp_path):
    (tmp_path / "certification").mkdir()
    (tmp_path / "suites").mkdir()
    done = CliRunner().invoke(main, ["site", "--output", str(tmp_path / "out"), "--root", str(tmp_path)])
    assert done.exit_code == 2 and "no certification reports" in done.output


PROBE = """<script>
(function () {
  function seen(el) { return el.checkVisibility() && el.getBoundingClientRect().height > 0; }
  var select = function (id, value) { var el = document.getElementById(id); el.value = value;
    el.dispatchEvent(new Event("change")); };
  function snapshot() {
    var rows = Array.from(document.querySelectorAll("tr.row")).filter(seen).map(function (r) {
      return {id: r.id, level: r.getAttribute("data-level"),
              cells: Array.from(r.querySelectorAll("td.cell")).filter(seen).map(function (c) {
                return {library: c.getAttribute("data-library"), status: c.getAttribute("data-status"),
                        links: Array.from(c.querySelectorAll("a")).filter(seen).map(function (a) {
                          return a.className; })}; })}; });
    var columns = Array.from(document.querySelectorAll("thead th.col")).filter(seen).map(function (th) {
      return th.getAttribute("data-library"); });
    return {rows: rows, columns: columns};
  }
  var levels = Array.from(document.querySelectorAll("#level option")).map(function (o) { return o.value; });
  var found = {all: snapshot(), levels: levels};
  select("library", "litellm"); found.litellm = snapshot();
  select("library", "all"); select("level", levels[1]); found.level = snapshot();
  select("level", "all"); document.querySelector('.status button[data-status="fail"]').click(); found.fail = snapshot();
  document.querySelector('.status button[data-status="all"]').click(); found.again = snapshot();
  document.body.setAttribute("data-probe", JSON.stringify(found));
})();
</script>
"""


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not found: the results site is checked in a real headless "
                                              "browser (Debian: apt-get install chromium)")
def test_the_site_reads_in_a_real_browser_rows_filters_and_links(site, tmp_path):
    probed = site / "probed.html"
    probed.write_text((site / "index.html").read_text() + PROBE)
    dom = chromium(tmp_path, "--dump-dom", probed.as_uri())
    found = json.loads(html.unescape(re.search(r'data-probe="([^"]*)"', dom).group(1)))
    probed.unlink()

    scenarios = {r["scenario"] for path in REPORTS for r in json.loads(path.read_text())["results"]}
    everything = found["all"]
    assert len(everything["rows"]) == len(scenarios) and len(everything["columns"]) == len(REPORTS)
    fail_cells = [c for row in everything["rows"] for c in row["cells"] if c["status"] == "fail"]
    assert len(fail_cells) == len(failing_cells()) and all("repro" in c["links"] for c in fail_cells)
    assert all("explained" in c["links"] for c in fail_cells if c["library"] in ("litellm", "haystack", "llama-index"))

    litellm = found["litellm"]
    assert set(litellm["columns"]) == {"litellm"} and len(litellm["columns"]) == 3  # newest, persisted, floor
    assert all({c["library"] for c in row["cells"]} == {"litellm"} for row in litellm["rows"])

    level = found["levels"][1]
    assert found["level"]["rows"] and {row["level"] for row in found["level"]["rows"]} == {level}
    assert len(found["level"]["rows"]) < len(scenarios) or found["levels"] == ["all", level]

    failing = found["fail"]["rows"]
    assert failing and len(failing) < len(scenarios)
    assert all(any(c["status"] == "fail" for c in row["cells"]) for row in failing)
    assert {row["id"] for row in failing} == {row["id"] for row in everything["rows"]
                                             if any(c["status"] == "fail" for c in row["cells"])}
    assert len(found["again"]["rows"]) == len(scenarios)

    screenshot = tmp_path / "site.png"
    chromium(tmp_path, "--window-size=1600,1200", f"--screenshot={screenshot}", (site / "index.html").as_uri())
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and screenshot.stat().st_size > 50_000
    print(f"results site screenshot: {screenshot}")
