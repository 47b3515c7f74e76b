"""Live-recording acceptance checks over normalized chunk lists (hard checks must hold, soft ones warn).

A scenario's ``checks`` is ``{hard: [...], soft: [...]}``; each entry is one mapping such as
``{turn: 0, tool_calls_at_least: 1}``: an optional ``turn`` (omitted: every recorded turn) and exactly one
check from the registry ``CHECKS`` with its argument. A check is a predicate over one turn's normalized
chunks (DESIGN.md "Normalized chunks"). Flag checks (argument ``true``/``false``) pass when the predicate
equals the argument, so ``no_error: false`` asks for an error. Tool-call checks count complete calls only:
a call whose input the normalizer marked unparsed (``{"__unparsed__": partial JSON}``, a stream that ended
mid-call) is not one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["CHECKS", "Check", "CheckError", "CheckOutcome", "register_check", "validate", "evaluate"]

SECTIONS = ("hard", "soft")
UNPARSED = "__unparsed__"  # harness.judge.normalize's mark for a tool input that never became valid JSON


class CheckError(ValueError):
    """A malformed ``checks`` section: unknown check, bad argument or bad entry shape."""


@dataclass(frozen=True)
class Check:
    """A registered check: its predicate and the argument kind it accepts."""

    name: str
    predicate: Callable[[list[dict], Any], bool]
    argument: str  # one of ARGUMENTS


@dataclass(frozen=True)
class CheckOutcome:
    """Hard failures (the recording is rejected) and soft warnings (retry, then accept with a warning)."""

    hard_failures: list[str] = field(default_factory=list)
    soft_warnings: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.hard_failures


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_reasons(value: Any) -> bool:
    return bool(value) and all(isinstance(v, str) and v for v in (value if isinstance(value, list) else [value]))


# Argument kind -> (validator, how the error message describes it).
ARGUMENTS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "count": (_is_count, "an integer >= 0"),
    "flag": (lambda v: isinstance(v, bool), "true or false"),
    "string": (lambda v: isinstance(v, str) and bool(v), "a non-empty string"),
    "reasons": (_is_reasons, "a stop reason or a list of stop reasons"),
    "mapping": (lambda v: isinstance(v, dict), "a mapping of input keys to values"),
    "value": (lambda v: True, "any JSON value"),
}

CHECKS: dict[str, Check] = {}


def register_check(name: str, argument: str) -> Callable:
    """Decorator: register ``predicate(chunks, arg) -> bool`` under ``name`` taking an ``argument`` kind."""
    if argument not in ARGUMENTS:
        raise ValueError(f"check {name!r}: unknown argument kind {argument!r}")

    def decorate(predicate: Callable[[list[dict], Any], bool]) -> Callable:
        CHECKS[name] = Check(name, predicate, argument)
        return predicate

    return decorate


def _of(chunks: list[dict], kind: str) -> list[dict]:
    return [c for c in chunks if c.get("type") == kind]


def _complete(chunk: dict) -> bool:
    """A complete tool call (an unparsed input means the call never finished)."""
    unparsed = isinstance(chunk.get("input"), dict) and UNPARSED in chunk["input"]
    return chunk.get("type") == "tool_call" and not unparsed


def _calls(chunks: list[dict]) -> list[dict]:
    return [c for c in chunks if _complete(c)]


def _text(chunks: list[dict]) -> str:
    return "".join(c.get("text") or "" for c in _of(chunks, "text"))


def _has_text(chunks: list[dict]) -> bool:
    return bool(_text(chunks).strip())


def _flag(predicate: Callable[[list[dict]], bool]) -> Callable[[list[dict], bool], bool]:
    return lambda chunks, expected: predicate(chunks) == expected


def _input_has(chunks: list[dict], pairs: dict) -> bool:
    """Some call's input holds every key with an equal value."""
    inputs = [c.get("input") for c in _calls(chunks)]
    return any(isinstance(i, dict) and all(k in i and i[k] == v for k, v in pairs.items()) for i in inputs)


