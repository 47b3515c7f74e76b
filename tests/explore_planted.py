"""Bugs planted for ``bedrock-harness explore`` (issue 30): each variant of the reference adapter passes every shipped
scenario (tests/test_explore_variants.py holds it to that) and only a drawn conversation shows it. Like
tests/broken_adapters.py, each swaps one stage of the reference by composition; ``PLANTED`` maps a short key to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from broken_adapters import Variant

from harness.converse import chunks_from_events

__all__ = ["PLANTED", "CacheWriteDroppedWithRead", "EmptyValuesDroppedFromInput", "MaxTokensAfterTextAsEndTurn",
           "PartialEscapeTrimmed", "SignaturePaddingStripped", "ThirdCallAfterTextMisattributed"]


class ThirdCallAfterTextMisattributed(Variant):
    """Calls are tracked in a table that a text block resets to its first two slots: a third (or later) call whose
    deltas arrive after a text block goes out under the id and name of the call before it."""

    name = "planted-third-call-after-text"
    bug = "a third parallel call misattributed when it comes after a text block"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        seen: dict[str, str] = {}  # call id -> name, in order of first appearance
        alias: dict[str, tuple[str, str]] = {}
        text_after_call = False
        for chunk in chunks_from_events(events):
            if chunk["type"] == "text" and chunk.get("text") and seen:
                text_after_call = True
            elif chunk["type"] == "tool_call":
                cid = chunk["id"]
                if cid not in seen and cid not in alias:
                    if len(seen) >= 2 and text_after_call:  # the table's slot of the call before it
                        last = list(seen)[-1]
                        alias[cid] = (last, seen[last])
                    else:
                        seen[cid] = chunk["name"]
                    text_after_call = False
                if cid in alias:
                    chunk = {**chunk, "id": alias[cid][0], "name": alias[cid][1]}
            yield chunk


_PARTIAL_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{0,3}$")


class PartialEscapeTrimmed(Variant):
    """Each tool-input fragment is "repaired" as partial-JSON parsers do for display: a \\uXXXX escape cut by the end
    of the fragment is trimmed, so the digits that follow in the next fragment land in the string as text."""

    name = "planted-partial-escape-trimmed"
    bug = "a tool input fragment split inside a \\uXXXX escape mishandled"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        for chunk in chunks_from_events(events):
            if chunk["type"] == "tool_call" and chunk.get("input_delta"):
                chunk = {**chunk, "input_delta": _PARTIAL_ESCAPE.sub("", chunk["input_delta"])}
            yield chunk


class CacheWriteDroppedWithRead(Variant):
    """Usage keeps one cache count: when a response both reads and writes the cache, the write is reported as 0."""

    name = "planted-cache-write-dropped"
    bug = "a cache write dropped when the same response also reads the cache"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        for chunk in chunks_from_events(events):
            if chunk["type"] == "usage" and chunk.get("cache_read_input_tokens"):
                chunk = {**chunk, "cache_write_input_tokens": 0}
            yield chunk


class MaxTokensAfterTextAsEndTurn(Variant):
    """The stop reason is derived from the last block: an answer cut by max_tokens inside text ends as end_turn."""

    name = "planted-max-tokens-as-end-turn"
    bug = "max_tokens reported as end_turn when the cut falls in text"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        last = None
        for chunk in chunks_from_events(events):
            if chunk["type"] in ("text", "tool_call", "reasoning"):
                last = chunk["type"]
            if chunk["type"] == "stop" and chunk.get("reason") == "max_tokens" and last == "text":
                chunk = {**chunk, "reason": "end_turn"}
            yield chunk


def _without_empty(value):
    if isinstance(value, dict):
        return {k: _without_empty(v) for k, v in value.items() if v not in ("", [], {}, None)}
    return value


class EmptyValuesDroppedFromInput(Variant):
    """A "clean the arguments" helper drops empty strings, lists and objects from a finished call's input."""

    name = "planted-empty-values-dropped"
    bug = "empty values dropped from a tool call's input"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        import json

        raw: dict[str, str] = {}
        held: dict[str, dict] = {}
        for chunk in chunks_from_events(events):
            if chunk["type"] != "tool_call":
                for cid, first in list(held.items()):  # a held call is complete once another block begins
                    yield from self._cleaned(first, raw.pop(cid), json)
                    del held[cid]
                yield chunk
                continue
            held.setdefault(chunk["id"], chunk)
            raw[chunk["id"]] = raw.get(chunk["id"], "") + (chunk.get("input_delta") or "")

    @staticmethod
    def _cleaned(first: dict, text: str, json) -> Iterator[dict]:
        try:
            value = json.loads(text) if text.strip() else {}
        except ValueError:
            yield {**first, "input_delta": text}
            return
        cleaned = _without_empty(value) if isinstance(value, dict) else value
        out = {"type": "tool_call", "id": first["id"], "name": first["name"],
               "input_delta": json.dumps(cleaned) if cleaned != {} else ""}
        yield {**out, "index": first["index"]} if "index" in first else out


class SignaturePaddingStripped(Variant):
    """Reasoning signatures are "normalized" like url-safe base64 tokens: the trailing = padding is stripped."""

    name = "planted-signature-padding-stripped"
    bug = "base64 padding stripped from reasoning signatures"

    def chunks(self, events: Iterable[dict]) -> Iterator[dict]:
        for chunk in chunks_from_events(events):
            if chunk["type"] == "reasoning" and "signature" in chunk:
                chunk = {**chunk, "signature": chunk["signature"].rstrip("=")}
            yield chunk


PLANTED: dict[str, type[Variant]] = {
    "third_call_after_text": ThirdCallAfterTextMisattributed,
    "partial_escape_trimmed": PartialEscapeTrimmed,
    "cache_write_dropped": CacheWriteDroppedWithRead,
    "max_tokens_as_end_turn": MaxTokensAfterTextAsEndTurn,
    "empty_values_dropped": EmptyValuesDroppedFromInput,
    "signature_padding_stripped": SignaturePaddingStripped,
}
