"""npm installs of a JavaScript shim's packages: one cache folder per library release, never the user's project.

``$BEDROCK_HARNESS_NPM_CACHE`` (else ``$XDG_CACHE_HOME/bedrock-harness/npm``) holds ``<package>@<version>/`` with
``node_modules/`` of the release and its companions, and ``node@<major>/`` when the system's Node is older than a
release needs (``npm install node@<major>`` brings a Node binary for this platform). A folder is built under a
temporary name and renamed when npm succeeded, so an interrupted install never leaves half a release behind.

A release's companions (``ai``, zod, ``@langchain/core``) are those of its era: the newest release within the range
it asks for that was out before the library's next release (``era_end``), so an old release runs with what its users
installed beside it, not with today's packages (zod 4.4 refuses the stream schemas of ``@ai-sdk/amazon-bedrock``
4.0.85-4.0.100). Installing, and fetching a Node, each say so in one line on stderr.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from datetime import datetime
from pathlib import Path

from harness.adapters.registry import AdapterLoadError

__all__ = ["NpmError", "asked", "default_cache", "era_end", "era_pins", "find_node", "in_era", "install", "installed",
           "minimum_node", "newest", "npm", "paired", "peer", "published", "ready", "releases", "run_npm", "say"]

_READY = ".bedrock-harness-ready"
_TAIL = 4  # lines of npm's output kept in an error


class NpmError(AdapterLoadError):
    """Node or npm missing or too old, or an npm command that failed: one line saying which and what to do."""


def default_cache() -> Path:
    """``$BEDROCK_HARNESS_NPM_CACHE``, else ``$XDG_CACHE_HOME/bedrock-harness/npm`` (``~/.cache/...``)."""
    if os.environ.get("BEDROCK_HARNESS_NPM_CACHE"):
        return Path(os.environ["BEDROCK_HARNESS_NPM_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "bedrock-harness" / "npm"


def npm() -> str:
    """The npm executable on the PATH; NpmError when there is none."""
    found = shutil.which("npm")
    if found is None:
        raise NpmError("npm is not installed (or not on the PATH): the JavaScript shims install their packages "
                       "with it; install Node.js 22 or newer, which brings npm (https://nodejs.org)")
    return found


def run_npm(args: list[str], what: str, cwd: Path | None = None) -> str:
    """npm's output for ``args``; NpmError naming ``what`` with the tail of npm's output."""
    try:
        done = subprocess.run([npm(), *args], cwd=cwd, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        raise NpmError(f"{what}: npm did not finish within 15 minutes") from None
    if done.returncode:
        lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        raise NpmError(f"{what}: npm failed: {' | '.join(lines[-_TAIL:]) or f'exit {done.returncode}'}")
    return done.stdout


def _view(spec: str, field: str) -> object:
    """``npm view SPEC FIELD --json``, parsed (None when the registry has no such field)."""
    out = run_npm(["view", spec, field, "--json"], f"asking the npm registry for {spec} {field}").strip()
    return json.loads(out) if out else None


def newest(package: str) -> str:
    """The release of ``package`` the registry tags latest."""
    return str(_view(package, "version"))


def say(line: str) -> None:
    """One line on stderr: what is being installed or fetched (it takes seconds to minutes, and it is the network)."""
    print(f"bedrock-harness: {line}", file=sys.stderr, flush=True)


def _stable(found: object) -> list[str]:
    """The stable releases among npm's answer (one version or a list), oldest first."""
    listed = [found] if isinstance(found, str) else found if isinstance(found, list) else []
    return sorted((v for v in listed if isinstance(v, str) and re.fullmatch(r"\d+\.\d+\.\d+", v)), key=_order)


def _order(version: str) -> tuple[int, ...]:
    return tuple(map(int, version.split(".")))


def releases(package: str) -> list[str]:
    """Every stable release of ``package``, oldest first."""
    return _stable(_view(package, "versions"))


