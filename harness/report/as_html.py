"""The HTML report: one self-contained file (inline style and script, no network asset) a person can browse.

A header (adapter, capabilities, versions, the verdict counts), the findings common to most failing scenarios
(left out of each scenario's own), a filter by status, then a row per scenario with its status, whole
reason and cassette; below a row with findings, a collapsed ``<details>`` holds each failing turn's aligned
expected/actual diff, its request problems and any request notes, and each warning under its reason. ``#all`` in the address expands every
finding, ``#none`` collapses them again.
"""

from __future__ import annotations

import re
import html
from typing import Any, Iterable, Mapping, Sequence

from harness.report.common import counted, levels_line, printable, shown_info, summary, unprefixed, versions
from harness.report.pointers import Pointer
from harness.report.recurring import Common, common_findings, without
from harness.suite.results import Result, TurnResult

__all__ = ["render_html"]

_STYLE = """
:root { --pass: #1a7f37; --fail: #cf222e; --error: #bc4c00; --skip: #6e7781; --xfail: #8250df; --xpass: #cf222e; --warn: #9a6700;
        --line: #d0d7de; --soft: #f6f8fa; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
body { margin: 1.5rem auto; max-width: 1200px; padding: 0 1rem; color: #1f2328; line-height: 1.4; }
h1 { font-size: 1.4rem; margin: 0 0 .5rem; } h1 small { color: #59636e; font-weight: normal; }
table { border-collapse: collapse; width: 100%; }
.results { table-layout: fixed; } .results col.scenario { width: 17rem; } .results col.status { width: 5.5rem; }
.results col.time { width: 4.5rem; } .results col.cassette { width: 9.5rem; }
.facts { width: auto; margin: .5rem 0 1rem; } .facts th { text-align: left; padding-right: 1rem; color: #59636e; }
.facts th, .facts td { font-weight: normal; padding: .1rem 1rem .1rem 0; vertical-align: top; }
.verdict { font-size: 1.05rem; margin: .25rem 0; } .verdict b { font-size: 1.2rem; }
.count { display: inline-block; margin-right: .6rem; } .count.zero { color: #8c959f; }
.results th { text-align: left; border-bottom: 2px solid var(--line); padding: .35rem .5rem; }
.results td { border-bottom: 1px solid var(--line); padding: .35rem .5rem; vertical-align: top; }
.results td.time { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.results td.reason, .results td.scenario { overflow-wrap: anywhere; }
tr.failing > td { background: #fff5f5; } tr.failing > td:first-child { box-shadow: inset 4px 0 var(--fail); }
tr.finding > td { padding: 0 .5rem .6rem 1.5rem; border-bottom: 1px solid var(--line); }
.badge { display: inline-block; min-width: 3.2rem; text-align: center; border-radius: 1rem; padding: 0 .5rem;
         color: #fff; font-weight: 600; font-size: .85rem; }
.s-pass { background: var(--pass); } .s-fail { background: var(--fail); } .s-error { background: var(--error); }
.s-skip { background: var(--skip); } .s-xfail { background: var(--xfail); } .s-xpass { background: var(--xpass); }
.s-warn { background: var(--warn); } tr.warning > td:first-child { box-shadow: inset 4px 0 var(--warn); }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .85rem; }
details > summary { cursor: pointer; color: #0969da; margin: .3rem 0; }
h3 { font-size: .9rem; margin: .6rem 0 .2rem; color: #59636e; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem;
      overflow-x: auto; margin: 0; }
pre .change { font-weight: 600; white-space: pre-wrap; overflow-wrap: anywhere; } pre.wrap { white-space: pre-wrap; } pre .head { color: #59636e; } pre .differ { background: #ffebe9; }
.common { border: 1px solid var(--line); border-left: 4px solid var(--fail); border-radius: 6px;
          padding: .2rem .9rem; margin: .5rem 0 1rem; } .common h2 { font-size: 1rem; margin: .4rem 0; }
.common p { margin: .2rem 0; color: #59636e; } .common code { white-space: pre-wrap; overflow-wrap: anywhere; }
.pointers { margin: .3rem 0; font-size: .85rem; overflow-wrap: anywhere; } .controls a { margin-right: 1rem; } tr.filtered { display: none; }
.filter button { font: inherit; font-size: .85rem; margin: 0 .3rem .3rem 0; padding: .1rem .6rem; cursor: pointer;
                 border: 1px solid var(--line); border-radius: 1rem; background: #fff; }
.filter button[aria-pressed="true"] { background: #1f2328; color: #fff; } footer { margin-top: 1.5rem; color: #59636e; font-size: .85rem; }
"""

_SCRIPT = """
function sync() {
  var hash = location.hash;
  if (hash !== "#all" && hash !== "#none") return;
  document.querySelectorAll("details").forEach(function (d) { d.open = hash === "#all"; });
}
addEventListener("hashchange", sync);
sync();
document.querySelectorAll(".filter button").forEach(function (button) {
  button.addEventListener("click", function () {
    var show = button.getAttribute("data-show");
    document.querySelectorAll(".filter button").forEach(function (b) { b.setAttribute("aria-pressed", b === button); });
    document.querySelectorAll("tr[data-status]").forEach(function (row) {
      row.classList.toggle("filtered", show !== "all" && row.getAttribute("data-status") !== show);
    });
  });
});
"""

