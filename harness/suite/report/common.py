"""What every report format shares: the adapter's identity, the counts, versions, cassette hashes, wording."""

from __future__ import annotations

import hashlib
import platform
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import boto3
import botocore

from harness.suite.results import STATUSES, Result, failing
from harness.suite.runner import cassette_path, scenario_root
from harness.version import __version__

__all__ = ["adapter_info", "cassette_files", "cassette_sha256", "counted", "details", "exit_code", "indent", "one_line",
           "summary", "summary_line", "unprefixed", "versions"]


def adapter_info(adapter: Any) -> dict:
    """``{name, version, capabilities}`` of an adapter object or mapping (None: all empty)."""
    def get(key: str) -> Any:
        return adapter.get(key) if isinstance(adapter, Mapping) else getattr(adapter, key, None)
    return {"name": str(get("name") or ""), "version": str(get("version") or ""),
            "capabilities": sorted(get("capabilities") or ())}


def versions() -> dict[str, str]:
    """The versions a verdict depends on: the harness, botocore, boto3 and Python."""
    return {"harness": __version__, "botocore": botocore.__version__, "boto3": boto3.__version__,
            "python": platform.python_version()}


def cassette_sha256(path: str | Path) -> str | None:
    """The sha256 of a cassette file, or None when it does not exist."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def cassette_files(scenarios: Iterable[Any], root: str | Path | None) -> dict[str, dict]:
    """Scenario id -> ``{"path": path relative to root, "sha256": hex or None when missing}``; root None (layered
    roots): relative to the root each scenario came from."""
    files = {}
    for scenario in scenarios:
        path = cassette_path(root, scenario)
        files[scenario.id] = {"path": path.relative_to(scenario_root(root, scenario)).as_posix(),
                              "sha256": cassette_sha256(path)}
    return files


def summary(results: Sequence[Result]) -> dict[str, int]:
    """The count of every status, all six present."""
    return {status: sum(1 for r in results if r.status == status) for status in STATUSES}


def exit_code(results: Sequence[Result], strict: bool = False) -> int:
    """0 when everything passed, warned, skipped or failed as known; 1 on a fail, error or xpass (``strict``: or a
    warning)."""
    return 1 if failing(results, strict) else 0


def summary_line(results: Sequence[Result]) -> str:
    counts = ", ".join(f"{n} {status}" for status, n in summary(results).items())
    return f"{counted(len(results), 'scenario')}: {counts} in {sum(r.duration_s for r in results):.2f}s"


def counted(n: int, noun: str) -> str:
    """``1 scenario``, ``2 scenarios``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def one_line(text: str, width: int | None = None) -> str:
    line = " ".join(text.split())
    return line if width is None or len(line) <= width else line[: width - 3] + "..."


def unprefixed(scenario: str, line: str) -> str:
    """A finding without the scenario id it starts with, where its row names the scenario already."""
    return line[len(scenario) + 1:] if line.startswith(scenario + " ") else line


def indent(text: str, spaces: int) -> list[str]:
    return [(" " * spaces + line).rstrip() for line in text.splitlines()]


def details(result: Result) -> str:
    """A scenario's reason (when no turn says more) and per-turn findings, indented: failures, then warnings with
    their reasons."""
    shown = [turn for turn in result.turns if not turn.ok or turn.warnings]
    lines = [f"== {result.scenario}: {result.status}"] + ([] if shown else indent(result.reason, 2))
    for turn in shown:
        lines.append(f"  turn {turn.index}:")
        for text in [turn.chunk_text(), *turn.request_texts()]:
            lines += indent(text, 4) if text else []
        for warned in turn.warnings:
            lines += [f"    warning ({warned.reason}):", *indent(warned.finding, 6)]
    return "\n".join(lines)