def published(package: str) -> dict[str, datetime]:
    """When each release of ``package`` came out (the registry's ``time`` field, without its created/modified)."""
    found = _view(package, "time")
    times: dict[str, datetime] = {}
    for version, stamp in (found.items() if isinstance(found, dict) else ()):
        try:
            times[version] = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
        except ValueError:
            continue
    return times


def era_end(package: str, version: str) -> datetime | None:
    """When ``package@version``'s era ended: the earliest time a later release came out (the earliest, so a release
    republished long after cannot stretch its own era), None for the newest release (its era is now)."""
    times = published(package)
    later = [times[release] for release in _stable(list(times)) if _order(release) > _order(version)]
    return min(later) if later else None


def in_era(package: str, wanted: str, end: datetime | None) -> str:
    """The newest release of ``package`` within the range ``wanted`` out before ``end`` (None: the newest within
    it; so too when the registry dates none of them before ``end``)."""
    matching = _stable(_view(f"{package}@{wanted}", "version"))
    if not matching:
        raise NpmError(f"no release of {package} matches {wanted!r}")
    if end is not None:
        times = published(package)
        out = [release for release in matching if release in times and times[release] <= end]
        if out:
            return out[-1]
    return matching[-1]


def asked(library: str, version: str, companion: str) -> str | None:
    """The range of ``companion`` that ``library@version`` asks for (peerDependencies, else dependencies), None
    when it asks for none."""
    for field in ("peerDependencies", "dependencies"):
        wanted = _view(f"{library}@{version}", f"{field}.{companion}")
        if isinstance(wanted, str) and wanted:
            return wanted
    return None


def era_pins(library: str, version: str, companions: list[str], end: datetime | None) -> list[str]:
    """``name@version`` of each of ``companions`` that ``library@version`` asks for, the newest of its era within
    the range asked; a companion it does not ask for is left to npm."""
    pins = []
    for name in companions:
        wanted = asked(library, version, name)
        if wanted is not None:
            pins.append(f"{name}@{in_era(name, wanted, end)}")
    return pins


def _major(spec: object) -> str | None:
    found = re.search(r"\d+", spec) if isinstance(spec, str) else None
    return found.group(0) if found else None


def paired(library: str, version: str, companion: str, through: str, end: datetime | None = None) -> str:
    """The newest release of ``companion`` that depends on the same major of ``through`` as ``library@version`` (the
    AI SDK: the ``ai`` release speaking the provider specification ``@ai-sdk/provider`` that the provider does), out
    before ``end`` when the registry dates one so (``era_end``)."""
    wanted = _major(_view(f"{library}@{version}", f"dependencies.{through}"))
    if wanted is None:
        raise NpmError(f"{library} {version} does not depend on {through}: cannot pick the {companion} release for it")
    candidates = releases(companion)
    if end is not None:
        times = published(companion)
        candidates = [release for release in candidates if release in times and times[release] <= end] or candidates
    newest_per_major: dict[str, str] = {}
    for release in candidates:
        newest_per_major[release.split(".")[0]] = release
    for release in sorted(newest_per_major.values(), key=lambda v: -int(v.split(".")[0])):
        if _major(_view(f"{companion}@{release}", f"dependencies.{through}")) == wanted:
            return release
    raise NpmError(f"no release of {companion} depends on {through} {wanted}.x as {library} {version} does")


def peer(library: str, version: str, companion: str) -> str:
    """The range of ``companion`` that ``library@version`` asks for (``asked``); NpmError when it asks for none
    (LangChain.js: the ``@langchain/core`` a ``@langchain/aws`` needs)."""
    wanted = asked(library, version, companion)
    if wanted is not None:
        return wanted
    raise NpmError(f"{library} {version} does not depend on {companion}: cannot pick the {companion} release for it")


