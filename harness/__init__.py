"""bedrock-harness: record/replay and conformance for Bedrock ConverseStream tool calling.

The rooms, in pipeline order (a lower room never imports a higher one; ``tests/test_layering.py`` holds the
table): ``wire`` <- ``cassettes`` <- ``endpoint`` <- ``suite`` <- ``adapters`` <- ``cli`` / ``pytest``, with the
reference adapter ``converse`` beside ``wire`` (it imports nothing else of the harness).
"""

from harness.adapters.registry import load_adapter
from harness.version import __version__

__all__ = ["__version__", "load_adapter"]
