"""suite.judge: what makes a verdict: the normalizer (chunks and requests), the stream and OpenAI laws, the
assembled-message and streaming-parity checks, ``compare`` (the one deepdiff caller), the evidence behind every
claim about Bedrock and the grades of findings (fail on evidence, warn on judgement). A room below the rest of
the suite: it may import ``harness.suite.protocol`` and lower rooms, never the runner, scenarios or reports.
"""

__all__: list[str] = []
