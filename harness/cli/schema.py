"""``bedrock-harness schema``: the JSON Schemas of the adapter contract (the hello, the turn, a chunk), as shipped."""

from __future__ import annotations

import click

from harness.suite.contract import SCHEMAS, schema_text

__all__ = ["schema"]


@click.command()
@click.argument("name", type=click.Choice(SCHEMAS), metavar="chunk|turn|hello", required=False)
def schema(name: str | None) -> None:
    """Print the JSON Schema (draft 2020-12) of an adapter's chunk, the turn the harness sends, or the adapter's hello.

    The harness validates what adapters send against these schemas: a violation names the field and the rule."""
    if name is None:  # click's own message for a missing choice spans four lines
        raise click.UsageError("Missing argument: which schema, chunk, turn or hello?")
    click.echo(schema_text(name), nl=False)
