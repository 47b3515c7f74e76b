"""Adapter stream chunks -> the normalized list goldens hold, the stream-level laws, and the normalized request.

``normalize(chunks, capabilities)`` folds the chunk vocabulary of DESIGN.md into its normalized list, then
keeps only the fields the adapter's declared capabilities make comparable. ``laws(chunks, capabilities)``
checks what the folded list cannot show (order, ids, partial input). ``normalize_request(body)`` reduces a
Bedrock Converse request body to what scenarios pin. Every removal of variance is a named step (STYLE 4, 6).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from harness.scenario import CAPABILITIES

__all__ = [
    "ALL",
    "BEDROCK_ERROR_CODES",
    "COMPARISON",
    "comparable",
    "LAWS",
    "PINNABLE",
    "REQUEST_STEPS",
    "RESTRICTIONS",
    "count_text_deltas",
    "fold",
    "incremental_text",
    "laws",
    "normalize",
    "normalize_request",
    "parse_input",
    "restrict",
]

ALL = CAPABILITIES
CONTENT = ("text", "reasoning", "redacted_reasoning", "tool_call")
CLOSING = ("stop", "usage", "error")
UNPARSED = "__unparsed__"


def normalize(chunks: Iterable[Mapping], capabilities: Iterable[str] = ALL) -> list[dict]:
    """The normalized list of DESIGN.md, restricted to what ``capabilities`` make comparable."""
    return restrict(fold(chunks), capabilities)


def parse_input(raw: str) -> Any:
    """A tool call's input from its joined deltas: "" -> {}; JSON that does not parse is kept, marked."""
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        return {UNPARSED: raw}


@dataclass
class _Call:
    """A tool call being folded: first-seen id and name, its deltas, or a complete input."""

    id: Any
    name: Any
    deltas: list[str] = field(default_factory=list)
    input: Any = None
    complete: bool = False

    def item(self) -> dict:
        value = self.input if self.complete else parse_input("".join(self.deltas))
        return {"type": "tool_call", "id": self.id, "name": self.name, "input": value}


def _call_keys(chunks: Sequence[Mapping]) -> list[Any]:
    """Each chunk's tool-call key: its id, else the id its index was bound to, else the index (None: no call)."""
    bound: dict[Any, Any] = {}
    keys = []
    for chunk in chunks:
        cid, index = chunk.get("id"), chunk.get("index")
        if chunk.get("type") != "tool_call":
            cid = None
        elif cid is None:
            cid = bound.get(index, ("index", index))
        elif index is not None:
            bound[index] = cid
        keys.append(cid)
    return keys


def fold(chunks: Iterable[Mapping]) -> list[dict]:
    """Fold chunks into content items in stream order, then stop, usage and error items."""
    chunks = list(chunks)
    content: list[Any] = []
    closing: dict[str, list[dict]] = {kind: [] for kind in CLOSING}
    calls: dict[Any, _Call] = {}
    for chunk, key in zip(chunks, _call_keys(chunks)):
        kind = chunk.get("type")
        if kind == "tool_call":
            _fold_call(content, calls, key, chunk)
        elif kind in _FOLDERS:
            _FOLDERS[kind](content, chunk)
        elif kind in CLOSING:
            closing[kind].append(_CLOSERS[kind](chunk))
        else:  # outside the vocabulary: kept so the diff shows it
            content.append(dict(chunk))
    items = [entry.item() if isinstance(entry, _Call) else _unmarked(entry) for entry in content]
    return items + [item for kind in CLOSING for item in closing[kind]]


def _unmarked(item: dict) -> dict:
    """Without the folder's bookkeeping keys (an open reasoning block and its index)."""
    return {key: value for key, value in item.items() if key not in ("_open", "_index")}


def _fold_call(content: list, calls: dict, key: Any, chunk: Mapping) -> None:
    call = calls.get(key)
    if call is None:
        call = calls[key] = _Call(chunk.get("id"), chunk.get("name"))
        content.append(call)
    call.name = call.name if call.name is not None else chunk.get("name")
    if "input" in chunk:
        call.input, call.complete = chunk["input"], True
    call.deltas.append(chunk.get("input_delta") or "")


def _fold_text(content: list, chunk: Mapping) -> None:
    text = chunk.get("text") or ""
    if text and content and isinstance(content[-1], dict) and content[-1]["type"] == "text":
        content[-1]["text"] += text
    elif text:
        content.append({"type": "text", "text": text})


