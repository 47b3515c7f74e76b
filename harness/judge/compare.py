"""The one place deepdiff is called: normalized chunk lists and requests, diffed and rendered readably.

A ``Diff`` names the scenario, the turn, the chunk index (or request path) and the field, with expected
and actual side by side, then lists both sides in two aligned columns with the differing rows marked.
Rows are aligned with difflib (a missing tool call shows as a gap, not as every later chunk changed);
deepdiff, with the fixed options below, finds the field-level changes inside a row and inside a request.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from harness.judge.ast_lock import AST_LOCK
from harness.judge.excerpt import brief, joined_lines, pair, shown


__all__ = ["DEEPDIFF_OPTIONS", "Diff", "compile_pattern", "diff_chunks", "diff_pair", "diff_request", "diff_turn_count",
           "note", "same_json"]

# Lists compare in order (stream order is semantic). Types are strict: deepdiff's numeric-type options
# would also equate True with 1. Keys starting with "__" (the normalizer's "__unparsed__") are data here.
DEEPDIFF_OPTIONS = {"ignore_order": False, "verbose_level": 2, "view": "tree", "ignore_private_variables": False}
COLUMN = 60  # widest expected/actual cell in a listing; longer cells are cut with "...", never hiding a difference


@dataclass(frozen=True)
class Diff:
    """Differences for one scenario turn: ``subject`` is chunks, request, turns or golden."""

    subject: str
    changes: tuple[str, ...]
    listing: tuple[str, ...] = ()
    scenario: str = ""
    turn: int | None = None

    @property
    def headline(self) -> str:
        return self.changes[0]

    def render(self) -> str:
        return "\n".join([*self.changes, *([""] + list(self.listing) if self.listing else [])])

    __str__ = render


def note(subject: str, message: str, *, scenario: str = "", turn: int | None = None) -> Diff:
    """A one-line Diff (a missing golden, a turn count mismatch)."""
    return Diff(subject, (_prefixed(_where(scenario, turn), message),), scenario=scenario, turn=turn)


def diff_turn_count(expected: int, actual: int, *, scenario: str = "") -> Diff | None:
    """A Diff when the run produced a different number of turns than the golden holds."""
    if expected == actual:
        return None
    return note("turns", f"expected {expected} turn(s) / actual {actual}", scenario=scenario)


def diff_chunks(expected: Sequence[dict], actual: Sequence[dict], *, scenario: str = "",
                turn: int | None = None) -> Diff | None:
    """Differences between two normalized chunk lists, or None when they match."""
    expected, actual = list(expected), list(actual)
    if same_json(expected, actual):  # chunk for chunk: nothing to align
        return None
    rows = _align(expected, actual, _chunk_kind)
    where = _where(scenario, turn)
    changes = [line for i, j in rows for line in _row_changes(where, i, j, expected, actual)]
    if not changes:
        return None
    changes = joined_lines(rows, expected, actual, where) + changes  # the likely cause first
    return Diff("chunks", tuple(changes), _listing(rows, expected, actual, _chunk_cell, "chunks"), scenario, turn)


def diff_request(expected: dict | None, actual: dict | None, *, scenario: str = "",
                 turn: int | None = None) -> Diff | None:
    """Differences between two normalized requests (field paths), with their messages listed side by side."""
    where = _prefixed(_where(scenario, turn), "request")
    expected, actual = expected or {}, actual or {}
    if same_json(expected, actual):
        return None
    changes = _field_changes(expected, actual, f"{where} ")
    if not changes:
        return None
    left, right = _messages(expected), _messages(actual)
    listing = _listing(_align(left, right, _message_kind), left, right, _message_cell, "messages")
    return Diff("request", tuple(changes), listing, scenario, turn)


def diff_pair(left: Any, right: Any, labels: tuple[str, str], label: str, ignore: Sequence[str] = ()) -> list[str]:
    """One line per difference between two values of the same thing, sides named by ``labels`` (e.g. streamed,
    non-streamed), a changed type said as such; paths matching an ``ignore`` pattern (``parts[*].timestamp``:
    ``[*]`` any index, ``*`` any part of a name; a pattern covers what lies under it) are left out."""
    patterns = [compile_pattern(p) for p in ignore]
    return [line for path, line in _changes(left, right, f"{label} ", labels)
            if not any(p.match(path) for p in patterns)]


def compile_pattern(text: str) -> re.Pattern:
    """A declared path pattern (``parts[*].args``: ``[*]`` any index, ``*`` any part of a name) as a regex matching
    the path and everything under it (``fullmatch`` for the path alone)."""
    body = re.escape(text).replace(r"\[\*\]", r"\[\d+\]").replace(r"\*", r"[^.\[\]]*")
    return re.compile(f"^{body}(?=$|[.\\[])")


def _messages(request: dict) -> list:
    """A request's messages for the listing: a value that is no list is listed as one row."""
    messages = request.get("messages")
    return messages if isinstance(messages, list) else [] if messages is None else [messages]


