"""Splitting a run over machines: ``--shard K/N`` keeps the scenarios whose id hashes to K of N.

The split depends on the scenario id alone (sha256 of the id, modulo N), so every machine computes the same one
without talking to the others, a scenario stays in its shard when scenarios are added or removed, and the N shards
together hold every scenario exactly once. ``harness.studies.merge`` joins the shards' JSON reports again.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

__all__ = ["Shard", "ShardError", "parse_shard"]


class ShardError(ValueError):
    """A ``K/N`` that names no shard."""


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, scenario_id: str) -> bool:
        digest = hashlib.sha256(scenario_id.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1

    def as_json(self) -> dict:
        return {"index": self.index, "count": self.count}


def parse_shard(text: str) -> Shard:
    """``"2/4"`` -> Shard(2, 4); ShardError for anything but whole numbers with 1 <= K <= N."""
    found = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(text))
    if not found:
        raise ShardError(f"{text!r} is not K/N (e.g. 2/4: the second of four shards)")
    index, count = int(found[1]), int(found[2])
    if not 1 <= index <= count:
        raise ShardError(f"{text!r}: K must be from 1 to N")
    return Shard(index, count)