def _fold_reasoning(content: list, chunk: Mapping) -> None:
    """Reasoning continues the last item when it is an open block with the same index; a signature closes it."""
    text, signature = chunk.get("text") or "", chunk.get("signature")
    if not text and signature is None:
        return
    last = content[-1] if content else None
    if not (isinstance(last, dict) and last.get("_open") is True and last.get("_index") == chunk.get("index")):
        last = {"type": "reasoning", "text": "", "signature": None, "_open": True, "_index": chunk.get("index")}
        content.append(last)
    last["text"] += text
    if signature is not None:
        last["signature"], last["_open"] = signature, False


def _fold_redacted(content: list, chunk: Mapping) -> None:
    data = chunk.get("data")
    content.append({"type": "redacted_reasoning", "data": _b64(data) if isinstance(data, bytes) else data})


_FOLDERS: dict[str, Callable[[list, Mapping], None]] = {
    "text": _fold_text, "reasoning": _fold_reasoning, "redacted_reasoning": _fold_redacted,
}
_CLOSERS: dict[str, Callable[[Mapping], dict]] = {
    "stop": lambda c: {"type": "stop", "reason": c.get("reason")},
    "usage": lambda c: {"type": "usage", "input_tokens": c.get("input_tokens"), "output_tokens": c.get("output_tokens"),
                        "cache_read_input_tokens": c.get("cache_read_input_tokens") or 0,
                        "cache_write_input_tokens": c.get("cache_write_input_tokens") or 0},
    "error": lambda c: {"type": "error", "code": c.get("code"), "message": c.get("message")},
}


# ---- capability restrictions: (items, capabilities) -> items ----

_ITEM_CAPABILITY = {"text": "text", "reasoning": "reasoning", "redacted_reasoning": "redacted_reasoning",
                    "tool_call": "tool_use", "stop": "stop_reason", "usage": "usage", "error": "errors"}


def drop_undeclared_items(items: list[dict], capabilities: frozenset[str]) -> list[dict]:
    """Items of a kind the adapter does not declare (no ``usage`` capability: no usage item)."""
    return [item for item in items if _ITEM_CAPABILITY.get(item["type"], "text") in capabilities]


def drop_undeclared_signatures(items: list[dict], capabilities: frozenset[str]) -> list[dict]:
    """Reasoning signatures, unless the adapter declares ``reasoning_signature``."""
    if "reasoning_signature" in capabilities:
        return items
    return [{k: v for k, v in item.items() if k != "signature"} if item["type"] == "reasoning" else item
            for item in items]


def drop_undeclared_cache_counts(items: list[dict], capabilities: frozenset[str]) -> list[dict]:
    """Cache token counts in usage, unless the adapter declares ``cache_usage``."""
    if "cache_usage" in capabilities:
        return items
    return [{k: v for k, v in item.items() if not k.startswith("cache_")} if item["type"] == "usage" else item
            for item in items]


RESTRICTIONS = (drop_undeclared_items, drop_undeclared_signatures, drop_undeclared_cache_counts)


def restrict(items: Iterable[Mapping], capabilities: Iterable[str] = ALL) -> list[dict]:
    """Keep what ``capabilities`` make comparable; applies as well to a golden's stored list (idempotent)."""
    result, capabilities = [dict(item) for item in items], frozenset(capabilities)
    for step in RESTRICTIONS:
        result = step(result, capabilities)
    return result


# ---- comparison: what two adapters may legitimately differ on, removed from both sides before a diff ----

# Error codes Bedrock itself sends (in-stream members and HTTP error types); any other code is adapter prose.
BEDROCK_ERROR_CODES = frozenset({
    "internalServerException", "modelStreamErrorException", "validationException", "throttlingException",
    "serviceUnavailableException", "modelTimeoutException", "InternalServerException", "ModelStreamErrorException",
    "ValidationException", "ThrottlingException", "ServiceUnavailableException", "ModelTimeoutException",
    "ModelErrorException", "ModelNotReadyException", "AccessDeniedException", "ResourceNotFoundException",
    "ServiceQuotaExceededException",
})
ADAPTER_ERROR = "adapter_error"


