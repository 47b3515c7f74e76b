"""pytest plugin for bedrock-harness (entry point ``pytest11``).

- pytest-recording users: every VCR it builds learns the "bedrock" serializer, persister and matchers
  (``pytest_recording_configure``), so a ``vcr_config`` fixture returning
  ``harness.recording.vcr_config()`` is all a test suite needs.
- ``bedrock_vcr`` / ``bedrock_cassette`` fixtures: record or replay a test's Bedrock calls in
  ``cassettes/<test module>/<test name>.yaml`` beside the test file, in the record mode given by
  pytest-recording's ``--record-mode`` (default ``none``: offline replay).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

__all__ = ["pytest_recording_configure", "bedrock_vcr", "bedrock_cassette"]


@pytest.hookimpl(optionalhook=True)
def pytest_recording_configure(config, vcr) -> None:
    """Teach each pytest-recording VCR the bedrock serializer, persister and matchers."""
    from harness import recording  # imported late: pytest-recording must see vcr first (assert rewriting)

    recording.register(vcr)


def _record_options(config: pytest.Config) -> dict:
    """``--record-mode`` when pytest-recording provides it, else ``none``; "rewrite" records afresh."""
    mode = config.getoption("--record-mode", default=None) or "none"
    return {"record_mode": "all", "drop_unused_requests": True} if mode == "rewrite" else {"record_mode": mode}


@pytest.fixture
def bedrock_vcr(request: pytest.FixtureRequest):
    """A vcrpy VCR for Bedrock cassettes in ``cassettes/<test module>/`` beside the test file."""
    from harness import recording

    module = Path(str(request.node.fspath))
    return recording.make_vcr(cassette_dir=module.parent / "cassettes" / module.stem, **_record_options(request.config))


@pytest.fixture
def bedrock_cassette(bedrock_vcr, request: pytest.FixtureRequest):
    """Record or replay this test's Bedrock calls in ``<test name>.yaml``; yields the vcrpy cassette."""
    name = re.sub(r"[<>?%*:|\"'/\\]", "-", request.node.name)
    with bedrock_vcr.use_cassette(f"{name}.yaml") as cassette:
        yield cassette