_COLUMNS = ("scenario", "status", "time", "reason", "cassette")
ORDER = ("fail", "error", "warn", "xfail", "xpass", "skip", "pass")  # the rows' order: what needs a look first


def escape(text: str) -> str:
    """HTML-escaped, control characters written as their escapes (an adapter's text is text from anywhere)."""
    return html.escape(printable(text))


def render_html(results: Sequence[Result], adapter: Any = None, cassettes: Mapping[str, dict] | None = None,
                facts: Mapping[str, str] | None = None, certification: bool = False,
                pointers: Mapping[str, Pointer] | None = None, base: str = "") -> str:
    """The report as one HTML file, rows in ORDER; ``facts`` (label -> text) replace the default versions line;
    ``certification`` titles it as one (else as a run); ``pointers``: each pointed row says where it is explained
    (``base``: what a page's path is relative to, making it a link; none: the path shown as text)."""
    info = shown_info(adapter)
    kind = "Certification" if certification else "bedrock-harness run"
    title = f"{kind}: {info['name'] or 'adapter'} {info['version']}".rstrip()
    common = common_findings(results)
    ordered = sorted((without(r, common) for r in results), key=lambda r: ORDER.index(r.status))
    body = [*_header(results, info, facts, kind), *_common(common), _filter(results), *_table(ordered, cassettes or {}, pointers or {}, base),
            f"<footer>{escape(_versions_text(versions()))}</footer>"]
    return "\n".join(["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
                      '<meta name="viewport" content="width=device-width, initial-scale=1">',
                      f"<title>{escape(title)}</title>", f"<style>{_STYLE}</style>", "</head>", "<body>", *body,
                      f"<script>{_SCRIPT}</script>", "</body>", "</html>"]) + "\n"


def _versions_text(values: Mapping[str, str]) -> str:
    return (f"bedrock-harness {values['harness']}, botocore {values['botocore']}, boto3 {values['boto3']}, "
            f"Python {values['python']}")


def _header(results: Sequence[Result], info: dict, facts: Mapping[str, str] | None, kind: str) -> list[str]:
    rows = {"adapter": f"{info['name'] or '?'} {info['version']}".rstrip(),
            "capabilities": ", ".join(info["capabilities"]) or "none declared",
            **(facts if facts is not None else {"versions": _versions_text(versions())})}
    return [f"<h1>{escape(kind)}: <small>{escape(rows['adapter'])}</small></h1>", _verdict(results),
            '<table class="facts">', *(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows.items()),
            "</table>", '<p class="controls"><a href="#all">expand all findings</a><a href="#none">collapse all</a></p>']


def _verdict(results: Sequence[Result]) -> str:
    counts = summary(results)
    chips = " ".join(f'<span class="count{"" if n else " zero"}"><b>{n}</b> {status}</span>'
                     for status, n in counts.items())
    seconds = sum(r.duration_s for r in results)
    return (f'<p class="verdict">{counted(len(results), "scenario")}: {chips} in {seconds:.2f}s</p>'
            f'<p class="levels">{escape(levels_line(results))}</p>')


def _common(common: Sequence[Common]) -> list[str]:
    """The findings common to most failing scenarios, once, above the rows they are left out of."""
    if not common:
        return []
    items = "".join(f"<li>in {len(c.scenarios)} of {c.of} failing scenarios: <code>{escape(c.finding)}</code></li>"
                    for c in common)
    return ['<section class="common"><h2>Common to most failing scenarios</h2>',
            f"<p>Left out of each scenario's findings below.</p><ul>{items}</ul></section>"]


def _filter(results: Sequence[Result]) -> str:
    """A button per status the run has, and one for all: clicking one shows only its rows (inline script)."""
    counts = summary(results)
    buttons = [("all", len(results))] + [(status, counts[status]) for status in ORDER if counts[status]]
    return '<p class="filter">show: ' + "".join(
        f'<button type="button" data-show="{status}" aria-pressed="{str(status == "all").lower()}">{status} {n}</button>'
        for status, n in buttons) + "</p>"


def _table(results: Sequence[Result], cassettes: Mapping[str, dict], pointers: Mapping[str, Pointer],
           base: str) -> list[str]:
    cols = "".join(f'<col class="{name}">' for name in _COLUMNS)
    head = "".join(f"<th>{name}</th>" for name in _COLUMNS)
    rows = [line for result in results for line in _rows(result, cassettes.get(result.scenario),
                                                         pointers.get(result.scenario), base)]
    return ['<table class="results">', f"<colgroup>{cols}</colgroup>", f"<thead><tr>{head}</tr></thead>", "<tbody>",
            *rows, "</tbody>", "</table>"]


