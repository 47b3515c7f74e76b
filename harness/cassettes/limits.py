"""The limits a cassette stays within, and the YAML reading that enforces them before anything is built.

A few kilobytes of YAML could otherwise cost gigabytes or minutes: aliases expand ("billion laughs"), libyaml
is quadratic in nesting depth and overflows its C stack on deep input, a padding length is just a number. Each
limit is far above what real recordings need (the largest real stream in ../shared/realworld has 554 frames in
172 KB, padding is 2-61 characters, nesting under 20 levels); crossing one is a ``LimitError`` (a
``ValueError``) whose one-line message says what and where, and which the cassette reader turns into a
``CassetteError`` naming the file.
"""

from __future__ import annotations

import gc
import json
import re
import zlib
from contextlib import contextmanager
from typing import Any, Iterator

import yaml

__all__ = ["MAX_ALIAS_NODES", "MAX_BODY_BYTES", "MAX_GUNZIP_BYTES", "MAX_DEPTH", "MAX_FRAMES", "MAX_FRAME_BYTES", "MAX_HEADER_BYTES", "MAX_PADDING",
           "MAX_PAYLOAD_BYTES", "LimitError",
           "check_json_text", "gunzip", "load_yaml", "without_gc"]

MAX_DEPTH = 200  # nesting levels of a YAML document, and of JSON text carried inside one
MAX_FRAMES = 100_000  # frames in one interaction's response
MAX_PADDING = 1024  # the padding length ``p`` of one frame
MAX_GUNZIP_BYTES = 512 * 1024 * 1024  # a gzip file (langchain-aws cassettes) once decompressed
MAX_ALIAS_NODES = 1_000_000  # nodes aliases may add to a foreign YAML file (our cassettes hold none)
MAX_BODY_BYTES = 32 * 1024 * 1024  # a request body, or a response body that is not an event stream
# What botocore itself reads in one frame (headers, payload, and with prelude and CRCs the whole): no more.
MAX_HEADER_BYTES = 128 * 1024
MAX_PAYLOAD_BYTES = 24 * 1024 * 1024
MAX_FRAME_BYTES = 16 + MAX_HEADER_BYTES + MAX_PAYLOAD_BYTES

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# Below both thresholds a document cannot nest past MAX_DEPTH: a block level needs at most half a column of
# indentation or indicators ("- ", "? "), a flow level one bracket. Above either, the parse events decide.
_DEEP_LINE = re.compile(r"\n(?: |- |\? ){%d}" % (MAX_DEPTH * 2 // 5))
_FLOW_BRACKETS = MAX_DEPTH // 8


class LimitError(ValueError):
    """Input past one of the limits above (or holding a YAML alias where none may be); one line."""


def _at(mark) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""


class _NoAliasLoader(_Base):
    """Safe YAML that refuses aliases: a node built twice is a ``*name`` reference to an anchor."""

    def construct_object(self, node, deep=False):
        if node in self.constructed_objects:
            raise LimitError(f"{_at(node.start_mark)}this node is reused through a YAML alias (*name); cassettes "
                             "hold no aliases, so a small file cannot expand into a huge one")
        return super().construct_object(node, deep)


def _may_be_deep(text: str) -> bool:
    """Whether ``text`` might nest past MAX_DEPTH (cheap, never wrong the other way)."""
    deep_line = _DEEP_LINE.search(text) or _DEEP_LINE.match("\n" + text[:MAX_DEPTH])
    return text.count("[") + text.count("{") > _FLOW_BRACKETS or bool(deep_line)


def _check_depth(text: str) -> None:
    """Walk the parse events (no document is built) and stop at the first level past MAX_DEPTH."""
    depth = 0
    for event in yaml.parse(text, Loader=_Base):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise LimitError(f"{_at(event.start_mark)}nested deeper than {MAX_DEPTH} levels")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


@contextmanager
def without_gc() -> Iterator[None]:
    """No cyclic GC while millions of acyclic objects are built: its passes make big loads quadratic."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _children(item: Any) -> list:
    return list(item.values()) if isinstance(item, dict) else item if isinstance(item, list) else []


def _expansion(doc: Any) -> tuple[int, int]:
    """(nodes written, nodes once every alias is expanded) of ``doc``; each shared collection is sized once."""
    sizes: dict[int, int] = {}
    written = 1
    stack, open_ = [(doc, False)], set()
    while stack:
        item, done = stack.pop()
        if done:
            open_.discard(id(item))
            children = _children(item)
            sizes[id(item)] = 1 + sum(sizes.get(id(c), 1) for c in children)
            written += len(children)
            continue
        if id(item) in sizes or not isinstance(item, (dict, list)):
            continue
        if id(item) in open_:
            raise LimitError("a recursive YAML alias (a collection inside itself)")
        open_.add(id(item))
        stack.append((item, True))
        stack.extend((c, False) for c in _children(item) if isinstance(c, (dict, list)))
    return written, sizes.get(id(doc), 1)


def load_yaml(text: str, *, aliases: bool = False) -> Any:
    """Safe YAML within MAX_DEPTH; aliases refused, or with ``aliases`` allowed to add MAX_ALIAS_NODES; LimitError."""
    if _may_be_deep(text):
        _check_depth(text)
    with without_gc():
        if not aliases:
            return yaml.load(text, Loader=_NoAliasLoader)
        doc = yaml.load(text, Loader=_Base)
    written, expanded = _expansion(doc)
    if expanded - written > MAX_ALIAS_NODES:
        raise LimitError(f"YAML aliases would expand {written} nodes to {expanded} (at most {MAX_ALIAS_NODES} "
                         "more than written)")
    return doc


def _depth(value: Any) -> int:
    """The nesting depth of parsed JSON, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def check_json_text(data: bytes, what: str) -> None:
    """LimitError when ``data`` is JSON nested past MAX_DEPTH (text that is not JSON passes)."""
    if data.count(b"[") + data.count(b"{") <= MAX_DEPTH:
        return
    try:
        parsed = json.loads(data)
    except RecursionError:
        raise LimitError(f"{what}: JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError:
        return
    if _depth(parsed) > MAX_DEPTH:
        raise LimitError(f"{what}: JSON nested deeper than {MAX_DEPTH} levels")


def gunzip(data: bytes) -> bytes:
    """A gzip file's content, at most MAX_GUNZIP_BYTES of it (LimitError past that or on broken data)."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, MAX_GUNZIP_BYTES + 1)
    except zlib.error as err:
        raise LimitError(f"broken gzip data ({err})") from None
    if len(out) > MAX_GUNZIP_BYTES:
        raise LimitError(f"gzip data that expands past {MAX_GUNZIP_BYTES} bytes")
    return out
