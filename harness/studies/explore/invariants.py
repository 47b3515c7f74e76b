"""What every drawn stream must keep, checked on the bytes the emulator renders: the project's stream grammar
(harness.wire.grammar, botocore's parser included) and the family invariants the evidence ledger records (the
claims of harness/endpoint/emulator/styles.yaml and of harness.studies.explore.families). Each problem names the
claim it breaks, so a drawing bug says which evidence the stream would contradict.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from harness.endpoint.emulator.render import render_stream
from harness.wire.eventstream import decode_frames
from harness.wire.grammar import stream_problems

__all__ = ["stream_invariants", "example_invariants"]

_TOOLUSE_ID = re.compile(r"^tooluse_[A-Za-z0-9_-]{22}$")
_KIMI_ID = re.compile(r"^functions\.(?P<name>[A-Za-z0-9_-]+):(?P<n>\d+)$")
_PAD = re.compile(r"^[a-zA-Z0-9]{2,61}$")


def _events(frames: Sequence) -> list[tuple[str, dict, dict]]:
    return [(f.type, dict(f.json()), f.header_map) for f in frames if f.message_type == "event"]


def _by_block(events: list, whole: bool = False) -> dict[int, list[tuple[str, dict]]]:
    """Each block's events; ``whole``: only blocks that stopped (an exception frame may cut one short)."""
    blocks: dict[int, list] = {}
    for name, body, _ in events:
        if "contentBlockIndex" in body:
            blocks.setdefault(body["contentBlockIndex"], []).append((name, body))
    return {i: b for i, b in blocks.items() if not whole or b[-1][0] == "contentBlockStop"}


def _kind(block: list[tuple[str, dict]]) -> str:
    for name, body in block:
        if name == "contentBlockStart":
            return "toolUse" if "toolUse" in body["start"] else next(iter(body["start"]), "?")
        if name == "contentBlockDelta":
            return next(iter(body["delta"]), "?")
    return "?"


def _served(block: list[tuple[str, dict]]) -> bool:
    """A toolUse the service runs itself (a system tool): no call of the application's."""
    return any(name == "contentBlockStart" and body["start"].get("toolUse", {}).get("type") == "server_tool_use"
               for name, body in block)


def _shared(events: list, frames: Sequence) -> list[tuple[str, str]]:
    out = []
    for name, body, headers in events:
        if not _PAD.match(str(body.get("p", ""))):
            out.append(("style shared: padding-key", f"{name} without a padding key p of 2-61 letters and digits"))
        if list(headers) != [":event-type", ":content-type", ":message-type"]:
            out.append(("style shared: three-headers", f"{name} headers {list(headers)}"))
    for index, block in _by_block(events).items():
        kind = _kind(block)
        starts = [b for n, b in block if n == "contentBlockStart"]
        if kind in ("text", "reasoningContent") and starts:
            out.append(("style shared: text-without-start", f"block {index} ({kind}) has a contentBlockStart"))
        if kind == "toolUse" and not starts:
            out.append(("style shared: text-without-start", f"block {index} (toolUse) has no contentBlockStart"))
    return out


def _tools(blocks: dict, style: str) -> list[tuple[str, str]]:
    out, calls = [], 0
    for index, block in blocks.items():
        if _kind(block) != "toolUse":
            continue
        start = next(b for n, b in block if n == "contentBlockStart")["start"]["toolUse"]
        deltas = [b["delta"]["toolUse"]["input"] for n, b in block if n == "contentBlockDelta"]
        tid = start.get("toolUseId")
        if tid is not None and style == "open-weight":
            match = _KIMI_ID.match(tid)
            if not match or match["name"] != start["name"] or int(match["n"]) != calls:
                out.append(("style open-weight: kimi-ids", f"block {index} id {tid!r} (call {calls})"))
        elif tid is not None and not _TOOLUSE_ID.match(tid):
            out.append((f"style {style}: tooluse-ids", f"block {index} id {tid!r}"))
        if style == "claude" and deltas[:1] != [""]:
            out.append(("style claude: first-input-delta-empty", f"block {index} input deltas {deltas[:2]}"))
        if style in ("nova", "nova-2", "open-weight") and len(deltas) != 1:
            out.append((f"style {style}: whole-input", f"block {index} has {len(deltas)} input deltas"))
        if style == "titan":
            out.append(("style titan: no-tool-use", f"block {index} is a toolUse"))
        calls += 1
    return out


