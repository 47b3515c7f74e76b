"""What a client would see in a recording, for the secret scan (harness.cassettes.secrets): bodies decoded, streams
assembled, blocks joined.

A secret split across two streamed deltas, two content blocks or two gzip members, or sent compressed or in UTF-16,
is in no single string of a file; these readings put it back together the way a client does:

- ``readings(data)``: bytes decompressed by their magic (every gzip member, zlib, bz2, xz), text in UTF-16 or UTF-32
  re-encoded as UTF-8, and an event stream's assembled text;
- ``joined(value)``: a document's list or mapping read as a whole: text blocks joined (a message's content, the
  system prompt, a Converse answer), a request's system prompt and messages joined (every text of one request), hex network chunks joined (the importer reads a body so), stream events
  assembled (this project's frame items, decoded events, Anthropic events), a body decoded by its
  ``Content-Encoding`` (raw deflate has no magic to go by; an encoding nothing here decodes is reported);
- ``assembled(events)``: every text, reasoning and tool-input delta of a block joined, then the blocks of the
  message joined, as an SDK's caller assembles them.

Decompression is bounded by a ``Budget`` shared by one scan: past it, a reading is a ``LimitError`` the scan
reports instead of reading on, so a few kilobytes of nested gzip cost at most the budget.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any, Iterable, Iterator

from harness.cassettes import limits
from harness.wire import eventstream

__all__ = ["Budget", "assembled", "compression", "joined", "plain", "readings", "text_encoding"]

_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"))
_BZ2_BLOCKS = (b"1AY&SY", b"\x17rE8P\x90")  # after "BZh" and the level: a block or the end (text seldom is)
_ENCODINGS = {"gzip": "gzip", "x-gzip": "gzip", "deflate": "deflate", "identity": None}
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"),
         (b"\xfe\xff", "utf-16"))  # these codecs read the mark and drop it
_BOM_STARTS = (b"\xff\xfe", b"\xfe\xff", b"\x00")  # how each mark starts
_HEX = re.compile(r"[0-9a-fA-F]+")
_SAMPLE = 4096  # bytes looked at to tell UTF-16 or UTF-32 without a byte order mark


class Budget:
    """How many decompressed bytes one scan may still produce (at most limits.MAX_BODY_BYTES in all)."""

    def __init__(self, total: int | None = None):
        self.left = limits.MAX_BODY_BYTES if total is None else total

    def decompress(self, data: bytes, codec: str) -> bytes:
        out = limits.decompress(data, codec, self.left)
        self.left -= len(out)
        return out


def compression(data: bytes) -> str | None:
    """The compression ``data`` starts with the magic of (gzip, bz2, xz, zlib), or None."""
    for magic, codec in _MAGIC:
        if data.startswith(magic) and (codec != "bz2" or data[4:10] in _BZ2_BLOCKS):
            return codec
    is_zlib = len(data) > 2 and data[0] & 0x0F == 8 and (data[0] * 256 + data[1]) % 31 == 0
    return "zlib" if is_zlib else None


def plain(data: bytes) -> bytes:
    """A file's text as every reader takes it: decompressed by its magic (every member, within
    limits.MAX_DECOMPRESSED_BYTES), and from UTF-16 or UTF-32 re-encoded as UTF-8."""
    codec = compression(data)
    if codec and codec != "zlib":  # two bytes of zlib header are no file magic
        data = limits.decompress(data, codec, limits.MAX_DECOMPRESSED_BYTES)
    encoding = text_encoding(data)
    return data.decode(encoding, "replace").encode("utf-8") if encoding else data


def text_encoding(data: bytes) -> str | None:
    """The text encoding of ``data`` when it is UTF-16 or UTF-32 (a byte order mark, or NULs where they fall)."""
    if not data.startswith(_BOM_STARTS) and 0 not in data[:_SAMPLE]:  # most data: no mark, no NUL to weigh
        return None
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    sample = data[:_SAMPLE - _SAMPLE % 4]
    if len(sample) < 8 or sample.count(0) < len(sample) // 3:
        return None
    zero = [sample[n::4].count(0) * 4 >= len(sample) * 0.9 for n in range(4)]
    shapes = {(False, True, True, True): "utf-32-le", (True, True, True, False): "utf-32-be",
              (False, True, False, True): "utf-16-le", (True, False, True, False): "utf-16-be"}
    return shapes.get(tuple(zero))


def _is_stream(data: bytes) -> bool:
    """Event-stream bytes: the first frame's prelude CRC holds."""
    return len(data) >= 16 and binascii.crc32(data[:8]) == int.from_bytes(data[8:12], "big")


