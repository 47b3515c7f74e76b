"""Certification of an adapter: the run (harness.suite.runner.run) plus what makes its verdicts reproducible.

A ``Certification`` is the results with the adapter's identity (name, version, capabilities, and the command
or spec it ran as), the harness, botocore and boto3 versions, and the sha256 of every scenario's cassette.
It renders as markdown (for a README or a release page), JSON (DESIGN.md's run report plus those fields),
JUnit XML for CI (the run's JUnit plus the same fields as properties), HTML (the run's HTML report under the
same header) and text.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.version import __version__

from harness import report
from harness.cassettes.files import write_through
from harness.report.as_junit import add_properties
from harness.report.as_markdown import common_lines
from harness.report.common import cassette_sha256, code, fence, levels_line, one_line, printable, shown_info, versions
from harness.report.pointers import Pointer, markdown_lines
from harness.report.recurring import common_findings, without
from harness.suite.results import Result
from harness.suite.runner import run as run_scenarios, scenario_root
from harness.cassettes.limits import read_file
from harness.suite.scenario import Scenario

__all__ = ["FILE_NAMES", "FORMATS", "Certification", "build", "cassette_sha256", "from_json", "linked", "render",
           "run", "versions", "write_reports"]

FILE_NAMES = {"markdown": "certification.md", "json": "certification.json", "junit": "certification.xml"}
REASON_WIDTH = 120  # the markdown table cuts a failing scenario's reason here; its findings below hold it whole


@dataclass(frozen=True)
class Certification:
    """Everything a certification report says."""

    adapter: dict  # name, version, capabilities, and "command" (subprocess) or "spec" (in-process)
    results: tuple[Result, ...]
    cassettes: dict  # scenario id -> {"path": relative path, "sha256": hex or None when missing}
    versions: dict  # harness, botocore, boto3, python, service_model; "suite": the scenarios' digest
    date: str  # UTC, ISO 8601, seconds
    shard: Any = None  # the harness.studies.shard.Shard of a split run
    pointers: dict[str, Pointer] = field(default_factory=dict)  # scenario id -> where its finding is explained


def run(scenarios: Sequence[Scenario], adapter: Any, root: str | Path,
        progress: Callable[[int, int, Result], None] | None = None, in_process: bool = True) -> list[Result]:
    """harness.suite.runner.run; an adapter offering ``follow`` (the subprocess adapter: its turn messages carry
    the scenario id) is told each scenario's id. Duck-typed: the suite never imports the adapters room."""
    if hasattr(adapter, "follow"):
        progress = adapter.follow(scenarios, progress)
    return run_scenarios(scenarios, adapter, root, progress, in_process)


def build(results: Sequence[Result], adapter: Any, scenarios: Sequence[Scenario], root: str | Path,
          spec: str | None = None, shard: Any = None) -> Certification:
    """The certification of ``results`` (run over ``scenarios`` under ``root``, or one ``shard`` of them) for
    ``adapter``."""
    identity = report.adapter_info(adapter)
    command = getattr(adapter, "command", None)  # a subprocess adapter's command line
    identity.update({"command": command} if command is not None else {"spec": spec or ""})
    date = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    judged = {**versions(), "suite": suite_digest(scenarios, root)}
    return Certification(identity, tuple(results), report.cassette_files(scenarios, root), judged, date, shard)


def suite_digest(scenarios: Sequence[Scenario], root: str | Path | None) -> str:
    """``<harness version>+<12 hex>``: the suite a verdict was judged against, the sha256 of every scenario and
    golden file (levels included) under the suites of ``root`` (layered roots, None: those ``scenarios`` come from),
    whichever of them ran (the shards of one run share it; a shard owning no scenario of layered roots names none)."""
    digest = hashlib.sha256()
    bases = {Path(root).resolve()} if root is not None else {scenario_root(root, s).resolve() for s in scenarios}
    for base in sorted(bases):
        for path in sorted((base / "suites").glob("*/*.yaml")):
            digest.update(f"{path.relative_to(base).as_posix()}\0".encode())
            digest.update(hashlib.sha256(read_file(path)).digest())
    return f"{__version__}+{digest.hexdigest()[:12]}"


