"""The limits every input stays within, and the readers that enforce them before anything is built.

A few kilobytes of input could otherwise cost gigabytes or minutes: YAML aliases expand ("billion laughs"), libyaml
is quadratic in nesting depth and overflows its C stack on deep input, a padding length is just a number, a gzip
file expands a thousandfold, a FIFO or ``/dev/zero`` never ends, an adapter's line need never end, a format width
is just a number. Each limit is far above what real recordings and adapters need (the largest real stream in
../shared/realworld has 554 frames in 172 KB, padding is 2-61 characters, nesting under 20 levels, the largest
gzip cassette expands to 7.6 KB); crossing one is a ``LimitError`` (a ``ValueError``) whose one-line message says
what and where, and which each reader turns into its own error naming the file, the scenario or the adapter.
"""

from __future__ import annotations

import errno
import gc
import json
import os
import stat
import sys
import zlib
from contextlib import contextmanager
from typing import Any, Iterator

__all__ = ["MAX_ALIAS_BYTES", "MAX_ALIAS_NODES", "MAX_BODY_BYTES", "MAX_DECOMPRESSED_BYTES", "MAX_DEPTH",
           "MAX_ERROR_CHARS", "MAX_FILE_BYTES", "MAX_FRAMES", "MAX_FRAME_BYTES", "MAX_HEADER_BYTES", "MAX_HELLO_BYTES",
           "MAX_LINE_BYTES", "MAX_PADDING", "MAX_PAYLOAD_BYTES", "MAX_RENDERED_CHARS", "MAX_STDERR_LINE_CHARS",
           "MAX_TRACEBACK_CHARS", "LimitError", "check_json_text", "clip", "decompress", "gunzip", "json_size",
           "load_yaml", "path_kind", "read_file", "without_gc", "yaml_errors"]

MAX_DEPTH = 200  # nesting levels of a YAML document, and of JSON text carried inside one
MAX_FRAMES = 100_000  # frames in one interaction's response
MAX_PADDING = 1024  # the padding length ``p`` of one frame
# A file a command reads (a cassette, fixture, scenario, golden, baseline): what a reader builds from YAML costs up
# to ~20 times its text, so this keeps every accepted file's reading within about a gigabyte (the largest real
# recording is 172 KB; 4 x 100,000 frames fit).
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DECOMPRESSED_BYTES = 1024 * 1024  # a compressed file (gzip, bz2, xz) once decompressed, every member together
MAX_ALIAS_NODES = 1_000_000  # nodes YAML aliases may add to a document (PyYAML writes &id001 for shared dicts)
# Bytes of scalar text YAML aliases may add: a 4 MiB string aliased 1,000 times is one node each time but 4 GiB to
# every reader that serializes, scans or shows it. Counted as the text each alias stands for, whole.
MAX_ALIAS_BYTES = 16 * 1024 * 1024
MAX_BODY_BYTES = 32 * 1024 * 1024  # a request body, or a response body that is not an event stream
# What botocore itself reads in one frame (headers, payload, and with prelude and CRCs the whole): no more.
MAX_HEADER_BYTES = 128 * 1024
MAX_PAYLOAD_BYTES = 24 * 1024 * 1024
MAX_FRAME_BYTES = 16 + MAX_HEADER_BYTES + MAX_PAYLOAD_BYTES
# What an adapter process may write, and what of it a report keeps.
MAX_HELLO_BYTES = 1024 * 1024  # its hello line (name, version, capabilities: a few hundred bytes)
MAX_LINE_BYTES = 8 * 1024 * 1024  # any other stdout line (a chunk carries at most a whole tool input)
MAX_STDERR_LINE_CHARS = 1000  # each stderr line of the tail a failure shows (the rest of a longer line is cut)
MAX_ERROR_CHARS = 4096  # an adapter error's message
MAX_TRACEBACK_CHARS = 16 * 1024  # an adapter error's traceback
MAX_RENDERED_CHARS = 1024 * 1024  # what a scenario's tool_results template renders for one call


class LimitError(ValueError):
    """Input past one of the limits above (or holding a YAML alias where none may be); one line."""


def yaml_errors() -> tuple[type[Exception], ...]:
    """PyYAML's error, once PyYAML is loaded (``load_yaml`` loads it; nothing raises it before), else none: for an
    ``except`` clause, which evaluates it only when an exception comes."""
    loaded = sys.modules.get("yaml")
    return (loaded.YAMLError,) if loaded is not None else ()


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


def load_yaml(text: str) -> Any:
    """Safe YAML within MAX_DEPTH, aliases adding at most MAX_ALIAS_NODES (LimitError naming the line past that):
    harness.cassettes.yaml_reader, which imports PyYAML on first use (a parsed-YAML cache hit never needs it)."""
    from harness.cassettes.yaml_reader import load_yaml as load

    return load(text)