def _where(scenario: str, turn: int | None) -> str:
    return " ".join(part for part in (scenario, "" if turn is None else f"turn {turn}") if part)


def _prefixed(where: str, text: str) -> str:
    return f"{where} {text}" if where else text


def _row_changes(where: str, i: int | None, j: int | None, expected: list, actual: list) -> list[str]:
    """The change lines of one aligned row: a missing chunk, an unexpected one, or its changed fields."""
    if j is None:
        label = _prefixed(where, f"chunk {i} ({_type(expected[i])})")
        return [f"{label}: missing; expected {_chunk_cell(expected[i], None)} / actual nothing"]
    if i is None:
        label = _prefixed(where, f"actual chunk {j} ({_type(actual[j])})")
        return [f"{label}: unexpected; expected nothing / actual {_chunk_cell(actual[j], None)}"]
    moved = f", actual chunk {j}" if i != j else ""
    label = _prefixed(where, f"chunk {i} ({_type(expected[i])}{moved}):")
    return _field_changes(expected[i], actual[j], f"{label} ")


def _field_changes(expected: Any, actual: Any, label: str) -> list[str]:
    """One line per deepdiff change, sorted by path so the output is deterministic."""
    return [line for _, line in _changes(expected, actual, label)]


def _changes(expected: Any, actual: Any, label: str, sides: tuple[str, str] | None = None) -> list[tuple[str, str]]:
    """(path, line) per deepdiff change, sorted by path; ``sides`` names both values (default: expected, actual)."""
    if _key(expected) == _key(actual):  # the common case, and JSON still tells True from 1 and 1 from 1.0
        return []
    from deepdiff import DeepDiff  # imported on first use: it costs more start-up time than the rest together

    with AST_LOCK:  # deepdiff parses every path key it renders (harness/judge/ast_lock.py)
        tree = DeepDiff(expected, actual, **DEEPDIFF_OPTIONS)
        levels = [(kind, level) for kind, found in tree.items() for level in found]
        levels.sort(key=lambda pair: [(isinstance(p, str), p if isinstance(p, int) else str(p))
                                      for p in pair[1].path(output_format="list")])
        described = [(_field(level.path(output_format="list")), kind, level) for kind, level in levels]
    describe = _describe if sides is None else _describe_sides
    return [(name, label + describe(kind, level, name, sides)) for name, kind, level in described]


def _describe(kind: str, level: Any, name: str, sides: None = None) -> str:
    if kind.endswith("_added"):
        return f"expected no {name} / actual {name} {brief(level.t2)}"
    if kind.endswith("_removed"):
        return f"expected {name} {brief(level.t1)} / actual no {name}"
    left, right, at = pair(level.t1, level.t2)
    return f"expected {name} {left} / actual {right}{at}"


def _describe_sides(kind: str, level: Any, name: str, sides: tuple[str, str]) -> str:
    left, right = sides
    if kind.endswith("_added"):
        return f"{name}: {left} nothing / {right} {brief(level.t2)}"
    if kind.endswith("_removed"):
        return f"{name}: {left} {brief(level.t1)} / {right} nothing"
    one, other, at = pair(level.t1, level.t2)
    if kind == "type_changes":
        return f"{name}: {left} a {_type_name(level.t1)} {one}, {right} a {_type_name(level.t2)} {other}{at}"
    return f"{name}: {left} {one} / {right} {other}{at}"


def _type_name(value: Any) -> str:
    return {dict: "dict", list: "list", str: "str", bool: "bool", int: "int", float: "float",
            type(None): "null"}.get(type(value), type(value).__name__)


def _field(path: list) -> str:
    """A deepdiff path as ``input.path`` or ``messages[2].content[0].toolResult``."""
    text = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if str(p).isidentifier() else f"[{p!r}]")
                   for p in path)
    return text.lstrip(".") or "value"


def same_json(left: Any, right: Any) -> bool:
    """Whether two values are the same JSON (``1``, ``1.0`` and ``true`` differ; member order does not): then
    no comparison can find a difference, and none need run."""
    return _key(left) == _key(right)


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def _type(chunk: Any) -> str:
    return chunk.get("type", "?") if isinstance(chunk, dict) else type(chunk).__name__


def _chunk_kind(chunk: Any) -> str:
    """A coarse row key: same kind and tool name pair up even when ids or inputs differ."""
    return f"{_type(chunk)}:{chunk.get('name', '')}" if isinstance(chunk, dict) else _key(chunk)


def _message_kind(message: Any) -> str:
    """A message's row key, its role (a role of another JSON type, as an adapter may send, as its JSON)."""
    role = message.get("role", "?") if isinstance(message, dict) else message
    return role if isinstance(role, str) else _key(role)


