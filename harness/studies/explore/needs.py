"""What exploring needs installed: Hypothesis (the ``[explore]`` extra), checked without importing it."""

from __future__ import annotations

import importlib.util

__all__ = ["MISSING", "hypothesis_missing"]

MISSING = "explore needs Hypothesis: pip install 'bedrock-harness[explore]'"


def hypothesis_missing() -> str | None:
    """The one-line error when Hypothesis is not installed, else None."""
    try:
        found = importlib.util.find_spec("hypothesis") is not None
    except (ImportError, ValueError):  # a module set to None in sys.modules (as a test does) is not installed
        found = False
    return None if found else MISSING
