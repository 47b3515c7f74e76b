"""``bedrock-harness matrix`` and ``bisect``: an adapter's verdicts across releases of its library."""

from __future__ import annotations

import shutil
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import click
from click.core import ParameterSource

from harness.adapters import era, installer, releases
from harness.adapters.js import npm
from harness.adapters.js import releases as npm_releases
from harness.cli.common import (BadUsage, companion_option, named_folder, one_root_option, scenarios, selection_options,
                                timeout_option)
from harness.cli.output import choose_format, output_option, write_output
from harness.studies import matrix

__all__ = ["bisect", "matrix_command"]


# The options that pick how a Python library's releases are installed (parameter: flag); a JavaScript shim's
# releases come from the npm registry, with npm's own configuration.
_PYTHON_ONLY = {"package": "--package", "companions": "--with", "index_url": "--index-url",
                "find_links": "--find-links", "no_index": "--no-index", "preference": "--installer"}


def _index_options(fn):
    """The options every release install gets (default: uv's or pip's own configuration; npm's for a JavaScript shim)."""
    fn = click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                      help="Where releases are kept [default: ~/.cache/bedrock-harness/releases; for a JavaScript "
                           "shim the npm cache, $BEDROCK_HARNESS_NPM_CACHE or ~/.cache/bedrock-harness/npm].")(fn)
    fn = click.option("--installer", "preference", type=click.Choice(installer.INSTALLERS), default="auto",
                      show_default=True,
                      help="What installs each release: uv (when installed: auto), or pip (the harness environment's, "
                           "else one bootstrapped into the cache). Python libraries only.")(fn)
    fn = click.option("--no-index", is_flag=True, help="Ignore the package index (only --find-links). "
                                                       "Python libraries only.")(fn)
    fn = click.option("--find-links", multiple=True, metavar="DIR|URL",
                      help="Also look for releases here (repeatable). Python libraries only.")(fn)
    fn = click.option("--index-url", metavar="URL", help="The package index to install releases from. Python "
                                                         "libraries only (npm: `npm config set registry URL`).")(fn)
    fn = click.option("--with", "companions", multiple=True, metavar="REQ",
                      help="Also install REQ beside each release, over the harness environment's own (repeatable; "
                           "e.g. haystack-ai==2.21.0). Python libraries only: a JavaScript shim picks its own.")(fn)
    fn = click.option("--package", metavar="REQ", help="The library's distribution (with extras) "
                                                       "[default: the one the adapter's shim names]. Python libraries "
                                                       "only.")(fn)
    fn = companion_option(help="Install this release of a companion package beside each release (repeatable): a "
                               "JavaScript shim's instead of the one of the release's era (zod, ai, @langchain/core); "
                               "for a Python library NAME==VERSION, as --with.")(fn)
    return timeout_option(fn, help="Seconds one turn may take before the adapter is killed.")


@dataclass(frozen=True)
class _Releases:
    """How this command gets and runs releases of ``spec``'s library."""

    spec: str
    requirement: str
    options: installer.PipOptions
    cache: Path
    installer: installer.Installer
    timeout: float
    companions: tuple[str, ...]

    @property
    def beside(self) -> str:
        return f" with {', '.join(self.companions)}" if self.companions else ""

    def pinned(self, version: str) -> str:
        return f"{self.requirement}=={version}"

    def available(self) -> list[str]:
        """Every release the index offers, oldest first; an index that cannot be asked is a usage error."""
        try:
            return releases.available(self.requirement, self.options, self.cache)
        except releases.ReleaseError as exc:
            raise click.UsageError(str(exc)) from None

    def run(self, version: str, selected, root) -> matrix.Row:
        return releases.run_release(self.spec, self.requirement, version, selected, root, cache=self.cache,
                                    options=self.options, timeout=self.timeout,
                                    companions=(*self.companions, *self.of_era(version)), installer=self.installer)

    def of_era(self, version: str) -> list[str]:
        """The shim's era companions (``releases.era_companions``) that ``--with`` does not name, at their releases of
        ``version``'s era, said in one line; none, also said, when the era cannot be had."""
        given = {installer.normal_name(requirement) for requirement in self.companions}
        names = [name for name in releases.era_companions(self.spec) if installer.normal_name(name) not in given]
        if not names:
            return []
        try:
            pins = era.companions_of(self.requirement, version, names, self.installer, self.options)
        except era.EraError as exc:
            click.echo(f"{self.pinned(version)}: with the harness's own {', '.join(names)} ({exc})", err=True)
            return []
        if pins:
            click.echo(f"{self.pinned(version)}: with {', '.join(pins)}, of its era", err=True)
        return pins