def _payloads(data: bytes) -> Iterator[bytes]:
    """Each frame's payload, CRCs unchecked (what the bytes say is what is scanned)."""
    for piece in eventstream.frame_slices(data):
        headers = int.from_bytes(piece[4:8], "big")
        if len(piece) >= 16 + headers:
            yield piece[12 + headers : -4]


def readings(data: bytes, budget: Budget) -> Iterator[tuple[str, bytes | limits.LimitError]]:
    """(how, bytes) for each other reading of ``data``; a decompression past the budget is its LimitError."""
    codec = compression(data)
    if codec:
        try:
            yield f"{codec}-decompressed", budget.decompress(data, codec)
        except limits.LimitError as err:
            if "expands past" in str(err):
                yield f"{codec}-decompressed", err
    encoding = text_encoding(data)
    if encoding:
        yield f"read as {encoding}", data.decode(encoding, "replace").encode("utf-8")
    if _is_stream(data):
        for text in assembled(_json(p) for p in _payloads(data)):
            yield "stream assembled", text.encode("utf-8", "surrogatepass")


def _json(text: Any) -> Any:
    try:
        return json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return None


def _event(item: Any) -> Any:
    """The event body an item stands for: a frame item of this project's cassettes, a decoded event
    (``{"contentBlockDelta": {...}}``), an InvokeModel chunk (base64 JSON) or an Anthropic event as it is."""
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("chunk"), dict):
        item = item["chunk"]
    elif isinstance(item.get("json"), dict):
        item = item["json"]
    elif isinstance(item.get("payload"), str):
        item = _json(item["payload"])
    elif "payload_base64" in item or "frame_base64" in item:
        raw = _b64(item.get("payload_base64") or item.get("frame_base64"))
        item = _json(raw if "payload_base64" in item else next(_payloads(raw), b""))
    elif len(item) == 1 and isinstance(next(iter(item.values())), dict) and "type" not in item:
        item = next(iter(item.values()))
    if isinstance(item, dict) and isinstance(item.get("bytes"), str):
        return _json(_b64(item["bytes"]))
    return item


def _b64(text: Any) -> bytes:
    try:
        return base64.b64decode(str(text))
    except (binascii.Error, ValueError):
        return b""


def _delta(body: Any) -> tuple[Any, str] | None:
    """(block index, text) of one delta: Converse text, reasoning or tool input; Anthropic text, thinking or JSON."""
    delta = body.get("delta") if isinstance(body, dict) else None
    if not isinstance(delta, dict):
        return None
    if "contentBlockIndex" in body:
        reasoning, tool = delta.get("reasoningContent"), delta.get("toolUse")
        text = delta.get("text", (reasoning or {}).get("text") if isinstance(reasoning, dict) else None)
        text = (tool or {}).get("input") if text is None and isinstance(tool, dict) else text
        return (str(body["contentBlockIndex"]), text) if isinstance(text, str) else None
    text = delta.get("text", delta.get("partial_json", delta.get("thinking")))
    return (str(body.get("index")), text) if isinstance(text, str) else None


