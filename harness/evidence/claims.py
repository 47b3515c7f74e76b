"""Claims about Bedrock, in one format for every owner (a request rule, an emulator style, a scenario).

A claim is ``{id, says, sources}``: a short id unique within its owner, one sentence of what Bedrock accepts,
rejects or sends, and the sources it rests on: ids of the catalog (``sources.yaml``) or a source written in place
(a mapping of the catalog's fields, for a scenario of one's own). ``claim_problems`` says what makes a claim
unsupported: no source, an id the catalog lacks, or only the service model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from harness.evidence.catalog import CatalogError, Source, parse_source

__all__ = ["Claim", "ClaimError", "claim_problems", "parse_claims", "resolve"]

_CLAIM_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class ClaimError(ValueError):
    """A claims list of the wrong shape; the one-line message names where and the field."""


@dataclass(frozen=True)
class Claim:
    """What one owner says of Bedrock, and the sources it rests on (catalog ids or sources given in place)."""

    owner: str  # "rule text-blank", "style nova", "scenario edge/nova-style"
    id: str
    says: str
    sources: tuple[str | Source, ...]

    @property
    def key(self) -> str:
        return f"{self.owner}: {self.id}"


def parse_claims(data: Any, owner: str, where: str) -> list[Claim]:
    """A list of ``{id, says, sources}`` mappings as Claims; ``ClaimError`` names ``where[i].field``."""
    if not isinstance(data, list):
        raise ClaimError(f"{where}: expected a list of claims ({{id, says, sources}})")
    claims, seen = [], set()
    for i, entry in enumerate(data):
        at = f"{where}[{i}]"
        if not isinstance(entry, Mapping) or set(entry) - {"id", "says", "sources"}:
            raise ClaimError(f"{at}: expected a mapping with id, says and sources only")
        cid, says, sources = entry.get("id"), entry.get("says"), entry.get("sources", [])
        if not isinstance(cid, str) or not _CLAIM_ID.match(cid) or cid in seen:
            raise ClaimError(f"{at}.id: expected a new lower-case id of letters, digits and hyphens, got {cid!r}")
        if not isinstance(says, str) or not says.strip():
            raise ClaimError(f"{at}.says: expected one sentence of what Bedrock accepts, rejects or sends")
        if not isinstance(sources, list):
            raise ClaimError(f"{at}.sources: expected a list of source ids or sources")
        claims.append(Claim(owner, cid, " ".join(says.split()), tuple(_source(s, f"{at}.sources[{n}]")
                                                                      for n, s in enumerate(sources))))
        seen.add(cid)
    return claims


def _source(value: Any, where: str) -> str | Source:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        try:
            return parse_source(str(value.get("id", "inline")), {k: v for k, v in value.items() if k != "id"}, where)
        except CatalogError as exc:
            raise ClaimError(str(exc)) from None
    raise ClaimError(f"{where}: expected a source id or a source mapping, got {value!r}")


def resolve(claim: Claim, sources: Mapping[str, Source]) -> list[Source]:
    """The claim's sources (catalog ids looked up; unknown ones left out)."""
    return [s if isinstance(s, Source) else sources[s] for s in claim.sources if isinstance(s, Source) or s in sources]


def claim_problems(claim: Claim, sources: Mapping[str, Source]) -> list[str]:
    """Why the claim is not supported (empty: it is)."""
    unknown = [s for s in claim.sources if isinstance(s, str) and s not in sources]
    if unknown:
        return [f"{claim.key}: unknown source {', '.join(unknown)} (not in the catalog)"]
    if not claim.sources:
        return [f"{claim.key}: no source (a real recording, a public report quoting Bedrock, or AWS documentation)"]
    if not any(s.evidence for s in resolve(claim, sources)):
        return [f"{claim.key}: only the service model, which says what the shapes are, not what Bedrock accepts"]
    return []
