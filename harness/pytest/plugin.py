"""pytest plugin for bedrock-harness (entry point ``pytest11``).

- ``pytest --bedrock-adapter SPEC`` adds every scenario as a test item whose id is the scenario id
  (``harness.pytest.items``), narrowed by ``--bedrock-suite`` / ``--bedrock-scenario``, judged against
  ``--bedrock-baseline``, from ``--bedrock-root``, each turn bounded by ``--bedrock-timeout``. Only the scenarios
  are collected then, unless test paths are named on the command line too (``testpaths`` from an ini file do not
  count). ``--bedrock-explore N`` adds one item exploring the adapter with N drawn conversations
  (``harness.pytest.explore``). Without ``--bedrock-adapter`` it adds nothing. ``-n auto`` (pytest-xdist) over the scenarios alone
  starts as many workers as shorten the run: none for a suite as small as the shipped one.
- No AWS credentials configured (a CI machine): the session gets dummy ones, a region and
  ``AWS_EC2_METADATA_DISABLED`` (``harness.cassettes.offline``), so a boto3 client replays without ever asking the
  instance metadata service; the header says so. Configured credentials are left alone.
- pytest-recording users: every VCR it builds learns the "bedrock" serializer, persister and matchers
  (``pytest_recording_configure``), so a ``vcr_config`` fixture returning
  ``harness.cassettes.vcr.vcr_config()`` is all a test suite needs.
- ``bedrock_vcr`` / ``bedrock_cassette`` fixtures: record or replay a test's Bedrock calls in
  ``cassettes/<test module>/<test name>.yaml`` beside the test file, in the record mode given by
  pytest-recording's ``--record-mode`` (default ``none``: offline replay).
"""

from __future__ import annotations

import argparse
import math
import os
import re
from pathlib import Path

import pytest

__all__ = ["DEFAULT_TIMEOUT", "SCENARIO_S", "WORKER_START_S", "bedrock_cassette", "bedrock_vcr", "pytest_addoption",
           "pytest_collection_modifyitems", "pytest_configure", "pytest_ignore_collect", "pytest_recording_configure",
           "pytest_report_header", "pytest_xdist_auto_num_workers", "seconds", "workers_for"]

DEFAULT_TIMEOUT = 60.0  # seconds per turn, as the CLI's --timeout (harness.judge.protocol.TURN_TIMEOUT)
_OFFLINE = pytest.StashKey[dict]()  # what _offline_session added to the environment
# What a worker costs and a scenario takes, in seconds of one core (benchmarks/bench_xdist.py, 2 cores): starting a
# worker means an interpreter, pytest, botocore and the harness; a replayed scenario is tens of milliseconds.
WORKER_START_S = 1.0
SCENARIO_S = 0.05


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("bedrock-harness", "bedrock-harness conformance scenarios (--record-mode once/new_episodes: "
                            "record missing cassettes through the emulator; rewrite/all: record them again)")
    group.addoption("--bedrock-adapter", metavar="SPEC",
                    help="Run every scenario against this adapter: reference, a registered name or module:attribute.")
    group.addoption("--bedrock-suite", action="append", metavar="S", help="Only this suite (repeatable).")
    group.addoption("--bedrock-scenario", action="append", metavar="ID", help="Only this scenario (repeatable).")
    group.addoption("--bedrock-root", metavar="DIR|shipped", action="append",
                    help="Folder holding suites/ and cassettes/ (default: ./ if it has suites/, else the shipped "
                         "suite); repeat to layer roots ('shipped' names the shipped suite).")
    group.addoption("--bedrock-baseline", metavar="FILE", help="Known failures (YAML: scenario id -> reason).")
    group.addoption("--bedrock-strict", action="store_true",
                    help="A scenario graded warn (a finding only a judgement supports) fails too; without it, it "
                         "passes with a pytest warning naming the finding and its reason.")
    group.addoption("--bedrock-explore", metavar="N", type=int, default=0,
                    help="With --bedrock-adapter: also explore the adapter with N drawn conversations (the ci profile "
                         "of `bedrock-harness explore`), one more test item, bedrock-explore.")
    group.addoption("--bedrock-explore-out", metavar="DIR",
                    help="Write what --bedrock-explore finds here, each shrunk failure as a scenario root.")
    group.addoption("--bedrock-timeout", metavar="S", type=seconds, default=DEFAULT_TIMEOUT,
                    help=f"Seconds one turn of the adapter may take (default {DEFAULT_TIMEOUT:g}); a hung turn fails "
                         "its scenario and the run goes on.")


