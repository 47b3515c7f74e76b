"""adapters: the adapter protocol as adapter authors import it, lookup by name (``load_adapter``), the
subprocess protocol (``subprocess``, ``child``, ``relay``), the bridge that serves an in-process adapter over it,
the third-party shims, and ``apps`` (a library's own calls for a reproduction's ``app.py``, from its shim's
mappings). It may import every room below it (wire, cassettes, endpoint, judge, suite, report,
studies) and the reference adapter ``harness.converse``; the protocol itself is defined where it is judged
(``harness.judge.protocol``) and re-exported here.
"""

from harness.adapters.registry import ENTRY_POINT_GROUP, AdapterLoadError, known_adapters, load_adapter
from harness.judge.protocol import (
    CAPABILITIES,
    DECLARATIONS,
    FEATURES,
    NATIVE_PATHS,
    NON_STREAMING,
    OWN_HISTORY,
    SERVED,
    SURFACE_FEATURES,
    USAGE_INCLUDES_CACHE,
    Adapter,
    AdapterFailure,
    AdapterSkip,
)

__all__ = ["CAPABILITIES", "DECLARATIONS", "ENTRY_POINT_GROUP", "FEATURES", "NATIVE_PATHS", "NON_STREAMING",
           "OWN_HISTORY", "SERVED", "SURFACE_FEATURES", "USAGE_INCLUDES_CACHE",
           "Adapter", "AdapterFailure", "AdapterLoadError", "AdapterSkip", "known_adapters", "load_adapter"]