def _anchor(scenario: str) -> str:
    return "s-" + re.sub(r"[^A-Za-z0-9_-]", "-", scenario)


def _rows(result: Result, cassette: Mapping | None, pointer: Pointer | None = None, base: str = "") -> list[str]:
    """The scenario's row, then (when it has findings) a row holding them, collapsed."""
    classes = "row failing" if result.failing else "row warning" if result.status == "warn" else "row"
    first = unprefixed(result.scenario, result.reason.splitlines()[0] if result.reason.strip() else "")
    cells = [f"<code>{escape(result.scenario)}</code>", f'<span class="badge s-{result.status}">{result.status}</span>',
             f"{result.duration_s:.2f}s", escape(first), _cassette_cell(cassette)]
    row = "".join(f'<td class="{name}">{cell}</td>' for name, cell in zip(_COLUMNS, cells))
    findings = _pointed(pointer, base) + _findings(result)
    status = f'data-status="{result.status}"'
    extra = [f'<tr class="finding" {status}><td colspan="{len(_COLUMNS)}">{findings}</td></tr>'] if findings else []
    return [f'<tr class="{classes}" id="{_anchor(result.scenario)}" {status}>{row}</tr>', *extra]


def _pointed(pointer: Pointer | None, base: str) -> str:
    """Where the row's finding is explained, its evidence, its upstream bug and its reproduction, as one line."""
    if pointer is None:
        return ""
    parts = []
    if pointer.explanation:
        codes = f" ({', '.join(pointer.codes)})" if pointer.codes else ""
        where = escape(pointer.explanation)
        parts.append(f'explained: <a class="explained" href="{escape(base + pointer.explanation)}">{where}</a>{codes}'
                     if base else f"explained: <code>{where}</code>{codes}")
    parts.append(f'evidence: <code class="evidence">{escape(pointer.evidence)}</code>')
    if pointer.upstream:
        url = escape(pointer.upstream.url)
        parts.append(f'upstream: <a class="upstream" href="{url}">{url}</a> ({escape(pointer.upstream.state)})')
    if pointer.repro:
        parts.append(f'reproduce: <a class="repro" href="{escape(base + pointer.repro)}">{escape(pointer.repro)}</a>')
    return f'<p class="pointers">{" · ".join(parts)}</p>'


def _cassette_cell(cassette: Mapping | None) -> str:
    if not cassette:
        return ""
    sha = cassette.get("sha256")
    label = f"{sha[:12]}…" if sha else "missing"
    return f'<code title="{escape(str(cassette.get("path")))} sha256 {escape(sha or "missing")}">{escape(label)}</code>'


def _findings(result: Result) -> str:
    """A collapsed ``<details>``: the whole reason when it says more than its row, then each failing turn."""
    failing = [turn for turn in result.turns if not turn.ok or turn.request_notes or turn.warnings]
    reason = result.reason.strip()
    sections = [] if failing or "\n" not in reason else [_section("reason", reason, result.scenario, True)]
    sections += [section for turn in failing for section in _turn_sections(turn, result.scenario)]
    if not sections:
        return ""
    what = ", ".join(f"turn {t.index}" for t in failing) or "the whole reason"
    return f"<details><summary>findings: {escape(what)}</summary>{''.join(sections)}</details>"


def _turn_sections(turn: TurnResult, scenario: str) -> list[str]:
    """The turn's chunk diff and laws, the rules its request broke, its request's diff from the golden, its notes."""
    diffs = turn.request_texts()[len(turn.request_problems):]
    parts = [(f"turn {turn.index} · chunks", turn.chunk_text(), False),
             (f"turn {turn.index} · request: what Bedrock rejects", "\n".join(turn.request_problems), True),
             (f"turn {turn.index} · request: against the golden", "\n\n".join(diffs), False),
             (f"turn {turn.index} · request: notes (not failures)", "\n".join(turn.request_notes), True),
             *((f"turn {turn.index} · warning: {w.reason}", w.finding, False) for w in turn.warnings)]
    return [_section(title, text, scenario, wrap) for title, text, wrap in parts if text]


def _section(title: str, text: str, scenario: str, wrap: bool = False) -> str:
    """A titled ``<pre>``; ``wrap`` wraps long lines (text with no columns to keep aligned)."""
    lines = [unprefixed(scenario, line) for line in text.splitlines()]
    attrs = ' class="wrap"' if wrap else ""
    return f"<h3>{escape(title)}</h3><pre{attrs}>{''.join(_lines(lines))}</pre>"


def _lines(lines: Iterable[str]) -> Iterable[str]:
    """Each line escaped and classed: the change lines on top, the listing's header and its differing rows."""
    leading = True
    for line in lines:
        leading = leading and bool(line.strip())
        kind = ("differ" if line.startswith("!") else "head" if line.startswith("      expected ")
                else "change" if leading else "")
        text = escape(line)
        yield f'<span class="{kind}">{text}</span>\n' if kind else f"{text}\n"