def minimum_node(package: str, version: str, folder: Path | None = None) -> int:
    """The Node major ``package@version`` declares in engines.node (``>=22`` -> 22; 20 when it says nothing), read
    from its install in ``folder`` when there is one, else asked of the registry."""
    installed = _manifest(folder / "node_modules" / package / "package.json") if folder else {}
    engines = installed.get("engines") if installed.get("version") == version else _view(f"{package}@{version}", "engines")
    found = re.search(r">=\s*v?(\d+)", (engines or {}).get("node", "") if isinstance(engines, dict) else "")
    return max(20, int(found.group(1))) if found else 20


def _node_major(node: str) -> int | None:
    """The major version ``node --version`` prints, or None when it does not run."""
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.match(r"v(\d+)\.", out.strip())
    return int(found.group(1)) if found else None


def find_node(minimum: int, cache: Path) -> str:
    """A Node of major ``minimum`` or newer: the system's, else one installed (``npm install node@MAJOR``) into
    the cache; NpmError saying what is needed when neither can be had."""
    system = shutil.which("node")
    have = _node_major(system) if system else None
    if have is not None and have >= minimum:
        return system
    folder = cache / f"node@{minimum}"
    binary = folder / "node_modules" / ".bin" / ("node.cmd" if os.name == "nt" else "node")
    if not ready(folder):
        found = f"Node {have} at {system}" if have else "no Node"
        if shutil.which("npm") is None:
            raise NpmError(f"the JavaScript shim needs Node.js >= {minimum} (found {found}) and npm to fetch one "
                           f"(npm install node@{minimum}): install Node.js {minimum} or newer (https://nodejs.org)")
        say(f"fetching Node {minimum} into {folder} (npm install node@{minimum}): the shim needs Node.js >= {minimum}, "
            f"found {found}")
        _build(folder, [f"node@{minimum}"], f"installing Node {minimum} (npm install node@{minimum})")
    if (_node_major(str(binary)) or 0) < minimum:
        raise NpmError(f"{binary}: the Node npm installed does not run here; install Node.js {minimum} or newer")
    return str(binary)


def ready(folder: Path) -> bool:
    """Whether ``folder`` holds a finished install (npm succeeded and the folder was renamed into place)."""
    return (folder / _READY).is_file()


def install(cache: Path, name: str, specs: list[str]) -> Path:
    """The folder ``cache/name`` holding ``node_modules`` of ``specs`` (``pkg@version`` each), installed once."""
    folder = cache / name
    if not ready(folder):
        _build(folder, specs, f"installing {' '.join(specs)}")
    return folder


def _manifest(path: Path) -> dict:
    """A package.json's fields ({} when it is missing or unreadable)."""
    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def installed(folder: Path) -> dict[str, str]:
    """What ran: each package ``folder``'s package.json depends on, and each peer dependency of theirs, with the
    version its package.json in ``folder/node_modules`` states (``{"@ai-sdk/amazon-bedrock": "5.0.101", "ai": ...,
    "zod": ...}``); a package that is not there is left out."""
    wanted = list(_manifest(folder / "package.json").get("dependencies") or {})
    for name in list(wanted):
        wanted += [peer for peer in _manifest(folder / "node_modules" / name / "package.json").get("peerDependencies")
                   or {} if peer not in wanted]
    found = {name: _manifest(folder / "node_modules" / name / "package.json").get("version") for name in wanted}
    return {name: str(version) for name, version in found.items() if version}


def _build(folder: Path, specs: list[str], what: str) -> None:
    """npm-install ``specs`` into a temporary folder, then rename it to ``folder``."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    building = folder.parent / f".{folder.name}.{os.getpid()}.{threading.get_ident()}.tmp"
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir()
    try:
        (building / "package.json").write_text('{"private": true, "description": "installed by bedrock-harness"}\n')
        run_npm(["install", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error", *specs], what,
                cwd=building)
        (building / _READY).write_text("\n".join(specs) + "\n")
        if not ready(folder):  # else another install finished first, and its folder may be in use
            shutil.rmtree(folder, ignore_errors=True)  # a half folder left by a crash before this change
            building.rename(folder)
    finally:
        shutil.rmtree(building, ignore_errors=True)
