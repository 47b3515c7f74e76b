"""The emulator script (scenario-format.md, "Emulator script"): validation into a small immutable model.

`parse_script` turns a scenario turn's ``script`` mapping into a `Script`, or raises `EmulatorScriptError`
with one line naming the block index and field. Rendering lives in emulator.py (ConverseStream, Converse)
and emulator_invoke.py (InvokeModelWithResponseStream); emulator_plan.py holds the choices they share.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any

__all__ = ["AUTO", "BLOCK_KINDS", "IMAGE_FORMATS", "STYLES", "STOP_REASONS", "EXCEPTIONS", "SERVICE_TIERS",
           "LATENCIES", "STREAM_MEMBERS", "Block", "Usage", "StreamException", "Script", "EmulatorScriptError",
           "parse_script"]

STYLES = ("claude", "nova", "nova-2", "openai", "open-weight", "titan")  # the model families a script renders as
BLOCK_KINDS = ("text", "reasoning", "redacted_reasoning", "tool_use", "server_tool_use", "tool_result", "image",
               "future_block")
IMAGE_FORMATS = ("png", "jpeg", "gif", "webp")  # ImageBlockStart.format (ImageFormat)
STOP_REASONS = ("end_turn", "tool_use", "max_tokens", "stop_sequence", "guardrail_intervened", "content_filtered",
                "malformed_model_output", "malformed_tool_use", "model_context_window_exceeded")
# ConverseStream's exception members plus modelTimeoutException, which only InvokeModel streams carry.
EXCEPTIONS = ("internalServerException", "modelStreamErrorException", "validationException",
              "throttlingException", "serviceUnavailableException", "modelTimeoutException")
_SCRIPT_FIELDS = ("content", "stop_reason", "usage", "latency_ms", "interleave", "exception",
                  "additional_model_response_fields", "trace", "service_tier", "performance")
SERVICE_TIERS = ("priority", "default", "flex", "reserved")  # metadata.serviceTier.type (ServiceTierType)
LATENCIES = ("standard", "optimized")  # metadata.performanceConfig.latency (PerformanceConfigLatency)
_SIBLINGS = {"text": ("citations",), "reasoning": ("signature",)}
_TOOL_FIELDS = ("name", "id", "input", "raw_input", "fragments", "type")
_USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_write_input_tokens",
                 "server_tool_usage", "both_cache_spellings", "cache_details")
CACHE_TTLS = ("1h", "5m")  # cacheDetails is "sorted by TTL duration, 1h before 5m" (the service model's doc)
AUTO: Any = type("Auto", (), {"__repr__": lambda self: "AUTO"})()  # "not given": derive from seed / style


class EmulatorScriptError(ValueError):
    """A script the emulator cannot render; the one-line message names the block index and field."""


@dataclass(frozen=True)
class Block:
    """One content block; `index` is its position in ``content`` and its ``contentBlockIndex``."""

    kind: str
    index: int
    where: str
    text: str | tuple[str, ...] = ""  # text / reasoning: a string to split, or the exact deltas
    signature: str | None = None
    citations: tuple = ()
    data: str = ""  # redacted_reasoning, base64 as on the wire
    name: str = ""
    id: Any = AUTO  # str, None (omit toolUseId) or AUTO
    input: dict | None = None
    raw_input: str | tuple[str, ...] | None = None
    fragments: int | None = None
    type: Any = AUTO  # toolUse start `type`: str, None (omit) or AUTO (style default)
    status: str = "success"
    content: tuple = ()
    ref: int | None = None  # tool_result: index of the server_tool_use it answers
    format: str = ""  # image: its ImageFormat; future_block: the member name (a kind no model streams yet)
    parts: tuple = ()  # image: the deltas' base64 parts ({"error": message} for a failed one); future_block: deltas
    start: dict | None = None  # future_block: its contentBlockStart body (None: no start, as text has none)
    ordinal: int = 0  # tool_use / server_tool_use: how many tool uses come before it in the message


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 10
    output_tokens: int = 10
    cache_read_input_tokens: int | None = None
    cache_write_input_tokens: int | None = None
    server_tool_usage: dict | bool | None = None  # None: the style's default; False: none
    both_cache_spellings: bool = False  # also ...InputTokenCount, as some real streams send beside ...InputTokens
    cache_details: tuple = ()  # ((ttl, input tokens), ...): the cache writes per TTL, sent as usage.cacheDetails

    @property
    def total_tokens(self) -> int:
        """Bedrock's total counts cache reads and writes too (real Converse: 2 + 5 + 1322 = 1329)."""
        cache = (self.cache_read_input_tokens or 0) + (self.cache_write_input_tokens or 0)
        return self.input_tokens + self.output_tokens + cache

    @property
    def has_cache(self) -> bool:
        return self.cache_read_input_tokens is not None or self.cache_write_input_tokens is not None


