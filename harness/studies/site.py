"""The results site (``bedrock-harness site --output DIR``): every committed certification report side by side.

Built from ``certification/*.json`` (each library's newest release and, as ``NAME.floor.json``, its floor): one
static page, ``index.html`` (inline style and script, nothing fetched), holding a matrix of scenarios (rows, each
with its level) against libraries and releases (columns), and filters by library, level and status. A failing or
warning cell links to its explanation (its section of ``certification/NAME.md``, rendered under ``explanations/``
with GitHub's heading anchors), to its upstream bug (``NAME.links.yaml``) and, for a failing one, to its
reproduction (``repro/<report>/<scenario>/``, written here by harness.studies.repro from the report: nothing runs).
The documentation build publishes it (docs/hooks/results_site.py).
"""

from __future__ import annotations

import html
import json
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.cassettes.files import write_atomic
from harness.report.links import LinksError, beside, library_file
from harness.report.pointers import Pointer, pointers, slug
from harness.studies import repro as reproduction

__all__ = ["Column", "SiteError", "build", "columns"]

_SHOWN = {"xfail": "fail"}  # a known failure is a failure of the library, on evidence (as the tables show it)


class SiteError(ValueError):
    """A report that cannot be used; the message names the file."""


@dataclass(frozen=True)
class Column:
    """One report: a library at one release."""

    stem: str  # the report's file name without .json: litellm, litellm.floor, litellm-persisted
    library: str  # the library the filter groups it under (a -persisted variant is its library's)
    label: str  # "litellm-persisted 1.110.2"
    floor: bool
    document: dict
    pointers: dict[str, Pointer]
    page: Path | None  # its certification page

    def status(self, scenario: str) -> str:
        found = next((r["status"] for r in self.document["results"] if r["scenario"] == scenario), "")
        return _SHOWN.get(found, found) or "-"


