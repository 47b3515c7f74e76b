"""What every report format shares: the adapter's identity, the counts, versions, cassette hashes, wording."""

from __future__ import annotations

import hashlib
import platform
import re
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from harness.cassettes.limits import LimitError, read_file
from harness.suite.discovered import files_of
from harness.suite.results import LEVELS, RECOMMENDED, STATUSES, Result, failing, level_scores
from harness.suite.runner import cassette_path, scenario_root
from harness.version import __version__

__all__ = ["adapter_info", "cassette_files", "cassette_sha256", "code", "counted", "details", "exit_code", "fence",
           "indent", "levels_line", "one_line", "printable", "shown_info", "summary", "summary_line", "unprefixed",
           "versions"]

# What a report writes as an escape instead of the character itself: C0 and C1 controls (a terminal escape
# sequence, CR, backspace, BEL), DEL, and the invisible characters that reorder or break lines (bidi overrides and
# isolates, U+2028/U+2029, a BOM). An adapter's name, version, reasons and tracebacks are text from anywhere.
_UNPRINTABLE = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff"
_ESCAPED = {True: re.compile(f"[{_UNPRINTABLE}]"), False: re.compile(f"[{_UNPRINTABLE}\n]")}
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(character: str) -> str:
    code_point = ord(character)
    return _NAMED.get(character) or (f"\\x{code_point:02x}" if code_point < 0x100 else f"\\u{code_point:04x}")


def printable(text: Any, multiline: bool = True) -> str:
    """``text`` with every control character written as its escape (``\\x1b``, ``\\u202e``, ``\\r``); line breaks
    kept when ``multiline``, else written ``\\n`` too. JSON needs none of it: it escapes for itself."""
    return _ESCAPED[multiline].sub(lambda m: _escape(m.group()), str(text))


def shown_info(adapter: Any) -> dict:
    """``adapter_info`` as a human report shows it: name, version and capabilities each one printable line."""
    info = adapter_info(adapter)
    shown = {**info, "name": printable(info["name"], False), "version": printable(info["version"], False),
             "capabilities": [printable(c, False) for c in info["capabilities"]]}
    if "packages" in info:
        shown["packages"] = {printable(k, False): printable(v, False) for k, v in info["packages"].items()}
    return shown


def code(text: str) -> str:
    """A markdown code span holding ``text`` whatever backticks it has (``| `` escaped: it sits in tables)."""
    ticks = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{ticks}{padded}{ticks}".replace("|", "\\|")


def fence(text: str) -> list[str]:
    """``text`` as a fenced markdown block whose fence no line of it can close."""
    ticks = "`" * max(3, max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return [ticks, text, ticks]


def adapter_info(adapter: Any) -> dict:
    """``{name, version, capabilities}`` of an adapter object or mapping (None: all empty), and ``packages`` (name:
    version of each package that ran, as a JavaScript shim reads them from its install) when it states them."""
    def get(key: str) -> Any:
        return adapter.get(key) if isinstance(adapter, Mapping) else getattr(adapter, key, None)
    info = {"name": str(get("name") or ""), "version": str(get("version") or ""),
            "capabilities": sorted(get("capabilities") or ())}
    packages = get("packages")
    return {**info, "packages": {str(k): str(v) for k, v in packages.items()}} if isinstance(packages, Mapping) \
        and packages else info


def versions() -> dict[str, str]:
    """The versions a verdict depends on: the harness, botocore, boto3 and Python."""
    import boto3  # its version only: a report written from JSON (merge) need not load boto3 otherwise
    import botocore

    from harness.wire.service_model import SERVICE, data_file

    return {"harness": __version__, "botocore": botocore.__version__, "boto3": boto3.__version__,
            "python": platform.python_version(), "service_model": f"{SERVICE} {data_file().parent.name}"}


def cassette_sha256(path: str | Path) -> str | None:
    """The sha256 of a cassette file, or None when it does not exist or is no regular file within the size limit."""
    try:
        return hashlib.sha256(read_file(path)).hexdigest()
    except (OSError, LimitError):  # missing, or a socket, a link that loops: no file to hash
        return None


def cassette_files(scenarios: Iterable[Any], root: str | Path | None) -> dict[str, dict]:
    """Scenario id -> ``{"path": path relative to root, "sha256": hex or None when missing}``; root None (layered
    roots): relative to the root each scenario came from. Discovered scenarios are not built for it."""
    files = {}
    for scenario in files_of(scenarios):
        path = cassette_path(root, scenario)
        files[scenario.id] = {"path": path.relative_to(scenario_root(root, scenario)).as_posix(),
                              "sha256": cassette_sha256(path)}
    return files


def summary(results: Sequence[Result]) -> dict[str, int]:
    """The count of every status, all six present."""
    return {status: sum(1 for r in results if r.status == status) for status in STATUSES}


def exit_code(results: Sequence[Result], strict: bool = False, level: str = RECOMMENDED) -> int:
    """0 when everything passed, warned, skipped or failed as known; 1 on a fail, error or xpass (``strict``: or a
    warning); ``level`` required: of the required scenarios only."""
    return 1 if failing(results, strict, level) else 0


def levels_line(results: Sequence[Result]) -> str:
    """``levels: required 100 % (31 of 31), recommended 83 % (5 of 6)``: the share of each level's scenarios that
    ran and passed or warned (skips left out)."""
    scores = level_scores(results)
    parts = [f"{level} {_percent(scores[level]['percent'])} ({scores[level]['met']} of {scores[level]['of']})"
             for level in LEVELS]
    return "levels: " + ", ".join(parts)


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:g} %"


def summary_line(results: Sequence[Result]) -> str:
    counts = ", ".join(f"{n} {status}" for status, n in summary(results).items())
    return f"{counted(len(results), 'scenario')}: {counts} in {sum(r.duration_s for r in results):.2f}s"


def counted(n: int, noun: str) -> str:
    """``1 scenario``, ``2 scenarios``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def one_line(text: str, width: int | None = None) -> str:
    """``text`` on one printable line (whitespace runs made one space), cut at ``width``."""
    line = printable(" ".join(text.split()), False)
    return line if width is None or len(line) <= width else line[: width - 3] + "..."


def unprefixed(scenario: str, line: str) -> str:
    """A finding without the scenario id it starts with, where its row names the scenario already."""
    return line[len(scenario) + 1:] if line.startswith(scenario + " ") else line


def indent(text: str, spaces: int) -> list[str]:
    return [(" " * spaces + line).rstrip() for line in text.splitlines()]


def details(result: Result) -> str:
    """A scenario's reason (when no turn says more) and per-turn findings, indented: failures, then warnings with
    their reasons; printable (see there)."""
    shown = [turn for turn in result.turns if not turn.ok or turn.warnings]
    lines = [f"== {printable(result.scenario, False)}: {result.status}"] + (
        [] if shown else indent(printable(result.reason), 2))
    for turn in shown:
        lines.append(f"  turn {turn.index}:")
        for text in [turn.chunk_text(), *turn.request_texts()]:
            lines += indent(printable(text), 4) if text else []
        for warned in turn.warnings:
            lines += [f"    warning ({printable(warned.reason)}):", *indent(printable(warned.finding), 6)]
    return "\n".join(lines)