def _judged_against(versions: dict) -> str:
    """The service model and suite a verdict was judged against, as a report's one line."""
    return (f"service model {versions.get('service_model') or 'unknown'} (botocore {versions['botocore']}), "
            f"suite {versions.get('suite') or 'unknown'}")


def from_json(document: dict) -> Certification:
    """The certification a JSON certification report holds (``render_json``'s inverse, shard aside)."""
    results, cassettes = report.results_from_json(document)
    found = {"harness": document["harness_version"], "botocore": document["botocore_version"],
             "boto3": document["boto3_version"], "python": document["python_version"],
             "service_model": document.get("service_model", ""), "suite": document.get("suite", "")}
    return Certification(dict(document["adapter"]), tuple(results), cassettes or {}, found, document["date"])


def linked(cert: Certification, path: str | Path, known: Sequence[str] | None = None) -> tuple[Certification, list[str]]:
    """``cert`` with each failing or warning cell's pointers (its upstream link from the links file at ``path``, its
    section of the certification page beside it, ``NAME.md``), and one line per stale link and per failing cell
    without one. A links file that cannot be used raises ``LinksError``."""
    from dataclasses import replace

    from harness.report.links import SUFFIX, check, load_links
    from harness.report.pointers import pointers

    path = Path(path)
    links = load_links(path, known)
    version = str(cert.adapter.get("version") or "")
    page = path.with_name(path.name[: -len(SUFFIX)] + ".md") if path.name.endswith(SUFFIX) else None
    found = pointers(cert.results, version, links, page)
    return replace(cert, pointers=found), check(links, cert.results, version, str(path))


def _cassette(cert: Certification, sid: str) -> dict:
    return cert.cassettes.get(sid) or {"path": None, "sha256": None}


def _how(cert: Certification) -> str:
    if "command" in cert.adapter:
        return f"subprocess {code(printable(cert.adapter['command'], False))}"
    return f"in-process {code(printable(cert.adapter.get('spec') or cert.adapter['name'], False))}"


# ---- json ----

def render_json(cert: Certification) -> str:
    """DESIGN.md's run report, plus versions, date, how the adapter ran, and each result's cassette."""
    document = json.loads(report.render_json(cert.results, cert.adapter, cert.cassettes, cert.shard))
    document["adapter"] = cert.adapter
    for result in document["results"]:
        result.update(_pointer_json(cert.pointers.get(result["scenario"])))
    head = {"harness_version": __version__, "botocore_version": cert.versions["botocore"],
            "boto3_version": cert.versions["boto3"], "python_version": cert.versions["python"],
            "service_model": cert.versions.get("service_model", ""), "suite": cert.versions.get("suite", ""),
            "date": cert.date}
    return json.dumps({**head, **document}, indent=2, ensure_ascii=False) + "\n"


def _pointer_json(pointer: Pointer | None) -> dict:
    """A result's pointers in the JSON report: ``upstream`` (DESIGN.md: URL or null) and, when pointed, the rest."""
    if pointer is None:
        return {"upstream": None}
    link = pointer.upstream
    return {"upstream": link.url if link else None, "upstream_state": link.state if link else None,
            "upstream_releases": link.releases if link else None, "explanation": pointer.explanation,
            "evidence": pointer.evidence}


# ---- junit ----

def render_junit(cert: Certification) -> str:
    """The run's JUnit XML (cassette and sha256 per case), with versions and the adapter command as suite properties."""
    root = ET.fromstring(report.render_junit(cert.results, cert.adapter, cert.cassettes))
    extra = {"botocore_version": cert.versions["botocore"], "boto3_version": cert.versions["boto3"],
             "python_version": cert.versions["python"], "date": cert.date, "adapter_run_as": _how(cert),
             "judged_against": _judged_against(cert.versions)}
    add_properties(root.find("testsuite"), extra)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


# ---- html ----

def render_html(cert: Certification) -> str:
    """The run's HTML report under the certification's header: how the adapter ran, versions, date."""
    v = cert.versions
    facts = {"run as": _how(cert).replace("`", ""), "versions": f"bedrock-harness {v['harness']}, botocore "
             f"{v['botocore']}, boto3 {v['boto3']}, Python {v['python']}", "judged against": _judged_against(v),
             "date": cert.date}
    return report.render_html(cert.results, cert.adapter, cert.cassettes, facts, certification=True,
                              pointers=cert.pointers)