def columns(folder: Path) -> list[Column]:
    """A column per report in ``folder``: the reference adapters first, then each library's reports, newest first."""
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
            name, version = document["adapter"]["name"], str(document["adapter"].get("version") or "")
            results = [_Result(r["scenario"], r["status"]) for r in document["results"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SiteError(f"{path}: not a certification JSON report ({type(exc).__name__}: {exc})") from None
        stem, floor = path.name.removesuffix(".json"), path.name.endswith(".floor.json")
        page = library_file(path, ".md")
        try:
            links = beside(path)
        except LinksError as exc:
            raise SiteError(str(exc)) from None
        shown = f"{folder.name}/{page.name}" if page is not None else None  # as the committed path reads
        found.append(Column(stem, stem.removesuffix(".floor").removesuffix("-persisted"),
                            f"{name} {version}{' (floor)' if floor else ''}".strip(), floor, document,
                            pointers(results, version, links, shown, page.read_text(encoding="utf-8") if page else None),
                            page))
    return sorted(found, key=lambda c: (not c.library.startswith("reference"), c.library, c.stem.endswith("-persisted"),
                                        c.floor))


@dataclass(frozen=True)
class _Result:
    scenario: str
    status: str


def build(root: Path, output: Path, scenarios: Sequence, apps: Callable | None = None) -> dict:
    """The site of ``root``'s committed reports (``scenarios``: the suite, for levels and reproductions) in
    ``output``; returns counts (columns, rows, failing cells, reproductions)."""
    folder = root / "certification"
    cols = columns(folder)
    if not cols:
        raise SiteError(f"{folder}: no certification reports (*.json)")
    output.mkdir(parents=True, exist_ok=True)
    for stale in ("repro", "explanations"):
        shutil.rmtree(output / stale, ignore_errors=True)
    by_id = {s.id: s for s in scenarios}
    made = {c.stem: reproduction.from_report(c.document, scenarios, root, output / "repro", c.stem, c.pointers, apps)
            for c in cols}
    pages = {c.page for c in cols if c.page is not None}
    (output / "explanations").mkdir()
    for page in pages:
        write_atomic(output / "explanations" / f"{page.stem}.html", _explanation(page))
    rows = sorted({r["scenario"] for c in cols for r in c.document["results"]})
    write_atomic(output / "index.html", _index(cols, rows, by_id, made))
    failing = sum(1 for c in cols for s in rows if c.status(s) == "fail")
    return {"columns": len(cols), "rows": len(rows), "failing": failing,
            "reproductions": sum(len(m) for m in made.values())}


def _level(scenario) -> str:
    return getattr(scenario, "level", None) or "unstated"


def _e(text: object) -> str:
    return html.escape(str(text))


def _cell(column: Column, scenario: str, made: dict) -> str:
    status = column.status(scenario)
    attrs = f'data-library="{_e(column.library)}" data-status="{_e(status)}"'
    pointer = column.pointers.get(scenario)
    links = []
    if pointer is not None and pointer.explanation and column.page is not None:
        anchor = pointer.explanation.partition("#")[2]
        codes = ", ".join(pointer.codes)
        links.append(f'<a class="explained" href="explanations/{_e(column.page.stem)}.html#{_e(anchor)}" '
                     f'title="{_e(pointer.explanation)}">why{" " + _e(codes) if codes else ""}</a>')
    if pointer is not None and pointer.upstream is not None:
        links.append(f'<a class="upstream" href="{_e(pointer.upstream.url)}" title="{_e(pointer.upstream.label)} '
                     f'releases {_e(pointer.upstream.releases)}">{_e(pointer.upstream.state)} bug</a>')
    folder = made.get(column.stem, {}).get(scenario)
    if folder is not None:
        links.append(f'<a class="repro" href="repro/{_e(reproduction.folder_name(column.stem, scenario))}/README.md">'
                     "repro</a>")
    title = f' title="{_e(pointer.evidence)}"' if pointer is not None else ""
    known = " (known)" if any(r["scenario"] == scenario and r["status"] == "xfail"
                              for r in column.document["results"]) else ""
    shown = f'<span class="badge s-{_e(status)}"{title}>{_e(status)}{known}</span>'
    return f'<td class="cell" {attrs}>{shown}{"".join(links)}</td>'


def _index(cols: Sequence[Column], rows: Sequence[str], by_id: dict, made: dict) -> str:
    libraries = list(dict.fromkeys(c.library for c in cols))
    levels = sorted({_level(by_id.get(s)) for s in rows})
    head = "".join(f'<th class="col" data-library="{_e(c.library)}">{_e(c.label)}</th>' for c in cols)
    body = [f'<tr class="row" id="{_e(slug(s.replace("/", "-")))}" data-level="{_e(_level(by_id.get(s)))}">'
            f'<th class="scenario"><code>{_e(s)}</code> <span class="level">{_e(_level(by_id.get(s)))}</span></th>'
            + "".join(_cell(c, s, made) for c in cols) + "</tr>" for s in rows]
    options = "".join(f'<option value="{_e(name)}">{_e(name)}</option>' for name in libraries)
    level_options = "".join(f'<option value="{_e(name)}">{_e(name)}</option>' for name in levels)
    statuses = "".join(f'<button type="button" data-status="{s}" aria-pressed="{str(s == "all").lower()}">{s}</button>'
                       for s in ("all", "fail", "warn", "error", "skip", "pass"))
    counts = f"{len(rows)} scenarios × {len(cols)} reports ({len(libraries)} libraries)"
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>bedrock-harness: certification results</title>", f"<style>{_STYLE}</style>", "</head>", "<body>",
        "<h1>Certification results</h1>",
        f'<p class="about">{_e(counts)}: each library certified at its newest release and at its floor, from the '
        "committed reports (certification/*.json). A failing cell links to why it fails (the certification's "
        "write-up), its upstream bug when one is known and a reproduction its maintainers can run; a warning rests "
        "on a judgement, not on evidence about Bedrock.</p>",
        '<form class="filters" onsubmit="return false">',
        f'<label>library <select id="library"><option value="all">all</option>{options}</select></label>',
        f'<label>level <select id="level"><option value="all">all</option>{level_options}</select></label>',
        f'<span class="status">status {statuses}</span>', "</form>",
        '<div class="matrix"><table>', f'<thead><tr><th class="scenario">scenario</th>{head}</tr></thead>',
        "<tbody>", *body, "</tbody>", "</table></div>", f"<script>{_SCRIPT}</script>", "</body>", "</html>"]) + "\n"


