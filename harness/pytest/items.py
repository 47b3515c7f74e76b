"""The scenarios as pytest items: one ``ScenarioItem`` per scenario, collected under one ``ScenarioSuite``.

The item's node id is the scenario id (``core/parallel-calls``), so ``-k`` and ``--deselect`` select
scenarios. An item runs ``run_scenario`` and maps its Result: pass -> passed; warn -> passed with a
``ScenarioWarning`` (failed under ``--bedrock-strict``); fail and error -> failed, showing the rendered findings;
an unmet capability -> skipped; a baseline entry -> ``xfail(strict=True)``.
pytest-recording's ``--record-mode`` records cassettes through the emulator first (``RECORD_MODES``), and
its ``--block-network`` blocks everything but the loopback endpoint (and ``--allowed-hosts``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest

from harness import report
from harness.adapters import AdapterLoadError, load_adapter
from harness.adapters.deadline import with_deadline
from harness.suite.record import Target, record_scenario
from harness.suite.results import Result
from harness.suite import roots
from harness.suite.runner import cassette_path, run_scenario
from harness.suite.scenario import Scenario, ScenarioError

__all__ = ["LOOPBACK", "RECORD_MODES", "ScenarioFailure", "ScenarioItem", "ScenarioSuite", "ScenarioWarning", "describe",
           "network_guard", "record_mode", "scenario_count", "suite_roots"]

# pytest-recording's --record-mode -> what `record_scenario` does before the replay (None: replay only).
RECORD_MODES = {"none": None, "once": "once", "new_episodes": "once", "rewrite": "rewrite", "all": "rewrite"}
RECORD_ATTEMPTS = 3  # as `bedrock-harness record`: retries while soft checks fail
LOOPBACK = r"127\.0\.0\.1$"  # the loopback endpoint's host, as a pytest-recording allowed-hosts regex


class ScenarioWarning(UserWarning):
    """A scenario graded warn: its findings rest on a judgement, not on evidence about Bedrock (--bedrock-strict
    fails it)."""


class ScenarioFailure(Exception):
    """A scenario whose verdict is fail or error; carries the Result for ``repr_failure``."""

    def __init__(self, result: Result) -> None:
        super().__init__(f"{result.scenario}: {result.status}: {result.reason}")
        self.result = result


def describe(result: Result) -> str:
    """A failing scenario's verdict and per-turn findings (diffs, laws, request problems), no traceback."""
    lines = [f"{result.status}: {result.reason}"]
    for turn in (t for t in result.turns if not t.ok):
        lines.append(f"turn {turn.index}:")
        texts = [text for text in (turn.chunk_text(), *turn.request_texts()) if text]
        lines += [f"    {line}".rstrip() for text in texts for line in text.splitlines()]
    return "\n".join(lines)


def scenario_count(config: pytest.Config) -> int:
    """How many scenarios ``--bedrock-suite`` / ``--bedrock-scenario`` select, from file names alone."""
    suites, wanted = config.getoption("bedrock_suite") or (), config.getoption("bedrock_scenario") or ()
    return sum(1 for sid in roots.layered_ids(suite_roots(config))
               if (not suites or sid.split("/", 1)[0] in suites) and (not wanted or sid in wanted))


def suite_roots(config: pytest.Config) -> list[Path]:
    """The ``--bedrock-root`` folders (relative to the invocation directory, layered), else the default root."""
    return roots.resolve(config.getoption("bedrock_root") or (), config.invocation_params.dir)


def network_guard(config: pytest.Config) -> contextlib.AbstractContextManager:
    """pytest-recording's ``--block-network`` for one scenario: only loopback and ``--allowed-hosts`` connect."""
    if not config.getoption("--block-network", default=False):
        return contextlib.nullcontext()
    from pytest_recording import network

    extra = config.getoption("--allowed-hosts", default=None)
    return network.blocking_context(allowed_hosts=[LOOPBACK, *(extra.split(",") if extra else ())])


def record_mode(config: pytest.Config) -> str | None:
    """What ``record_scenario`` should do for pytest-recording's ``--record-mode`` (default ``none``)."""
    return RECORD_MODES[config.getoption("--record-mode", default=None) or "none"]


