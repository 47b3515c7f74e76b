"""bedrock-harness: record/replay and conformance for Bedrock ConverseStream tool calling.

The rooms, in pipeline order (a lower room never imports a higher one; ``tests/test_layering.py`` holds the
table): ``wire`` <- ``cassettes`` <- ``endpoint`` <- ``judge`` <- ``suite`` <- ``report`` <- ``studies`` <-
``adapters`` <- ``cli`` / ``pytest``, with the reference adapter ``converse`` beside ``cassettes`` (it imports
nothing of the harness but wire helpers) and ``evidence`` beside ``wire``.
"""

from harness.version import __version__

__all__ = ["__version__", "load_adapter"]


def __getattr__(name: str):
    # ``load_adapter`` is imported on first use: `import harness.cli` then starts with the SIGINT guard of
    # harness.cli rather than with boto3, so Ctrl-C during start-up ends quietly.
    if name == "load_adapter":
        from harness.adapters.registry import load_adapter

        return load_adapter
    raise AttributeError(f"module 'harness' has no attribute {name!r}")
