"""The HTML report: one self-contained file, checked as markup and in a real headless Chromium.

The browser test runs `bedrock-harness run --format html` with a deliberately broken adapter, opens the file in
Debian's Chromium, and asks the browser itself (a probe script appended to a copy of the report) which failing
rows and which diff lines are visible, collapsed and expanded. The screenshot stays in the test's tmp folder.
"""

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.judge.compare import diff_chunks
from harness.report import render, render_html
from harness.suite.results import Result, TurnResult

REPO = Path(__file__).resolve().parents[1]
ADAPTER = {"name": "demo", "version": "1.2", "capabilities": {"text", "tool_use"}}
DIFF = diff_chunks([{"type": "tool_call", "id": "tooluse_A", "name": "read_file", "input": {"path": "/tmp/a.txt"}}],
                   [{"type": "tool_call", "id": "tooluse_A", "name": "read_file", "input": {"path": "/tmp/b.txt"}}],
                   scenario="core/single-call", turn=0)
RULE = "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_B"
CASSETTES = {"core/single-call": {"path": "cassettes/core/single-call.yaml", "sha256": "0123456789abcdef" * 4}}


def results():
    return [Result("core/smoke-text", "pass", "", (TurnResult(0),), 0.01),
            Result("core/single-call", "fail", DIFF.headline, (TurnResult(0, (DIFF,), (), (RULE,)),), 0.2),
            Result("edge/thinking", "skip", "adapter lacks reasoning <and> more", (), 0.0),
            Result("faults/x", "error", "subprocess adapter crashed\nstderr line <1>\nstderr line 2", (), 0.3)]


