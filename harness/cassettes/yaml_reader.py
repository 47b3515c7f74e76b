"""Safe YAML within the limits (harness.cassettes.limits): libyaml's events built straight into Python values.

Split from ``limits`` so that PyYAML loads only when a document is parsed: ``limits.load_yaml`` imports this module
on first use, and a command whose files all come from the parsed-YAML cache (harness.cassettes.parsed) never does.
"""

from __future__ import annotations

from typing import Any

import yaml

from harness.cassettes.limits import MAX_ALIAS_BYTES, MAX_ALIAS_NODES, MAX_DEPTH, LimitError, without_gc

__all__ = ["load_yaml"]

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _at(mark) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""

_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_NO_KEY = object()


class _Builder:
    """Safe YAML built straight from libyaml's events, no node graph: a fifth of PyYAML's cost per node, the
    depth counted on the way (libyaml, quadratic in depth, is never led deeper than MAX_DEPTH + 1), and what
    aliases add counted as they come (a shared collection is shared, never copied). Scalars resolve and
    construct as PyYAML's safe loader does them (short ones cached: they repeat); a key twice in one mapping is
    refused (YAML forbids it)."""

    def __init__(self, text: str):
        self.loader = _Base(text)
        self.cache: dict = {}
        # [collection, the mapping key waiting for its value, nodes so far, anchor, scalar bytes so far]
        self.stack: list = []
        self.anchors: dict[str, tuple[Any, int | None, int]] = {}  # name -> (value, nodes (None while open), bytes)
        self.aliased = 0  # nodes the aliases added so far
        self.aliased_bytes = 0  # scalar text the aliases added so far
        self.root: Any = None

    def scalar(self, event) -> Any:
        short = len(event.value) <= 64
        key = (event.tag, event.value, event.implicit) if short else None
        value = self.cache.get(key, _NO_KEY) if short else _NO_KEY
        if value is _NO_KEY:
            value = self._construct(event)
            if short:
                self.cache[key] = value
        return value

    def _construct(self, event) -> Any:
        tag = event.tag if event.tag not in (None, "!") else self.loader.resolve(yaml.ScalarNode, event.value,
                                                                                  event.implicit)
        if tag == _STR:
            return event.value
        construct = self.loader.yaml_constructors.get(tag)
        if construct is None or tag == "tag:yaml.org,2002:merge":
            raise yaml.constructor.ConstructorError(None, None, f"could not determine a constructor for the tag "
                                                    f"{tag!r}", event.start_mark)
        try:
            return construct(self.loader, yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark,
                                                          event.style))
        except (ValueError, KeyError, AttributeError, TypeError, OverflowError) as err:
            # PyYAML's own constructors raise these on a scalar they cannot build: `!!timestamp x`, `!!bool x`,
            # an integer of over 4,300 digits (Python's int() limit).
            raise yaml.constructor.ConstructorError(None, None, f"{event.value[:40]!r} is no valid "
                                                    f"{tag.rsplit(':', 1)[-1]} ({type(err).__name__})",
                                                    event.start_mark) from None

    def add(self, value: Any, mark, nodes: int = 1, size: int = 0) -> None:
        if not self.stack:
            self.root = value
            return
        top = self.stack[-1]
        top[2] += nodes
        top[4] += size
        if type(top[0]) is list:
            top[0].append(value)
        elif top[1] is _NO_KEY:
            if type(value) is dict or type(value) is list:
                raise yaml.constructor.ConstructorError(None, None, "found unhashable key", mark)
            if value in top[0]:  # PyYAML keeps the last silently; readers would disagree on which one counts
                raise yaml.constructor.ConstructorError(None, None, f"found duplicate key {str(value)[:80]!r}", mark)
            top[1] = value
        else:
            top[0][top[1]] = value
            top[1] = _NO_KEY

    def open(self, event, kind: type, tag: str) -> None:
        if event.tag not in (None, "!", tag):
            raise yaml.constructor.ConstructorError(None, None, f"could not determine a constructor for the tag "
                                                    f"{event.tag!r} (cassettes hold plain mappings and lists)",
                                                    event.start_mark)
        if len(self.stack) >= MAX_DEPTH:
            raise LimitError(f"{_at(event.start_mark)}nested deeper than {MAX_DEPTH} levels")
        self.stack.append([kind(), _NO_KEY, 1, event.anchor, 0])
        if event.anchor:
            self.anchors[event.anchor] = (self.stack[-1][0], None, 0)

    def close(self, event) -> None:
        collection, _, nodes, anchor, size = self.stack.pop()
        if anchor:
            self.anchors[anchor] = (collection, nodes, size)
        self.add(collection, event.start_mark, nodes, size)

    def alias(self, event) -> None:
        if event.anchor not in self.anchors:
            raise yaml.composer.ComposerError(None, None, f"found undefined alias {event.anchor!r}",
                                              event.start_mark)
        value, nodes, size = self.anchors[event.anchor]
        if nodes is None:
            raise LimitError(f"{_at(event.start_mark)}a recursive YAML alias (*{event.anchor} inside itself)")
        self.aliased += nodes
        self.aliased_bytes += size
        if self.aliased > MAX_ALIAS_NODES:
            raise LimitError(f"{_at(event.start_mark)}YAML aliases would expand this document by more than "
                             f"{MAX_ALIAS_NODES} nodes")
        if self.aliased_bytes > MAX_ALIAS_BYTES:
            raise LimitError(f"{_at(event.start_mark)}YAML aliases would expand this document by more than "
                             f"{MAX_ALIAS_BYTES} bytes (the limit of MAX_ALIAS_BYTES)")
        self.add(value, event.start_mark, nodes, size)

    def build(self) -> Any:
        get, documents = self.loader.get_event, 0
        while True:
            event = get()
            kind = type(event)
            if kind is yaml.ScalarEvent:
                value = self.scalar(event)
                size = len(event.value)
                if event.anchor:
                    self.anchors[event.anchor] = (value, 1, size)
                self.add(value, event.start_mark, 1, size)
            elif kind is yaml.MappingStartEvent:
                self.open(event, dict, _MAP)
            elif kind is yaml.SequenceStartEvent:
                self.open(event, list, _SEQ)
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                self.close(event)
            elif kind is yaml.AliasEvent:
                self.alias(event)
            elif kind is yaml.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise yaml.composer.ComposerError("expected a single document in the stream", None,
                                                      "but found another document", event.start_mark)
            elif kind is yaml.StreamEndEvent:
                return self.root


def load_yaml(text: str) -> Any:
    """Safe YAML within MAX_DEPTH, aliases adding at most MAX_ALIAS_NODES (LimitError naming the line past that)."""
    builder = _Builder(text)
    try:
        with without_gc():
            return builder.build()
    except yaml.MarkedYAMLError as exc:
        # The libyaml PyYAML 6.0.4 bundles stops at 1,000 levels on its own; a flow collection's look-ahead for a
        # simple key can reach that before the builder sees level MAX_DEPTH + 1. Same input, same one line.
        if "maximum nesting depth" in (exc.problem or ""):
            raise LimitError(f"{_at(exc.problem_mark)}nested deeper than {MAX_DEPTH} levels") from None
        raise
    finally:
        builder.loader.dispose()