def seconds(text: str) -> float:
    """``--bedrock-timeout``'s value: a finite number of seconds above 0 (``inf`` and ``nan`` are refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number above 0")
    return value


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "bedrock: a bedrock-harness conformance scenario (added by --bedrock-adapter).")
    _offline_session(config)


def _offline_session(config: pytest.Config) -> None:
    """With no AWS credentials configured, dummy ones for the whole session (the metadata service never asked)."""
    from harness.cassettes.offline import offline_environment

    added = offline_environment(os.environ)
    if added:
        patch = pytest.MonkeyPatch()
        for name, value in added.items():
            patch.setenv(name, value)
        config.add_cleanup(patch.undo)
    config.stash[_OFFLINE] = added


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Says so when the session runs on dummy AWS credentials."""
    added = config.stash.get(_OFFLINE, {})
    if not added:
        return []
    return [f"bedrock-harness: no AWS credentials configured: this session uses dummy ones ({', '.join(sorted(added))}"
            "), so replay never asks the instance metadata service"]


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With ``--bedrock-adapter`` and no test paths named, collect nothing but the scenarios."""
    if config.getoption("bedrock_adapter") and config.args_source != pytest.Config.ArgsSource.ARGS:
        return True
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` over the scenarios alone: the worker count with the shortest estimated run. Left to xdist
    when test paths are named, or when ``PYTEST_XDIST_AUTO_NUM_WORKERS`` says how many."""
    if (not config.getoption("bedrock_adapter") or config.args_source == pytest.Config.ArgsSource.ARGS
            or os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")):
        return None
    from harness.pytest.items import scenario_count

    return workers_for(scenario_count(config), os.cpu_count() or 1)


def workers_for(scenarios: int, cpus: int) -> int:
    """The number of workers (0: none, the run stays in this process) that finishes ``scenarios`` soonest."""
    return min(range(cpus + 1), key=lambda n: (WORKER_START_S if n else 0.0) + scenarios * SCENARIO_S / max(n, 1))


@pytest.hookimpl(tryfirst=True)  # before -k, -m and --deselect look at the items
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    """With ``--bedrock-adapter``, collect the scenarios (reported like any other collection)."""
    if config.getoption("bedrock_adapter"):
        from harness.pytest.items import ScenarioSuite

        items.extend(session.genitems(ScenarioSuite.from_session(session)))


@pytest.hookimpl(optionalhook=True)
def pytest_recording_configure(config, vcr) -> None:
    """Teach each pytest-recording VCR the bedrock serializer, persister and matchers."""
    # imported late: pytest-recording must see vcr first (assert rewriting)
    from harness.cassettes import vcr as recording

    recording.register(vcr)


def _record_options(config: pytest.Config) -> dict:
    """``--record-mode`` when pytest-recording provides it, else ``none``; "rewrite" records afresh."""
    mode = config.getoption("--record-mode", default=None) or "none"
    return {"record_mode": "all", "drop_unused_requests": True} if mode == "rewrite" else {"record_mode": mode}


@pytest.fixture
def bedrock_vcr(request: pytest.FixtureRequest):
    """A vcrpy VCR for Bedrock cassettes in ``cassettes/<test module>/`` beside the test file."""
    from harness.cassettes import vcr as recording

    module = Path(str(request.node.fspath))
    return recording.make_vcr(cassette_dir=module.parent / "cassettes" / module.stem, **_record_options(request.config))


@pytest.fixture
def bedrock_cassette(bedrock_vcr, request: pytest.FixtureRequest):
    """Record or replay this test's Bedrock calls in ``<test name>.yaml``; yields the vcrpy cassette."""
    name = re.sub(r"[<>?%*:|\"'/\\]", "-", request.node.name)
    with bedrock_vcr.use_cassette(f"{name}.yaml") as cassette:
        yield cassette
