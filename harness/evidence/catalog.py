"""The bibliography: every source a claim about Bedrock may cite, by a short id, each checkable.

``sources.yaml`` maps an id to one source of a ``kind``:

- ``recording``: a real Bedrock recording, either ``file`` (its path under ``../shared/realworld``) with its
  ``sha256``, or ``repo``, ``path`` and ``commit`` (40 hex digits: git pins its bytes), and what it ``shows``;
- ``report``: a public report (issue, pull request, code comment, article) at ``url`` with the ``quote`` of Bedrock's
  own text or the reporter's words it rests on;
- ``doc``: AWS (or the model provider's) documentation at ``url``, with the ``quote`` it rests on;
- ``model``: the service model (``what`` member); the Smithy model says what the shapes are, not what the service
  accepts, so it is never a claim's only source.

Loading validates every entry; ``recording_problems`` checks the files a checkout has against their hashes.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

__all__ = ["KINDS", "CatalogError", "Source", "catalog", "load_catalog", "recording_problems"]

KINDS = ("recording", "report", "doc", "model")
FIELDS = ("kind", "url", "quote", "file", "sha256", "repo", "path", "commit", "shows", "what")
CATALOG = Path(__file__).with_name("sources.yaml")
_HEX = {"sha256": re.compile(r"^[0-9a-f]{64}$"), "commit": re.compile(r"^[0-9a-f]{40}$")}
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.#@/:+-]*$")


class CatalogError(ValueError):
    """A sources file that cannot be used; the one-line message names the file, the source and the field."""


@dataclass(frozen=True)
class Source:
    """One checkable source (see the module docstring for what each kind carries)."""

    id: str
    kind: str
    url: str = ""
    quote: str = ""
    file: str = ""
    sha256: str = ""
    repo: str = ""
    path: str = ""
    commit: str = ""
    shows: str = ""
    what: str = ""

    @property
    def evidence(self) -> bool:
        """Whether it can support a claim by itself (the service model cannot)."""
        return self.kind != "model"

    def cite(self) -> str:
        """One line: what it is and where to check it."""
        if self.kind == "recording":
            where = (f"{self.file} (sha256 {self.sha256[:16]}...)" if self.file
                     else f"{self.repo} {self.path} at {self.commit[:12]}")
            return f"recording {where}: {self.shows}"
        if self.kind == "model":
            return f"service model: {self.what}"
        return f"{self.kind} {self.url}" + (f': "{_short(self.quote)}"' if self.quote else "")

    def as_dict(self) -> dict:
        return {k: v for k, v in vars(self).items() if v}


def _short(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _required(kind: str, entry: Mapping) -> list[str]:
    """The fields a kind needs that the entry lacks or has malformed."""
    if kind == "recording":
        local = [f for f in ("file", "sha256") if not entry.get(f)]
        public = [f for f in ("repo", "path", "commit") if not entry.get(f)]
        missing = local if len(local) <= len(public) else public
        return missing + ([] if entry.get("shows") else ["shows"])
    if kind in ("report", "doc"):
        wrong = [] if str(entry.get("url", "")).startswith("https://") else ["url (an https:// address)"]
        return wrong + ([] if entry.get("quote") else ["quote"])
    return [] if entry.get("what") else ["what"]


def parse_source(sid: Any, entry: Any, where: str) -> Source:
    """One validated source; ``CatalogError`` names ``where``, the id and the field."""
    if not isinstance(sid, str) or not _ID.match(sid):
        raise CatalogError(f"{where}: {sid!r}: a source id is a short name of letters, digits and _.#@/:+-")
    if not isinstance(entry, Mapping):
        raise CatalogError(f"{where}: {sid}: expected a mapping with kind and the kind's fields")
    unknown = [key for key in entry if key not in FIELDS]
    if unknown or entry.get("kind") not in KINDS:
        field = unknown[0] if unknown else "kind"
        raise CatalogError(f"{where}: {sid}.{field}: {'unknown field' if unknown else 'expected one of'} "
                           f"({', '.join(FIELDS if unknown else KINDS)})")
    if not all(isinstance(value, str) for value in entry.values()):
        raise CatalogError(f"{where}: {sid}: every field is a string")
    missing = _required(entry["kind"], entry)
    bad = [f for f, pattern in _HEX.items() if entry.get(f) and not pattern.match(entry[f])]
    if missing or bad:
        problem = f"{missing[0]}: missing (a {entry['kind']} needs it)" if missing else f"{bad[0]}: not hex of its length"
        raise CatalogError(f"{where}: {sid}.{problem}")
    return Source(id=sid, **{k: v.strip() if k != "quote" else v for k, v in entry.items()})


def load_catalog(path: str | Path = CATALOG) -> dict[str, Source]:
    """Every source of a sources file, validated."""
    import yaml  # here: parsing a scenario's claims needs no YAML reader of its own

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise CatalogError(f"{path}: cannot read: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict):
        raise CatalogError(f"{path}: expected a mapping of source id -> source")
    return {sid: parse_source(sid, entry, str(path)) for sid, entry in data.items()}


@functools.cache
def catalog() -> dict[str, Source]:
    """The shipped catalog (loaded once)."""
    return load_catalog()


def recording_problems(sources: Mapping[str, Source], root: str | Path) -> list[str]:
    """Recordings held as files under ``root`` (``../shared/realworld``) that are missing or whose bytes changed."""
    found = []
    for source in sources.values():
        if source.kind != "recording" or not source.file:
            continue
        path = Path(root) / source.file
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as exc:
            found.append(f"source {source.id}: {path}: cannot read: {exc.strerror or exc}")
            continue
        if digest != source.sha256:
            found.append(f"source {source.id}: {path}: sha256 {digest}, the catalog says {source.sha256}")
    return found