def drop_unparsed_calls(items: list[dict], capabilities: frozenset[str]) -> list[dict]:
    """Tool calls whose input never parsed: yielding a broken stream's partial deltas or not are both correct
    (presenting them as a complete call is what the no_partial_input_as_complete law catches)."""
    return [item for item in items
            if not (item["type"] == "tool_call" and isinstance(item.get("input"), dict) and UNPARSED in item["input"])]


def error_code_class(items: list[dict], capabilities: frozenset[str]) -> list[dict]:
    """Error messages, and codes that are the adapter's own words: Bedrock's codes must pass through, the rest
    compares as one class (an adapter raising on a malformed stream vs. yielding its own error chunk)."""
    return [{"type": "error", "code": item.get("code") if item.get("code") in BEDROCK_ERROR_CODES else ADAPTER_ERROR}
            if item["type"] == "error" else item for item in items]


COMPARISON = (drop_unparsed_calls, error_code_class)


def comparable(items: Iterable[Mapping], capabilities: Iterable[str] = ALL) -> list[dict]:
    """``restrict`` plus the COMPARISON steps: what a golden diff looks at, on both sides."""
    result, capabilities = restrict(items, capabilities), frozenset(capabilities)
    for step in COMPARISON:
        result = step(result, capabilities)
    return result


# ---- stream-level laws: (chunks, capabilities) -> violation messages naming the chunk index ----

def _label(index: int, chunk: Mapping) -> str:
    return f"chunk {index} ({chunk.get('type')})"


def _first(chunks: Sequence[Mapping], kinds: Sequence[str]) -> int | None:
    return next((i for i, chunk in enumerate(chunks) if chunk.get("type") in kinds), None)


def content_before_stop(chunks: Sequence[Mapping], capabilities: frozenset[str]) -> list[str]:
    """No content chunk (a tool call's deltas included) after the stop chunk that ends the stream."""
    end = _first(chunks, ("stop",))
    return [f"content_before_stop: {_label(i, c)} arrives after the stream ended at {_label(end, chunks[end])}"
            for i, c in enumerate(chunks) if end is not None and i > end and c.get("type") in CONTENT]


def nothing_after_error(chunks: Sequence[Mapping], capabilities: frozenset[str]) -> list[str]:
    """No chunk of any kind after an error chunk."""
    end = _first(chunks, ("error",))
    return [f"nothing_after_error: {_label(i, c)} arrives after the error at chunk {end}"
            for i, c in enumerate(chunks) if end is not None and i > end]


def tool_call_ids_present(chunks: Sequence[Mapping], capabilities: frozenset[str]) -> list[str]:
    """Every tool_call chunk names its call: a non-empty id, or an index standing in for it (once per call)."""
    problems, seen = [], set()
    for i, chunk in enumerate(chunks):
        if chunk.get("type") != "tool_call" or (chunk.get("id"), chunk.get("index")) in seen:
            continue
        if chunk.get("id") == "":
            problems.append(f"tool_call_ids_present: {_label(i, chunk)} has an empty id (a missing toolUseId "
                            "must be reported, not passed on as '')")
        elif chunk.get("id") is None and chunk.get("index") is None:
            problems.append(f"tool_call_ids_present: {_label(i, chunk)} has neither an id nor an index")
        seen.add((chunk.get("id"), chunk.get("index")))
    return problems


def tool_call_ids_stable(chunks: Sequence[Mapping], capabilities: frozenset[str]) -> list[str]:
    """A call's id never changes: an index keeps its id, an index-only delta follows its id, a new id has a name."""
    bound: dict[Any, Any] = {}
    seen: set[Any] = set()
    problems = []
    for i, chunk in enumerate(chunks):
        if chunk.get("type") != "tool_call":
            continue
        cid, index, where = chunk.get("id"), chunk.get("index"), f"tool_call_ids_stable: {_label(i, chunk)}"
        if cid is not None and index in bound and bound[index] != cid:
            problems.append(f"{where} carries id {cid!r} for index {index}, which had id {bound[index]!r}")
        elif cid is None and index is not None and index not in bound:
            problems.append(f"{where} is a delta for index {index} before any chunk gave that call an id")
        elif cid is not None and cid not in seen and chunk.get("name") is None:
            problems.append(f"{where} starts call {cid!r} without a name (did the id change mid-call?)")
        if cid is not None:
            seen.add(cid)
            if index is not None:
                bound.setdefault(index, cid)
    return problems