def _reasoning(blocks: dict, style: str) -> list[tuple[str, str]]:
    out = []
    for index, block in blocks.items():
        parts = [b["delta"]["reasoningContent"] for n, b in block if n == "contentBlockDelta"
                 and "reasoningContent" in b["delta"]]
        signed = [n for n, p in enumerate(parts) if "signature" in p]
        if signed and (signed != [len(parts) - 1]):
            out.append(("style claude: signature-last", f"block {index}: signature at delta {signed}"))
        if signed and style != "claude":
            out.append(("style open-weight: unsigned-reasoning", f"block {index} is signed in style {style}"))
        redacted = [p for p in parts if "redactedContent" in p]
        if redacted and len(parts) != 1:
            out.append(("style claude: redacted-one-delta", f"block {index}: {len(parts)} deltas"))
    return out


def _texts(blocks: dict, style: str) -> list[tuple[str, str]]:
    out = []
    for index, block in blocks.items():
        deltas = [b["delta"]["text"] for n, b in block if n == "contentBlockDelta" and "text" in b["delta"]]
        if not deltas:
            continue
        if style == "titan" and len(deltas) != 1:
            out.append(("style titan: whole-text", f"block {index}: {len(deltas)} deltas"))
        if style == "open-weight" and deltas[-1] != "":
            out.append(("style open-weight: closing-empty-delta", f"block {index} ends with {deltas[-1]!r}"))
    return out


def _stop(events: list, blocks: dict, style: str) -> list[tuple[str, str]]:
    stops = [body["stopReason"] for name, body, _ in events if name == "messageStop"]
    tools = [i for i, b in blocks.items() if _kind(b) == "toolUse" and not _served(b)]
    if stops == ["tool_use"] and not tools and style != "claude":  # Claude's text-only tool_use stop is real
        return [("explore: stop-tool-use", "stopReason tool_use without a toolUse block")]
    if stops == ["end_turn"] and tools and style != "claude":
        return [("explore: end-turn-with-call", f"end_turn with calls in style {style}")]
    return []


def stream_invariants(script: Mapping, style: str, seed: str = "invariants") -> list[tuple[str, str]]:
    """(claim, problem) for everything the rendered stream of ``script`` breaks; empty when it is a valid stream."""
    frames = decode_frames(b"".join(render_stream(script, style=style, seed=seed)))
    out = [("grammar", f"frame {k}: {p}") for k, p in stream_problems("ConverseStream", frames)]
    events = _events(frames)
    blocks, whole = _by_block(events), _by_block(events, whole=True)
    out += _shared(events, frames) + _tools(whole, style) + _reasoning(whole, style) + _texts(whole, style)
    out += _stop(events, blocks, style)
    if style == "openai" and any(_kind(b) == "reasoningContent" for b in blocks.values()):
        first = blocks.get(0, [])
        if _kind(first) != "text" or any(b["delta"].get("text") for n, b in first if n == "contentBlockDelta"):
            out.append(("style openai: empty-text-then-reasoning", "reasoning without the empty text block first"))
    return out


def example_invariants(document: Mapping) -> list[tuple[str, str]]:
    """Every turn's (claim, problem), prefixed with the turn, plus ids unique across the conversation."""
    out, ids = [], []
    for index, turn in enumerate(document["turns"]):
        out += [(claim, f"turn {index}: {problem}")
                for claim, problem in stream_invariants(turn["script"], document["style"])]
        ids += [b["tool_use"].get("id") for b in turn["script"]["content"] if "tool_use" in b]
    given = [i for i in ids if i is not None]
    if len(given) != len(set(given)):
        out.append(("explore: results-paired", f"tool ids repeat across the conversation: {given}"))
    return out
