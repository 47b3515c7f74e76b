"""``bedrock-harness list``: the scenarios of the suites, read from their YAML (nothing of the runner loads)."""

from __future__ import annotations

import click

from harness.cli.common import root_option, scenarios, selection_options

__all__ = ["list_scenarios"]


@click.command("list")
@selection_options
@root_option
def list_scenarios(suites, ids, root):
    """The scenarios, their tags and required capabilities."""
    _, selected = scenarios(root, suites, ids, cassettes=False, lean=False)  # every one is held at once anyway
    width = max((len(s.id) for s in selected), default=0)
    for s in selected:
        click.echo(f"{s.id:<{width}}  tags: {', '.join(s.tags) or '-'}  requires: {', '.join(sorted(s.requires)) or '-'}")