def _ends_badly(chunks: Sequence[Mapping], capabilities: frozenset[str]) -> bool:
    """An error, a max_tokens stop, or (when the adapter reports stops) no stop at all."""
    stops = [chunk.get("reason") for chunk in chunks if chunk.get("type") == "stop"]
    missing_stop = "stop_reason" in capabilities and not stops
    return _first(chunks, ("error",)) is not None or "max_tokens" in stops or missing_stop


def no_partial_input_as_complete(chunks: Sequence[Mapping], capabilities: frozenset[str]) -> list[str]:
    """A stream that ends badly never presents a tool call's partial JSON as a complete ``input``."""
    if not _ends_badly(chunks, capabilities):
        return []
    keys, problems = _call_keys(chunks), []
    for i, (chunk, key) in enumerate(zip(chunks, keys)):
        if chunk.get("type") != "tool_call" or "input" not in chunk:
            continue
        raw = "".join(c.get("input_delta") or "" for c, k in zip(chunks, keys) if k == key)
        given = chunk["input"]
        partial = parse_input(raw) if raw.strip() else (parse_input(given) if isinstance(given, str) else None)
        if isinstance(partial, dict) and UNPARSED in partial:
            problems.append(f"no_partial_input_as_complete: {_label(i, chunk)} presents call {key!r} as complete "
                            f"although the stream ended badly with partial JSON {partial[UNPARSED]!r}")
    return problems


LAWS = (content_before_stop, nothing_after_error, tool_call_ids_present, tool_call_ids_stable,
        no_partial_input_as_complete)


def count_text_deltas(chunks: Iterable[Mapping]) -> int:
    """Non-empty text chunks (e.g. in the reference adapter's stream, for ``incremental_text``)."""
    return sum(1 for chunk in chunks if chunk.get("type") == "text" and chunk.get("text"))


def incremental_text(chunks: Sequence[Mapping], capabilities: frozenset[str], text_deltas: int | None) -> list[str]:
    """An adapter declaring ``streaming`` yields text in more than one chunk when Bedrock sent several deltas."""
    if "streaming" not in capabilities or text_deltas is None or text_deltas < 2 or count_text_deltas(chunks) > 1:
        return []
    where = next((_label(i, c) for i, c in enumerate(chunks) if c.get("type") == "text" and c.get("text")), "no chunk")
    return [f"incremental_text: {where} holds all the text that Bedrock sent in {text_deltas} deltas"]


def laws(chunks: Iterable[Mapping], capabilities: Iterable[str] = ALL, text_deltas: int | None = None) -> list[str]:
    """Every law violated by a raw chunk stream; ``text_deltas`` (the recorded count) enables incremental_text."""
    chunks, capabilities = list(chunks), frozenset(capabilities)
    problems = [problem for law in LAWS for problem in law(chunks, capabilities)]
    return problems + incremental_text(chunks, capabilities, text_deltas)


# ---- the normalized Bedrock request: body -> body steps ----

def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def blobs_as_base64(body: Any) -> Any:
    """Raw bytes (boto3-level parameters) become the base64 strings the wire carries."""
    if isinstance(body, (bytes, bytearray)):
        return _b64(bytes(body))
    if isinstance(body, dict):
        return {key: blobs_as_base64(value) for key, value in body.items()}
    if isinstance(body, list):
        return [blobs_as_base64(value) for value in body]
    return body


_PINNED_MEMBERS = ("system", "messages", "toolConfig", "additionalModelRequestFields", "inferenceConfig",
                   "tools", "tool_choice", "thinking")  # the last three: Anthropic-native (InvokeModel) bodies


def pinned_members(body: dict) -> dict:
    """Members scenarios never pin (modelId, requestMetadata, performanceConfig, ...) are adapter choices."""
    return {key: value for key, value in body.items() if key in _PINNED_MEMBERS}


def drop_inference_config(body: dict) -> dict:
    """inferenceConfig holds sampling defaults each adapter picks; the request rules check what matters."""
    return {key: value for key, value in body.items() if key != "inferenceConfig"}


def thinking_only(body: dict) -> dict:
    """additionalModelRequestFields is compared on its thinking config; other model fields vary by adapter."""
    fields = body.get("additionalModelRequestFields")
    if not isinstance(fields, dict):
        return body
    return {**body, "additionalModelRequestFields": {k: v for k, v in fields.items() if k == "thinking"}}


