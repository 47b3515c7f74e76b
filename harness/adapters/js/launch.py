"""Starting a JavaScript shim: its Node program and entry module (package data beside this file) run on the
packages of one cache folder (a library release, installed on first use), or on a folder an environment variable
names (the offline tests' fakes)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from importlib.resources import files
from pathlib import Path

from harness.adapters.js import npm
from harness.adapters.subprocess import SubprocessAdapter

__all__ = ["adapter", "given_folder", "release_folder", "shim_command", "shipped", "started"]


def shipped(name: str) -> Path:
    """The path of ``name`` shipped in this package (a shim's .mjs)."""
    return Path(str(files("harness.adapters.js").joinpath(name)))


def shim_command(shim: str, entry: str, folder: Path, node: str) -> list[str]:
    """The command running ``shim`` on the packages in ``folder`` (its entry module refreshed beside them)."""
    shutil.copyfile(shipped(entry), folder / entry)
    return [node, str(shipped(shim)), "--modules", str(folder)]


def given_folder(env: str, shim: str, entry: str, timeout: float) -> SubprocessAdapter | None:
    """The shim on the folder ``$env`` names, with the system's node (nothing installed); None when it is unset."""
    given = os.environ.get(env)
    if not given:
        return None
    node = shutil.which("node")
    if node is None:
        raise npm.NpmError(f"node is not installed (or not on the PATH): the {shim} shim runs on Node.js")
    return started(shim_command(shim, entry, Path(given), node), Path(given), timeout)


def started(command: list[str], folder: Path, timeout: float) -> SubprocessAdapter:
    """The shim ``command`` started, naming the packages it runs on (``npm.installed(folder)``: what the reports say
    ran, e.g. the release, ``ai`` and zod)."""
    adapter = SubprocessAdapter(command, timeout=timeout)
    adapter.packages = npm.installed(folder)
    return adapter


def _name(spec: str) -> str:
    """The package of ``name@version`` (a scoped name starts with @)."""
    return spec.rsplit("@", 1)[0] if spec.rfind("@") > 0 else spec


def release_folder(library: str, version: str | None, cache: Path,
                   companions: Callable[[str], list[str]] = lambda version: [],
                   pins: Mapping[str, str] | None = None, flavour: str = "") -> tuple[Path, str]:
    """(the folder holding ``library``'s release ``version`` (default: the newest) with ``companions(version)``
    beside it, the node to run it with); installed on first use, when the companions are asked for. ``pins``
    (``--companion NAME=VERSION``) replace or add companions; the folder's name carries them. ``flavour`` ends the
    folder's name when a shim's companions are not the library's own (``+langchain``: LangChain.js's agent)."""
    version = version or npm.newest(library)
    pins = dict(sorted((pins or {}).items()))
    folder = cache / ("+".join([f"{library}@{version}{flavour}", *(f"{name}@{pin}" for name, pin in pins.items())])
                      .replace("/", "+"))
    node = npm.find_node(npm.minimum_node(library, version, folder), cache)
    if not npm.ready(folder):
        chosen = [spec for spec in companions(version) if _name(spec) not in pins]
        beside = [*chosen, *(f"{name}@{pin}" for name, pin in pins.items())]
        npm.say(f"installing {library}@{version}" + (f" with {', '.join(beside)}" if beside else "")
                + (f" (given: {', '.join(pins)})" if pins else "") + f" into {folder}")
        npm.install(cache, folder.name, [f"{library}@{version}", *beside])
    return folder, node


def adapter(library: str, program: str, entry: str, env: str, version: str | None, cache_dir: Path | None,
            timeout: float, companions: Callable[[str], list[str]] = lambda version: [],
            pins: Mapping[str, str] | None = None, flavour: str = "") -> SubprocessAdapter:
    """The shim ``program`` started on the folder ``$env`` names, else on ``library``'s release ``version`` installed
    in ``cache_dir`` (default: ``npm.default_cache()``) with ``companions`` and ``pins`` beside it (``flavour`` as in
    ``release_folder``)."""
    given = given_folder(env, program, entry, timeout)
    if given is not None:
        return given
    cache = Path(cache_dir) if cache_dir else npm.default_cache()
    folder, node = release_folder(library, version, cache, companions, pins, flavour)
    return started(shim_command(program, entry, folder, node), folder, timeout)
