"""The CLI reference page is rendered from click's own command objects (docs/hooks/cli_reference.py, a MkDocs hook):
every command and every option, with its help, is on it, so the page cannot drift from ``--help``."""

import importlib.util
from pathlib import Path

import click
import pytest

from harness.cli import COMMANDS, main

REPO = Path(__file__).resolve().parents[1]


def load_hook():
    spec = importlib.util.spec_from_file_location("cli_reference", REPO / "docs" / "hooks" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hook = load_hook()


def sections() -> dict[str, str]:
    """The rendered page, one text per command path."""
    return {part.split("`", 1)[0]: part for part in ("\n" + hook.render()).split("\n## `")[1:]}


def every_command(group=main, path="bedrock-harness"):
    ctx = click.Context(group, info_name=path)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield f"{path} {name}", command
        if isinstance(command, click.Group):
            yield from every_command(command, f"{path} {name}")


def test_every_command_has_its_section():
    rendered = sections()
    assert set(rendered) == {"bedrock-harness", *(path for path, _ in every_command())}
    assert {path.split()[1] for path, _ in every_command()} == set(COMMANDS)


@pytest.mark.parametrize("path, command", list(every_command()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_option_and_its_help_is_on_the_page(path, command):
    section = sections()[path]
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            for name in [*param.opts, *param.secondary_opts]:
                assert name in section, f"{path}: {name} is not on the page"
            assert hook.cell(param.help or "") in section, f"{path}: the help of {param.opts[0]} is not on the page"
        elif isinstance(param, click.Argument):
            assert param.make_metavar(click.Context(command)).rstrip(".") in section or \
                param.name.upper() in section, f"{path}: argument {param.name} is not in the usage line"
    assert command.help.split("\n")[0].split("  ")[0][:40] in section


def test_the_page_holds_the_marker_the_hook_replaces():
    page = (REPO / "docs" / hook.PAGE).read_text()
    assert hook.MARKER in page
    done = hook.on_page_markdown(page, type("Page", (), {"file": type("File", (), {"src_uri": hook.PAGE})}), None, None)
    assert hook.MARKER not in done and "## `bedrock-harness run`" in done


def test_a_page_without_the_marker_fails_the_build():
    page = type("Page", (), {"file": type("File", (), {"src_uri": hook.PAGE})})
    with pytest.raises(ValueError, match="marker line"):
        hook.on_page_markdown("# CLI reference\n", page, None, None)


def test_a_pipe_in_a_help_text_cannot_break_the_table():
    assert hook.cell("text|json <b>") == "text\\|json &lt;b&gt;"
