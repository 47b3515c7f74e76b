"""Long values in a finding: two shown around where they first differ, one cut, and a value that is two joined.

A signature, a long text or a JSON value of hundreds of characters would fill a report's line (and the HTML
reason cell) without showing where two of them part. ``pair`` shows both sides as a window of CONTEXT characters
each side of the first difference, an ellipsis where it cuts, and says the offset; ``joined`` finds the chunk
whose value is two neighbouring chunks' values joined (one block split in two, or two blocks merged).
"""

from __future__ import annotations

import json
import os
from typing import Any, Sequence

__all__ = ["CONTEXT", "LONG", "WHOLE", "brief", "joined", "joined_lines", "pair", "shown"]

LONG = 80  # two values, either shown longer than this, are shown around their first difference
WHOLE = 200  # one value (added, removed, a part) shown longer than this is cut, its length said
CONTEXT = 24  # characters kept on each side of the first difference


def shown(value: Any) -> str:
    """A value as a finding writes it: a string quoted, anything else as JSON."""
    return repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)


def brief(value: Any) -> str:
    """``shown(value)``, cut after WHOLE characters with its length said when it is longer."""
    text = shown(value)
    if len(text) <= WHOLE:
        return text
    return f"{shown(value[:WHOLE]) if isinstance(value, str) else text[:WHOLE]}… ({len(_raw(value))} characters)"


def pair(left: Any, right: Any) -> tuple[str, str, str]:
    """(left shown, right shown, a note): whole when both are short, else each a window around the first difference
    with the note ``, first difference at character N of L / R`` (values of two types, and JSON values that part
    within CONTEXT characters of their start: each ``brief``)."""
    if max(len(shown(left)), len(shown(right))) <= LONG:
        return shown(left), shown(right), ""
    a, b = _raw(left), _raw(right)
    at = len(os.path.commonprefix([a, b]))
    if type(left) is not type(right) or (at < CONTEXT and not isinstance(left, str)):
        return brief(left), brief(right), ""  # another type, or another block at once: their starts say more
    return _around(a, at, left), _around(b, at, right), f", first difference at character {at} of {len(a)} / {len(b)}"


def joined(whole: dict, first: dict, second: dict) -> str | None:
    """The first string field of ``whole`` that is ``first``'s and ``second``'s joined (both parts non-empty), when
    all three are chunks of one type; else None."""
    if not (whole.get("type") == first.get("type") == second.get("type")):
        return None
    return next((field for field, value in whole.items() if field != "type" and isinstance(value, str)
                 and _parts(first.get(field), second.get(field)) and first[field] + second[field] == value), None)


def _parts(*values: Any) -> bool:
    return all(isinstance(value, str) and value for value in values)


def _raw(value: Any) -> str:
    """The text the offset counts in: a string itself, anything else its JSON."""
    return value if isinstance(value, str) else shown(value)


def _around(text: str, at: int, value: Any) -> str:
    start, end = max(0, at - CONTEXT), at + CONTEXT
    window = repr(text[start:end]) if isinstance(value, str) else text[start:end]
    return f"{'…' if start else ''}{window}{'…' if end < len(text) else ''}"


def joined_lines(rows: Sequence[tuple[int | None, int | None]], expected: Sequence, actual: Sequence,
                 where: str) -> list[str]:
    """A line per differing aligned row whose one side is the other side's chunk and its neighbour joined."""
    lines = []
    for i, j in rows:
        if i is None or j is None or expected[i] == actual[j]:
            continue
        lines += [_line(where, f"chunk {i}", ("expected", expected[i]), ("actual", actual, k), field)
                  for k, field in _splits(actual, expected[i]) if k in (j, j - 1)]
        lines += [_line(where, f"actual chunk {j}", ("actual", actual[j]), ("expected", expected, k), field)
                  for k, field in _splits(expected, actual[j]) if k in (i, i - 1)]
    return lines


def _splits(chunks: Sequence, whole: Any) -> list[tuple[int, str]]:
    """(k, field) for each neighbouring pair ``chunks[k]``, ``chunks[k + 1]`` whose field joined is ``whole``'s."""
    if not isinstance(whole, dict):
        return []
    return [(k, field) for k in range(len(chunks) - 1) if isinstance(chunks[k], dict) and isinstance(chunks[k + 1], dict)
            for field in [joined(whole, chunks[k], chunks[k + 1])] if field is not None]


def _line(where: str, label: str, one: tuple, other: tuple, field: str) -> str:
    (side, whole), (other_side, chunks, k) = one, other
    first, second = chunks[k][field], chunks[k + 1][field]
    head = f"{where} {label}" if where else label
    return (f"{head} ({whole['type']}): {side} {field} {brief(whole[field])} is the {field}s of {other_side} chunks "
            f"{k} and {k + 1} joined: {brief(first)} + {brief(second)}")
