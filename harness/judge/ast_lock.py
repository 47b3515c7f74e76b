"""One lock for the work the harness does that runs CPython's AST builder, so that two threads never run it at once.

CPython 3.11's AST builder keeps one recursion counter per interpreter (not per thread), so two threads building
an AST at once can fail with "SystemError: AST constructor recursion depth mismatch" (seen in CI on 3.11.7, where
a test runs adapters in threads). deepdiff renders every dict key of a path back into a value with
``ast.literal_eval``: it runs under ``AST_LOCK``. (Formatting a traceback would ``ast.parse`` each line to place
its carets: ``harness.converse.stream.traceback_tail`` writes none, so it needs no lock.)
"""

from __future__ import annotations

import threading

__all__ = ["AST_LOCK"]

AST_LOCK = threading.Lock()
