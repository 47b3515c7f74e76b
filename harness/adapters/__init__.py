"""Adapters: the protocol every adapter implements, and lookup by name (``load_adapter``).

An adapter is any object with ``name``, ``version``, ``capabilities`` (a subset of ``CAPABILITIES``) and one
method, ``stream(turn, endpoint)``, yielding stream chunks (see DESIGN.md, "Adapter protocol").
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from harness.adapters.registry import (
    CAPABILITIES,
    ENTRY_POINT_GROUP,
    AdapterLoadError,
    known_adapters,
    load_adapter,
)

__all__ = ["CAPABILITIES", "ENTRY_POINT_GROUP", "Adapter", "AdapterLoadError", "known_adapters", "load_adapter"]


@runtime_checkable
class Adapter(Protocol):
    """What the runner drives: identity, declared capabilities, and one streaming method."""

    name: str
    version: str
    capabilities: frozenset[str]

    def stream(self, turn: dict, endpoint: dict) -> Iterator[dict]:
        """Yield the stream chunks of one turn against ``endpoint``."""
        ...
