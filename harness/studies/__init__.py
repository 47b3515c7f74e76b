"""studies: what is made from many runs or from a run with more around it: certification (``certify``, its tables
in ``certification_table``), the release matrix and bisecting (``matrix``), drift detection (``drift`` with its wire
``shape``), live certification (``live``), the split run (``shard``, ``merge``), generative conformance (``explore``:
drawn conversations judged without goldens, shrunk to scenarios), reproductions of a finding (``repro``) and the
results site (``site``). It may import
``harness.report``, ``harness.suite``, ``harness.judge`` and the rooms below them; never adapters, the CLI or the
pytest plugin (an adapter's release machinery imports it, not the other way round).
"""

__all__: list[str] = []