@dataclass(frozen=True)
class StreamException:
    type: str
    message: str
    after_event: int
    original_status_code: int | None = None
    original_message: str | None = None

    def body(self) -> dict:
        """The exception frame's JSON body."""
        body = {"message": self.message}
        if self.original_status_code is not None:
            body["originalStatusCode"] = self.original_status_code
        if self.original_message is not None:
            body["originalMessage"] = self.original_message
        return body


@dataclass(frozen=True)
class Script:
    blocks: tuple[Block, ...]
    stop_reason: str
    usage: Usage
    latency_ms: int
    interleave: bool = False
    exception: StreamException | None = None
    additional_fields: dict | None = None
    where: str = "script"
    trace: dict | None = None  # metadata.trace (a guardrail assessment, a prompt router's invoked model)
    service_tier: str | None = None  # metadata.serviceTier.type: the tier that served the request
    performance: str | None = None  # metadata.performanceConfig.latency: the latency configuration that served it
    tools: bool = True  # whether the request carried toolConfig (Nova closes an answer with "" only then); set by
    # the renderer from the request, not a script field


def _fail(where: str, message: str):
    raise EmulatorScriptError(f"{where}: {message}")


def _fields(value: Any, where: str, known: tuple, required: tuple = ()) -> Mapping:
    if not isinstance(value, Mapping):
        _fail(where, f"expected a mapping, got {type(value).__name__}")
    for key in value:
        if key not in known:
            _fail(where, f"unknown field {key!r} (known: {', '.join(known)})")
    for key in required:
        if key not in value:
            _fail(f"{where}.{key}", "required")
    return value


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        _fail(where, f"expected a string, got {type(value).__name__}")
    return value


