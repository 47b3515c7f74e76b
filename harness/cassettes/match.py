"""When a request is the one a cassette recorded: the same JSON body once key order, the volatile fields callers
fill in (``requestMetadata``) and account ids in ARNs are set aside (bytes compared as they are when not JSON).
The vcrpy matchers (``harness.cassettes.vcr``) and the loopback endpoint (a request accepted as recorded) share it;
it needs neither vcrpy nor botocore.
"""

from __future__ import annotations

import json
from typing import Any

from harness.cassettes.scrub import scrub_account_ids

__all__ = ["VOLATILE_BODY_FIELDS", "difference", "same_body", "semantic_body"]

VOLATILE_BODY_FIELDS = ("requestMetadata",)  # callers put trace ids and timestamps here


def semantic_body(body: bytes | str | None) -> Any:
    """What a body means for matching: its JSON object without volatile fields, else the (scrubbed) bytes."""
    data = bytes(body) if isinstance(body, (bytes, bytearray)) else (body or "").encode()
    text = data.decode("utf-8", "replace")
    scrubbed = scrub_account_ids(text)
    data = scrubbed.encode() if scrubbed != text else data
    try:
        parsed = json.loads(data) if data else None
    except ValueError:
        return data
    if isinstance(parsed, dict):
        return {k: v for k, v in parsed.items() if k not in VOLATILE_BODY_FIELDS}
    return parsed


def difference(a: Any, b: Any, where: str = "body") -> str:
    """Where two JSON values first differ, e.g. ``body.messages[1].content``."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(a.keys() | b.keys()):
            if a.get(key, ...) != b.get(key, ...):
                return difference(a.get(key), b.get(key), f"{where}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return next(difference(x, y, f"{where}[{n}]") for n, (x, y) in enumerate(zip(a, b)) if x != y)
    return f"{where}: {json.dumps(a, default=repr)[:80]} != {json.dumps(b, default=repr)[:80]}"


def same_body(recorded: bytes, sent: bytes) -> bool:
    """Whether a sent request body equals a recorded one after the matcher's normalization."""
    return semantic_body(recorded) == semantic_body(sent)
