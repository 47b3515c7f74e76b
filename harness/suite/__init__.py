"""suite: the conformance engine: scenarios and their live-recording checks, goldens, the runner, results, the
adapter contract's JSON Schemas (``contract``) and recording. It drives what ``harness.judge.protocol`` defines and
judges through ``harness.judge``; it may import ``harness.wire``, ``harness.cassettes``, ``harness.endpoint``,
``harness.evidence`` and ``harness.judge``; never reports, studies, adapters, the CLI or the pytest plugin.
"""

__all__: list[str] = []