def assembled(events: Iterable[Any]) -> list[str]:
    """Each block's deltas joined, then each message's blocks joined (a new message at ``messageStart``)."""
    messages: list[dict[str, list[str]]] = [{}]
    for body in events:
        if isinstance(body, dict) and ("role" in body or body.get("type") == "message_start") and messages[-1]:
            messages.append({})
        found = _delta(body)
        if found:
            messages[-1].setdefault(found[0], []).append(found[1])
    blocks = ["".join(parts) for message in messages for parts in message.values()]
    whole = ["".join("".join(parts) for parts in message.values()) for message in messages if len(message) > 1]
    return [text for text in blocks + whole if text]


def _is_hex(item: Any) -> bool:
    return isinstance(item, str) and len(item) % 2 == 0 and _HEX.fullmatch(item) is not None


def _body(value: dict) -> bytes | None:
    """The body beside a ``headers`` mapping: this project's ``body``/``body_base64``, vcrpy's ``body.string``."""
    body = value.get("body")
    body = body.get("string") if isinstance(body, dict) else body
    if "body_base64" in value:
        return _b64(value["body_base64"])
    if isinstance(body, (bytes, bytearray)):
        return bytes(body)
    return body.encode("utf-8", "surrogateescape") if isinstance(body, str) else None


def _content_encoding(headers: Any) -> list[str]:
    found = [v for k, v in headers.items() if str(k).lower() == "content-encoding"] if isinstance(headers, dict) else []
    values = [str(x) for v in found for x in (v if isinstance(v, list) else [v])]
    return [c.strip().lower() for v in values for c in v.split(",") if c.strip()]


def _decoded_body(value: dict, budget: Budget) -> Iterator[tuple[str, bytes | limits.LimitError]]:
    """The body by its outermost Content-Encoding, where its magic does not tell (``readings`` does the rest)."""
    body, coding = _body(value), _content_encoding(value.get("headers"))[-1]
    if body is None or coding in _ENCODINGS and (coding != "deflate" or compression(body)):
        return
    if coding not in _ENCODINGS:
        try:
            body.decode("utf-8")  # kept decoded beside its header (some recorders do): scanned as it is
        except UnicodeDecodeError:
            yield "body", limits.LimitError(f"a body encoded as {coding!r}, which the scan cannot decode")
        return
    try:
        yield "body (raw deflate)", budget.decompress(body, "deflate")
    except limits.LimitError as err:
        if "expands past" in str(err):
            yield "body (raw deflate)", err


def _strings(value: Any) -> list[str]:
    """Every string inside ``value`` in document order (keys left out), walked without recursion."""
    out, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return out


def _request_texts(value: dict) -> str | None:
    """A request's system prompt and messages read as one text (every string in them, in order, joined): a secret
    split between the system prompt and a message, or across messages and blocks, is whole in it."""
    if not isinstance(value.get("messages"), list):
        return None
    contents = [m.get("content") if isinstance(m, dict) else m for m in value["messages"]]  # not the roles
    parts = _strings(value.get("system")) + _strings(contents)
    return "".join(parts) if len(parts) > 1 else None


def joined(value: Any, budget: Budget) -> Iterator[tuple[str, str | bytes | limits.LimitError]]:
    """(how, text) for each reading of a list or mapping as a whole; see the module docstring."""
    if isinstance(value, dict):
        if "headers" in value and _content_encoding(value["headers"]):
            yield from _decoded_body(value, budget)
        whole = _request_texts(value)
        if whole:
            yield "request texts joined", whole
        return
    if not isinstance(value, list) or len(value) < 2:
        return
    texts = [item["text"] for item in value if isinstance(item, dict) and isinstance(item.get("text"), str)]
    if len(texts) > 1:
        yield "text blocks joined", "".join(texts)
    if all(_is_hex(item) for item in value):
        yield "hex chunks joined", bytes.fromhex("".join(value))
    for text in assembled(_events(value)):
        yield "stream assembled", text


def _events(items: list) -> Iterator[Any]:
    """``_event`` of each item; an item aliased again at once (the same object: a YAML alias) is read once."""
    last = body = None
    for item in items:
        if item is not last:
            last, body = item, _event(item)
        yield body
