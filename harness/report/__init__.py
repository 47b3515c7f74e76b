"""Reports of a run, one module per format (text, JSON, JUnit XML, markdown, HTML), and the known-failures baseline.

The JSON report is DESIGN.md's ``--format json`` object. Every format takes the results and the adapter;
``render`` also hands the cassettes (scenario id -> path and sha256) to the formats that show them (JSON,
JUnit, HTML) and ``verbose`` to the text table. A room above the suite: reports may import ``harness.suite``
(results, the runner's cassette paths), ``harness.judge`` and the rooms below them, never studies, adapters or the
CLI.
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping, Sequence

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

FORMATS = ("text", "json", "junit", "markdown", "html")  # format -> its module as_<format>, loaded when it writes
_WITH_CASSETTES = ("json", "junit", "html")
# name -> the module holding it: each loads on first use, so a run imports the writer of its own format only (the
# HTML writer and the runner behind the cassette hashes are most of a report's import time).
_HOMES = {"render_html": "as_html", "render_json": "as_json", "results_from_json": "as_json",
          "render_junit": "as_junit", "render_markdown": "as_markdown", "render_text": "as_text",
          "BaselineError": "baseline", "apply_baseline": "baseline", "load_baseline": "baseline",
          "adapter_info": "common", "cassette_files": "common", "exit_code": "common", "summary": "common"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)


def render(results: Sequence[Any], adapter: Any = None, fmt: str = "text", *,
           cassettes: Mapping[str, dict] | None = None, verbose: bool = False, shard: Any = None) -> str:
    """The report in ``fmt`` (text, json, junit, markdown or html); JSON names the ``shard`` of a split run."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")
    writer = __getattr__(f"render_{fmt}")
    if fmt == "text":
        return writer(results, adapter, verbose)
    if fmt == "json":
        return writer(results, adapter, cassettes, shard)
    return writer(results, adapter, cassettes) if fmt in _WITH_CASSETTES else writer(results, adapter)
