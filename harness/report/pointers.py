"""Where a failing or warning cell is explained: its section of ``certification/NAME.md``, the evidence of what it
was judged on (``bedrock-harness evidence --scenario ID``), the upstream bug (``NAME.links.yaml``) and, on the
results site, its reproduction.

The explanation is found, not declared: the page's sections (``##`` and ``###`` headings) are searched for one that
names the scenario, or a finding code (``F1``, ``W3``) its row of the page's verdict table gives, preferring a section
about failures for a failing cell and one about warnings for a warning. The anchor is GitHub's heading slug (the
pages are read where they are committed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.report.links import Link, for_cell

__all__ = ["POINTED", "Pointer", "Section", "explanation", "markdown_lines", "pointers", "sections", "slug",
           "text_lines"]

POINTED = ("fail", "xfail", "error", "xpass", "warn")  # the cells that get pointers
_CODE = re.compile(r"\b([FWSNP]\d{1,2})\b")  # a finding's code in a page's verdict table: F1, W3, S1
_HEADING = re.compile(r"^(#{2,3})\s+(.+?)\s*#*\s*$")


@dataclass(frozen=True)
class Pointer:
    """A cell's pointers; any may be missing but the evidence command."""

    evidence: str
    explanation: str | None = None  # "certification/litellm.md#findings-..."
    upstream: Link | None = None
    repro: str | None = None  # the reproduction's folder (the results site)
    codes: tuple[str, ...] = field(default=())  # the page's finding codes for the cell


@dataclass(frozen=True)
class Section:
    heading: str
    level: int
    parent: str  # the ``##`` heading a ``###`` sits under ("" for a ``##``)
    body: str

    @property
    def anchor(self) -> str:
        return slug(self.heading)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but ``-`` and ``_`` dropped, spaces made ``-``."""
    text = re.sub(r"[`*_]{1,2}(?=\S)|(?<=\S)[`*]{1,2}", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def sections(text: str) -> list[Section]:
    """The page's ``##`` and ``###`` sections, each with the text up to the next heading (fenced code skipped)."""
    found: list[list] = []
    parent, fenced = "", False
    for line in text.splitlines():
        fenced ^= line.lstrip().startswith("```")
        match = None if fenced else _HEADING.match(line)
        if match:
            level = len(match.group(1))
            parent = match.group(2) if level == 2 else parent
            found.append([match.group(2), level, "" if level == 2 else parent, []])
        elif found:
            found[-1][3].append(line)
    return [Section(h, lvl, p, "\n".join(body)) for h, lvl, p, body in found]


def _codes(text: str, scenario: str) -> tuple[str, ...]:
    """The finding codes the page's table rows naming ``scenario`` give it."""
    rows = [line for line in text.splitlines() if line.lstrip().startswith("|") and
            re.search(rf"(?<![\w/-]){re.escape(scenario)}(?![\w/-])", line)]
    return tuple(dict.fromkeys(code for row in rows for code in _CODE.findall(row.split("|", 2)[-1])))


def _names(section: Section, scenario: str, codes: Sequence[str]) -> bool:
    if re.search(rf"(?<![\w/-]){re.escape(scenario)}(?![\w/-])", section.body):
        return True
    return any(re.search(rf"\*\*{code}\b", section.body) for code in codes)


def explanation(text: str, scenario: str, status: str) -> tuple[Section | None, tuple[str, ...]]:
    """The section of a certification page explaining ``scenario``'s cell of ``status``, and its finding codes."""
    codes = _codes(text, scenario)
    wanted = re.compile(r"warn" if status == "warn" else r"find|fail", re.I)
    candidates = [s for s in sections(text) if not re.match(r"verdicts?\b", s.heading, re.I) and _names(s, scenario,
                                                                                                         codes)]
    about = [s for s in candidates if wanted.search(s.heading) or wanted.search(s.parent)]
    chosen = (about or candidates or [None])[0]
    return chosen, codes


def pointers(results: Iterable, version: str, links: Sequence[Link] = (), page: str | Path | None = None,
             page_text: str | None = None) -> dict[str, Pointer]:
    """Scenario id -> Pointer for every cell of ``results`` in POINTED (``page``: the certification page's path as
    shown, its text read from there unless ``page_text`` is given)."""
    if page is not None and page_text is None:
        path = Path(page)
        page_text = path.read_text(encoding="utf-8") if path.is_file() else None
    found = {}
    for result in results:
        if result.status not in POINTED:
            continue
        section, codes = explanation(page_text, result.scenario, result.status) if page_text else (None, ())
        where = f"{Path(page).as_posix()}#{section.anchor}" if section is not None else None
        found[result.scenario] = Pointer(f"bedrock-harness evidence --scenario {result.scenario}", where,
                                         for_cell(links, result.scenario, version), codes=codes)
    return found


def text_lines(pointer: Pointer) -> list[str]:
    """The pointer as indented lines under a cell's findings in the text report."""
    lines = [f"  explained: {pointer.explanation}" + (f" ({', '.join(pointer.codes)})" if pointer.codes else "")
             ] if pointer.explanation else []
    lines.append(f"  evidence: {pointer.evidence}")
    lines += [f"  upstream: {pointer.upstream.label}"] if pointer.upstream else []
    lines += [f"  reproduce: {pointer.repro}"] if pointer.repro else []
    return lines


def markdown_lines(found: Mapping[str, Pointer], statuses: Mapping[str, str], base: str = "") -> list[str]:
    """A markdown section: one item per pointed cell, with its explanation, evidence and upstream bug; ``base``
    prefixes the explanation's path (the page's place relative to the report)."""
    if not found:
        return []
    lines = ["## Where each finding is explained", ""]
    for scenario, pointer in found.items():
        parts = [f"[{pointer.explanation}]({base}{pointer.explanation})" + (f" ({', '.join(pointer.codes)})"
                                                                             if pointer.codes else "")
                 if pointer.explanation else "no section of the certification page names it"]
        parts.append(f"evidence: `{pointer.evidence}`")
        parts += [f"upstream: [{pointer.upstream.url}]({pointer.upstream.url}) ({pointer.upstream.state})"] \
            if pointer.upstream else []
        lines.append(f"- `{scenario}` ({statuses.get(scenario, '?')}): " + " · ".join(parts))
    return lines + [""]
