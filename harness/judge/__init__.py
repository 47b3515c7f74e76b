"""judge: what makes a verdict: the adapter protocol and its capability vocabulary (``protocol``: what the harness
drives and judges), the normalizer (chunks and requests), the stream and OpenAI laws, the assembled-message and
streaming-parity checks, ``compare`` (the one deepdiff caller), the evidence behind every claim about Bedrock and
the grades of findings (fail on evidence, warn on judgement). A room below the suite: it may import
``harness.wire``, ``harness.cassettes``, ``harness.endpoint`` and ``harness.evidence``, never the suite (runner,
scenarios, results), reports or studies.
"""

__all__: list[str] = []
