"""The assembled assistant message an adapter reports against what it streamed ("streamed X, assembled Y").

An adapter may close a turn with ``{"type": "message", "message": {Anthropic-format assistant message}}``: the
message its library assembled and sends back in the next turn (one chunk per message when the library holds
several for one response, which is itself a finding). Both sides become normalized content items
(DESIGN.md's vocabulary), laid out as the request comparison lays out an assistant turn (``layout``: reasoning
blocks first in order, the text joined into one block, then the tool calls in order; the adapter docs say why each
of those variations is acceptable), restricted to what the adapter's capabilities make comparable, then
compared block by block. Each difference is one line naming the turn and the block.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any, Iterable, Sequence

from harness.judge.excerpt import pair
from harness.judge.compare import Diff
from harness.judge.normalize import ALL, CONTENT, comparable, fold

__all__ = ["FIELDS", "assembled_items", "check_assembly", "layout", "streamed_items"]

REASONING = ("reasoning", "redacted_reasoning")
_ITEMS = {
    "thinking": lambda b: {"type": "reasoning", "text": b.get("thinking") or "", "signature": b.get("signature")},
    "redacted_thinking": lambda b: {"type": "redacted_reasoning", "data": b.get("data")},
    "text": lambda b: {"type": "text", "text": b.get("text")},
    "tool_use": lambda b: {"type": "tool_call", "id": b.get("id"), "name": b.get("name"), "input": b.get("input")},
}


def layout(items: Iterable[Mapping]) -> list[dict]:
    """Reasoning blocks first (in order), all text joined into one block (blank: none), then every other item."""
    items = [dict(item) for item in items]
    text = "".join(item["text"] for item in items if item["type"] == "text" and isinstance(item.get("text"), str))
    return ([item for item in items if item["type"] in REASONING] + ([{"type": "text", "text": text}] if text.strip()
            else []) + [item for item in items if item["type"] not in (*REASONING, "text")])


def streamed_items(chunks: Iterable[Mapping]) -> list[dict]:
    """The content the stream carried, folded as the golden sees it."""
    return [item for item in fold(chunks) if item["type"] in CONTENT]


# The fields each Anthropic-format block has; any other one is something the library holds that no stream carried.
FIELDS = {"thinking": {"type", "thinking", "signature"}, "redacted_thinking": {"type", "data"},
          "text": {"type", "text"}, "tool_use": {"type", "id", "name", "input"}}


def assembled_items(message: Any) -> list[dict]:
    """A reported Anthropic-format assistant message as content items (raises ValueError when it is not one); a
    field a block type does not have is kept under ``extra``, so the comparison shows it."""
    if not isinstance(message, Mapping) or message.get("role") != "assistant":
        raise ValueError("expected {\"role\": \"assistant\", \"content\": [blocks]}")
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list) or not all(isinstance(b, Mapping) and b.get("type") in _ITEMS for b in blocks):
        raise ValueError(f"content must be text, thinking, redacted_thinking and tool_use blocks, got {_show(content)}")
    return [{**_ITEMS[b["type"]](b), **_extra(b)} for b in blocks]


def _extra(block: Mapping) -> dict:
    extra = {k: v for k, v in block.items() if k not in FIELDS[block["type"]]}
    return {"extra": extra} if extra else {}


def check_assembly(chunks: Sequence[Mapping], capabilities: Iterable[str] = ALL, *, scenario: str = "",
                   turn: int | None = None) -> Diff | None:
    """Where the last ``message`` chunk disagrees with the streamed content (None: it agrees, or none came)."""
    reported = [(i, c) for i, c in enumerate(chunks) if c.get("type") == "message"]
    if not reported:
        return None
    where = " ".join(p for p in (scenario, "" if turn is None else f"turn {turn}") if p)
    assembled = []
    for index, chunk in reported:  # every message the library holds for this response, in order
        try:
            assembled += assembled_items(chunk.get("message"))
        except ValueError as exc:
            return Diff("assembled", (f"{where} chunk {index} (message): not an assembled assistant message: {exc}",),
                        scenario=scenario, turn=turn)
    capabilities = frozenset(capabilities)
    streamed = comparable(layout(streamed_items(chunks)), capabilities)
    lines = _split(reported, where) + _differences(streamed, comparable(layout(assembled), capabilities),
                                                   f"{where} assembled message")
    return Diff("assembled", tuple(lines), scenario=scenario, turn=turn) if lines else None


def _split(reported: list, where: str) -> list[str]:
    """One streamed response held as several assistant messages goes back as that many messages in a row."""
    if len(reported) < 2:
        return []
    return [f"{where} assembled message: the library holds {len(reported)} assistant messages (chunks "
            f"{', '.join(str(i) for i, _ in reported)}) for one streamed response; they go back to Bedrock as "
            f"{len(reported)} assistant messages in a row"]


def _kind(item: Mapping) -> str:
    """What pairs a streamed block with its assembled twin: a call's id, a reasoning block's signature or data."""
    return f"{item.get('type')}:{item.get('id') or item.get('signature') or item.get('data') or ''}"


def _differences(streamed: list[dict], assembled: list[dict], where: str) -> list[str]:
    """One line per block that differs, is missing from the assembled message, or was added to it."""
    lines = []
    matcher = difflib.SequenceMatcher(None, [_kind(i) for i in streamed], [_kind(i) for i in assembled], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        pairs = list(zip(range(i1, i2), range(j1, j2))) if op in ("equal", "replace") else []
        for i, j in pairs:
            lines += _fields(streamed[i], assembled[j], f"{where} block {j} ({streamed[i]['type']})")
        for i in range(i1 + len(pairs), i2):
            lines.append(f"{where}: streamed {_cell(streamed[i])} / assembled nothing (block dropped)")
        for j in range(j1 + len(pairs), j2):
            lines.append(f"{where} block {j}: streamed nothing / assembled {_cell(assembled[j])}")
    return lines


def _fields(streamed: Mapping, assembled: Mapping, label: str) -> list[str]:
    if streamed.get("type") != assembled.get("type"):
        return [f"{label}: streamed {_cell(streamed)} / assembled {_cell(assembled)}"]
    extra = [f"{label}: assembled with fields no stream carries {_show(assembled['extra'], None)}"] \
        if "extra" in assembled else []
    return extra + [f"{label}: streamed {key} {one} / assembled {other}{at}"
                    for key in sorted(set(streamed) | set(assembled))
                    if key != "extra" and _key(streamed.get(key)) != _key(assembled.get(key))
                    for one, other, at in [pair(streamed.get(key), assembled.get(key))]]


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def _show(value: Any, width: int | None = 200) -> str:
    """A value on one line, cut at ``width`` (a differing field is shown around where it differs: ``pair``)."""
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    return text if width is None or len(text) <= width else text[: width - 3] + "..."


def _cell(item: Mapping) -> str:
    return f"{item.get('type')} {_show({k: v for k, v in item.items() if k != 'type'})}"