def _explanation(page: Path) -> str:
    """A certification page as HTML, each heading with GitHub's anchor (Python-Markdown when installed, else the text
    of each section under its heading)."""
    text = page.read_text(encoding="utf-8")
    try:
        import markdown

        body = markdown.markdown(text, extensions=["tables", "fenced_code", "toc"],
                                 extension_configs={"toc": {"slugify": lambda value, separator: slug(value)}})
    except ImportError:
        parts = re.split(r"^(#{1,3})\s+(.+?)\s*$", text, flags=re.MULTILINE)
        body = f"<pre>{_e(parts[0])}</pre>" + "".join(
            f'<h{len(parts[i])} id="{_e(slug(parts[i + 1]))}">{_e(parts[i + 1])}</h{len(parts[i])}>'
            f"<pre>{_e(parts[i + 2])}</pre>" for i in range(1, len(parts) - 2, 3))
    return "\n".join(["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
                      f"<title>{_e(page.name)}</title>", f"<style>{_STYLE}</style>", "</head>", "<body>",
                      f'<p><a href="../index.html">all results</a> · certification/{_e(page.name)}</p>', body,
                      "</body>", "</html>"]) + "\n"


_STYLE = """
:root { --pass: #1a7f37; --fail: #cf222e; --error: #bc4c00; --skip: #6e7781; --warn: #9a6700; --line: #d0d7de;
        font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; }
body { margin: 1.5rem; line-height: 1.4; } h1 { font-size: 1.4rem; margin: 0 0 .5rem; } .about { max-width: 70rem; }
.filters { display: flex; gap: 1.2rem; align-items: center; margin: .8rem 0; flex-wrap: wrap; }
.filters button { font: inherit; font-size: .85rem; margin-left: .3rem; padding: .1rem .6rem; cursor: pointer;
                  border: 1px solid var(--line); border-radius: 1rem; background: #fff; }
.filters button[aria-pressed="true"] { background: #1f2328; color: #fff; }
.matrix { overflow-x: auto; } table { border-collapse: collapse; }
th, td { border: 1px solid var(--line); padding: .25rem .4rem; vertical-align: top; font-size: .85rem; }
thead th { position: sticky; top: 0; background: #f6f8fa; writing-mode: vertical-rl; transform: rotate(180deg);
           white-space: nowrap; text-align: left; }
thead th.scenario { writing-mode: horizontal-tb; transform: none; vertical-align: bottom; }
th.scenario { text-align: left; white-space: nowrap; background: #fff; position: sticky; left: 0; }
.level { color: #59636e; font-weight: normal; font-size: .75rem; } td.cell a { display: block; font-size: .75rem; }
.badge { display: inline-block; border-radius: 1rem; padding: 0 .45rem; color: #fff; font-weight: 600;
         font-size: .75rem; white-space: nowrap; background: var(--skip); }
.s-pass { background: var(--pass); } .s-fail { background: var(--fail); } .s-error { background: var(--error); }
.s-warn { background: var(--warn); } .hidden { display: none; }
pre { white-space: pre-wrap; background: #f6f8fa; padding: .5rem; } table code { white-space: nowrap; }
"""

_SCRIPT = """
var state = {library: "all", level: "all", status: "all"};
function apply() {
  document.querySelectorAll("[data-library]").forEach(function (el) {
    el.classList.toggle("hidden", state.library !== "all" && el.getAttribute("data-library") !== state.library);
  });
  document.querySelectorAll("tr.row").forEach(function (row) {
    var cells = Array.from(row.querySelectorAll("td.cell")).filter(function (c) {
      return !c.classList.contains("hidden"); });
    var levelOk = state.level === "all" || row.getAttribute("data-level") === state.level;
    var statusOk = state.status === "all" || cells.some(function (c) {
      return c.getAttribute("data-status") === state.status; });
    row.classList.toggle("hidden", !(levelOk && statusOk));
  });
}
["library", "level"].forEach(function (name) {
  document.getElementById(name).addEventListener("change", function (e) { state[name] = e.target.value; apply(); });
});
document.querySelectorAll(".status button").forEach(function (button) {
  button.addEventListener("click", function () {
    state.status = button.getAttribute("data-status");
    document.querySelectorAll(".status button").forEach(function (b) { b.setAttribute("aria-pressed", b === button); });
    apply();
  });
});
apply();
"""
