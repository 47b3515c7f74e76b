"""What the run, golden, record and list commands share: the project root, scenarios and adapter lookup.

Light to import: botocore, the adapters and the suite's scenarios load in the helpers that need them, so a command
that needs none of them (``serve --emulate``) starts without them.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from harness.judge.protocol import TURN_TIMEOUT

if TYPE_CHECKING:
    from harness.studies.shard import Shard

__all__ = ["BadUsage", "Finite", "InputFile", "InputFolder", "check_input", "adapter_option", "check_cassettes", "child_options", "default_region", "every_id", "live_credentials", "load", "loopback_option",
           "named_folder", "no_release_for_command", "one_root_option", "region_option", "release_args", "companion_option", "release_options", "root_option", "scenarios", "selection", "selection_options",
           "shard_option", "strict_option", "timeout_option"]


class BadUsage(click.ClickException):
    """Bad options or configuration: one ``Error:`` line on stderr, exit code 2."""

    exit_code = 2


class Finite(click.ParamType):
    """A finite number above ``minimum`` (or from it, ``inclusive``): ``inf`` and ``nan`` are refused, since a wait or
    a timeout must end and compare."""

    name = "number"

    def __init__(self, minimum: float = 0.0, inclusive: bool = False) -> None:
        self.minimum, self.inclusive = minimum, inclusive

    def convert(self, value, param, ctx) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        above = number >= self.minimum if self.inclusive else number > self.minimum
        if not (math.isfinite(number) and above):
            wanted = "a finite number" + (f" of at least {self.minimum:g}" if self.inclusive else
                                          " above 0" if self.minimum == 0 else f" above {self.minimum:g}")
            self.fail(f"{value!r} is not {wanted}", param, ctx)
        return number


def check_input(path, what: str = "", folder: bool = False) -> Path:
    """``path`` when it is a regular file (or with ``folder`` a directory); else one usage line naming it and what it
    is (a socket, a FIFO, a device, a symbolic link that loops or dangles, a directory, missing): exit 2, before
    anything is read or written."""
    from harness.cassettes.limits import path_kind  # light: the limits module, no botocore

    kind = path_kind(path, folder=folder)
    if kind is not None:
        wanted = "a folder" if folder else "a regular file"
        raise BadUsage(f"{what + ' ' if what else ''}{path}: " + (f"no such {'folder' if folder else 'file'}" if kind == "missing"
                                                                   else f"not {wanted} but {kind}"))
    return Path(path)


class InputFile(click.ParamType):
    """A file a command reads: a regular file (a link to one counts), else the one usage line of ``check_input``."""

    name = "file"

    def __init__(self, folder: bool = False, allow_dash: bool = False) -> None:
        self.folder, self.allow_dash = folder, allow_dash

    def convert(self, value, param, ctx) -> Path:
        if self.allow_dash and value == "-":
            return Path(value)
        option = param.opts[0] if param is not None and param.opts and param.opts[0].startswith("-") else ""
        return check_input(value, option, self.folder)


def InputFolder() -> InputFile:  # noqa: N802 - a parameter type, named like click's
    """A folder a command reads: a directory (a link to one counts), else one usage line."""
    return InputFile(folder=True)


def root_option(fn):
    return click.option("--root", "root", multiple=True, metavar="DIR|shipped",
                        help="Folder holding suites/ and cassettes/ (default: ./ if it has suites/, else the shipped "
                             "suite); repeat to layer roots ('shipped' names the shipped suite).")(fn)


def one_root_option(fn):
    return click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
                        help="Folder holding suites/ and cassettes/ (default: ./ if it has suites/, else the shipped "
                             "suite).")(fn)


def selection_options(fn):
    fn = click.option("--scenario", "ids", multiple=True, metavar="ID", help="Run only this scenario (repeatable).")(fn)
    return click.option("--suite", "suites", multiple=True, metavar="S", help="Run only this suite (repeatable).")(fn)


def adapter_option(fn):
    return click.option("--adapter", "spec", default="reference", show_default=True, metavar="SPEC",
                        help="reference, a registered adapter name, or module:attribute.")(fn)


def _pins(ctx, param, values: tuple[str, ...]) -> dict[str, str]:
    """``--companion NAME=VERSION`` (repeatable) as {NAME: VERSION}."""
    pins = {}
    for value in values:
        name, _, version = value.partition("=")
        if not name.strip() or not version.strip():
            raise click.BadParameter(f"{value!r} is not NAME=VERSION (e.g. zod=3.25.76)", ctx, param)
        pins[name.strip()] = version.strip()
    return pins


def companion_option(fn=None, *, help: str = "JavaScript shims: install this release of a companion package (zod, ai, "
                                            "@langchain/core) instead of the one of the library release's era "
                                            "(repeatable)."):
    option = click.option("--companion", "pins", multiple=True, metavar="NAME=VERSION", callback=_pins, help=help)
    return option(fn) if fn is not None else option


def release_options(fn):
    """``--version``, ``--cache-dir`` and ``--companion``: the release of a JavaScript shim's library, its npm cache
    and the companions pinned beside it."""
    fn = companion_option(fn)
    fn = click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
                      help="JavaScript shims: where their npm packages are installed, one folder per release "
                           "[default: $BEDROCK_HARNESS_NPM_CACHE, else $XDG_CACHE_HOME/bedrock-harness/npm].")(fn)
    return click.option("--version", "version", metavar="V", default=None,
                        help="JavaScript shims (ai-sdk, langchain-js, strands-ts, cline and their other paths): the "
                             "release of the library to install and run [default: the newest].")(fn)


def release_args(version: str | None, cache_dir: Path | None, pins: dict[str, str] | None = None) -> list[str]:
    """``--version`` / ``--cache-dir`` / ``--companion`` as a ``--jobs`` child takes them."""
    return ((["--version", version] if version else []) + (["--cache-dir", str(Path(cache_dir).absolute())]
                                                            if cache_dir else [])
            + [arg for name, pin in (pins or {}).items() for arg in ("--companion", f"{name}={pin}")])


def no_release_for_command(command: str | None, version, cache_dir, pins) -> None:
    """A usage error when a JavaScript shim's release options come with ``--command``."""
    if command is not None and (version or cache_dir or pins):
        raise BadUsage("--version, --cache-dir and --companion go with --adapter (a JavaScript shim), not --command")