def _map_blocks(body: dict, step: Callable[[list], list]) -> dict:
    """Apply ``step`` to every message's content list."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return body
    return {**body, "messages": [{**m, "content": step(m["content"])}
                                 if isinstance(m, dict) and isinstance(m.get("content"), list) else m for m in messages]}


def _no_cache_points(blocks: list) -> list:
    return [block for block in blocks if not (isinstance(block, dict) and "cachePoint" in block)]


def drop_cache_points(body: dict) -> dict:
    """cachePoint blocks (system, messages, tools) are a caching choice, not conversation content."""
    body = _map_blocks(body, _no_cache_points)
    if isinstance(body.get("system"), list):
        body = {**body, "system": _no_cache_points(body["system"])}
    tools = body.get("toolConfig")
    if isinstance(tools, dict) and isinstance(tools.get("tools"), list):
        body = {**body, "toolConfig": {**tools, "tools": _no_cache_points(tools["tools"])}}
    return body


def tool_spec_fields(body: dict) -> dict:
    """A toolSpec is compared on name, description and inputSchema (``strict`` and extras vary by adapter)."""
    config = body.get("toolConfig")
    if not isinstance(config, dict) or not isinstance(config.get("tools"), list):
        return body
    keep = ("name", "description", "inputSchema")
    tools = [{"toolSpec": {k: v for k, v in tool["toolSpec"].items() if k in keep}}
             if isinstance(tool, dict) and isinstance(tool.get("toolSpec"), dict) else tool for tool in config["tools"]]
    return {**body, "toolConfig": {**config, "tools": tools}}


def implicit_auto_tool_choice(body: dict) -> dict:
    """``toolChoice: {auto: {}}`` is Bedrock's default: sending it and leaving it out ask the same."""
    config = body.get("toolConfig")
    if not isinstance(config, dict) or config.get("toolChoice") != {"auto": {}}:
        return body
    return {**body, "toolConfig": {k: v for k, v in config.items() if k != "toolChoice"}}


def _schema_without_empty_required(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    cleaned = {k: _schema_without_empty_required(v) for k, v in schema.items() if not (k == "required" and v == [])}
    return cleaned


def empty_required_lists(body: dict) -> dict:
    """``"required": []`` in a tool's input schema means the same as no ``required`` at all."""
    config = body.get("toolConfig")
    if not isinstance(config, dict) or not isinstance(config.get("tools"), list):
        return body
    tools = [{"toolSpec": {**tool["toolSpec"], "inputSchema": _schema_without_empty_required(
        tool["toolSpec"].get("inputSchema"))}} if isinstance(tool, dict) and isinstance(tool.get("toolSpec"), dict)
             and "inputSchema" in tool["toolSpec"] else tool for tool in config["tools"]]
    return {**body, "toolConfig": {**config, "tools": tools}}


def _no_success_status(blocks: list) -> list:
    result = []
    for block in blocks:
        tool_result = block.get("toolResult") if isinstance(block, dict) else None
        if isinstance(tool_result, dict) and tool_result.get("status") == "success":
            block = {**block, "toolResult": {k: v for k, v in tool_result.items() if k != "status"}}
        result.append(block)
    return result


def implicit_success_status(body: dict) -> dict:
    """A toolResult with status "success" means the same as one without a status."""
    return _map_blocks(body, _no_success_status)


def drop_empty_members(body: dict) -> dict:
    """Empty members ("system": [], "inferenceConfig": {}, null) mean the same as absent ones."""
    return {key: value for key, value in body.items() if value not in (None, [], {})}


REQUEST_STEPS = (pinned_members, drop_inference_config, thinking_only, drop_cache_points, tool_spec_fields,
                 implicit_auto_tool_choice, empty_required_lists, implicit_success_status, drop_empty_members)
PINNABLE = {"inferenceConfig": drop_inference_config, "cachePoint": drop_cache_points}


def normalize_request(body: Mapping, pinned: Iterable[str] = ()) -> dict:
    """A Converse request body reduced to what scenarios pin; ``pinned`` keeps inferenceConfig / cachePoint."""
    unknown = sorted(set(pinned) - set(PINNABLE))
    if unknown:
        raise ValueError(f"cannot pin {', '.join(unknown)} (pinnable: {', '.join(sorted(PINNABLE))})")
    skipped = {PINNABLE[name] for name in pinned}
    result = blobs_as_base64(dict(body))
    for step in REQUEST_STEPS:
        result = step(result) if step not in skipped else result
    return result