def _int(value: Any, where: str, low: int = 0, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"an integer in {low}..{high}" if high is not None else f"an integer >= {low}"
        _fail(where, f"expected {bound}, got {value!r}")
    return value


def _list(value: Any, where: str) -> list:
    if not isinstance(value, list):
        _fail(where, f"expected a list, got {type(value).__name__}")
    return value


def _deltas(value: Any, where: str) -> str | tuple[str, ...]:
    """A string (split into deltas by the renderer) or a list of strings (the exact deltas)."""
    if isinstance(value, list):
        return tuple(_str(item, f"{where}[{n}]") for n, item in enumerate(value))
    return _str(value, where)


def _text(item: Mapping, where: str, index: int, blocks: list) -> Block:
    citations = _list(item.get("citations", []), f"{where}.citations")
    for n, citation in enumerate(citations):
        _fields(citation, f"{where}.citations[{n}]", ("title", "source", "sourceContent", "location"))
    return Block("text", index, where, text=_deltas(item["text"], f"{where}.text"), citations=tuple(citations))


def _reasoning(item: Mapping, where: str, index: int, blocks: list) -> Block:
    signature = item.get("signature")
    if signature is not None:
        _str(signature, f"{where}.signature")
    return Block("reasoning", index, where, text=_deltas(item["reasoning"], f"{where}.reasoning"), signature=signature)


def _redacted(item: Mapping, where: str, index: int, blocks: list) -> Block:
    data = _str(item["redacted_reasoning"], f"{where}.redacted_reasoning")
    try:
        base64.b64decode(data, validate=True)
    except binascii.Error:
        _fail(f"{where}.redacted_reasoning", "not valid base64 (botocore decodes this blob)")
    return Block("redacted_reasoning", index, where, data=data)


def _tool(item: Mapping, where: str, index: int, blocks: list) -> Block:
    kind = "tool_use" if "tool_use" in item else "server_tool_use"
    where = f"{where}.{kind}"
    known = _TOOL_FIELDS if kind == "tool_use" else _TOOL_FIELDS[:-1]
    spec = _fields(item[kind], where, known, required=("name",))
    if "input" in spec and "raw_input" in spec:
        _fail(where, "give input or raw_input, not both")
    if "input" in spec and not isinstance(spec["input"], Mapping):
        _fail(f"{where}.input", f"expected a mapping, got {type(spec['input']).__name__}")
    raw = _deltas(spec["raw_input"], f"{where}.raw_input") if "raw_input" in spec else None
    if isinstance(raw, tuple) and "fragments" in spec:
        _fail(f"{where}.fragments", "raw_input given as a list already fixes the fragments")
    for key in ("id", "type"):
        if spec.get(key) is not None:
            _str(spec[key], f"{where}.{key}")
    ordinal = sum(1 for b in blocks if b.kind in ("tool_use", "server_tool_use"))
    return Block(kind, index, where, name=_str(spec["name"], f"{where}.name"), id=spec.get("id", AUTO), ordinal=ordinal,
                 input=None if raw is not None else dict(spec.get("input", {})), raw_input=raw,
                 fragments=_int(spec["fragments"], f"{where}.fragments", 1) if "fragments" in spec else None,
                 type=spec.get("type", AUTO))


def _tool_result(item: Mapping, where: str, index: int, blocks: list) -> Block:
    where = f"{where}.tool_result"
    spec = _fields(item["tool_result"], where, ("status", "type", "content"), required=("content",))
    status = spec.get("status", "success")
    if status not in ("success", "error"):
        _fail(f"{where}.status", f"expected success or error, got {status!r}")
    for n, part in enumerate(_list(spec["content"], f"{where} content")):
        if not isinstance(part, Mapping) or len(part) != 1 or next(iter(part)) not in ("text", "json"):
            _fail(f"{where}.content[{n}]", "expected {text: ...} or {json: ...}")
    servers = [b.index for b in blocks if b.kind == "server_tool_use"]
    if not servers:
        _fail(where, "no server_tool_use block before it to answer")
    kind = _str(spec["type"], f"{where}.type") if "type" in spec else None
    return Block("tool_result", index, where, status=status, type=kind, content=tuple(spec["content"]),
                 ref=servers[-1])


def _image(item: Mapping, where: str, index: int, blocks: list) -> Block:
    """An image the model made: a start naming its format, then deltas of base64 bytes (or an error)."""
    where = f"{where}.image"
    spec = _fields(item["image"], where, ("format", "data", "error"), required=("format",))
    if spec["format"] not in IMAGE_FORMATS:
        _fail(f"{where}.format", f"expected one of {', '.join(IMAGE_FORMATS)}, got {spec['format']!r}")
    if ("data" in spec) == ("error" in spec):
        _fail(where, "give data (base64, or a list of base64 parts) or error, one of them")
    if "error" in spec:
        return Block("image", index, where, format=spec["format"], parts=({"error": _str(spec["error"], f"{where}.error")},))
    parts = _deltas(spec["data"], f"{where}.data")
    for n, part in enumerate((parts,) if isinstance(parts, str) else parts):
        try:
            base64.b64decode(part, validate=True)
        except binascii.Error:
            _fail(f"{where}.data" + (f"[{n}]" if isinstance(parts, tuple) else ""), "not valid base64")
    return Block("image", index, where, format=spec["format"], parts=(parts,) if isinstance(parts, str) else parts)


def _future(item: Mapping, where: str, index: int, blocks: list) -> Block:
    """A block of a kind no model streams yet (a member newer than every SDK's model): its start and deltas."""
    where = f"{where}.future_block"
    spec = _fields(item["future_block"], where, ("kind", "start", "deltas"), required=("kind", "deltas"))
    kind = _str(spec["kind"], f"{where}.kind")
    if kind in STREAM_MEMBERS:
        _fail(f"{where}.kind", f"{kind!r} is a member ConverseStream already has")
    start = spec.get("start")
    if start is not None and not isinstance(start, Mapping):
        _fail(f"{where}.start", f"expected a mapping, got {type(start).__name__}")
    deltas = _list(spec["deltas"], f"{where}.deltas")
    for n, delta in enumerate(deltas):
        if not isinstance(delta, Mapping):
            _fail(f"{where}.deltas[{n}]", f"expected a mapping, got {type(delta).__name__}")
    return Block("future_block", index, where, format=kind, parts=tuple(dict(d) for d in deltas),
                 start=dict(start) if start is not None else None)


# ContentBlockStart and ContentBlockDelta members (botocore 1.44.8): a future block must be none of them.
STREAM_MEMBERS = ("text", "toolUse", "toolResult", "reasoningContent", "citation", "image")

_PARSERS = {"text": _text, "reasoning": _reasoning, "redacted_reasoning": _redacted, "tool_use": _tool,
            "server_tool_use": _tool, "tool_result": _tool_result, "image": _image, "future_block": _future}


def _block(item: Any, where: str, index: int, blocks: list) -> Block:
    if not isinstance(item, Mapping) or not item:
        _fail(where, f"expected a mapping with one block kind (known: {', '.join(BLOCK_KINDS)})")
    kinds = [key for key in item if key in BLOCK_KINDS]
    if not kinds:
        _fail(where, f"unknown block kind {next(iter(item))!r} (known: {', '.join(BLOCK_KINDS)})")
    if len(kinds) > 1:
        _fail(where, f"one block kind per block, got {', '.join(kinds)}")
    _fields(item, where, (kinds[0], *_SIBLINGS.get(kinds[0], ())))
    return _PARSERS[kinds[0]](item, where, index, blocks)


def _usage(value: Any, where: str) -> Usage:
    spec = _fields(value, where, _USAGE_FIELDS, required=("input_tokens", "output_tokens"))
    counts = {k: _int(spec[k], f"{where}.{k}") for k in _USAGE_FIELDS[:4] if k in spec}
    server = spec.get("server_tool_usage")
    if server is not None and server is not False and not isinstance(server, Mapping):
        _fail(f"{where}.server_tool_usage", f"expected a mapping, or false for none, got {type(server).__name__}")
    both = spec.get("both_cache_spellings", False)
    if not isinstance(both, bool):
        _fail(f"{where}.both_cache_spellings", f"expected true or false, got {both!r}")
    kept = dict(server) if isinstance(server, Mapping) else server
    details = tuple(_cache_detail(d, f"{where}.cache_details[{i}]")
                    for i, d in enumerate(_list(spec.get("cache_details", []), f"{where}.cache_details")))
    if [ttl for ttl, _ in details] != sorted((ttl for ttl, _ in details), key=CACHE_TTLS.index):
        _fail(f"{where}.cache_details", "Bedrock sorts cacheDetails by TTL, 1h before 5m")
    return Usage(**counts, server_tool_usage=kept, both_cache_spellings=both, cache_details=details)


def _cache_detail(value: Any, where: str) -> tuple[str, int]:
    """One ``{ttl: 5m | 1h, input_tokens}`` of usage's cache_details."""
    spec = _fields(value, where, ("ttl", "input_tokens"), required=("ttl", "input_tokens"))
    if spec["ttl"] not in CACHE_TTLS:
        _fail(f"{where}.ttl", f"expected one of {', '.join(CACHE_TTLS)}, got {spec['ttl']!r}")
    return spec["ttl"], _int(spec["input_tokens"], f"{where}.input_tokens")


def _exception(value: Any, where: str) -> StreamException:
    known = ("type", "message", "after_event", "original_status_code", "original_message")
    spec = _fields(value, where, known, required=("type", "after_event"))
    if spec["type"] not in EXCEPTIONS:
        _fail(f"{where}.type", f"unknown exception {spec['type']!r} (known: {', '.join(EXCEPTIONS)})")
    extra = [k for k in known[3:] if k in spec]
    if extra and spec["type"] != "modelStreamErrorException":
        _fail(f"{where}.{extra[0]}", "only modelStreamErrorException carries it")
    status = spec.get("original_status_code")
    return StreamException(
        spec["type"], _str(spec.get("message", "The model stream failed."), f"{where}.message"),
        _int(spec["after_event"], f"{where}.after_event"),
        _int(status, f"{where}.original_status_code", 100, 599) if status is not None else None,
        _str(spec["original_message"], f"{where}.original_message") if "original_message" in spec else None)


def _stop_reason(value: Any, where: str, blocks: list) -> str:
    if value is None:
        return "tool_use" if any(b.kind == "tool_use" for b in blocks) else "end_turn"
    if value not in STOP_REASONS:
        _fail(where, f"unknown stop reason {value!r} (known: {', '.join(STOP_REASONS)})")
    return value


def parse_script(script: Any, where: str = "script") -> Script:
    """Validate a script mapping; `where` prefixes every error (e.g. the scenario file and turn)."""
    if isinstance(script, Script):
        return script
    spec = _fields(script, where, _SCRIPT_FIELDS)
    if "content" not in spec:
        _fail(f"{where} content", "required")
    blocks: list[Block] = []
    for n, item in enumerate(_list(spec["content"], f"{where} content")):
        blocks.append(_block(item, f"{where} content[{n}]", n, blocks))
    interleave = spec.get("interleave", False)
    if not isinstance(interleave, bool):
        _fail(f"{where} interleave", f"expected true or false, got {interleave!r}")
    extra = spec.get("additional_model_response_fields")
    if extra is not None and not isinstance(extra, Mapping):
        _fail(f"{where} additional_model_response_fields", f"expected a mapping, got {type(extra).__name__}")
    trace = spec.get("trace")
    if trace is not None and not isinstance(trace, Mapping):
        _fail(f"{where} trace", f"expected a mapping, got {type(trace).__name__}")
    served = {key: _one_of(spec.get(key), f"{where} {key}", known) for key, known in
              (("service_tier", SERVICE_TIERS), ("performance", LATENCIES))}
    return Script(
        tuple(blocks), _stop_reason(spec.get("stop_reason"), f"{where} stop_reason", blocks),
        _usage(spec["usage"], f"{where} usage") if "usage" in spec else Usage(),
        _int(spec.get("latency_ms", 100 * max(1, len(blocks))), f"{where} latency_ms"), interleave,
        _exception(spec["exception"], f"{where} exception") if "exception" in spec else None,
        dict(extra) if extra is not None else None, where, dict(trace) if trace is not None else None, **served)


def _one_of(value: Any, where: str, known: tuple) -> str | None:
    if value is not None and value not in known:
        _fail(where, f"expected one of {', '.join(known)}, got {value!r}")
    return value