@dataclass(frozen=True)
class _NpmReleases:
    """How this command gets and runs releases of a JavaScript shim's npm package: its own factory installs each."""

    spec: str
    requirement: str  # the npm package
    cache: Path
    timeout: float
    pins: tuple[tuple[str, str], ...] = ()  # --companion: else the shim picks each release's own (its era's)

    @property
    def beside(self) -> str:  # the shim's own picks are named by each row's adapter packages
        return f" with {', '.join(f'{name}@{pin}' for name, pin in self.pins)}" if self.pins else ""

    def pinned(self, version: str) -> str:
        return f"{self.requirement}@{version}"

    def available(self) -> list[str]:
        """Every release the npm registry lists, oldest first; npm missing or failing is a usage error."""
        try:
            return npm_releases.available(self.requirement)
        except npm.NpmError as exc:
            raise click.UsageError(str(exc)) from None

    def run(self, version: str, selected, root) -> matrix.Row:
        return npm_releases.run_release(self.spec, version, selected, root, cache=self.cache, timeout=self.timeout,
                                        pins=dict(self.pins))


def _javascript(spec: str, cache_dir, timeout, pins: dict[str, str]) -> _NpmReleases | None:
    """The npm releases of ``spec`` when it is a JavaScript shim (None for any other adapter); an option that only
    a Python library's install takes is a usage error."""
    try:
        package = npm_releases.library(spec)
    except npm.NpmError as exc:
        raise click.UsageError(str(exc)) from None
    if package is None:
        return None
    context = click.get_current_context()
    for name, flag in _PYTHON_ONLY.items():
        if context.get_parameter_source(name) not in (None, ParameterSource.DEFAULT):
            raise click.UsageError(f"{flag} applies to a Python library's releases; {spec} is a JavaScript shim: "
                                   f"the releases of {package} come from the npm registry with npm's own "
                                   "configuration (e.g. `npm config set registry URL`)")
    return _NpmReleases(spec, package, named_folder(cache_dir, "--cache-dir") if cache_dir else npm.default_cache(),
                        timeout, tuple(pins.items()))


def _setup(spec, package, index_url, find_links, no_index, cache_dir, preference, timeout, companions,
           pins) -> _Releases | _NpmReleases:
    """How releases are had; an adapter that names no library, or an installer that cannot be had, is a usage error.
    ``pins`` (``--companion``): a JavaScript shim's companions, or ``NAME==VERSION`` beside a Python release."""
    javascript = _javascript(spec, cache_dir, timeout, pins)
    if javascript is not None:
        return javascript
    try:
        requirement = package or releases.requirement_for(spec)
    except releases.ReleaseError as exc:
        raise click.UsageError(str(exc)) from None
    cache = named_folder(cache_dir, "--cache-dir") if cache_dir else releases.default_cache()
    try:
        chosen = installer.choose(preference, cache)
    except installer.InstallError as exc:
        raise BadUsage(str(exc)) from None
    return _Releases(spec, requirement, installer.PipOptions(index_url, tuple(find_links), no_index), cache, chosen,
                     timeout, (*companions, *(f"{name}=={pin}" for name, pin in pins.items())))


def _split(versions: str) -> list[str]:
    return [v.strip() for v in versions.split(",") if v.strip()]


def _rows(how: _Releases | _NpmReleases, wanted: list[str], selected, root, jobs: int) -> list[matrix.Row]:
    """A row per release, ``jobs`` releases at a time, in the order asked; a progress line as each starts and ends."""
    total, lock = len(wanted), threading.Lock()

    def one(n: int, version: str) -> matrix.Row:
        click.echo(f"[{n}/{total}] {how.pinned(version)}{how.beside} ...", err=True)
        row = how.run(version, selected, root)
        with lock:
            click.echo(f"[{n}/{total}] {how.pinned(version)}: {matrix.describe(row)}", err=True)
        return row

    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="bedrock-harness release") as pool:
        return list(pool.map(one, range(1, total + 1), wanted))


