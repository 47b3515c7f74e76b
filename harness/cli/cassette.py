"""``bedrock-harness cassette show|verify|scan|import``: read, check and convert cassettes.

Exit codes: 0 fine, 1 corruption / a secret / an unreadable file (one line naming file and location),
2 bad usage (including a destination that exists without ``--force``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from harness.cassettes import cassette as cassettes
from harness.cassettes import documents, importer, limits
from harness.cassettes import scrub
from harness.cli.cassette_show import render
from harness.cli.common import InputFile, check_input, root_option

__all__ = ["cassette"]

_FILE = InputFile()


class _UsageFailure(click.ClickException):
    exit_code = 2


def _cassette_paths(names: tuple[str, ...], root: tuple[str, ...], folders: bool = False) -> tuple[Path, ...]:
    """Each name as a path when there is such a file (or folder, for ``scan``), else a scenario id of the active
    roots (``--root``, layered): its cassette. Anything else is a usage error naming it."""
    return tuple(_cassette_path(name, root, folders) for name in names)


def _cassette_path(name: str, root: tuple[str, ...], folders: bool) -> Path:
    path = Path(name)
    if folders and path.is_dir():  # scan reads folders
        return path
    if path.is_dir():
        raise _UsageFailure(f"{name}: not a regular file but a directory; give a cassette file or a scenario id")
    if os.path.lexists(path):  # a file, or a socket, FIFO, device, or a link that loops or dangles: refused here
        return check_input(path)
    from harness.suite import roots  # a scenario id: the suite's rooms load only then

    found = roots.resolve(root)
    owner = roots.owner(found, name) if name.count("/") == 1 else None
    if owner is None:
        where = ", ".join(str(r) for r in found)
        raise _UsageFailure(f"{name}: no such file, nor a scenario of {where} (`bedrock-harness list` shows them)")
    cassette = owner / "cassettes" / f"{name}.yaml"
    if os.path.lexists(cassette):
        return check_input(cassette, f"{name}: its cassette")
    if not cassette.is_file():
        raise _UsageFailure(f"{name}: no cassette at {cassette}; record it with `bedrock-harness record --emulate "
                            f"{name}" + (f" --root {owner}" if root else "") + "`")
    return cassette


@click.group()
def cassette() -> None:
    """Show, verify, scan and import cassettes."""


def _load(path: Path) -> cassettes.Cassette:
    try:
        return cassettes.load(path)
    except cassettes.CassetteError as err:
        raise click.ClickException(str(err)) from None


@cassette.command()
@click.argument("names", nargs=-1, required=True, metavar="PATH|SCENARIO...")
@click.option("--full", is_flag=True, help="Print long texts in full instead of shortened.")
@root_option
def show(names: tuple[str, ...], full: bool, root: tuple[str, ...]) -> None:
    """Print the decoded conversation of each cassette (a file, or a scenario's); exit 1 after naming what `verify`
    would report."""
    paths, broken = _cassette_paths(names, root), 0
    for n, path in enumerate(paths):
        loaded = _load(path)
        for line in render(loaded, full):
            click.echo(line)
        for problem in cassettes.problems(loaded):  # shown as it is, and said to be broken
            click.echo(f"problem: {problem}", err=True)
            broken += 1
        if n + 1 < len(paths):
            click.echo()
    if broken:
        raise SystemExit(1)


@cassette.command()
@click.argument("names", nargs=-1, required=True, metavar="PATH|SCENARIO...")
@root_option
def verify(names: tuple[str, ...], root: tuple[str, ...]) -> None:
    """Check YAML, frames, CRCs and the event grammar of each cassette (a file, or a scenario's); exit 1 naming each
    problem."""
    paths = _cassette_paths(names, root)
    problems = [p for path in paths for p in cassettes.verify(path)]
    for problem in problems:
        click.echo(problem)
    if problems:
        raise SystemExit(1)
    click.echo(f"ok: {len(paths)} cassette(s) verified")


_SCANNED = ("*.yaml", "*.yml", "*.json", "*.gz")  # what a folder given to `scan` is searched for


def _scan(path: Path, allowed: tuple[str, ...]) -> list[str]:
    """What `verify` says of the file when it cannot be read or parsed (or is a broken cassette), then the secrets
    in whatever of it can be read."""
    try:
        data = documents.read_bytes(path)  # read once for both: what verify says and the secrets
    except cassettes.CassetteError as err:  # unreadable, not a regular file, past a limit: that line is all
        return [str(err)]
    findings = scrub.scan_data(data, allowed=allowed)
    return documents.document_problems(path, data) + [f"{path}: {finding}" for finding in findings]


def _files(paths: tuple[Path, ...]) -> list[Path]:
    """The files given, and under each folder given every YAML/JSON/gzip file, sorted."""
    return [f for p in paths for f in (sorted({g for pattern in _SCANNED for g in p.rglob(pattern) if g.is_file()})
                                       if p.is_dir() else [p])]


@cassette.command()
@click.argument("names", nargs=-1, required=True, metavar="PATH|SCENARIO...")
@click.option("--allow-secret", "allowed", multiple=True, metavar="VALUE",
              help="Do not report this exact value (repeatable): a fixture shaped like a secret.")
@root_option
def scan(names: tuple[str, ...], allowed: tuple[str, ...], root: tuple[str, ...]) -> None:
    """Look for credentials in YAML/JSON files or folders, or a scenario's cassette (values and raw text, decoded);
    exit 1 on a find or on a file it cannot parse."""
    files = _files(_cassette_paths(names, root, folders=True))
    findings = [line for path in files for line in _scan(path, allowed)]
    for finding in findings:
        click.echo(finding)
    if findings:
        raise SystemExit(1)
    click.echo(f"ok: no secrets in {len(files)} file(s)")


def _request_body(path: Path | None) -> bytes | None:
    """The supplied request: a JSON object, checked here so a typo is a usage error naming the file."""
    if path is None:
        return None
    try:
        data = limits.read_file(path)
    except limits.LimitError as err:
        raise _UsageFailure(f"{path}: --request is {err}") from None
    try:
        valid = isinstance(json.loads(data), dict)
    except ValueError as err:
        raise _UsageFailure(f"{path}: --request is not JSON ({err})") from None
    if not valid:
        raise _UsageFailure(f"{path}: --request must be a JSON object (a request body)")
    return data


def _unused_options(imported: cassettes.Cassette, model: str | None, request: Path | None) -> list[str]:
    """--model and --request fill in what a recording lacks; where it holds its own, say they were not used."""
    notes = []
    if request is not None and "request supplied" not in (imported.metadata.get("synthesised") or ()):
        notes.append(f"--request {request} unused: the recording holds its own requests")
    recorded = sorted({it.model_id for it in imported.interactions if it.model_id != model})
    if model is not None and recorded:
        notes.append(f"--model {model} unused: the recording names its model ({', '.join(recorded)})")
    return notes


@cassette.command("import")
@click.argument("src", type=_FILE)
@click.argument("dest", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite DEST if it exists.")
@click.option("--model", "model", default=None, help="Model id, for formats that record none.")
@click.option("--request", "request", type=_FILE, default=None,
              help="JSON request body, for formats that record none (else one is synthesised).")
def import_(src: Path, dest: Path, force: bool, model: str | None, request: Path | None) -> None:
    """Convert a foreign fixture (vcrpy, langchain-aws, nock, captures, raw or decoded events) into this format."""
    if not dest.absolute().parent.is_dir():
        raise _UsageFailure(f"{dest}: no folder {dest.parent} (import creates no folders)")
    try:
        imported = importer.import_cassette(src, dest, overwrite=force, model=model, request=_request_body(request))
    except FileExistsError as err:
        raise _UsageFailure(f"{err} (pass --force)") from None
    except (cassettes.CassetteError, scrub.SecretFound) as err:
        raise click.ClickException(str(err)) from None
    problems = cassettes.verify(dest)
    for problem in problems:
        click.echo(problem)
    made = imported.metadata.get("synthesised")
    click.echo(f"imported {src} -> {dest}: {len(imported.interactions)} interaction(s)"
               + (f"; synthesised: {', '.join(made)} (metadata.synthesised)" if made else ""))
    for note in _unused_options(imported, model, request):
        click.echo(f"note: {note}", err=True)
    if problems:
        raise SystemExit(1)
