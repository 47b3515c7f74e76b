"""The JUnit XML report: one testsuite, one testcase per scenario, for CI.

An xfail is a passing testcase carrying an ``xfail`` property with its reason (CI stays green, as the exit code
does); so is a warn, with a ``warn`` property and its findings in ``system-out`` (with ``--strict`` the exit code
fails the run on it); an xpass is a failure. Given the cassettes, every testcase carries ``cassette`` and
``cassette_sha256``. A finding common to most failing scenarios is a ``common_finding_<n>`` property of the
testsuite, left out of each testcase's text.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, Mapping, Sequence

from harness.report.common import details, levels_line, one_line, printable, shown_info, summary
from harness.report.recurring import common_findings, without
from harness.suite.results import Result
from harness.version import __version__

__all__ = ["add_properties", "render_junit"]

_ELEMENT = {"fail": "failure", "xpass": "failure", "error": "error", "skip": "skipped"}


def render_junit(results: Sequence[Result], adapter: Any = None, cassettes: Mapping[str, dict] | None = None) -> str:
    """One testsuite, one testcase per scenario (classname: the suite, name: the scenario id)."""
    info, counts, common = shown_info(adapter), summary(results), common_findings(results)
    attrs = {"name": f"bedrock-harness {info['name']}".rstrip(), "tests": str(len(results)),
             "failures": str(counts["fail"] + counts["xpass"]), "errors": str(counts["error"]),
             "skipped": str(counts["skip"]), "time": f"{sum(r.duration_s for r in results):.3f}"}
    root = ET.Element("testsuites", attrs)
    suite = ET.SubElement(root, "testsuite", attrs)
    add_properties(suite, {"harness_version": __version__, "adapter": info["name"], "adapter_version": info["version"],
                           "capabilities": ",".join(info["capabilities"]), "levels": levels_line(results)})
    for n, found in enumerate(common):
        add_properties(suite, {f"common_finding_{n}": printable(found.line())})
    for result in results:
        _testcase(suite, without(result, common), cassettes)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def add_properties(parent: ET.Element, values: Mapping[str, Any]) -> None:
    """Append to ``parent``'s properties element (created first in it when absent)."""
    node = parent.find("properties")
    if node is None:
        node = ET.Element("properties")
        parent.insert(0, node)
    for name, value in values.items():
        ET.SubElement(node, "property", {"name": name, "value": str(value)})


def _case_properties(result: Result, cassettes: Mapping[str, dict] | None) -> dict:
    values = {result.status: printable(result.reason)} if result.status in ("xfail", "warn") else {}
    if cassettes is not None:
        cassette = cassettes.get(result.scenario) or {}
        values.update(cassette=cassette.get("path") or "none", cassette_sha256=cassette.get("sha256") or "missing")
    return values


def _testcase(suite: ET.Element, result: Result, cassettes: Mapping[str, dict] | None) -> None:
    scenario = printable(result.scenario, False)
    case = ET.SubElement(suite, "testcase", {"classname": scenario.split("/", 1)[0], "name": scenario,
                                             "time": f"{result.duration_s:.3f}"})
    properties = _case_properties(result, cassettes)
    if properties:
        add_properties(case, properties)
    tag = _ELEMENT.get(result.status)
    if tag is not None:
        node = ET.SubElement(case, tag, {"message": one_line(result.reason), "type": result.status})
        node.text = details(result) if tag != "skipped" else None
    elif result.status == "warn":
        ET.SubElement(case, "system-out").text = details(result)
