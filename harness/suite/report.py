"""Reports of a run (text, JSON, JUnit XML, markdown) and the known-failures baseline.

The JSON report is DESIGN.md's ``--format json`` object. In JUnit, an xfail is a passing testcase carrying an
``xfail`` property with its reason (CI stays green, as the exit code does); an xpass is a failure. A baseline
is a YAML mapping of scenario id -> reason; a listed failure becomes xfail, a listed pass becomes xpass
(which fails the run), and an entry naming an unknown scenario becomes an error result.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Collection, Mapping, Sequence

import yaml

from harness.version import __version__
from harness.suite.results import STATUSES, Result

__all__ = [
    "BaselineError",
    "FORMATS",
    "adapter_info",
    "apply_baseline",
    "exit_code",
    "load_baseline",
    "render",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_text",
    "summary",
]

REASON_WIDTH = 100  # the text table cuts reasons here; the details below the table hold them whole


class BaselineError(ValueError):
    """A baseline file that cannot be used; the one-line message names the file and entry."""


def adapter_info(adapter: Any) -> dict:
    """``{name, version, capabilities}`` of an adapter object or mapping (None: all empty)."""
    def get(key: str) -> Any:
        return adapter.get(key) if isinstance(adapter, Mapping) else getattr(adapter, key, None)
    return {"name": str(get("name") or ""), "version": str(get("version") or ""),
            "capabilities": sorted(get("capabilities") or ())}


def summary(results: Sequence[Result]) -> dict[str, int]:
    """The count of every status, all six present."""
    return {status: sum(1 for r in results if r.status == status) for status in STATUSES}


def exit_code(results: Sequence[Result]) -> int:
    """0 when everything passed, skipped or failed as known; 1 on a fail, error or xpass."""
    return 1 if any(r.failing for r in results) else 0


def _summary_line(results: Sequence[Result]) -> str:
    counts = ", ".join(f"{n} {status}" for status, n in summary(results).items())
    return f"{len(results)} scenarios: {counts} in {sum(r.duration_s for r in results):.2f}s"


def _one_line(text: str, width: int | None = None) -> str:
    line = " ".join(text.split())
    return line if width is None or len(line) <= width else line[: width - 3] + "..."


# ---- text ----

def render_text(results: Sequence[Result], adapter: Any = None) -> str:
    """A row per scenario, a summary line, then the findings of every failing scenario."""
    info = adapter_info(adapter)
    head = [f"adapter {info['name']} {info['version']}".rstrip()] if info["name"] else []
    width = max([len("scenario")] + [len(r.scenario) for r in results])
    rows = [f"{'scenario':<{width}}  {'status':<6}  {'time':>7}  reason"]
    rows += [f"{r.scenario:<{width}}  {r.status:<6}  {r.duration_s:>6.2f}s  {_one_line(r.reason, REASON_WIDTH)}".rstrip()
             for r in results]
    details = [_details(r) for r in results if r.failing]
    return "\n".join(head + rows + ["", _summary_line(results)] + [f"\n{d}" for d in details]) + "\n"


def _details(result: Result) -> str:
    """A failing scenario's reason and per-turn findings, indented."""
    failing = [turn for turn in result.turns if not turn.ok]
    lines = [f"== {result.scenario}: {result.status}"] + ([] if failing else _indent(result.reason, 2))
    for turn in failing:
        lines.append(f"  turn {turn.index}:")
        for text in [turn.chunk_text(), *turn.request_texts()]:
            lines += _indent(text, 4) if text else []
    return "\n".join(lines)


def _indent(text: str, spaces: int) -> list[str]:
    return [(" " * spaces + line).rstrip() for line in text.splitlines()]


# ---- json ----

def _result_json(result: Result) -> dict:
    turns = [{"index": t.index, "diff": t.chunk_text(), "request_problems": t.request_texts(),
              "request_notes": list(t.request_notes)} for t in result.turns]
    return {"scenario": result.scenario, "status": result.status, "reason": result.reason, "turns": turns,
            "duration_s": float(round(result.duration_s, 6))}


def render_json(results: Sequence[Result], adapter: Any = None) -> str:
    """DESIGN.md's ``--format json`` object."""
    report = {"harness_version": __version__, "adapter": adapter_info(adapter),
              "results": [_result_json(r) for r in results], "summary": summary(results)}
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


# ---- junit ----

