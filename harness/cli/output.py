"""Where a report goes (``--output``) and in which format: ``-`` is stdout; an existing symlink, device, FIFO or
file the tool does not own is written through; a regular file of ours is replaced atomically, keeping its mode;
a new file follows the umask. The format is ``--format``, else the suffix, else (``-``, or a device or FIFO such as
``/dev/stdout``, whose name says nothing of a format) the command's default.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import click

from harness.cassettes.files import write_through

__all__ = ["SUFFIXES", "choose_format", "output_option", "write_output"]

SUFFIXES = {".json": "json", ".xml": "junit", ".md": "markdown", ".markdown": "markdown", ".txt": "text",
            ".html": "html", ".htm": "html"}


class OutputError(click.ClickException):
    """An output that cannot be written: one ``Error:`` line, exit code 2 (bad usage)."""

    exit_code = 2


def output_option(fn):
    return click.option("--output", metavar="FILE|-", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
                        help="Write the report here (- for stdout); the suffix picks the format "
                             f"({', '.join(sorted(set(SUFFIXES) - {'.htm', '.markdown'}))}).")(fn)


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
    when none fits."""
    given = "--format"
    if fmt is None and not _is_stdout(output):
        suffix = output.suffix.lower()
        if suffix in SUFFIXES:
            fmt, given = SUFFIXES[suffix], f"--output {output} (its suffix)"
        elif not _is_stream(output):
            raise click.UsageError(f"--output {output}: unknown suffix {suffix or '(none)'!r}; name a file ending in "
                                   f"{', '.join(sorted(set(SUFFIXES) - {'.htm', '.markdown'}))} or give --format")
    fmt = fmt or default
    if fmt not in known:
        raise click.UsageError(f"{given}: the {fmt} format is not available for this command "
                               f"(known: {', '.join(known)})")
    return fmt


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

