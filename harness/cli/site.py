"""``bedrock-harness site``: the static results site from the committed certification reports
(harness/studies/site.py)."""

from __future__ import annotations

from pathlib import Path

import click

from harness.cli.common import BadUsage, named_folder, one_root_option

__all__ = ["site"]


@click.command()
@click.option("--output", required=True, type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="The folder to write the site in (index.html, explanations/, repro/).")
@one_root_option
def site(output, root):
    """The static results site from the committed reports: libraries x releases x scenarios, with levels, filters,
    each failing cell's explanation, upstream bug and reproduction."""
    from harness.adapters.apps import app_for
    from harness.studies.site import SiteError, build
    from harness.suite.runner import project_root
    from harness.suite.scenario import discover

    base = Path(root) if root is not None else project_root()
    named_folder(output, "--output")
    try:
        counts = build(base, output, discover(base / "suites"), app_for)
    except SiteError as exc:
        raise BadUsage(str(exc)) from None
    click.echo(f"wrote {output / 'index.html'}: {counts['rows']} scenarios x {counts['columns']} reports, "
               f"{counts['failing']} failing cells, {counts['reproductions']} reproductions")