def strict_option(fn):
    return click.option("--strict", is_flag=True, help="Warnings (findings only a judgement supports, not evidence "
                                                       "about Bedrock) fail the run too.")(fn)


def timeout_option(fn=None, *, help: str = "Seconds one turn of the adapter may take; a hung turn is an error "
                                           "verdict and the run goes on."):
    option = click.option("--timeout", type=Finite(), default=TURN_TIMEOUT, show_default=True, metavar="SECONDS",
                          help=help)
    return option(fn) if fn is not None else option


LOOPBACKS = ("in-process", "http")


def loopback_option(fn):
    return click.option("--loopback", type=click.Choice(LOOPBACKS), default=LOOPBACKS[0], show_default=True,
                        envvar="BEDROCK_HARNESS_LOOPBACK", show_envvar=True,
                        help="How an in-process adapter's botocore calls reach the loopback endpoint: handed to it "
                             "in-process (no socket: the same requests, rules, faults and reply bytes) or over HTTP "
                             "on 127.0.0.1. A --command adapter and other HTTP clients always connect over HTTP.")(fn)


class _ShardType(click.ParamType):
    name = "K/N"

    def convert(self, value, param, ctx) -> Shard:
        from harness.studies.shard import Shard, ShardError, parse_shard  # only when --shard is given

        if isinstance(value, Shard):
            return value
        try:
            return parse_shard(value)
        except ShardError as error:
            self.fail(str(error), param, ctx)


def shard_option(fn):
    return click.option("--shard", type=_ShardType(), default=None, metavar="K/N",
                        help="Run only shard K of N: a split by scenario id, the same on every machine "
                             "(`report merge` joins the shards' JSON reports).")(fn)


def child_options(adapter: tuple[str, str], suites, ids, baseline, timeout, roots, loopback: str) -> list[str]:
    """The options a ``--jobs`` child of run or certify takes from its parent (paths made absolute)."""
    options = [*adapter, "--timeout", repr(timeout), "--loopback", loopback]
    options += [arg for suite in suites for arg in ("--suite", suite)] + [arg for sid in ids for arg in ("--scenario", sid)]
    options += ["--baseline", str(Path(baseline).absolute())] if baseline else []
    return options + [arg for root in roots for arg in ("--root", root if root == "shipped" else str(Path(root).absolute()))]


def named_folder(path: Path, option: str, create: bool = True) -> Path:
    """The folder ``option`` names, created when missing (or later, unless ``create``); only that folder: its parent
    must exist already."""
    if path.is_dir():
        return path
    if path.exists() or path.is_symlink():
        raise BadUsage(f"{option} {path}: not a folder")
    if not path.absolute().parent.is_dir():
        raise BadUsage(f"{option} {path}: no folder {path.parent} ({option} creates only the folder it names)")
    if not create:
        return path
    try:
        path.mkdir()
    except OSError as error:
        raise BadUsage(f"{option} {path}: cannot create it: {error.strerror or error}") from None
    return path


