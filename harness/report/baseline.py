"""The known-failures baseline: a YAML mapping of scenario id -> reason, applied to a run's results.

A listed failure becomes xfail, a listed pass becomes xpass (which fails the run), and an entry naming an
unknown scenario becomes an error result, so a baseline cannot go stale. A listed warning is a pass for that
purpose (xpass: a baseline lists failures), unless the run is ``strict``, where warnings fail and may be listed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Collection, Mapping, Sequence

import yaml

from harness.cassettes.limits import LimitError, load_yaml, read_file
from harness.report.common import one_line
from harness.suite.results import Result

__all__ = ["BaselineError", "apply_baseline", "load_baseline"]


class BaselineError(ValueError):
    """A baseline file that cannot be used; the one-line message names the file and entry."""


def load_baseline(path: str | Path) -> dict[str, str]:
    """``{scenario id: reason}`` from a YAML mapping; every entry needs a reason."""
    path = Path(path)
    try:
        data = load_yaml(read_file(path).decode("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, LimitError) as exc:
        raise BaselineError(f"{path}: cannot read: {one_line(str(exc))}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise BaselineError(f"{path}: expected a mapping of scenario id -> reason")
    for key, reason in data.items():
        if not isinstance(key, str) or not isinstance(reason, str) or not reason.strip():
            raise BaselineError(f"{path}: {key}: every known failure needs a reason (scenario id: why it fails)")
    return dict(data)


def apply_baseline(results: Sequence[Result], baseline: Mapping[str, str],
                   known: Collection[str] | None = None, strict: bool = False) -> list[Result]:
    """Listed fail/error -> xfail, listed pass (or warn, unless ``strict``) -> xpass; an entry for no scenario in
    ``known`` -> error.

    ``known`` is every scenario id that exists (a filtered run must pass it, or entries for scenarios
    not run this time count as unknown); None means the ids in ``results``.
    """
    known = {r.scenario for r in results} if known is None else set(known)
    updated = [_against_baseline(r, baseline.get(r.scenario), strict) for r in results]
    stale = [Result(sid, "error", f"baseline lists unknown scenario {sid!r}; remove the entry")
             for sid in sorted(baseline) if sid not in known]
    return updated + stale


def _against_baseline(result: Result, reason: str | None, strict: bool = False) -> Result:
    if reason is None:
        return result
    if result.status in ("fail", "error") or (strict and result.status == "warn"):
        return replace(result, status="xfail", reason=f"known failure: {reason}")
    if result.status in ("pass", "warn"):
        how = "passed" if result.status == "pass" else "only warned (warnings fail only with --strict)"
        return replace(result, status="xpass", reason=f"listed as a known failure ({reason}) but {how}; "
                                                      "remove it from the baseline")
    return result