def _input_is(chunks: list[dict], value: Any) -> bool:
    return any(c.get("input") == value and type(c.get("input")) is type(value) for c in _calls(chunks))


def _contains(needle: str, haystack: str) -> bool:
    """Case-insensitive: live models vary capitalisation."""
    return needle.casefold() in haystack.casefold()


def _text_around_call(chunks: list[dict], after: bool) -> bool:
    """Non-blank text before (or after) the first complete tool call."""
    first = next((i for i, c in enumerate(chunks) if _complete(c)), None)
    return first is not None and _has_text(chunks[first + 1 :] if after else chunks[:first])


def _signed(chunks: list[dict]) -> bool:
    blocks = _of(chunks, "reasoning")
    return bool(blocks) and all(isinstance(c.get("signature"), str) and c["signature"] for c in blocks)


def _stop_in(chunks: list[dict], reasons: str | list[str]) -> bool:
    allowed = reasons if isinstance(reasons, list) else [reasons]
    return any(c.get("reason") in allowed for c in _of(chunks, "stop"))


def _error_mentions(chunks: list[dict], needle: str) -> bool:
    return any(_contains(needle, f"{c.get('code') or ''} {c.get('message') or ''}") for c in _of(chunks, "error"))


_BUILTIN: dict[str, tuple[str, Callable[[list[dict], Any], bool]]] = {
    "tool_calls_at_least": ("count", lambda ch, n: len(_calls(ch)) >= n),
    "tool_calls_exactly": ("count", lambda ch, n: len(_calls(ch)) == n),
    "distinct_tool_ids_at_least": ("count", lambda ch, n: len({c.get("id") for c in _calls(ch) if c.get("id")}) >= n),
    "tool_called": ("string", lambda ch, name: any(c.get("name") == name for c in _calls(ch))),
    "tool_input_has": ("mapping", _input_has),
    "tool_input_is": ("value", _input_is),
    # Every tool_call item, complete or not: an empty id is a bug even in a call that never finished.
    "tool_ids_nonempty": ("flag", _flag(lambda ch: all(isinstance(c.get("id"), str) and c["id"]
                                                       for c in _of(ch, "tool_call")))),
    "text_nonempty": ("flag", _flag(_has_text)),
    "text_contains": ("string", lambda ch, needle: _contains(needle, _text(ch))),
    "text_before_tool_call": ("flag", _flag(lambda ch: _text_around_call(ch, after=False))),
    "text_after_tool_call": ("flag", _flag(lambda ch: _text_around_call(ch, after=True))),
    "text_or_tool_call": ("flag", _flag(lambda ch: _has_text(ch) or bool(_calls(ch)))),
    "reasoning_present": ("flag", _flag(lambda ch: bool(_of(ch, "reasoning")))),
    "reasoning_signed": ("flag", _flag(_signed)),
    "reasoning_blocks_at_least": ("count", lambda ch, n: len(_of(ch, "reasoning")) >= n),
    "redacted_reasoning_present": ("flag", _flag(lambda ch: bool(_of(ch, "redacted_reasoning")))),
    "usage_present": ("flag", _flag(lambda ch: bool(_of(ch, "usage")))),
    "stop_reason": ("reasons", _stop_in),
    "no_error": ("flag", _flag(lambda ch: not _of(ch, "error"))),
    "error_code": ("string", lambda ch, code: any(c.get("code") == code for c in _of(ch, "error"))),
    "error_contains": ("string", _error_mentions),  # case-insensitive, over code and message
}
for _name, (_argument, _predicate) in _BUILTIN.items():
    register_check(_name, _argument)(_predicate)


