"""A scenario's level: REQUIRED rests on evidence about Bedrock, the stream laws or the founding documents' checks;
RECOMMENDED on robustness or a judgement. ``certify --level required`` fails a run on the required ones only.

Its own module so that reading a scenario (``harness.suite.scenario``) imports nothing of judging.
"""

from __future__ import annotations

__all__ = ["LEVELS", "RECOMMENDED", "REQUIRED"]

REQUIRED, RECOMMENDED = "required", "recommended"
LEVELS = (REQUIRED, RECOMMENDED)