def scenarios(root, suites=(), ids=(), shard: Shard | None = None, cassettes: bool = True,
              lean: bool = True) -> tuple[Path | None, list]:
    """(root, selected scenarios) for one ``--root`` (a path or None) or several (a tuple: layered, root None);
    a bad scenario file or unknown id is a usage error (exit 2), and so (``cassettes``) is a selected scenario's
    cassette that is there but no regular file (``check_cassettes``). With ``shard``, only the scenarios it owns are
    read, and stderr says how many of the selected ones that is; ``lean`` as ``harness.suite.scenario.discover``."""
    from harness.suite import roots

    found = _roots(root)
    if shard is None:
        kept = _usage(roots.load, found, suites, ids, None, lean)
    else:
        total = len(_usage(roots.selected, found, suites, ids))
        kept = _usage(roots.load, found, suites, ids, shard.owns, lean)
        click.echo(f"shard {shard}: {len(kept)} of {total} scenarios", err=True)
    if cassettes:
        check_cassettes(roots.single(found), kept)
    return roots.single(found), kept


def check_cassettes(root, chosen) -> None:
    """A usage error (exit 2, one line) for the first scenario whose cassette path holds something that is not a
    regular file: a socket, a FIFO, a device, a folder, a symbolic link that loops or dangles. A missing one is the
    runner's to report (``record`` makes it)."""
    from harness.suite.discovered import files_of
    from harness.suite.runner import cassette_path

    for scenario in files_of(chosen):
        path = cassette_path(root, scenario)
        if os.path.lexists(path):
            check_input(path, f"the cassette of {scenario.id},")


def selection(root, suites=(), ids=()) -> list[str]:
    """The ids ``scenarios`` would read, from the file names alone; an unknown name is a usage error (exit 2)."""
    from harness.suite import roots

    return _usage(roots.selected, _roots(root), suites, ids)


def _roots(root) -> list[Path]:
    from harness.suite import roots

    return roots.resolve(root if isinstance(root, tuple) else [root] if root is not None else [])


def every_id(root, given=()) -> list[str]:
    """Every scenario id a baseline may name: under ``root``, or (root None) under the layered ``given`` roots."""
    from harness.suite import roots
    from harness.suite.scenario import scenario_ids

    if root is not None:
        return _usage(scenario_ids, Path(root) / "suites")
    return _usage(roots.layered_ids, roots.resolve(given))


def _usage(call, *args):
    """``call(*args)``, with a bad scenario file or unknown name as a usage error (exit 2)."""
    from harness.suite.scenario import ScenarioError

    try:
        return call(*args)
    except (ScenarioError, OSError) as exc:
        raise BadUsage(str(exc)) from None


def load(spec: str, timeout: float | None = None, version: str | None = None, cache_dir: Path | None = None,
         pins: dict[str, str] | None = None):
    """The adapter for ``spec``, each turn bounded by ``timeout``; a spec that does not resolve is a usage error.
    ``version``, ``cache_dir`` and ``pins`` pick a JavaScript shim's release, where it is installed and the
    companions pinned beside it.

    A ``module:attribute`` module is looked for in the working directory first, as ``python -m`` would (the console
    script's own folder is what Python puts first otherwise)."""
    from harness.adapters import AdapterLoadError, load_adapter
    from harness.adapters.deadline import with_deadline

    try:
        with _working_directory_first(":" in spec):
            release = {"version": version, "cache_dir": cache_dir, **({"pins": pins} if pins else {}),
                       **({"timeout": timeout} if timeout else {})}
            return with_deadline(load_adapter(spec, **release), timeout)
    except AdapterLoadError as exc:
        raise BadUsage(str(exc)) from None


@contextlib.contextmanager
def _working_directory_first(wanted: bool):
    """The working directory first on ``sys.path`` while an adapter module imports (only then: nothing else of the
    process looks there afterwards)."""
    here = os.getcwd()
    added = wanted and here not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        yield
    finally:
        if added and here in sys.path:
            sys.path.remove(here)


def default_region() -> str:
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"


def region_option(fn):
    return click.option("--region", default=default_region, show_default="AWS_REGION or us-east-1")(fn)


def live_credentials(profile: str | None, needs: str, offline: str | None = None):
    """The default chain's credentials (``--profile`` first); none is the one-line refusal every live command gives."""
    import botocore.exceptions
    import botocore.session

    if profile:
        os.environ["AWS_PROFILE"] = profile
    try:
        credentials = botocore.session.Session().get_credentials()
    except botocore.exceptions.BotoCoreError as error:  # a misspelled profile, a broken credential_process or SSO
        raise BadUsage(f"cannot read AWS credentials: {error}; `{needs}` needs them") from None
    if credentials is None:
        raise BadUsage("no AWS credentials found (default chain: environment, AWS_PROFILE, SSO, "
                       f"instance role); `{needs}` needs them" + (f", `{offline}` does not" if offline else ""))
    return credentials
