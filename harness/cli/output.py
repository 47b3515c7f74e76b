"""Where a report goes (``--output``) and in which format: ``-`` is stdout; an existing symlink, device, FIFO or
file the tool does not own is written through; a regular file of ours is replaced atomically, keeping its mode;
a new file follows the umask; no folder is ever created, and a missing one is a usage error before anything runs.
The format is ``--format``, else the suffix, else (``-``, or a device or FIFO such as ``/dev/stdout``, whose name
says nothing of a format) the command's default. Help and errors name only the formats the command has.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import click

from harness.cassettes.files import write_through

__all__ = ["SUFFIXES", "choose_format", "output_option", "suffixes", "write_output"]

SUFFIXES = {".json": "json", ".xml": "junit", ".md": "markdown", ".markdown": "markdown", ".txt": "text",
            ".html": "html", ".htm": "html"}


class OutputError(click.ClickException):
    """An output that cannot be written: one ``Error:`` line, exit code 2 (bad usage)."""

    exit_code = 2


def suffixes(formats) -> str:
    """The suffixes that name one of ``formats``, for help and errors: ``.json, .md``."""
    return ", ".join(sorted(s for s, f in SUFFIXES.items() if f in formats and s not in (".htm", ".markdown")))


def output_option(formats):
    """``--output FILE|-`` for a command whose reports come in ``formats``."""
    return click.option("--output", metavar="FILE|-", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
                        help=f"Write the report here (- for stdout); the suffix picks the format ({suffixes(formats)}).")


def _is_stdout(output: Path | None) -> bool:
    return output is None or str(output) == "-"


def _is_stream(output: Path) -> bool:
    """An existing device, FIFO or socket (``/dev/stdout``, a pty, ``/dev/fd/3``), a symlink to one included."""
    try:
        return not stat.S_ISREG(os.stat(output).st_mode)
    except OSError:
        return False


def choose_format(fmt: str | None, output: Path | None, default: str, known) -> str:
    """``fmt``, else the format ``output``'s suffix names, else ``default`` (stdout or a stream); a usage error
    when none fits, or when ``output``'s folder does not exist (checked before the command runs)."""
    given = "--format"
    if fmt is None and not _is_stdout(output):
        suffix = output.suffix.lower()
        if suffix in SUFFIXES:
            fmt, given = SUFFIXES[suffix], f"--output {output} (its suffix)"
        elif not _is_stream(output):
            raise click.UsageError(f"--output {output}: unknown suffix {suffix or '(none)'!r}; name a file ending in "
                                   f"{suffixes(known)} or give --format")
    fmt = fmt or default
    if fmt not in known:
        raise click.UsageError(f"{given}: the {fmt} format is not available for this command "
                               f"(known: {', '.join(known)})")
    _check_folder(output)
    return fmt


def _check_folder(output: Path | None) -> None:
    """``--output``'s folder must exist: a report never creates folders (``/nonexistent/dir/r.json`` is a typo)."""
    if _is_stdout(output) or _is_stream(output):
        return
    folder = output.absolute().parent
    if not folder.is_dir():
        raise OutputError(f"--output {output}: no folder {output.parent} (--output creates no folders)")


def write_output(text: str, output: Path | None) -> None:
    """Print ``text`` (``output`` None or ``-``) or write it to the file, following this module's rules."""
    text = text if text.endswith("\n") else text + "\n"
    if _is_stdout(output):
        click.echo(text, nl=False)
        return
    try:
        write_through(output, text)
    except OSError as exc:
        raise OutputError(f"--output {output}: {exc.strerror or exc}") from None