def render_junit(results: Sequence[Result], adapter: Any = None) -> str:
    """One testsuite, one testcase per scenario (classname: the suite, name: the scenario id)."""
    info, counts = adapter_info(adapter), summary(results)
    attrs = {"name": f"bedrock-harness {info['name']}".rstrip(), "tests": str(len(results)),
             "failures": str(counts["fail"] + counts["xpass"]), "errors": str(counts["error"]),
             "skipped": str(counts["skip"]), "time": f"{sum(r.duration_s for r in results):.3f}"}
    root = ET.Element("testsuites", attrs)
    suite = ET.SubElement(root, "testsuite", attrs)
    _properties(suite, {"harness_version": __version__, "adapter": info["name"], "adapter_version": info["version"],
                        "capabilities": ",".join(info["capabilities"])})
    for result in results:
        _testcase(suite, result)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _properties(parent: ET.Element, values: Mapping[str, str]) -> None:
    node = ET.SubElement(parent, "properties")
    for name, value in values.items():
        ET.SubElement(node, "property", {"name": name, "value": value})


_JUNIT_ELEMENT = {"fail": "failure", "xpass": "failure", "error": "error", "skip": "skipped"}


def _testcase(suite: ET.Element, result: Result) -> None:
    case = ET.SubElement(suite, "testcase", {"classname": result.scenario.split("/", 1)[0], "name": result.scenario,
                                             "time": f"{result.duration_s:.3f}"})
    if result.status == "xfail":
        _properties(case, {"xfail": result.reason})
    tag = _JUNIT_ELEMENT.get(result.status)
    if tag is not None:
        node = ET.SubElement(case, tag, {"message": _one_line(result.reason), "type": result.status})
        node.text = _details(result) if tag != "skipped" else None


# ---- markdown ----

def _cell(text: str) -> str:
    return _one_line(text).replace("|", "\\|")


def render_markdown(results: Sequence[Result], adapter: Any = None) -> str:
    """A markdown table for READMEs and certification pages."""
    info = adapter_info(adapter)
    caps = ", ".join(info["capabilities"]) or "none declared"
    lines = [f"**bedrock-harness {__version__}**, adapter `{info['name'] or '?'}` {info['version']} "
             f"(capabilities: {caps})".rstrip(), "", "| scenario | status | reason | duration |", "|---|---|---|---:|"]
    lines += [f"| `{r.scenario}` | {r.status} | {_cell(r.reason)} | {r.duration_s:.2f}s |" for r in results]
    return "\n".join(lines + ["", _summary_line(results)]) + "\n"


FORMATS: dict[str, Callable[[Sequence[Result], Any], str]] = {
    "text": render_text, "json": render_json, "junit": render_junit, "markdown": render_markdown,
}


def render(results: Sequence[Result], adapter: Any = None, fmt: str = "text") -> str:
    """The report in ``fmt`` (text, json, junit or markdown)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")
    return FORMATS[fmt](results, adapter)


# ---- known-failures baseline ----

def load_baseline(path: str | Path) -> dict[str, str]:
    """``{scenario id: reason}`` from a YAML mapping; every entry needs a reason."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise BaselineError(f"{path}: cannot read: {_one_line(str(exc))}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise BaselineError(f"{path}: expected a mapping of scenario id -> reason")
    for key, reason in data.items():
        if not isinstance(key, str) or not isinstance(reason, str) or not reason.strip():
            raise BaselineError(f"{path}: {key}: every known failure needs a reason (scenario id: why it fails)")
    return dict(data)


def apply_baseline(results: Sequence[Result], baseline: Mapping[str, str],
                   known: Collection[str] | None = None) -> list[Result]:
    """Listed fail/error -> xfail, listed pass -> xpass; an entry for no scenario in ``known`` -> error.

    ``known`` is every scenario id that exists (a filtered run must pass it, or entries for scenarios
    not run this time count as unknown); None means the ids in ``results``.
    """
    known = {r.scenario for r in results} if known is None else set(known)
    updated = [_against_baseline(r, baseline.get(r.scenario)) for r in results]
    stale = [Result(sid, "error", f"baseline lists unknown scenario {sid!r}; remove the entry")
             for sid in sorted(baseline) if sid not in known]
    return updated + stale


def _against_baseline(result: Result, reason: str | None) -> Result:
    if reason is None:
        return result
    if result.status in ("fail", "error"):
        return replace(result, status="xfail", reason=f"known failure: {reason}")
    if result.status == "pass":
        return replace(result, status="xpass", reason=f"listed as a known failure ({reason}) but passed; "
                                                      "remove it from the baseline")
    return result