def json_size(value: Any, limit: int, ensure_ascii: bool = True) -> int:
    """How many bytes ``json.dumps(value)`` would write, counted without writing it and given up past ``limit`` (a
    number over it is returned then): what a YAML document expands to is checked before it is serialized. Compact
    separators are counted (the default ones write at most one more byte per item)."""
    encode = json.encoder.encode_basestring_ascii if ensure_ascii else json.encoder.encode_basestring
    total, stack = 0, [value]
    while stack and total <= limit:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            total += len(encode(item)) if ensure_ascii else len(encode(item).encode("utf-8", "surrogatepass"))
        elif kind is dict:
            total += 2 + 3 * len(item)  # braces, and per item a separator, a colon (and a space, roughly)
            stack.extend(item.values())
            stack.extend(k if type(k) is str else str(k) for k in item)
        elif kind is list or kind is tuple:
            total += 2 + 2 * len(item)
            stack.extend(item)
        elif kind is int and (item > 10**18 or item < -10**18):
            total += len(str(item))
        else:
            total += 24 if kind is float else 5  # a number at most this long, true, false or null
    return total


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


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISDIR, "a directory"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "not a file")


def path_kind(path, folder: bool = False) -> str | None:
    """What ``path`` is when it is not what a reader may open (a regular file, or with ``folder`` a directory, a
    symbolic link to one counting as one): "a FIFO", "a socket", "a character device", "a block device", "a
    directory", "a regular file" (when a folder is wanted), "a symbolic link that loops", "a dangling symbolic link
    (to X)", or "missing"; None when it is fine. Said from ``stat`` alone: nothing is opened, so nothing blocks."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        try:
            target = os.readlink(path)
        except OSError:
            return "missing"
        return f"a dangling symbolic link (to {target})"
    except OSError as err:
        if err.errno == errno.ELOOP:
            return "a symbolic link that loops"
        return f"unreadable ({err.strerror or err})"
    if folder:
        return None if stat.S_ISDIR(info.st_mode) else "a regular file" if stat.S_ISREG(info.st_mode) \
            else _kind(info.st_mode)
    return None if stat.S_ISREG(info.st_mode) else _kind(info.st_mode)


def read_file(path) -> bytes:
    """A regular file's bytes, at most MAX_FILE_BYTES: LimitError for a FIFO, a device, a directory or a bigger
    file, said before anything is read (opened without blocking, so a FIFO never waits for a writer)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:  # a socket (ENXIO), a symbolic link that loops (ELOOP): said as what it is
        kind = path_kind(path) if err.errno in (errno.ENXIO, errno.ELOOP, errno.EOPNOTSUPP) else None
        if kind is None or kind.startswith("unreadable"):
            raise
        raise LimitError(f"not a regular file but {kind}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise LimitError(f"not a regular file but {_kind(info.st_mode)}")
        if info.st_size > MAX_FILE_BYTES:
            raise LimitError(f"a file of {info.st_size} bytes, over the limit of {MAX_FILE_BYTES}")
        with open(fd, "rb", closefd=False) as handle:
            data = handle.read(info.st_size + 1)  # a buffer of the size found, not of the limit
            if len(data) > info.st_size:  # it grew since: read on, up to the limit
                data += handle.read(MAX_FILE_BYTES + 1 - len(data))
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise LimitError(f"a file of more than {MAX_FILE_BYTES} bytes, over the limit")
    return data


def gunzip(data: bytes) -> bytes:
    """A gzip file's content, every member of it, at most MAX_DECOMPRESSED_BYTES (LimitError past that or broken)."""
    return decompress(data, "gzip", MAX_DECOMPRESSED_BYTES)


# Decompressors by name: each takes data and a maximum output length (what the data holds past it stays unread).
# bz2 and lzma load when their data comes (their C libraries cost every command that reads a file otherwise).
_DECOMPRESSORS = {"gzip": lambda: zlib.decompressobj(16 + zlib.MAX_WBITS), "zlib": zlib.decompressobj,
                  "deflate": lambda: zlib.decompressobj(-zlib.MAX_WBITS),
                  "bz2": lambda: __import__("bz2").BZ2Decompressor(), "xz": lambda: __import__("lzma").LZMADecompressor()}
_BROKEN = (zlib.error, OSError, EOFError, ValueError)


def _broken(codec: str) -> tuple[type[BaseException], ...]:
    """What a broken member of ``codec`` data raises (xz's own error beside the others)."""
    return (*_BROKEN, __import__("lzma").LZMAError) if codec == "xz" else _BROKEN


def decompress(data: bytes, codec: str, limit: int) -> bytes:
    """``data`` decompressed with ``codec`` (gzip, zlib, deflate, bz2, xz), every member or stream of it in turn,
    never more than ``limit`` bytes while it runs: LimitError past that, or when the first member is broken (a
    broken member after good ones ends the output, as gzip -d keeps what it read)."""
    out, rest = bytearray(), data
    while rest:
        engine = _DECOMPRESSORS[codec]()
        try:
            out += engine.decompress(rest, limit + 1 - len(out))
        except _broken(codec) as err:
            if not out:
                raise LimitError(f"broken {codec} data ({err})") from None
            break
        if len(out) > limit:
            raise LimitError(f"{codec} data that expands past {limit} bytes")
        if not engine.eof:
            break  # truncated: what it held so far is all there is
        rest = engine.unused_data.lstrip(b"\0") if codec == "gzip" else engine.unused_data  # gzip pads with NULs
    return bytes(out)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how many were left out."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters cut)"
