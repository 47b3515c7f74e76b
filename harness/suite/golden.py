"""Goldens: ``suites/<suite>/<name>.golden.yaml`` beside each scenario, one entry per turn.

A golden holds, per turn, the normalized chunk list and the normalized Bedrock request the reference
implementation produced: ``{"turns": [{"index": 0, "chunks": [...], "request": {...}}]}``. Goldens are
written atomically as safe, block-style YAML and compared through harness.judge.compare.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence


from harness.cassettes.files import write_atomic
from harness.cassettes.limits import LimitError, read_file, yaml_errors
from harness.cassettes.parsed import load_yaml_bytes
from harness.judge.compare import Diff, diff_chunks, diff_request, diff_turn_count, note
from harness.judge.normalize import ALL, comparable
from harness.judge.normalize_request import paired
from harness.suite.scenario import GOLDEN_SUFFIX, Scenario

__all__ = ["GoldenError", "accept_stop_reasons", "check", "compared", "golden_path", "load_golden", "unused_goldens",
           "write_golden"]

HEADER = "# Written by `bedrock-harness golden update`; review changes like code, do not edit by hand.\n"


class GoldenError(ValueError):
    """A golden file that cannot be used; the one-line message names the file and field."""


def golden_path(scenario: Scenario) -> Path:
    """``suites/<suite>/<name>.golden.yaml`` for ``suites/<suite>/<name>.yaml``."""
    return scenario.path.with_name(scenario.path.name[: -len(".yaml")] + GOLDEN_SUFFIX)


def load_golden(scenario: Scenario) -> list[dict] | None:
    """The golden's turns, or None when the scenario has no golden yet."""
    path = golden_path(scenario)
    try:
        data = load_yaml_bytes(read_file(path))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, LimitError, *yaml_errors()) as exc:
        raise GoldenError(f"{path}: cannot read: {' '.join(str(exc).split())}") from None
    return _validated(data, path)


_STR, _OPTIONAL_STR, _COUNT, _ANY = (str,), (str, type(None)), (int, type(None)), (object,)
# The normalized chunks of DESIGN.md a golden holds: each field there, of a type it may have (a count is never a bool).
_CHUNKS = {"text": {"text": _STR}, "reasoning": {"text": _STR, "signature": _OPTIONAL_STR},
           "redacted_reasoning": {"data": _STR},
           "tool_call": {"id": _OPTIONAL_STR, "name": _OPTIONAL_STR, "input": _ANY},
           "citation": {"citation": (dict,)},  # issue 28: the normalized vocabulary gains citations
           "stop": {"reason": _OPTIONAL_STR}, "error": {"code": _OPTIONAL_STR, "message": _OPTIONAL_STR},
           "usage": dict.fromkeys(("input_tokens", "output_tokens", "cache_read_input_tokens",
                                   "cache_write_input_tokens"), _COUNT),
           "response_fields": {"fields": _ANY},
           "metadata": dict.fromkeys(("invoked_model_id", "service_tier", "latency"), _OPTIONAL_STR)}


def _chunk_problem(chunk: Any) -> str | None:
    """Why a golden chunk is not one the normalizer writes (a type of its vocabulary, its fields of their types)."""
    if not isinstance(chunk["type"], str) or chunk["type"] not in _CHUNKS:
        return f"type: {str(chunk['type'])[:40]!r} is none of {', '.join(_CHUNKS)}"
    for field, kinds in _CHUNKS[chunk["type"]].items():
        if field not in chunk:
            return f"{field}: missing"
        if kinds is not _ANY and (not isinstance(chunk[field], kinds) or isinstance(chunk[field], bool)):
            return f"{field}: expected {' or '.join('null' if k is type(None) else k.__name__ for k in kinds)}"
    return None


def _turn_problem(turn: Any, i: int) -> str | None:
    if not isinstance(turn, dict) or turn.get("index") != i:
        return f".index: expected {i}"
    chunks = turn.get("chunks")
    if not isinstance(chunks, list) or not all(isinstance(c, dict) and "type" in c for c in chunks):
        return ".chunks: expected a list of chunks, each with a type"
    bad = next(((n, problem) for n, chunk in enumerate(chunks) for problem in [_chunk_problem(chunk)] if problem), None)
    if bad:
        return f".chunks[{bad[0]}]: {bad[1]}"
    request = turn.get("request")
    if request is not None and (not isinstance(request, dict) or not isinstance(request.get("messages", []), list)):
        return ".request: expected a mapping (its messages a list)"
    return None


