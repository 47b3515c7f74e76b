"""bedrock-harness: record/replay and conformance for Bedrock ConverseStream tool calling."""

__version__ = "0.1.0"

# Imported after __version__: the adapters read it.
from harness.adapters.registry import load_adapter

__all__ = ["__version__", "load_adapter"]