def _align(expected: list, actual: list, kind: Callable) -> list[tuple[int | None, int | None]]:
    """Pairs of (expected index, actual index): exact matches first, then same-kind rows, gaps as None."""
    rows: list[tuple[int | None, int | None]] = []
    exact = difflib.SequenceMatcher(None, [_key(x) for x in expected], [_key(x) for x in actual], autojunk=False)
    for op, i1, i2, j1, j2 in exact.get_opcodes():
        if op == "equal":
            rows += zip(range(i1, i2), range(j1, j2))
        else:
            rows += _align_kinds(expected, actual, range(i1, i2), range(j1, j2), kind)
    return rows


def _align_kinds(expected: list, actual: list, left: range, right: range, kind: Callable) -> list:
    coarse = difflib.SequenceMatcher(None, [kind(expected[i]) for i in left], [kind(actual[j]) for j in right],
                                     autojunk=False)
    rows: list[tuple[int | None, int | None]] = []
    for op, i1, i2, j1, j2 in coarse.get_opcodes():
        pairs = list(zip(left[i1:i2], right[j1:j2])) if op in ("equal", "replace") else []
        # Rows of different types never pair: a text where an error stands is one missing, one unexpected.
        pairs = pairs[:next((n for n, (i, j) in enumerate(pairs) if _type(expected[i]) != _type(actual[j])),
                            len(pairs))]
        rows += pairs
        # What the adapter sent instead comes first: it is usually the cause (an empty-id call, an error).
        rows += [(None, j) for j in right[j1 + len(pairs):j2]] + [(i, None) for i in left[i1 + len(pairs):i2]]
    return rows


def _cut(text: str, width: int | None) -> str:
    return text if width is None or len(text) <= width else text[: width - 3] + "..."


def _chunk_cell(chunk: Any, width: int | None = COLUMN) -> str:
    """A chunk as ``type {fields}`` on one line."""
    if not isinstance(chunk, dict):
        return _cut(shown(chunk), width)
    rest = json.dumps({k: v for k, v in chunk.items() if k != "type"}, ensure_ascii=False, default=repr)
    return _cut(f"{_type(chunk)} {rest}", width)


def _message_cell(message: Any, width: int | None = COLUMN) -> str:
    """A message as ``role: block, block(id)``."""
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return _chunk_cell(message, width)
    blocks = [_block_name(block) for block in message["content"]]
    return _cut(f"{message.get('role', '?')}: {', '.join(blocks)}", width)


def _block_name(block: Any) -> str:
    if not isinstance(block, dict) or len(block) != 1:
        return _cut(shown(block), 24)
    (name, body), = block.items()
    ident = body.get("toolUseId") if isinstance(body, dict) else None
    return f"{name}({ident})" if ident is not None else name


def _listing(rows: list, expected: list, actual: list, cell: Callable, title: str) -> tuple[str, ...]:
    """Expected and actual in two aligned columns; rows that differ are marked with ``!``."""
    cells = [_row_cells(i, j, expected, actual, cell) for i, j in rows]
    width = max([len(f"expected {title}")] + [len(left) for left, _ in cells])
    lines = [f"      {'expected ' + title:<{width}} |     actual {title}"]
    for (i, j), (left, right) in zip(rows, cells):
        same = i is not None and j is not None and _key(expected[i]) == _key(actual[j])
        lines.append(f"{' ' if same else '!'} {_index(i)} {left:<{width}} | {_index(j)} {right}".rstrip())
    return tuple(lines)


def _row_cells(i: int | None, j: int | None, expected: list, actual: list, cell: Callable) -> tuple[str, str]:
    """A row's two cells; when both sides are there, cut so that where they differ stays in view."""
    if i is None or j is None:
        return (cell(expected[i]) if i is not None else ""), (cell(actual[j]) if j is not None else "")
    return _window(cell(expected[i], None), cell(actual[j], None))


def _window(left: str, right: str, width: int = COLUMN) -> tuple[str, str]:
    """Both cells cut to ``width``; when a plain cut would hide the difference, both start at the differing key."""
    same = len(os.path.commonprefix([left, right]))
    if left == right or same <= width - 8:  # the plain cut shows the difference and a few characters of it
        return _cut(left, width), _cut(right, width)
    head = left.split(" ", 1)[0]  # the chunk type or the message role stays in front
    keys = [m.end() - 1 for m in re.finditer(r'[{,\[]\s*"', left[:same])]
    start = keys[-1] if keys and same - keys[-1] <= width // 2 else max(same - 12, len(head))
    return _cut(f"{head} ...{left[start:]}", width), _cut(f"{head} ...{right[start:]}", width)


def _index(i: int | None) -> str:
    return f"{i:>3}" if i is not None else "  -"
