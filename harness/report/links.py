"""Upstream links: the known upstream bug behind a library's failing cells (``certification/NAME.links.yaml``).

The file, one per library (the model: wpt-metadata's bug URL per failing test)::

    links:
      - scenario: edge/two-signed-reasoning-blocks
        releases: "<1.50.2"          # the releases that have the bug: a PEP 440 specifier set, or "*"
        url: https://github.com/owner/repo/issues/123
        state: fixed                 # open: not fixed upstream; fixed: fixed in a release after the range

A link applies to a cell when it names the cell's scenario and its range holds the cell's release. ``certify
--links FILE`` shows the link beside the cell and says, in one line each, when a linked cell no longer fails (the
link is stale) and when a failing cell has none (``check``). Every problem of the file is a one-line ``LinksError``
naming the file, the entry and the field.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.cassettes.limits import LimitError, load_yaml, read_file, yaml_errors
from harness.report.common import one_line

__all__ = ["FAILED", "STATES", "SUFFIX", "Link", "LinksError", "beside", "check", "for_cell", "library_file",
           "load_links"]

SUFFIX = ".links.yaml"
STATES = ("open", "fixed")
FAILED = ("fail", "xfail")  # the statuses of a failing cell: a finding on evidence, listed as known or not
_FIELDS = ("scenario", "releases", "url", "state")


class LinksError(ValueError):
    """A links file that cannot be used; the one-line message names the file, the entry and the field."""


@dataclass(frozen=True)
class Link:
    """One upstream bug attached to a scenario's failing cells in a range of releases."""

    scenario: str
    releases: str
    url: str
    state: str

    def holds(self, version: str) -> bool:
        """Whether ``version`` is in the range ("*": every release; a version PEP 440 cannot read: none)."""
        if self.releases.strip() == "*":
            return True
        from packaging.specifiers import SpecifierSet  # pytest's dependency; loaded only where a range is read
        from packaging.version import InvalidVersion, Version

        try:
            return SpecifierSet(self.releases).contains(Version(version), prereleases=True)
        except InvalidVersion:
            return False

    @property
    def label(self) -> str:
        return f"{self.url} ({self.state})"


def load_links(path: str | Path, known: Iterable[str] | None = None) -> tuple[Link, ...]:
    """The links of ``path``; ``known`` (scenario ids): a link naming another scenario is an error too."""
    path = Path(path)
    try:
        data = load_yaml(read_file(path).decode("utf-8"))
    except (OSError, UnicodeDecodeError, LimitError, *yaml_errors()) as exc:
        raise LinksError(f"{path}: cannot read: {one_line(str(exc))}") from None
    if not isinstance(data, dict) or set(data) != {"links"} or not isinstance(data["links"], list):
        raise LinksError(f"{path}: expected a mapping with one key, links: a list of {{{', '.join(_FIELDS)}}}")
    known = set(known) if known is not None else None
    return tuple(_link(entry, f"{path}: links[{i}]", known) for i, entry in enumerate(data["links"]))


def _link(entry: object, where: str, known: set[str] | None) -> Link:
    if not isinstance(entry, dict):
        raise LinksError(f"{where}: expected a mapping of {', '.join(_FIELDS)}")
    for name in _FIELDS:
        if not isinstance(entry.get(name), str) or not entry[name].strip():
            raise LinksError(f"{where}: field {name!r}: required, a non-empty string")
    extra = sorted(set(entry) - set(_FIELDS))
    if extra:
        raise LinksError(f"{where}: field {extra[0]!r}: unknown (known: {', '.join(_FIELDS)})")
    link = Link(*(entry[name].strip() for name in _FIELDS))
    where = f"{where} ({link.scenario})"
    if known is not None and link.scenario not in known:
        raise LinksError(f"{where}: field 'scenario': no such scenario in the suite")
    if link.releases != "*":
        from packaging.specifiers import InvalidSpecifier, SpecifierSet

        try:
            SpecifierSet(link.releases)
        except InvalidSpecifier:
            raise LinksError(f"{where}: field 'releases': {link.releases!r} is no PEP 440 specifier set "
                             "(e.g. '<1.50.2' or '>=1.80,<1.111') nor '*'") from None
    if not link.url.startswith(("https://", "http://")) or any(c.isspace() for c in link.url):
        raise LinksError(f"{where}: field 'url': {link.url!r} is no http(s) address")
    if link.state not in STATES:
        raise LinksError(f"{where}: field 'state': {link.state!r} (known: {', '.join(STATES)})")
    return link


def for_cell(links: Sequence[Link], scenario: str, version: str) -> Link | None:
    """The link of ``scenario`` whose range holds ``version`` (the first such, in file order)."""
    return next((link for link in links if link.scenario == scenario and link.holds(version)), None)


def check(links: Sequence[Link], results: Iterable, version: str, where: str) -> list[str]:
    """One line per stale link (its cell at ``version`` no longer fails) and per failing cell without a link."""
    lines = []
    for result in results:
        link = for_cell(links, result.scenario, version)
        if link is not None and result.status not in FAILED:
            lines.append(f"{where}: stale link: {result.scenario} is {result.status} at {version} but is linked to "
                         f"{link.label} for releases {link.releases}; mark the range fixed before {version} or "
                         "remove it")
        elif link is None and result.status in FAILED:
            lines.append(f"{where}: missing link: {result.scenario} fails at {version} and no link names it "
                         "(file the bug upstream and add its url)")
    return lines


def library_file(report: str | Path, suffix: str) -> Path | None:
    """The library's file ending ``suffix`` beside a certification report: ``NAME.json`` and ``NAME.floor.json``
    share ``NAME<suffix>``, and a ``-persisted`` variant without its own uses its library's."""
    report = Path(report)
    stem = report.name.removesuffix(".json").removesuffix(".floor")
    for name in dict.fromkeys((stem, stem.removesuffix("-persisted"))):
        if (found := report.with_name(name + suffix)).is_file():
            return found
    return None


def beside(report: str | Path) -> tuple[Link, ...]:
    """The links of the library of the certification report at ``report`` (none without a links file)."""
    found = library_file(report, SUFFIX)
    return load_links(found) if found is not None else ()
