"""endpoint.emulator: a scenario's scripted model response rendered as real Bedrock streams it: the script
(``script``), its delta plan (``plan``), ConverseStream and Converse bodies (``render``), the Anthropic-native
InvokeModel stream (``invoke``), and bodies derived from a recorded stream for another operation (``derive``).
It may import ``harness.wire``; the rest of ``harness.endpoint`` builds on it.
"""

__all__: list[str] = []
