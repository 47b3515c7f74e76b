"""What installs a release into its environment: uv when it is installed (an order of magnitude faster for fresh
environments), else pip: the harness environment's own, or, when that environment has none (a venv made
``--without-pip``), a pip bootstrapped once with ``ensurepip`` into the release cache.

pip, pointed at the release's environment (``pip --python``), counts what the environment's ``.pth`` adds (the
harness's own environment) as installed, and installs only what it does not already satisfy. uv sees only the
release environment's own site-packages, so it is given the harness environment's versions as constraints: what
both need is installed at the harness's version (hard-linked from uv's cache), which is what the release would run
with under pip. A release that needs other versions than the harness has is installed with its own resolution
instead. uv reads its own configuration (``uv.toml``, ``UV_INDEX_URL``), not pip's; ``--index-url``,
``--find-links`` and ``--no-index`` go to both.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

__all__ = ["INSTALLERS", "InstallError", "Installer", "PipOptions", "choose", "find_uv", "normal_name", "pip", "pip_command",
           "run_command"]

INSTALLERS = ("auto", "uv", "pip")
_TAIL = 6  # lines of an installer's output kept in an error
_NO_SOLUTION = "No solution found"  # uv: the constraints cannot hold together with the release's requirements


class InstallError(RuntimeError):
    """An install or listing that failed; the message names what and ends with the installer's last lines."""


@dataclass(frozen=True)
class PipOptions:
    """Package index options passed to every install and listing (empty: the installer's own configuration)."""

    index_url: str | None = None
    find_links: tuple[str, ...] = ()
    no_index: bool = False

    def args(self) -> list[str]:
        out = ["--index-url", self.index_url] if self.index_url else []
        for link in self.find_links:
            out += ["--find-links", link]
        return out + (["--no-index"] if self.no_index else [])


def run_command(command: list[str], what: str, stdin: str | None = None) -> str:
    """``command``'s output (``stdin`` its input), or an InstallError naming ``what`` with the tail of its output."""
    done = subprocess.run(command, capture_output=True, text=True, input=stdin)
    if done.returncode:
        lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        raise InstallError(f"{what}: {Path(command[0]).name} failed: "
                           f"{' | '.join(lines[-_TAIL:]) or f'exit {done.returncode}'}")
    return done.stdout


def find_uv() -> str | None:
    """The uv executable: on the PATH, or beside this Python (a venv's ``bin``, which need not be on the PATH)."""
    beside = Path(sys.executable).with_name("uv.exe" if os.name == "nt" else "uv")
    return shutil.which("uv") or (str(beside) if beside.is_file() else None)


def _has_pip() -> bool:
    """Whether the harness's environment holds pip (asked of its metadata: ``find_spec("pip")`` would switch off
    setuptools' distutils shim for the rest of the process)."""
    try:
        importlib.metadata.version("pip")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def pip_command(cache: Path) -> list[str]:
    """``python -m pip`` of the harness's environment, or of a pip bootstrapped into ``cache`` when it has none."""
    if _has_pip():
        return [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    folder = cache / ".bootstrap-pip"
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if not (folder / ".ready").is_file():
        building = cache / f".bootstrap-pip.{os.getpid()}.tmp"
        shutil.rmtree(building, ignore_errors=True)
        cache.mkdir(parents=True, exist_ok=True)
        try:
            venv.EnvBuilder(with_pip=True, symlinks=os.name != "nt").create(building)  # ensurepip: no network
            (building / ".ready").write_text("ensurepip\n")
            shutil.rmtree(folder, ignore_errors=True)
            building.rename(folder)
        except (OSError, subprocess.CalledProcessError) as error:
            raise InstallError(f"bootstrapping pip into {folder}: {error}") from None
        finally:
            shutil.rmtree(building, ignore_errors=True)
    return [str(python), "-m", "pip", "--disable-pip-version-check"]


def pip(cache: Path, args: Sequence[str], what: str) -> str:
    """pip's output for ``args`` (``pip_command``'s pip); InstallError naming ``what``."""
    return run_command([*pip_command(cache), *args], what)


def _harness_versions(leave_out: Sequence[str]) -> list[str]:
    """``name==version`` of every distribution in the harness's environment, but those named in ``leave_out``."""
    skip = {normal_name(name) for name in (*leave_out, "bedrock-harness")}
    found: dict[str, str] = {}
    for dist in importlib.metadata.distributions():
        name, version = dist.metadata.get("Name"), dist.version
        if name and version and normal_name(name) not in skip:
            found.setdefault(normal_name(name), f"{name}=={version}")
    return sorted(found.values())


def normal_name(name: str) -> str:
    """A distribution name as PEP 503 compares them: ``Foo_Bar`` -> ``foo-bar``."""
    return re.sub(r"[-_.]+", "-", re.split(r"[\[<>=!~;, ]", name, maxsplit=1)[0]).lower()


@dataclass(frozen=True)
class Installer:
    """``kind`` "uv" (``command`` is its executable) or "pip" (``command`` runs pip)."""

    kind: str
    command: tuple[str, ...]

    def install(self, python: Path, requirements: Sequence[str], options: PipOptions, what: str) -> None:
        """Install ``requirements`` into the environment of ``python``; InstallError naming ``what``."""
        if self.kind == "pip":
            run_command([*self.command, "--python", str(python), "install", "--quiet", *requirements, *options.args()], what)
            return
        base = [*self.command, "pip", "install", "--quiet", "--python", str(python), *requirements, *options.args()]
        constraints = python.parent.parent / "harness-constraints.txt"
        constraints.write_text("\n".join(_harness_versions(requirements)) + "\n")
        try:
            run_command([*base, "--constraints", str(constraints)], what)
        except InstallError as error:
            if _NO_SOLUTION not in str(error):
                raise
            run_command(base, what)  # the release needs other versions than the harness has: its own resolution


def choose(preference: str, cache: Path) -> Installer:
    """The installer ``preference`` names (auto: uv when installed, else pip); InstallError when it cannot be had."""
    if preference not in INSTALLERS:
        raise InstallError(f"unknown installer {preference!r} (known: {', '.join(INSTALLERS)})")
    uv = find_uv() if preference in ("auto", "uv") else None
    if uv is not None:
        return Installer("uv", (uv,))
    if preference == "uv":
        raise InstallError("--installer uv: uv is not installed (pip install uv, or leave the choice to auto)")
    return Installer("pip", tuple(pip_command(cache)))