class Page(HTMLParser):
    """Tags with their attributes, and the text, of an HTML document."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.text = [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_one_self_contained_file_with_no_network_asset():
    text = render_html(results(), ADAPTER, CASSETTES)
    page = Page(text)
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    links = [attrs.get("href") or attrs.get("src") for tag, attrs in page.tags if "href" in attrs or "src" in attrs]
    assert links == ["#all", "#none"]
    assert {tag for tag, _ in page.tags} >= {"style", "script", "table", "details"} and "@import" not in text
    assert not [tag for tag, _ in page.tags if tag in ("link", "img", "iframe", "object", "embed")]
    assert not re.search(r"url\(|https?://", text)


def test_a_row_per_scenario_with_its_status_whole_reason_and_cassette():
    page = Page(render_html(results(), ADAPTER, CASSETTES))
    rows = [attrs for tag, attrs in page.tags if tag == "tr" and "row" in attrs.get("class", "")]
    assert [row["id"] for row in rows] == ["s-core-single-call", "s-faults-x", "s-edge-thinking", "s-core-smoke-text"]
    assert [row["class"] for row in rows] == ["row failing", "row failing", "row", "row"]
    badges = [attrs["class"] for tag, attrs in page.tags if "badge" in attrs.get("class", "")]
    assert badges == ["badge s-fail", "badge s-error", "badge s-skip", "badge s-pass"]
    text = "".join(page.text)
    assert "adapter lacks reasoning <and> more" in text  # escaped in the file, whole on the page
    assert "turn 0 chunk 0 (tool_call): expected input.path '/tmp/a.txt' / actual '/tmp/b.txt'" in text
    assert "0123456789ab…" in text and "cassettes/core/single-call.yaml sha256 " + "0123456789abcdef" * 4 in \
        [attrs.get("title") for _, attrs in page.tags]


def test_findings_are_collapsed_and_hold_the_aligned_diff_and_the_request_problems():
    text = render_html(results(), ADAPTER, CASSETTES)
    page = Page(text)
    details = [attrs for tag, attrs in page.tags if tag == "details"]
    assert len(details) == 2 and not [d for d in details if "open" in d]  # the failing turn and the crash's tail
    assert "<span class=\"differ\">!   0 tool_call ...&quot;path&quot;: &quot;/tmp/a.txt&quot;}}" in text
    assert '<span class="head">      expected chunks' in text
    assert "turn 0 · request: what Bedrock rejects</h3><pre class=\"wrap\"><span class=\"change\">" + RULE in text
    assert "stderr line &lt;1&gt;" in text and "<script>alert" not in render_html(
        [Result("core/x", "fail", "<script>alert(1)</script>")])


def test_request_notes_show_under_their_row_even_when_it_passed():
    note = "warning alternating-roles (not enforced for this model): two user messages in a row"
    text = render_html([Result("core/nova", "pass", "", (TurnResult(0), TurnResult(1, request_notes=(note,))), 0.1)])
    assert "<summary>findings: turn 1</summary>" in text
    assert "turn 1 · request: notes (not failures)</h3><pre class=\"wrap\"><span class=\"change\">" + note in text


def test_the_header_names_adapter_capabilities_versions_and_counts():
    text = "".join(Page(render_html(results(), ADAPTER)).text)
    assert "bedrock-harness run: demo 1.2" in text and "text, tool_use" in text
    assert re.search(r"bedrock-harness \S+, botocore \S+, boto3 \S+, Python \S+", text)
    assert re.search(r"4 scenarios: 1 pass 0 warn 1 fail 1 error 1 skip 0 xfail 0 xpass in 0\.51s", " ".join(text.split()))
    facts = "".join(Page(render_html(results(), ADAPTER, facts={"run as": "subprocess node a.mjs"})).text)
    assert "run as" in facts and "subprocess node a.mjs" in facts


def test_rows_go_failures_first_then_error_warn_xfail_xpass_skip_pass_each_in_run_order():
    statuses = ["pass", "skip", "xpass", "fail", "warn", "xfail", "error", "fail", "pass"]
    runs = [Result(f"s/{n}-{status}", status, "why" if status != "pass" else "") for n, status in enumerate(statuses)]
    page = Page(render_html(runs))
    rows = [attrs["id"] for tag, attrs in page.tags if tag == "tr" and "row" in attrs.get("class", "")]
    assert rows == ["s-s-3-fail", "s-s-7-fail", "s-s-6-error", "s-s-4-warn", "s-s-5-xfail", "s-s-2-xpass",
                    "s-s-1-skip", "s-s-0-pass", "s-s-8-pass"]
    buttons = [attrs["data-show"] for tag, attrs in page.tags if tag == "button"]
    assert buttons == ["all", "fail", "error", "warn", "xfail", "xpass", "skip", "pass"]


def test_a_run_is_titled_as_a_run_and_a_certification_as_a_certification():
    from harness.studies import certify

    title = re.compile(r"<title>(.*)</title>")
    assert title.search(render_html(results(), ADAPTER)).group(1) == "bedrock-harness run: demo 1.2"
    cert = certify.Certification(ADAPTER, tuple(results()), CASSETTES, {"harness": "0", "botocore": "1", "boto3": "2",
                                                                        "python": "3"}, "2026-01-01T00:00:00Z")
    page = certify.render_html(cert)
    assert title.search(page).group(1) == "Certification: demo 1.2" and "<h1>Certification: <small>demo 1.2" in page


def test_render_hands_the_cassettes_to_html():
    assert render(results(), ADAPTER, "html", cassettes=CASSETTES) == render_html(results(), ADAPTER, CASSETTES)


# ---- in a real browser ------------------------------------------------------------------------------------

CHROMIUM = next((found for name in ("chromium", "chromium-browser") if (found := shutil.which(name))), None)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")
PROBE = """<script>
(function () {
  function seen(el) { return el.checkVisibility() && el.getBoundingClientRect().height > 0; }
  var rows = Array.from(document.querySelectorAll("tr.row")).map(function (r) {
    return {id: r.id, failing: r.classList.contains("failing"), visible: seen(r), text: r.innerText}; });
  var lines = Array.from(document.querySelectorAll("details pre span")).map(function (s) {
    return {visible: seen(s), text: s.textContent}; });
  document.body.setAttribute("data-probe", JSON.stringify({rows: rows, lines: lines}));
})();
</script>
"""
BROKEN = ("--adapter", "broken_adapters:SeparateToolResultMessages", "--scenario", "core/smoke-text",
          "--scenario", "core/round-trip", "--scenario", "edge/parallel-results-round-trip")


def chromium(tmp_path, *args):
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    profile.mkdir()
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def probe(tmp_path, report: Path, fragment: str, click: str = "") -> dict:
    """What the browser shows of ``report`` opened at ``fragment``, after clicking the element ``click`` selects."""
    probed = report.with_name("probed.html")
    clicking = f"<script>document.querySelector({json.dumps(click)}).click();</script>" if click else ""
    probed.write_text(report.read_text(encoding="utf-8") + clicking + PROBE, encoding="utf-8")
    dom = chromium(tmp_path, "--dump-dom", probed.as_uri() + fragment)
    found = re.search(r'data-probe="([^"]*)"', dom)
    assert found, dom[:2000]
    return json.loads(found.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                      .replace("&amp;", "&"))


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not found: the HTML report is checked in a real headless "
                                              "browser (Debian: apt-get install chromium)")
def test_the_report_of_a_failing_run_reads_in_a_real_browser(tmp_path):
    report = tmp_path / "report.html"
    done = CliRunner().invoke(main, ["run", *BROKEN, "--format", "html", "--output", str(report),
                                     "--root", str(REPO)], catch_exceptions=False)
    assert done.exit_code == 1, done.output

    collapsed = probe(tmp_path, report, "")
    failing = [row for row in collapsed["rows"] if row["failing"]]
    assert [row["id"] for row in failing] == ["s-edge-parallel-results-round-trip"] and failing[0]["visible"]
    # the reason is Bedrock's rule text: the same results in two user messages is only another form of the golden's
    assert "fail" in failing[0]["text"] and "A conversation must alternate" in failing[0]["text"]
    assert all(row["visible"] for row in collapsed["rows"]) and len(collapsed["rows"]) == 3
    assert collapsed["lines"] and not any(line["visible"] for line in collapsed["lines"])  # collapsed by default

    expanded = probe(tmp_path, report, "#all")
    shown = [line["text"] for line in expanded["lines"] if line["visible"]]
    assert len(shown) == len(expanded["lines"])
    assert any(line.startswith("!   -") and "0 error {\"code\": \"validationException\"}" in line for line in shown)
    assert any("expected messages" in line for line in shown)
    assert any(line.startswith("turn 1 request expected no messages[3] / actual messages[3]") for line in shown)

    filtered = probe(tmp_path, report, "", click='button[data-show="pass"]')
    assert {row["id"]: row["visible"] for row in filtered["rows"]} == {
        "s-edge-parallel-results-round-trip": False, "s-core-smoke-text": True, "s-core-round-trip": True}
    assert not any(line["visible"] for line in probe(tmp_path, report, "#all", click='button[data-show="pass"]')["lines"])
    again = probe(tmp_path, report, "", click='button[data-show="all"]')
    assert all(row["visible"] for row in again["rows"]) and [row["id"] for row in again["rows"]][0] == failing[0]["id"]

    screenshot = tmp_path / "report.png"
    chromium(tmp_path, "--window-size=1280,1400", f"--screenshot={screenshot}", report.as_uri() + "#all")
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and screenshot.stat().st_size > 20_000
    print(f"HTML report screenshot: {screenshot}")
