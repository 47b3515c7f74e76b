"""The companions of a Python library release's era: the packages a shim names (``era_companions``: langchain-core
for langchain-aws, haystack-ai for amazon-bedrock-haystack) at the newest release within the ranges the library
release asks for that was uploaded before the library's next release came out, as its users installed them then.

When each release was uploaded comes from the package index's JSON API (PEP 691, with PEP 700's ``upload-time``:
PyPI's, or ``--index-url``'s); which companion releases the library resolves to as of then comes from the installer
itself (``uv pip compile --exclude-newer``, ``pip install --dry-run --report --uploaded-prior-to``, pip 26.0 and later), so a range is
read by the tool that installs it. Without an index that dates its files (``--no-index``, a find-links folder, an
index without the JSON API) a release runs with the harness's own companions, and the caller says so in one line.
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.request
from datetime import datetime
from typing import Sequence

from harness.adapters.installer import Installer, InstallError, PipOptions, normal_name, run_command

__all__ = ["EraError", "DEFAULT_INDEX", "companions_of", "era_end", "uploaded"]

DEFAULT_INDEX = "https://pypi.org/simple"
_JSON = "application/vnd.pypi.simple.v1+json"
_STABLE = re.compile(r"\d+(\.\d+)*")
_TIMEOUT = 60  # seconds one index answer may take
NO_OPTIONS = PipOptions()  # the installer's own configuration


class EraError(RuntimeError):
    """The era of a release cannot be had (no dated index, an index that cannot be asked, no resolution); one line."""


def _index(options: PipOptions) -> str:
    if options.no_index:
        raise EraError("--no-index: no package index dates the releases")
    return (options.index_url or os.environ.get("UV_INDEX_URL") or os.environ.get("PIP_INDEX_URL")
            or DEFAULT_INDEX).rstrip("/")


def _version_of(filename: str, name: str) -> str | None:
    """The version in a wheel's or sdist's file name (``langchain_aws-1.1.0-py3-none-any.whl`` -> 1.1.0)."""
    stem = re.sub(r"(\.tar\.gz|\.zip|\.whl|\.tar\.bz2)$", "", filename)
    if stem == filename:
        return None
    if filename.endswith(".whl"):
        parts = stem.split("-")
        return parts[1] if len(parts) >= 5 else None
    spelled = "[-_.]+".join(re.escape(part) for part in re.split(r"[-_.]+", name))
    found = re.fullmatch(rf"{spelled}-(.+)", stem, re.I)
    return found.group(1) if found else None


def uploaded(name: str, options: PipOptions = NO_OPTIONS) -> dict[str, datetime]:
    """When each release of ``name`` was first uploaded, as the index's JSON API says (its earliest file)."""
    url = f"{_index(options)}/{normal_name(name)}/"
    request = urllib.request.Request(url, headers={"Accept": _JSON})
    try:
        with urllib.request.urlopen(request, timeout=_TIMEOUT) as answer:
            kind = answer.headers.get("Content-Type", "")
            body = answer.read()
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise EraError(f"asking {url} when {name}'s releases came out: {exc}") from None
    if _JSON not in kind:
        raise EraError(f"{url} has no JSON API (PEP 691): it cannot say when {name}'s releases came out")
    try:
        files = json.loads(body).get("files") or []
    except (ValueError, AttributeError):
        raise EraError(f"{url}: its JSON answer is not a PEP 691 project page") from None
    times: dict[str, datetime] = {}
    for item in files:
        version = _version_of(str(item.get("filename", "")), name) if isinstance(item, dict) else None
        stamp = item.get("upload-time") if isinstance(item, dict) else None
        if version is None or not isinstance(stamp, str):
            continue
        try:
            when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            continue
        times[version] = min(when, times.get(version, when))
    return times


def _order(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def era_end(name: str, version: str, options: PipOptions = NO_OPTIONS) -> datetime | None:
    """When ``name==version``'s era ended: the earliest upload of a later stable release (a release uploaded again
    long after cannot stretch it); None for the newest release, whose era is now."""
    times = uploaded(name, options)
    if not _STABLE.fullmatch(version):
        return None
    later = [when for release, when in times.items() if _STABLE.fullmatch(release) and _order(release) > _order(version)]
    return min(later) if later else None


def _resolved(requirement: str, end: datetime, installer: Installer, options: PipOptions) -> dict[str, str]:
    """{normalized name: version} of everything ``requirement`` resolves to with only files uploaded before ``end``."""
    stamp = end.isoformat()
    if installer.kind == "uv":
        out = run_command([*installer.command, "pip", "compile", "-", "--quiet", "--no-header", "--no-annotate",
                    "--python-version", f"{sys.version_info[0]}.{sys.version_info[1]}", "--exclude-newer", stamp,
                    *options.args()], f"resolving {requirement} as of {stamp}", stdin=requirement + "\n")
        pins = (line.split("==", 1) for line in out.splitlines() if "==" in line and not line.startswith("#"))
        return {normal_name(name): version.split(";")[0].strip() for name, version in pins}
    try:
        out = run_command([*installer.command, "install", "--dry-run", "--ignore-installed", "--quiet", "--report", "-",
                           "--uploaded-prior-to", stamp, requirement, *options.args()],
                          f"resolving {requirement} as of {stamp}")
    except InstallError as exc:
        if "no such option: --uploaded-prior-to" in str(exc):  # pip before 26.0 cannot resolve as of a date
            raise EraError("this pip has no --uploaded-prior-to (pip 26.0 and later, or uv, resolve as of a date)") \
                from None
        raise
    try:
        report = json.loads(out)
    except ValueError:
        raise EraError(f"resolving {requirement} as of {stamp}: pip's --report is not JSON") from None
    return {normal_name(item["metadata"]["name"]): item["metadata"]["version"] for item in report.get("install", [])}


def companions_of(requirement: str, version: str, names: Sequence[str], installer: Installer,
                  options: PipOptions = NO_OPTIONS) -> list[str]:
    """``name==version`` of each of ``names`` as ``requirement==version`` resolved before its era ended (none for the
    newest release: the installer picks today's); EraError when the era cannot be had."""
    base = re.split(r"[\[<>=!~;, ]", requirement, maxsplit=1)[0]
    end = era_end(base, version, options)
    if end is None or not names:
        return []
    try:
        found = _resolved(f"{requirement}=={version}", end, installer, options)
    except InstallError as exc:
        raise EraError(str(exc)) from None
    return [f"{name}=={found[normal_name(name)]}" for name in names if normal_name(name) in found]
