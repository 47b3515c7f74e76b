"""pytest: the pytest plugin (``plugin``, the ``pytest11`` entry point) and its scenario items (``items``). A face
of the harness: it may import every room below it (wire, cassettes, endpoint, judge, suite, report, studies,
converse, adapters).
"""

__all__: list[str] = []