# ---- markdown ----

def _cell(text: str, width: int | None = None) -> str:
    return one_line(str(text), width).replace("|", "\\|")


def _header(cert: Certification) -> list[str]:
    info, v = shown_info(cert.adapter), cert.versions
    counts = ", ".join(f"{n} {status}" for status, n in report.summary(cert.results).items() if n)
    return [f"# Certification: {code(info['name'])} {_cell(info['version'])}".rstrip(), "",
            "| | |", "|---|---|",
            f"| adapter | {code(info['name'])} {_cell(info['version'])}, {_how(cert)} |",
            f"| capabilities | {_cell(', '.join(info['capabilities'])) or 'none declared'} |",
            *([f"| packages | {_cell(', '.join(f'{k} {v}' for k, v in info['packages'].items()))} |"]
              if info.get("packages") else []),
            (f"| harness | bedrock-harness {v['harness']}, botocore {v['botocore']}, boto3 {v['boto3']}, "
             f"Python {v['python']} |"),
            f"| judged against | {_cell(_judged_against(v))} |",
            f"| date | {cert.date} |",
            f"| verdict | {len(cert.results)} scenarios: {counts or 'none'} |",
            f"| level | {_cell(levels_line(cert.results).removeprefix('levels: '))} |", ""]


def _findings(result: Result) -> list[str]:
    """A failing scenario's reason and each failing turn's diff and request problems, as fenced blocks."""
    lines = [f"### {code(printable(result.scenario, False))}: {result.status}", "", *fence(printable(result.reason))]
    for turn in (t for t in result.turns if not t.ok):
        if turn.chunk_text():
            lines += ["", f"turn {turn.index} chunks:", "", *fence(printable(turn.chunk_text()))]
        for problem in turn.request_texts():
            lines += ["", f"turn {turn.index} request:", "", *fence(printable(problem))]
    return lines + [""]


def render_markdown(cert: Certification) -> str:
    """A header table (adapter, versions), a verdict per scenario with its cassette sha256, then the findings."""
    common = common_findings(cert.results)
    results = [without(r, common) for r in cert.results]
    lines = _header(cert) + common_lines(common) + ["## Verdicts", "", "| scenario | status | reason | cassette sha256 |",
                                                    "|---|---|---|---|"]
    for r in results:
        sha = _cassette(cert, r.scenario)["sha256"]
        lines.append(f"| {code(printable(r.scenario, False))} | {r.status} | {_cell(r.reason, REASON_WIDTH if r.failing else None)} | "
                     f"{f'`{sha}`' if sha else 'missing'} |")
    failing = [r for r in results if r.failing]
    if failing:
        lines += ["", "## Findings", ""] + [line for r in failing for line in _findings(r)]
    if cert.pointers:
        lines += [""] + markdown_lines(cert.pointers, {r.scenario: r.status for r in cert.results})
    return "\n".join(lines).rstrip("\n") + "\n"


# ---- text ----

def render_text(cert: Certification, verbose: bool = False) -> str:
    """The run's text table under one line of versions (``verbose``: reasons never cut)."""
    v = cert.versions
    head = (f"certification, {_how(cert)}; bedrock-harness {v['harness']}, botocore {v['botocore']}, {cert.date}\n"
            f"judged against {_judged_against(v)}\n")
    return head + report.render_text(cert.results, cert.adapter, verbose, cert.pointers)


FORMATS: dict[str, Callable[[Certification], str]] = {
    "markdown": render_markdown, "json": render_json, "junit": render_junit, "text": render_text, "html": render_html,
}


def render(cert: Certification, fmt: str = "markdown", verbose: bool = False) -> str:
    """The certification report in ``fmt`` (markdown, json, junit, text or html); ``verbose`` is for text."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")
    return render_text(cert, verbose) if fmt == "text" else FORMATS[fmt](cert)


def write_reports(cert: Certification, directory: str | Path) -> list[Path]:
    """certification.md, .json and .xml in the folder ``directory``, each written as ``--output`` writes:
    atomically, or through an existing symlink, device or shared file."""
    directory = Path(directory)
    written = []
    for fmt, name in FILE_NAMES.items():
        write_through(directory / name, render(cert, fmt))
        written.append(directory / name)
    return written