class ScenarioSuite(pytest.Collector):
    """The selected scenarios of ``<root>/suites`` against the ``--bedrock-adapter`` adapter."""

    @classmethod
    def from_session(cls, session: pytest.Session) -> ScenarioSuite:
        found = suite_roots(session.config)
        suite = cls.from_parent(session, name="bedrock-harness", nodeid="bedrock-harness", path=found[-1] / "suites")
        suite.roots = found
        return suite

    @property
    def root(self) -> Path | None:
        """The one root, or None when several are layered (each scenario's cassette is under its own)."""
        return roots.single(self.roots)

    @cached_property
    def reference(self) -> Any:
        """The reference implementation: what records cassettes, whichever adapter is under test."""
        return load_adapter("reference")

    def collect(self) -> list[ScenarioItem]:
        """An item per selected scenario; a bad adapter, scenario or baseline is a one-line collection error."""
        option = self.config.getoption
        try:
            self.adapter = with_deadline(load_adapter(option("bedrock_adapter")), option("bedrock_timeout"),
                                         "--bedrock-timeout")
            selected = roots.load(self.roots, option("bedrock_suite") or (), option("bedrock_scenario") or ())
            baseline = self._baseline(option("bedrock_baseline"))
        except (AdapterLoadError, ScenarioError, report.BaselineError, OSError) as exc:
            raise self.CollectError(f"bedrock-harness: {exc}") from None
        items = [ScenarioItem.from_parent(self, name=s.id, nodeid=s.id, scenario=s, known_failure=baseline.get(s.id))
                 for s in selected]
        if option("bedrock_explore", default=0) > 0:
            from harness.pytest.explore import NODE_ID, ExploreItem

            items.append(ExploreItem.from_parent(self, name=NODE_ID, nodeid=NODE_ID, examples=option("bedrock_explore"),
                                                 out=option("bedrock_explore_out", default=None)))
        return items

    def _baseline(self, path: str | None) -> dict[str, str]:
        """The known failures; an entry naming no scenario is an error, as in `bedrock-harness run`."""
        if not path:
            return {}
        path = self.config.invocation_params.dir / path
        known = report.load_baseline(path)
        stale = sorted(set(known) - set(roots.layered_ids(self.roots)))
        if stale:
            raise report.BaselineError(f"{path}: lists unknown scenario {stale[0]!r}; remove the entry")
        return known


class ScenarioItem(pytest.Item):
    """One scenario run against the suite's adapter."""

    def __init__(self, *, scenario: Scenario, known_failure: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.extra_keyword_matches.update(scenario.tags)
        self.add_marker("bedrock")
        unmet = scenario.unmet(self.parent.adapter.capabilities)
        if unmet:
            self.add_marker(pytest.mark.skip(reason=f"adapter lacks {', '.join(sorted(unmet))}"))
        elif known_failure is not None:
            self.add_marker(pytest.mark.xfail(reason=f"known failure (baseline): {known_failure}", strict=True,
                                              raises=ScenarioFailure))

    def runtest(self) -> None:
        suite = self.parent
        with network_guard(self.config):
            self._record(suite)
            result = run_scenario(self.scenario, suite.adapter, suite.root)
        cassette = report.cassette_files([self.scenario], suite.root)[self.scenario.id]  # junitxml's properties
        self.user_properties += [("bedrock_status", result.status), ("cassette", cassette["path"]),
                                 ("cassette_sha256", cassette["sha256"] or "missing")]
        if result.status == "skip":
            pytest.skip(result.reason)
        if result.status == "warn" and not self.config.getoption("bedrock_strict", default=False):
            warnings.warn(ScenarioWarning(f"{result.scenario}: {result.reason}"), stacklevel=1)
            return
        if result.status != "pass":
            raise ScenarioFailure(self._hinted(result, suite.root))

    def _record(self, suite: ScenarioSuite) -> None:
        """Record (or re-record) the cassette through the emulator when ``--record-mode`` asks for it."""
        mode = record_mode(self.config)
        if mode is None:
            return
        outcome = record_scenario(self.scenario, suite.reference, suite.root, Target("emulator"), mode,
                                  RECORD_ATTEMPTS)
        if outcome.status == "failed":
            raise ScenarioFailure(Result(self.scenario.id, "error", f"recording {outcome.path} through the emulator "
                                                                    f"failed: {'; '.join(outcome.messages)}"))
        if outcome.status == "refused":
            raise ScenarioFailure(Result(self.scenario.id, "error", f"{outcome.path}: {outcome.reason}"))

    def _hinted(self, result: Result, root: Path | None) -> Result:
        """A missing cassette's error also names the pytest way to record it."""
        if result.status != "error" or cassette_path(root, self.scenario).is_file():
            return result
        return dataclasses.replace(result, reason=f"{result.reason}, or rerun pytest with --record-mode=once")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> Any:
        if isinstance(excinfo.value, ScenarioFailure):
            return describe(excinfo.value.result)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.scenario.path, 0, self.scenario.id  # line 0: skip summaries need a line number
