"""cassettes: the readable cassette format (decoded frames, re-encoded byte-exact), the bounded YAML reading and its
limits (``limits``), scrubbing and the secret scan (``secrets``), import of foreign recordings, and the vcrpy /
pytest-recording glue (``harness.cassettes.vcr``). It may import ``harness.wire`` only.
"""

__all__: list[str] = []
