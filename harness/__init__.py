"""bedrock-harness: record/replay and conformance for Bedrock ConverseStream tool calling."""

__version__ = "0.1.0"

__all__ = ["__version__"]
