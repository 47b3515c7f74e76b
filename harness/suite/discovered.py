"""The scenarios a discovery found, kept lean until they run.

A loaded ``Scenario`` holds about 12 KiB of dicts, lists and strings; at 10,000 scenarios a run held 180 MiB before
running one (issue 32). Discovery still reads and validates every file first (a bad one is a one-line error before
anything runs), then keeps per scenario only its id, its file and its validated document packed (``marshal``, then
``zlib``: about 1.2 KiB). An item is built into a ``Scenario`` each time it is asked for, from the packed document:
no file is read again, so a file changed after discovery does not change what runs, and each build is a fresh copy
that nothing else holds. The runner asks for one scenario at a time and lets it go after judging it.

A document ``marshal`` cannot hold (a YAML ``!!timestamp``) is kept as the built Scenario itself.
"""

from __future__ import annotations

import marshal
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, NamedTuple

__all__ = ["Discovered", "ScenarioFile", "files_of", "pack"]


class ScenarioFile(NamedTuple):
    """What a report needs of a scenario it does not judge: its id and its file (``cassette_path`` takes it)."""

    id: str
    path: Path


def pack(document: Any) -> bytes | None:
    """``document`` (parsed YAML: dicts, lists, scalars) as compressed marshal bytes; None when marshal cannot."""
    try:
        return zlib.compress(marshal.dumps(document), 1)
    except ValueError:
        return None


class Discovered(Sequence):
    """A sorted sequence of scenarios kept as ``(id, path, packed document or Scenario)``; ``build(id, path,
    document)`` makes the Scenario of an entry when it is asked for."""

    __slots__ = ("_build", "_entries")

    def __init__(self, entries: Iterable[tuple[str, str, Any]], build: Callable[[str, Path, Any], Any]) -> None:
        self._entries = tuple(entries)
        self._build = build

    @classmethod
    def joined(cls, parts: Iterable[Discovered]) -> Discovered:
        """The scenarios of several discoveries (layered roots, ids apart) as one, sorted by id."""
        parts = list(parts)
        entries = sorted((entry for part in parts for entry in part._entries), key=lambda entry: entry[0])
        build = parts[0]._build if parts else (lambda sid, path, document: document)
        return cls(entries, build)

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Discovered(self._entries[index], self._build)
        return self._built(self._entries[index])

    def __iter__(self) -> Iterator[Any]:
        return map(self._built, self._entries)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Discovered):
            return self._entries == other._entries
        return isinstance(other, (list, tuple)) and list(self) == list(other)

    __hash__ = None  # a sequence compared by content, like a list

    def __repr__(self) -> str:
        return f"Discovered({len(self)} scenarios: {', '.join(self.ids[:3])}{', ...' if len(self) > 3 else ''})"

    @property
    def ids(self) -> list[str]:
        """The scenario ids, in order, without building any scenario."""
        return [entry[0] for entry in self._entries]

    def files(self) -> list[ScenarioFile]:
        """Each scenario's id and file, without building it (what ``report.cassette_files`` reads)."""
        return [ScenarioFile(sid, Path(path)) for sid, path, _ in self._entries]

    def _built(self, entry: tuple[str, str, Any]) -> Any:
        sid, path, kept = entry
        if isinstance(kept, bytes):
            return self._build(sid, Path(path), marshal.loads(zlib.decompress(kept)))
        return kept


def files_of(scenarios: Iterable[Any]) -> Iterable[Any]:
    """Each scenario's id and file: a discovery's without building its scenarios (``Discovered.files``), else the
    scenarios themselves (built ones have both)."""
    return scenarios.files() if isinstance(scenarios, Discovered) else scenarios
