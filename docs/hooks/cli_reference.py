"""MkDocs hook: the CLI reference page rendered from click's own command objects at build time, so it cannot drift
from what ``bedrock-harness --help`` says (tests/test_docs_cli.py checks every command and option is on it)."""

from __future__ import annotations

import html
import inspect

import click

MARKER = "<!-- cli-reference: generated from the click commands by docs/hooks/cli_reference.py -->"
PAGE = "reference/cli.md"


def commands(group: click.Group | None = None, ctx: click.Context | None = None):
    """Every (context, command) under the group, depth first, in the order ``--help`` lists them."""
    from harness.cli import main
    group = group or main
    ctx = ctx or click.Context(main, info_name="bedrock-harness")
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        sub = click.Context(command, info_name=name, parent=ctx)
        yield sub, command
        if isinstance(command, click.Group):
            yield from commands(command, sub)


def cell(text: str) -> str:
    """Text safe inside a markdown table cell."""
    return html.escape(" ".join(text.split()), quote=False).replace("|", "\\|")


def options(ctx: click.Context, command: click.Command) -> list[str]:
    rows = [param.get_help_record(ctx) for param in command.get_params(ctx) if isinstance(param, click.Option)]
    lines = [f"| `{cell(opts).replace('`', '')}` | {cell(help_text)} |" for opts, help_text in filter(None, rows)]
    return ["| option | does |", "|---|---|", *lines] if lines else []


def section(ctx: click.Context, command: click.Command) -> str:
    """One command: its path as the heading, its usage line, its whole help text and its options table."""
    usage = " ".join(["bedrock-harness" if ctx.parent is None else ctx.command_path,
                      *command.collect_usage_pieces(ctx)])
    help_text = inspect.cleandoc(command.help or "").replace("\b\n", "")
    parts = [f"## `{ctx.command_path}`", "", f"```\n{usage}\n```", "", help_text, "", *options(ctx, command)]
    return "\n".join(parts).rstrip() + "\n"


def render() -> str:
    """The whole reference: the group's own options, then every command."""
    from harness.cli import main
    root = click.Context(main, info_name="bedrock-harness")
    return "\n".join([section(root, main), *(section(ctx, cmd) for ctx, cmd in commands())])


def on_page_markdown(markdown: str, page, config, files) -> str:
    """MkDocs event: the marker on the CLI page becomes the generated reference."""
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"{PAGE}: the marker line {MARKER!r} is missing")
    return markdown.replace(MARKER, render())
