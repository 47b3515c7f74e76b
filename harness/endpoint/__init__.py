"""endpoint: the loopback Bedrock endpoint (``harness.endpoint.server.BedrockServer``): the HTTP server, the
responders that answer from a cassette or the emulator, and fault injection; ``emulator/`` renders scripts the
way real Bedrock streams them, ``rules/`` holds Bedrock's request rules offline. It may import ``harness.wire``
and ``harness.cassettes``.
"""

__all__: list[str] = []
