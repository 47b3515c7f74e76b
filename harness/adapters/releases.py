"""Releases of an adapter's library, each in a cached virtual environment next to the harness.

A release's environment is a venv (no pip of its own) whose site-packages holds that release and whatever of its
dependencies the harness's environment does not already satisfy; a ``.pth`` line adds the harness's own environment
after it, so the bridge (``python -m harness.adapters.bridge SPEC``) runs the release with the harness beside it.
Companion requirements (``--with``) are installed beside the release and take precedence. Environments are built in
a temporary folder and renamed into the cache when the install succeeded, so an interrupted build never leaves a
half environment behind. ``harness.adapters.installer`` installs (uv when installed, else pip) and lists releases
(pip: the user's pip configuration applies unless options override it).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import threading
import venv
from collections.abc import Sequence
from pathlib import Path

from harness.adapters.installer import Installer, InstallError, PipOptions, choose, pip
from harness.adapters.registry import AdapterLoadError, resolve, shim_extra
from harness.adapters.subprocess import SubprocessAdapter
from harness.studies.matrix import Row, measured
from harness.judge.protocol import AdapterFailure

__all__ = ["PipOptions", "ReleaseError", "available", "default_cache", "environment", "era_companions",
           "requirement_for", "run_release", "start"]

_READY = ".bedrock-harness-ready"  # written last: its presence means the install completed
NO_OPTIONS = PipOptions()  # the installer's own configuration


class ReleaseError(RuntimeError):
    """A release that cannot be listed, installed or started; the message says which and why."""


def default_cache() -> Path:
    """``$XDG_CACHE_HOME/bedrock-harness/releases`` (``~/.cache/...`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "bedrock-harness" / "releases"


def available(requirement: str, options: PipOptions = NO_OPTIONS, cache: Path | None = None) -> list[str]:
    """Every release of ``requirement``'s distribution the index offers, oldest first (asked with pip; one is
    bootstrapped into ``cache`` when the harness's environment has none)."""
    name = _name(requirement)
    try:
        out = pip(cache or default_cache(), ["index", "versions", name, *options.args()], f"listing releases of {name}")
    except InstallError as error:
        raise ReleaseError(str(error)) from None
    found = re.search(r"^Available versions:\s*(.+)$", out, re.M)
    if not found:
        raise ReleaseError(f"listing releases of {name}: pip printed no 'Available versions' line")
    return list(reversed([v.strip() for v in found.group(1).split(",") if v.strip()]))


def _name(requirement: str) -> str:
    """The distribution name of ``name[extra]``."""
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0]


def _pinned(requirement: str, version: str) -> str:
    """``name[extra]==version``."""
    return f"{requirement}=={version}"


def _harness_paths() -> list[str]:
    """What the release's environment adds after its own site-packages: the harness and its environment."""
    source = str(Path(__file__).resolve().parents[2])  # the folder holding harness/
    return [source, *site.getsitepackages(), sysconfig.get_paths()["purelib"]]


def _key(requirement: str, version: str, companions: Sequence[str] = ()) -> str:
    """The cache folder of one release: readable, and distinct per Python, per harness environment and per set
    of companion requirements."""
    digest = hashlib.sha256("\0".join([sys.executable, *_harness_paths(), "", *companions]).encode()).hexdigest()[:10]
    safe = re.sub(r"[^A-Za-z0-9._+-]+", "_", "+".join([f"{requirement}-{version}", *companions]))[:120]
    return f"{safe}-py{sys.version_info[0]}{sys.version_info[1]}-{digest}"


def _python(folder: Path) -> Path:
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _link_harness(folder: Path) -> None:
    """A .pth in the new venv that adds the harness's environment (and its .pth files) after the venv's own."""
    done = subprocess.run([str(_python(folder)), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True)
    lines = [f"import site; site.addsitedir({path!r})" for path in dict.fromkeys(_harness_paths())]
    Path(done.stdout.strip(), "_bedrock_harness.pth").write_text("\n".join(lines) + "\n")


def environment(requirement: str, version: str, cache: Path, options: PipOptions = NO_OPTIONS,
                companions: Sequence[str] = (), installer: Installer | None = None) -> Path:
    """The Python of ``requirement==version``'s cached environment, built (atomically) when missing, by
    ``installer`` (default: uv when installed, else pip).

    ``companions`` are requirements installed with the release into its own environment (``haystack-ai==2.21.0``),
    so they win over what the harness's environment holds."""
    folder = cache / _key(requirement, version, companions)
    what = " ".join([_pinned(requirement, version), *companions])
    if (folder / _READY).is_file():
        return _python(folder)
    cache.mkdir(parents=True, exist_ok=True)
    building = cache / f".{folder.name}.{os.getpid()}.{threading.get_ident()}.tmp"
    shutil.rmtree(building, ignore_errors=True)
    try:
        venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(building)
        _link_harness(building)
        try:
            (installer or choose("auto", cache)).install(_python(building), [_pinned(requirement, version),
                                                                             *companions], options, f"installing {what}")
        except InstallError as error:
            raise ReleaseError(str(error)) from None
        (building / _READY).write_text("\n".join([_pinned(requirement, version), *companions]) + "\n")
        shutil.rmtree(folder, ignore_errors=True)  # a half folder left by a crash before this change
        building.rename(folder)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return _python(folder)


def start(spec: str, python: Path, timeout: float) -> SubprocessAdapter:
    """The adapter ``spec`` running in the release environment of ``python``, over the subprocess bridge."""
    try:
        return SubprocessAdapter([str(python), "-m", "harness.adapters.bridge", spec], timeout=timeout)
    except (AdapterLoadError, AdapterFailure) as exc:
        raise ReleaseError(f"cannot start {spec}: {exc}") from None


def requirement_for(spec: str) -> str:
    """The requirement naming ``spec``'s library (``name[extras]``), from the shim's ``distribution`` and the
    harness extra it names; a ReleaseError when the adapter does not say (pass ``--package`` then). A bundled shim
    whose library is not installed here is named by its extra's first requirement: the release environments
    install the library, the harness's own need not have it."""
    try:
        obj = resolve(spec)
    except AdapterLoadError as exc:
        listed = _extra_requirements(shim_extra(spec))
        if listed:
            return _without_version(listed[0])
        raise ReleaseError(str(exc)) from None
    distribution, extra = getattr(obj, "distribution", None), getattr(obj, "extra", None)
    if not isinstance(distribution, str) or distribution in ("", "?"):
        raise ReleaseError(f"adapter {spec!r} does not name its library's distribution: give --package")
    for line in _extra_requirements(extra):
        if _name(line).lower().replace("_", "-") == distribution.lower().replace("_", "-"):
            return _without_version(line)
    return distribution


def era_companions(spec: str) -> tuple[str, ...]:
    """The packages ``spec``'s shim runs beside its library whose release should be of the library release's era
    (its ``era_companions``); none when the shim names none or is not loadable here."""
    try:
        names = getattr(resolve(spec), "era_companions", ())
    except AdapterLoadError:
        return ()
    return tuple(name for name in names if isinstance(name, str) and name)


def _without_version(line: str) -> str:
    """``name[extras]`` of a requirement line (``pydantic-ai-slim[bedrock]<3,>=1.23.0; extra == ...``)."""
    return re.split(r"[<>=!~;, ]", line, maxsplit=1)[0]


def _extra_requirements(extra: str | None) -> list[str]:
    """The harness's own requirements for ``extra`` (empty when it is not installed as a distribution)."""
    try:
        requires = importlib.metadata.requires("bedrock-harness") or []
    except importlib.metadata.PackageNotFoundError:
        return []
    return [line for line in requires if extra and re.search(rf"extra\s*==\s*['\"]{re.escape(extra)}['\"]", line)]


def run_release(spec: str, requirement: str, version: str, scenarios: Sequence, root: Path, *, cache: Path,
                options: PipOptions = NO_OPTIONS, timeout: float = 60.0, companions: Sequence[str] = (),
                installer: Installer | None = None) -> Row:
    """The row of one release: its environment built, ``spec`` run over ``scenarios``, or why it could not."""
    try:
        adapter = start(spec, environment(requirement, version, cache, options, companions, installer), timeout)
    except ReleaseError as exc:
        return Row(version, why=str(exc))
    return measured(version, adapter, scenarios, root)
