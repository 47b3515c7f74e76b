"""Adapter stream chunks -> the normalized list goldens hold, and what a golden diff compares of it.

``normalize(chunks, capabilities)`` folds the chunk vocabulary of DESIGN.md into its normalized list, then
keeps only the fields the adapter's declared capabilities make comparable; ``comparable`` also removes what two
correct adapters may differ on. Every removal of variance is a named step (STYLE 4, 6). The stream-level laws
live in harness.judge.laws and the normalized request in harness.judge.normalize_request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from harness.judge.protocol import FEATURES, SERVED, USAGE_INCLUDES_CACHE

__all__ = [
    "ALL",
    "BEDROCK_ERROR_CODES",
    "BESIDE",
    "bedrock_input_tokens",
    "COMPARISON",
    "comparable",
    "CITED",
    "CONTENT",
    "METADATA",
    "RESTRICTIONS",
    "SKIPPED",
    "UNPARSED",
    "call_keys",
    "fold",
    "normalize",
    "parse_input",
    "restrict",
]

ALL = FEATURES | SERVED  # every comparable field; the declarations (own_history, the usage convention) are not fields
CONTENT = ("text", "reasoning", "redacted_reasoning", "tool_call")
CITED = ("citation",)  # content items the assembled message holds inside its text blocks (issue 28)
CLOSING = ("stop", "response_fields", "usage", "metadata", "error")
# Reports beside the stream, judged on their own (harness.judge.assembly, .openai_laws, .parity): the
# assembled assistant message, an OpenAI-format adapter's native chunks and the library's own message from each
# call say nothing new about the content.
BESIDE = ("message", "openai_chunk", "native")
# A block of a kind the chunks do not carry (an image the model made, a kind newer than the adapter): surfacing it
# as an ``other`` chunk or skipping it are both correct, so it never reaches a golden; reading it as text is the bug.
SKIPPED = ("other",)
UNPARSED = "__unparsed__"
METADATA = ("invoked_model_id", "service_tier", "latency")  # a metadata chunk's fields (absent: null)


def normalize(chunks: Iterable[Mapping], capabilities: Iterable[str] = ALL) -> list[dict]:
    """The normalized list of DESIGN.md in Bedrock's usage convention, restricted to what ``capabilities`` make
    comparable."""
    return restrict(bedrock_input_tokens(fold(chunks), frozenset(capabilities)), capabilities)


def bedrock_input_tokens(items: list[dict], capabilities: frozenset[str]) -> list[dict]:
    """An adapter declaring ``usage_input_includes_cache`` counts cache reads and writes in ``input_tokens``;
    Bedrock's ``inputTokens`` (and so the golden) does not: its count less both cache counts."""
    if USAGE_INCLUDES_CACHE not in capabilities:
        return items
    counts = ("input_tokens", "cache_read_input_tokens", "cache_write_input_tokens")  # another type: kept as is
    return [{**item, "input_tokens": item["input_tokens"] - item["cache_read_input_tokens"]
             - item["cache_write_input_tokens"]}
            if item["type"] == "usage" and all(isinstance(item[count], int) for count in counts) else item
            for item in items]


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


def call_keys(chunks: Sequence[Mapping]) -> list[Any]:
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
    for chunk, key in zip(chunks, call_keys(chunks)):
        kind = chunk.get("type")
        if kind == "tool_call":
            _fold_call(content, calls, key, chunk)
        elif kind in _FOLDERS:
            _FOLDERS[kind](content, chunk)
        elif kind in CLOSING:
            closing[kind].append(_CLOSERS[kind](chunk))
        elif kind in BESIDE or kind in SKIPPED:
            continue
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


def _fold_citation(content: list, chunk: Mapping) -> None:
    """A citation is its own item, in stream order: the text on either side of it is not joined."""
    content.append({"type": "citation", "citation": chunk.get("citation")})


def _fold_redacted(content: list, chunk: Mapping) -> None:
    content.append({"type": "redacted_reasoning", "data": chunk.get("data")})  # base64 text: the chunk schema says so


_FOLDERS: dict[str, Callable[[list, Mapping], None]] = {
    "text": _fold_text, "reasoning": _fold_reasoning, "redacted_reasoning": _fold_redacted, "citation": _fold_citation,
}
_CLOSERS: dict[str, Callable[[Mapping], dict]] = {
    "stop": lambda c: {"type": "stop", "reason": c.get("reason")},
    "usage": lambda c: {"type": "usage", "input_tokens": c.get("input_tokens"), "output_tokens": c.get("output_tokens"),
                        "cache_read_input_tokens": c.get("cache_read_input_tokens") or 0,
                        "cache_write_input_tokens": c.get("cache_write_input_tokens") or 0,
                        **({"cache_details": c["cache_details"]} if c.get("cache_details") else {})},
    "error": lambda c: {"type": "error", "code": c.get("code"), "message": c.get("message")},
    "response_fields": lambda c: {"type": "response_fields", "fields": c.get("fields")},
    "metadata": lambda c: {"type": "metadata", **{key: c.get(key) for key in METADATA}},
}


# ---- capability restrictions: (items, capabilities) -> items ----

_ITEM_CAPABILITY = {"text": "text", "reasoning": "reasoning", "redacted_reasoning": "redacted_reasoning",
                    "tool_call": "tool_use", "stop": "stop_reason", "usage": "usage", "error": "errors",
                    "citation": "citations", "response_fields": "response_fields", "metadata": "response_metadata"}


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
    counts = ("cache_read_input_tokens", "cache_write_input_tokens")
    return [{k: v for k, v in item.items() if k not in counts} if item["type"] == "usage" else item for item in items]


def drop_undeclared_cache_details(items: list[dict], capabilities: frozenset[str]) -> list[dict]:
    """Usage's cache writes per TTL, unless the adapter declares ``cache_details``."""
    if "cache_details" in capabilities:
        return items
    return [{k: v for k, v in item.items() if k != "cache_details"} if item["type"] == "usage" else item
            for item in items]


RESTRICTIONS = (drop_undeclared_items, drop_undeclared_signatures, drop_undeclared_cache_counts,
                drop_undeclared_cache_details)


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
    """Tool calls whose input never parsed: surfacing a broken stream's partial call or not are both correct."""
    # Presenting it as a complete call is wrong, and the no_partial_input_as_complete law catches that.
    return [item for item in items
            if not (item["type"] == "tool_call" and isinstance(item.get("input"), dict) and UNPARSED in item["input"])]


def error_code_class(items: list[dict], capabilities: frozenset[str]) -> list[dict]:
    """Error messages, error codes in the adapter's own words, and the spelling of Bedrock's (which pass through)."""
    # An adapter raising on a malformed stream and one yielding its own error chunk compare alike. Bedrock's event
    # member throttlingException, its HTTP error type and the AWS SDKs' exception ThrottlingException are one error.
    return [{"type": "error", "code": _bedrock_code(item.get("code"))} if item["type"] == "error" else item
            for item in items]


def _bedrock_code(code: Any) -> str:
    return code[:1].lower() + code[1:] if code in BEDROCK_ERROR_CODES else ADAPTER_ERROR


COMPARISON = (drop_unparsed_calls, error_code_class)


def comparable(items: Iterable[Mapping], capabilities: Iterable[str] = ALL) -> list[dict]:
    """``restrict`` plus the COMPARISON steps: what a golden diff looks at, on both sides."""
    result, capabilities = restrict(items, capabilities), frozenset(capabilities)
    for step in COMPARISON:
        result = step(result, capabilities)
    return result
