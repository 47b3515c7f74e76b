"""Reports of a run, one module per format (text, JSON, JUnit XML, markdown, HTML), and the known-failures baseline.

The JSON report is DESIGN.md's ``--format json`` object. Every format takes the results and the adapter;
``render`` also hands the cassettes (scenario id -> path and sha256) to the formats that show them (JSON,
JUnit, HTML) and ``verbose`` to the text table. A room above the suite: reports may import ``harness.suite``
(results, the runner's cassette paths), ``harness.judge`` and the rooms below them, never studies, adapters or the
CLI.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from harness.report.as_html import render_html
from harness.report.as_json import render_json, results_from_json
from harness.report.as_junit import render_junit
from harness.report.as_markdown import render_markdown
from harness.report.as_text import render_text
from harness.report.baseline import BaselineError, apply_baseline, load_baseline
from harness.report.common import adapter_info, cassette_files, exit_code, summary
from harness.suite.results import Result

__all__ = [
    "BaselineError",
    "FORMATS",
    "adapter_info",
    "apply_baseline",
    "cassette_files",
    "exit_code",
    "load_baseline",
    "render",
    "render_html",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_text",
    "results_from_json",
    "summary",
]

FORMATS: dict[str, Callable[..., str]] = {
    "text": render_text, "json": render_json, "junit": render_junit, "markdown": render_markdown, "html": render_html,
}
_WITH_CASSETTES = ("json", "junit", "html")


def render(results: Sequence[Result], adapter: Any = None, fmt: str = "text", *,
           cassettes: Mapping[str, dict] | None = None, verbose: bool = False, shard: Any = None) -> str:
    """The report in ``fmt`` (text, json, junit, markdown or html); JSON names the ``shard`` of a split run."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")
    if fmt == "text":
        return render_text(results, adapter, verbose)
    if fmt == "json":
        return render_json(results, adapter, cassettes, shard)
    return FORMATS[fmt](results, adapter, cassettes) if fmt in _WITH_CASSETTES else FORMATS[fmt](results, adapter)