def _validated(data: Any, path: Path) -> list[dict]:
    """The turns of a parsed golden, each checked for index, chunks (of the normalized vocabulary) and request."""
    if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
        raise GoldenError(f"{path}: turns: expected a mapping with a list of turns")
    for i, turn in enumerate(data["turns"]):
        problem = _turn_problem(turn, i)
        if problem:
            raise GoldenError(f"{path}: turns[{i}]{problem}")
    return data["turns"]


def write_golden(scenario: Scenario, turns: Sequence[Mapping]) -> bool:
    """Write the golden for ``turns`` (each with chunks and request); True when the file changed."""
    path = golden_path(scenario)
    entries = [{"index": i, "chunks": list(turn["chunks"]), "request": turn.get("request")}
               for i, turn in enumerate(turns)]
    import yaml

    text = HEADER + yaml.dump({"turns": entries}, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=100)
    if path.exists() and _current(path) == text:
        return False
    write_atomic(path, text)
    return True


def _current(path: Path) -> str | None:
    """The golden's text as it is (None when it is no regular file within the size limit, or not UTF-8)."""
    try:
        return read_file(path).decode("utf-8")
    except (LimitError, UnicodeDecodeError):
        return None


@functools.cache
def _dumper() -> type:
    """Safe YAML in block style: no anchors, multi-line strings as ``|`` blocks (made on the first write: a run that
    reads goldens from the parsed-YAML cache needs no PyYAML)."""
    import yaml

    class _Dumper(yaml.SafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True

    _Dumper.add_representer(str, _represent_str)
    return _Dumper


def _represent_str(dumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def unused_goldens(root: str | Path, scenarios: Iterable[Scenario]) -> list[Path]:
    """Golden files under ``root`` that belong to none of ``scenarios`` (pass every discovered scenario)."""
    used = {_resolved(golden_path(scenario)) for scenario in scenarios}
    return sorted(p for p in Path(root).glob(f"*/*{GOLDEN_SUFFIX}") if _resolved(p) not in used)


def _resolved(path: Path) -> Path:
    """``path`` resolved; a symbolic link that loops stays as named (it belongs to no scenario)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):  # RuntimeError before Python 3.13
        return path


def accept_stop_reasons(actual: list[dict], expected: Sequence[Mapping], accepted: Sequence[str]) -> list[dict]:
    """A stop reason the scenario's turn accepts besides the golden's compares as the golden's."""
    wanted = next((item["reason"] for item in expected if item["type"] == "stop"), None)
    return [{**item, "reason": wanted} if item["type"] == "stop" and wanted is not None and item["reason"] in accepted
            else item for item in actual]


def compared(scenario: Scenario, index: int, expected: Sequence[Mapping], actual: Sequence[Mapping],
             capabilities: frozenset[str]) -> tuple[list[dict], list[dict]]:
    """(expected, actual) normalized chunks of turn ``index`` as the golden diff compares them: what
    ``capabilities`` make comparable, a stop reason the turn accepts besides the golden's read as the golden's."""
    accepted = scenario.turns[index].accepted_stop_reasons if index < len(scenario.turns) else ()
    wanted = comparable(expected, capabilities)
    return wanted, accept_stop_reasons(comparable(actual, capabilities), wanted, accepted)


_UNREAD: Any = object()


def check(scenario: Scenario, actual_turns: Sequence[Mapping], capabilities: Iterable[str] = ALL,
          expected: list[dict] | None = _UNREAD) -> list[Diff]:
    """Differences between the golden and a run's turns (each: normalized chunks, request or None).

    Chunks are compared on what ``capabilities`` make comparable, a stop reason the turn accepts besides the
    golden's as the golden's; a request only when both sides hold one. ``expected``: the golden's turns as
    ``load_golden`` gave them, when the caller has read it already.
    """
    expected = load_golden(scenario) if expected is _UNREAD else expected
    if expected is None:
        return [note("golden", f"no golden at {golden_path(scenario)}; run `bedrock-harness golden update "
                               f"{scenario.id}`", scenario=scenario.id)]
    capabilities = frozenset(capabilities)
    diffs = [diff_turn_count(len(expected), len(actual_turns), scenario=scenario.id)]
    for index, (want, got) in enumerate(zip(expected, actual_turns)):
        wanted, actual = compared(scenario, index, want["chunks"], got["chunks"], capabilities)
        diffs.append(diff_chunks(wanted, actual, scenario=scenario.id, turn=index))
        if want.get("request") is not None and got.get("request") is not None:
            request = paired(want["request"], got["request"])
            diffs.append(diff_request(want["request"], request, scenario=scenario.id, turn=index))
    return [diff for diff in diffs if diff is not None]