def _split(entry: Any, where: str) -> tuple[int | None, str, Any]:
    """An entry's turn (None: every turn), check name and argument, validated."""
    if not isinstance(entry, dict):
        raise CheckError(f"{where}: expected a mapping like {{turn: 0, tool_calls_at_least: 1}}, got {entry!r}")
    turn = entry.get("turn")
    if turn is not None and not _is_count(turn):
        raise CheckError(f"{where}: turn must be an integer >= 0, got {turn!r}")
    names = [k for k in entry if k != "turn"]
    if len(names) != 1:
        raise CheckError(f"{where}: expected exactly one check besides 'turn', got {names or 'none'}")
    name = names[0]
    if name not in CHECKS:
        raise CheckError(f"{where}: unknown check {name!r} (known: {', '.join(sorted(CHECKS))})")
    valid, described = ARGUMENTS[CHECKS[name].argument]
    if not valid(entry[name]):
        raise CheckError(f"{where}: {name} takes {described}, got {entry[name]!r}")
    return turn, name, entry[name]


def _sections(checks: Any, source: str | None) -> dict[str, list]:
    """The hard and soft lists (absent: empty)."""
    prefix, checks = (f"{source}: " if source else ""), ({} if checks is None else checks)
    if not isinstance(checks, dict) or set(checks) - set(SECTIONS):
        raise CheckError(f"{prefix}checks must be a mapping with only 'hard' and 'soft' lists, got {checks!r}")
    lists = {s: checks.get(s) or [] for s in SECTIONS}
    bad = next((s for s, entries in lists.items() if not isinstance(entries, list)), None)
    if bad:
        raise CheckError(f"{prefix}checks.{bad} must be a list, got {lists[bad]!r}")
    return lists


def validate(checks: Any, source: str | None = None) -> list[tuple[str, int | None, str, Any]]:
    """Every entry as (section, turn, name, argument); ``CheckError`` names the file, entry and problem."""
    return [
        (section, *_split(entry, f"{source + ': ' if source else ''}checks.{section}[{i}]"))
        for section, entries in _sections(checks, source).items()
        for i, entry in enumerate(entries)
    ]


def _brief(chunk: dict) -> str:
    kind = chunk.get("type")
    if kind == "text":
        return f"text {chunk.get('text', '')[:40]!r}"
    if kind == "tool_call" and not _complete(chunk):
        return f"tool_call {chunk.get('name')} (incomplete)"
    if kind == "tool_call":
        data = json.dumps(chunk.get("input"), ensure_ascii=False)[:60]
        return f"tool_call {chunk.get('name')} id={chunk.get('id')!r} {data}"
    if kind == "reasoning":
        return "reasoning (signed)" if chunk.get("signature") else "reasoning (unsigned)"
    if kind in ("stop", "error"):
        return f"{kind} {chunk.get('reason') or chunk.get('code')}"
    return str(kind)


def _summary(chunks: list[dict]) -> str:
    return "[" + ", ".join(_brief(c) for c in chunks) + "]" if chunks else "no chunks"


def _verdicts(turn: int | None, name: str, arg: Any, turns: list[list[dict]]) -> list[str]:
    """A message per turn on which the check fails (or that was not recorded)."""
    label = f"{name}: {json.dumps(arg, ensure_ascii=False)}"
    if turn is not None and turn >= len(turns):
        return [f"turn {turn}: {label} failed: turn not recorded ({len(turns)} turn(s))"]
    indices = range(len(turns)) if turn is None else [turn]
    predicate = CHECKS[name].predicate
    return [f"turn {i}: {label} failed: got {_summary(turns[i])}" for i in indices if not predicate(turns[i], arg)]


def evaluate(checks: Any, turns_normalized: list[list[dict]], source: str | None = None) -> CheckOutcome:
    """Apply a scenario's hard and soft checks to each turn's normalized chunk list."""
    found: dict[str, list[str]] = {s: [] for s in SECTIONS}
    for section, turn, name, arg in validate(checks, source):
        found[section].extend(_verdicts(turn, name, arg, turns_normalized))
    return CheckOutcome(hard_failures=found["hard"], soft_warnings=found["soft"])
