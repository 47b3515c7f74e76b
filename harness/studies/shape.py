"""The wire shape of a cassette, and what changed between two shapes (drift detection's comparison).

A shape keeps what a Bedrock client's parser depends on and drops what varies by content: per interaction, the
HTTP status and the event order (each frame labelled by its event and, for content blocks, the block type; runs of
the same label collapsed, so a longer answer is not a new order); per label, the JSON field names seen (key paths,
``[]`` for list items; the padding key ``p`` left out); the stop reasons; the response header names. Text, ids,
token counts and every other value are ignored.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

from harness.cassettes.cassette import Cassette, Interaction
from harness.cassettes.frames import RawFrame

__all__ = ["Difference", "Shape", "compare", "shape_of"]

PADDING = "p"


@dataclass(frozen=True)
class Shape:
    """What drift compares (see the module docstring)."""

    statuses: tuple[int, ...] = ()
    orders: tuple[tuple[str, ...], ...] = ()
    fields: dict[str, frozenset[str]] = field(default_factory=dict)
    stop_reasons: frozenset[str] = frozenset()
    headers: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Difference:
    """One change: what differs, and how it reads in the shipped and the fresh recording."""

    what: str
    shipped: str
    fresh: str


def _paths(value: Any, prefix: str = "") -> set[str]:
    """Every key path of a JSON value (``a.b``, ``a[].c``); values themselves are dropped."""
    if isinstance(value, dict):
        return {p for k, v in value.items() for p in _paths(v, f"{prefix}.{k}" if prefix else str(k))} or {prefix}
    if isinstance(value, list):
        return {p for item in value for p in _paths(item, f"{prefix}[]")} or {f"{prefix}[]"}
    return {prefix}


def _block_kind(body: dict) -> str:
    """The block type of a contentBlockStart/Delta: the key under start/delta (reasoning: with its part)."""
    inner = body.get("start") or body.get("delta") or {}
    kind = next(iter(inner), "") if isinstance(inner, dict) else ""
    part = inner.get(kind) if kind == "reasoningContent" else None
    return f"{kind}.{next(iter(part), '')}" if isinstance(part, dict) else kind


def _decoded(frame) -> tuple[str, dict]:
    """(label, JSON body) of one frame; InvokeModel chunks are labelled by their inner Anthropic event."""
    if isinstance(frame, RawFrame) and not frame.headers:
        return "undecodable frame", {}
    try:
        body = frame.json()
    except ValueError:
        body = {}
    body = body if isinstance(body, dict) else {}
    if frame.message_type != "event":
        return f"{frame.message_type}:{frame.type}", body
    if frame.type == "chunk" and isinstance(body.get("bytes"), str):
        inner = json.loads(base64.b64decode(body["bytes"]))
        return f"chunk:{inner.get('type', '')}", inner
    return frame.type, body


def _frames_shape(frames) -> tuple[list[str], list[tuple[str, dict]]]:
    """(collapsed order, [(field label, body)]) of one event stream."""
    order, bodies, blocks = [], [], {}
    for frame in frames:
        label, body = _decoded(frame)
        kind = ""
        if label in ("contentBlockStart", "contentBlockDelta"):
            kind = _block_kind(body)
            blocks.setdefault(body.get("contentBlockIndex"), kind.split(".")[0])
        elif label == "contentBlockStop":
            kind = blocks.get(body.get("contentBlockIndex"), "")
        labelled = f"{label}({kind})" if kind else label
        if not order or order[-1] != labelled:
            order.append(labelled)
        bodies.append((f"{label}({kind.split('.')[0]})" if kind else label, body))
    return order, bodies


def _interaction(it: Interaction) -> tuple[tuple[str, ...], list[tuple[str, dict]]]:
    if it.frames is not None:
        order, bodies = _frames_shape(it.frames)
        return tuple(order), bodies
    label = "response" if it.status < 300 else "error response"
    body = it.response_json
    return (label,), [(label, body if isinstance(body, dict) else {})]


def shape_of(loaded: Cassette) -> Shape:
    """The wire shape of a loaded cassette."""
    orders, fields, stops = [], {}, set()
    for it in loaded.interactions:
        order, bodies = _interaction(it)
        orders.append(order)
        for label, body in bodies:
            kept = {k: v for k, v in body.items() if k != PADDING}
            fields[label] = fields.get(label, frozenset()) | frozenset(_paths(kept) - {""})
            if label == "messageStop" and isinstance(body.get("stopReason"), str):
                stops.add(body["stopReason"])
            if label == "response" and isinstance(body.get("stopReason"), str):
                stops.add(body["stopReason"])
    headers = frozenset(name.lower() for it in loaded.interactions for name in it.response_headers)
    return Shape(tuple(it.status for it in loaded.interactions), tuple(orders), fields, frozenset(stops), headers)


def _names(values) -> str:
    return ", ".join(sorted(values)) or "-"


def _sets(what: str, shipped: frozenset[str], fresh: frozenset[str]) -> list[Difference]:
    """A row for what is new and a row for what is missing."""
    rows = []
    if fresh - shipped:
        rows.append(Difference(f"{what}: new", "-", _names(fresh - shipped)))
    if shipped - fresh:
        rows.append(Difference(f"{what}: missing", _names(shipped - fresh), "-"))
    return rows


def _order(shipped: tuple[str, ...], fresh: tuple[str, ...]) -> tuple[str, str]:
    """Both orders from where they first differ (the common start elided)."""
    same = next((n for n, (a, b) in enumerate(zip(shipped, fresh)) if a != b), min(len(shipped), len(fresh)))
    lead = "… " if same else ""
    return lead + (" ".join(shipped[same:]) or "(end)"), lead + (" ".join(fresh[same:]) or "(end)")


def compare(shipped: Shape, fresh: Shape) -> list[Difference]:
    """Every shape difference, in a stable order: interactions, statuses, event orders, events and their fields,
    stop reasons (new ones only: which one a live model picks varies), response header names."""
    rows = []
    if len(shipped.orders) != len(fresh.orders):
        rows.append(Difference("interactions", str(len(shipped.orders)), str(len(fresh.orders))))
    for n, (a, b) in enumerate(zip(shipped.statuses, fresh.statuses)):
        if a != b:
            rows.append(Difference(f"status (interaction {n})", str(a), str(b)))
    for n, (a, b) in enumerate(zip(shipped.orders, fresh.orders)):
        if a != b:
            rows.append(Difference(f"event order (interaction {n})", *_order(a, b)))
    rows += _sets("events", frozenset(shipped.fields), frozenset(fresh.fields))
    for label in sorted(shipped.fields.keys() & fresh.fields.keys()):
        rows += _sets(f"fields of {label}", shipped.fields[label], fresh.fields[label])
    if fresh.stop_reasons - shipped.stop_reasons:
        rows.append(Difference("stop reasons: new", _names(shipped.stop_reasons),
                               _names(fresh.stop_reasons - shipped.stop_reasons)))
    return rows + _sets("response headers", shipped.headers, fresh.headers)
