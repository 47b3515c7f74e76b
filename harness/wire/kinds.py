"""How a value of the wrong type is named in a one-line error ("missing", "a list", "an int"), for every room."""

from __future__ import annotations

from typing import Any

__all__ = ["kind_of"]


def kind_of(value: Any) -> str:
    """What a value of the wrong type is: "missing" (None), "a list", "an int"."""
    name = type(value).__name__
    return "missing" if value is None else f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
