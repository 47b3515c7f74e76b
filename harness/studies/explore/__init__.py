"""studies.explore: generative conformance. Random valid Bedrock conversations drawn with Hypothesis (``draw``, on
the families and the claims each choice rests on in ``families``), run against an adapter like scenarios
(``session``), judged without goldens (``oracles``: stream laws, conservation, streaming parity, round-trip validity,
cross-adapter parity), shrunk and written as an ordinary scenario root (``write``), searched with profiles and a
database of failing examples (``search``) and summarised by law and field (``summary``). It may import
``harness.suite``, ``harness.judge``, ``harness.endpoint``, ``harness.converse`` (the reference, for goldens) and the
rooms below them; Hypothesis is imported only here, and only when exploring (the ``[explore]`` extra).
"""

__all__: list[str] = []
