"""Releases of a JavaScript shim's library for ``matrix`` and ``bisect``: listed from the npm registry, each run by
the shim's own factory, which installs it into the npm cache on first use (``npm.install``: one folder per release).

A JavaScript shim is an adapter factory with ``takes_release`` (called as ``factory(version, cache_dir, timeout)``)
whose module names its npm package in ``LIBRARY``; nothing here knows a shim by name, so a new shim needs no code
here.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.adapters.js import npm
from harness.adapters.registry import AdapterLoadError, load_adapter, resolve
from harness.studies.matrix import Row, measured

__all__ = ["available", "library", "run_release"]


def library(spec: str) -> str | None:
    """The npm package of the JavaScript shim ``spec`` (its factory module's ``LIBRARY``); None for any other
    adapter. A factory taking a release whose module names no package is an NpmError."""
    try:
        factory = resolve(spec)
    except AdapterLoadError:  # not loadable here: a Python shim without its library, or no adapter at all
        return None
    if not getattr(factory, "takes_release", False):
        return None
    name = getattr(sys.modules.get(getattr(factory, "__module__", ""), None), "LIBRARY", None)
    if not isinstance(name, str) or not name:
        raise npm.NpmError(f"adapter {spec!r} takes a release but its module names no LIBRARY (its npm package)")
    return name


def available(package: str) -> list[str]:
    """Every stable release of ``package`` the npm registry lists, oldest first."""
    return npm.releases(package)


def run_release(spec: str, version: str, scenarios: Sequence, root: Path, *, cache: Path, timeout: float,
                pins: Mapping[str, str] | None = None) -> Row:
    """The row of one release: installed (when not cached) with the companions of its era, or ``pins``, and started
    by the shim's factory, run over ``scenarios``, or why it could not."""
    try:
        adapter = load_adapter(spec, version=version, cache_dir=cache, timeout=timeout, **({"pins": pins} if pins
                                                                                              else {}))
    except AdapterLoadError as exc:  # npm or Node missing, an install that failed, a shim that did not start
        return Row(version, why=str(exc))
    return measured(version, adapter, scenarios, root)