@click.command("matrix")
@click.argument("spec", metavar="ADAPTER")
@click.option("--versions", metavar="V1,V2,...", help="The releases to run, comma-separated.")
@click.option("--last", type=click.IntRange(min=1), metavar="N", help="The last N releases the index offers.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Install and run N releases at a time.")
@selection_options
@click.option("--format", "fmt", type=click.Choice(matrix.FORMATS), default=None,
              help="Table format [default: from --output's suffix, else text].")
@output_option(matrix.FORMATS)
@_index_options
@one_root_option
def matrix_command(spec, versions, last, jobs, suites, ids, fmt, output, timeout, pins, package, companions,
                   index_url, find_links, no_index, preference, cache_dir, root):
    """Run ADAPTER on each release of its library and print a release x scenario table."""
    fmt = choose_format(fmt, output, "text", matrix.FORMATS)
    if (versions is None) == (last is None):
        raise click.UsageError("give exactly one of --versions V1,V2,... or --last N")
    how = _setup(spec, package, index_url, find_links, no_index, cache_dir, preference, timeout, companions, pins)
    wanted = _split(versions) if versions is not None else how.available()[-last:]
    root, selected = scenarios(root, suites, ids)
    rows = _rows(how, wanted, selected, root, jobs)
    write_output(matrix.render(rows, f"{spec} ({how.requirement}{how.beside})", fmt), output)
    if not any(not row.why for row in rows):  # a table of releases that could not run measured nothing: exit 1
        click.echo(f"matrix: no release of {how.requirement} could run ({len(rows)} tried)", err=True)
        sys.exit(1)


@click.command()
@click.argument("spec", metavar="ADAPTER")
@click.argument("scenario_id", metavar="SCENARIO")
@click.option("--good", required=True, metavar="V", help="A release with the starting verdict.")
@click.option("--bad", required=True, metavar="V", help="A release with another verdict (older or newer).")
@click.option("--versions", metavar="V1,V2,...", help="The releases in order [default: every release the index offers].")
@click.option("--finding", metavar="TEXT", default="",
              help="Bisect on TEXT appearing in SCENARIO's report or going from it, not on its verdict (a fix that "
                   "turns one failure into another leaves the verdict as it was).")
@_index_options
@one_root_option
def bisect(spec, scenario_id, good, bad, versions, finding, timeout, pins, package, companions, index_url,
           find_links, no_index, preference, cache_dir, root):
    """The first release where SCENARIO's verdict (or, with --finding, a finding) changes, with both reports side by
    side."""
    how = _setup(spec, package, index_url, find_links, no_index, cache_dir, preference, timeout, companions, pins)
    ordered = _split(versions) if versions else how.available()
    root, selected = scenarios(root, (), (scenario_id,))

    def probe(version: str) -> matrix.Row:
        click.echo(f"probing {how.pinned(version)}{how.beside} ...", err=True)
        return how.run(version, selected, root)

    try:
        found = matrix.bisect(ordered, good, bad, scenario_id, probe, finding)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    before, after = (matrix.state_of(row, scenario_id, finding) for row in (found.before, found.after))
    changed = "with another verdict" if not finding else (
        "where the finding appears" if after == matrix.SHOWN else "where the finding goes" if before == matrix.SHOWN
        else f"that {matrix.said(after, finding)}")
    said = [matrix.said(state, finding).removeprefix("is ") for state in (before, after)]
    click.echo(f"{scenario_id}: {said[0]} at {found.before.release}, {said[1]} at {found.after.release}: the first "
               f"release from {good} towards {bad} {changed} is {found.after.release} "
               f"(probed {len(found.probed)} of {len(ordered)} releases: {', '.join(found.probed)})")
    columns = shutil.get_terminal_size((120, 24)).columns
    click.echo(matrix.side_by_side(found, columns).rstrip("\n"))
