"""suite: the conformance engine: scenarios and their checks, the normalizer and stream laws, the one deepdiff
caller (``compare``), goldens, the runner, results and reports, recording and certification. It defines what it
drives (``protocol``: the adapter protocol, capabilities and the adapter's own failures) and may import
``harness.wire``, ``harness.cassettes`` and ``harness.endpoint``; never adapters, the CLI or the pytest plugin.
"""

__all__: list[str] = []
