"""``bedrock-harness matrix`` and ``bisect``: an adapter's verdicts across releases of its library."""

from __future__ import annotations

from pathlib import Path

import click

from harness.adapters import releases
from harness.adapters.subprocess import DEFAULT_TIMEOUT
from harness.cli.common import one_root_option, scenarios, selection_options
from harness.cli.output import choose_format, output_option, write_output
from harness.suite import matrix

__all__ = ["bisect", "matrix_command"]


def _index_options(fn):
    """The package index options every pip call gets (default: the user's pip configuration)."""
    fn = click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                      help="Where release environments are kept [default: ~/.cache/bedrock-harness/releases].")(fn)
    fn = click.option("--no-index", is_flag=True, help="Ignore the package index (only --find-links).")(fn)
    fn = click.option("--find-links", multiple=True, metavar="DIR|URL", help="Also look for releases here (repeatable).")(fn)
    fn = click.option("--index-url", metavar="URL", help="The package index to install releases from.")(fn)
    fn = click.option("--with", "companions", multiple=True, metavar="REQ",
                      help="Also install REQ beside each release, over the harness environment's own (repeatable; "
                           "e.g. haystack-ai==2.21.0).")(fn)
    fn = click.option("--package", metavar="REQ", help="The library's distribution (with extras) "
                                                       "[default: the one the adapter's shim names].")(fn)
    return click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIMEOUT,
                        show_default=True, help="Seconds one turn may take before the adapter is killed.")(fn)


def _setup(spec, package, index_url, find_links, no_index, cache_dir):
    """(requirement, pip options, cache folder); an adapter that names no library is a usage error."""
    try:
        requirement = package or releases.requirement_for(spec)
    except releases.ReleaseError as exc:
        raise click.UsageError(str(exc)) from None
    options = releases.PipOptions(index_url, tuple(find_links), no_index)
    return requirement, options, cache_dir or releases.default_cache()


def _versions(requirement: str, versions: str | None, last: int | None, options) -> list[str]:
    """The releases asked for: --versions as given, or the last N the index offers (oldest first)."""
    if (versions is None) == (last is None):
        raise click.UsageError("give exactly one of --versions V1,V2,... or --last N")
    return _split(versions) if versions is not None else _available(requirement, options)[-last:]


def _beside(companions) -> str:
    return f" with {', '.join(companions)}" if companions else ""


def _split(versions: str) -> list[str]:
    return [v.strip() for v in versions.split(",") if v.strip()]


def _available(requirement: str, options) -> list[str]:
    """Every release the index offers, oldest first; an index that cannot be asked is a usage error."""
    try:
        return releases.available(requirement, options)
    except releases.ReleaseError as exc:
        raise click.UsageError(str(exc)) from None


@click.command("matrix")
@click.argument("spec", metavar="ADAPTER")
@click.option("--versions", metavar="V1,V2,...", help="The releases to run, comma-separated.")
@click.option("--last", type=click.IntRange(min=1), metavar="N", help="The last N releases the index offers.")
@selection_options
@click.option("--format", "fmt", type=click.Choice(matrix.FORMATS), default=None,
              help="Table format [default: from --output's suffix, else text].")
@output_option
@_index_options
@one_root_option
def matrix_command(spec, versions, last, suites, ids, fmt, output, timeout, package, companions, index_url, find_links,
                   no_index, cache_dir, root):
    """Run ADAPTER on each release of its library and print a release x scenario table."""
    fmt = choose_format(fmt, output, "text", matrix.FORMATS)
    requirement, options, cache = _setup(spec, package, index_url, find_links, no_index, cache_dir)
    wanted = _versions(requirement, versions, last, options)
    root, selected = scenarios(root, suites, ids)
    rows, beside = [], _beside(companions)
    for n, version in enumerate(wanted, 1):
        click.echo(f"[{n}/{len(wanted)}] {requirement}=={version}{beside} ...", err=True)
        rows.append(releases.run_release(spec, requirement, version, selected, root, cache=cache, options=options,
                                         timeout=timeout, companions=companions))
        click.echo(f"[{n}/{len(wanted)}] {requirement}=={version}: {matrix.describe(rows[-1])}", err=True)
    write_output(matrix.render(rows, f"{spec} ({requirement}{beside})", fmt), output)  # a report: exit 0 whatever it says


@click.command()
@click.argument("spec", metavar="ADAPTER")
@click.argument("scenario_id", metavar="SCENARIO")
@click.option("--good", required=True, metavar="V", help="A release with the starting verdict.")
@click.option("--bad", required=True, metavar="V", help="A release with another verdict (older or newer).")
@click.option("--versions", metavar="V1,V2,...", help="The releases in order [default: every release the index offers].")
@_index_options
@one_root_option
def bisect(spec, scenario_id, good, bad, versions, timeout, package, companions, index_url, find_links, no_index,
           cache_dir, root):
    """The first release where SCENARIO's verdict changes, with both reports side by side."""
    requirement, options, cache = _setup(spec, package, index_url, find_links, no_index, cache_dir)
    ordered = _split(versions) if versions else _available(requirement, options)
    root, selected = scenarios(root, (), (scenario_id,))

    def probe(version: str) -> matrix.Row:
        click.echo(f"probing {requirement}=={version}{_beside(companions)} ...", err=True)
        return releases.run_release(spec, requirement, version, selected, root, cache=cache, options=options,
                                    timeout=timeout, companions=companions)

    try:
        found = matrix.bisect(ordered, good, bad, scenario_id, probe)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    before, after = (matrix.verdict_of(found.before, scenario_id)[0], matrix.verdict_of(found.after, scenario_id)[0])
    click.echo(f"{scenario_id}: {before} at {found.before.release}, {after} at {found.after.release}: the first release "
               f"from {good} towards {bad} with another verdict is {found.after.release} "
               f"(probed {len(found.probed)} of {len(ordered)} releases: {', '.join(found.probed)})")
    click.echo(matrix.side_by_side(found).rstrip("\n"))
