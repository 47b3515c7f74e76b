"""Deterministic choices every emulator rendering shares: deltas, tool-input fragments, ids, order, padding.

Each *style* is one model family's way of streaming the same content, as seen in real recordings
(``tests/test_emulator_styles.py`` compares event shapes with them):

- ``claude``: text in word deltas; tool input led by an empty ``""`` delta, then small fragments of JSON written
  with ``", "``/``": "``; ``tooluse_`` ids;
- ``nova`` (Nova v1): tool input as one whole compact delta; tool starts carry no ``type``; the last text block of
  an ``end_turn`` answer to a request with tools closes with an empty ``""`` delta (asked without tools, it does not);
- ``nova-2`` (Nova 2): as ``nova``, but every tool start carries its ``type`` (``tool_use``, ``server_tool_use``);
- ``openai`` (gpt-oss on Bedrock): tool input fragmented without Claude's leading ``""``;
- ``open-weight`` (Kimi, DeepSeek, Llama, Qwen): tool input whole in one delta written with ``", "`` and ``": "``, as
  Kimi K2 sends it; every text
  block ends with an empty ``""`` delta; Kimi's tool ids ``functions.<name>:<n>`` (n counts the message's calls);
- ``titan``: each text block in one whole delta; no tool use.

Every style but titan puts ``serverToolUsage: {}`` in usage, as current streams do, unless the script gives it or
says ``server_tool_usage: false`` (a stream recorded before Bedrock sent it).

Everything random comes from the seed (one RNG per block for its deltas, one for frame padding), so a
turn renders to the same bytes every time and its ConverseStream, Converse and InvokeModel renderings agree
on text, fragments and ids. A *plan* is a list of ``(encoder, name, body)`` frames, cut and padded last.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import random
import re
from typing import Callable

from harness.endpoint.emulator.script import AUTO, EXCEPTIONS, STYLES, Block, EmulatorScriptError, Script
from harness.wire.eventstream import encode_exception, random_padding_length

__all__ = ["NOVA", "STYLES", "check_style", "digest", "text_deltas", "reasoning_deltas", "input_text", "input_fragments",
           "parsed_input", "tool_id", "schedule", "encode_plan"]

NOVA = ("nova", "nova-2")
_COMPACT = (*NOVA, "openai", "titan")  # styles writing tool input JSON without spaces (Kimi writes ", " and ": ")
PlanFrame = tuple[Callable[[str, dict, int], bytes], str, dict]
_WORDS = re.compile(r"\s*\S+|\s+")
_GAP = object()


def check_style(style: str) -> None:
    if style not in STYLES:
        raise EmulatorScriptError(f"style: unknown style {style!r} (known: {', '.join(STYLES)})")


def digest(seed: str, key: object) -> bytes:
    """The sha256 every derived id starts from."""
    return hashlib.sha256(f"{seed}:{key}".encode()).digest()


def _rng(block: Block, seed: str) -> random.Random:
    return random.Random(f"{seed}:{block.index}:deltas")


def _split_words(text: str, rng: random.Random) -> list[str]:
    """Deltas of one to three words, each word keeping its leading whitespace (as real streams do)."""
    words, out = _WORDS.findall(text), []
    while words:
        size = rng.randint(1, 3)
        out.append("".join(words[:size]))
        words = words[size:]
    return out


def text_deltas(block: Block, seed: str, style: str = "claude", last: bool = False) -> list[str]:
    """A text block's deltas: the exact list, else the style's: words, whole (titan), a closing "" (open-weight; Nova
    on the ``last`` text block of an end_turn answer)."""
    if isinstance(block.text, tuple):
        return list(block.text)
    if style == "titan" or not block.text:
        return [block.text]
    words = _split_words(block.text, _rng(block, seed))
    return words + [""] if style == "open-weight" or (last and style in NOVA) else words


def reasoning_deltas(block: Block, seed: str) -> list[str]:
    """Reasoning text deltas before the signature; "" with a signature is a signature-only block."""
    if isinstance(block.text, tuple):
        return list(block.text)
    return _split_words(block.text, _rng(block, seed)) or ([] if block.signature is not None else [""])


def input_text(block: Block, style: str) -> str:
    """The tool input JSON as the model writes it: Claude and Kimi (open-weight) with ", " and ": ", Nova compact."""
    if block.raw_input is not None:
        return "".join(block.raw_input)
    separators = (",", ":") if style in _COMPACT else (", ", ": ")
    return json.dumps(block.input, separators=separators, ensure_ascii=False)


def input_fragments(block: Block, seed: str, style: str) -> list[str]:
    """toolUse input deltas: Claude leads with "" then small fragments ({} is "" alone); Nova and open-weight models
    (Kimi K2) send it whole; gpt-oss sends fragments without the leading ""."""
    lead = [""] if style == "claude" else []
    if isinstance(block.raw_input, tuple):
        return lead + list(block.raw_input)
    text, rng = input_text(block, style), _rng(block, seed)
    if block.fragments is not None:
        return lead + _cut(text, block.fragments, rng, block)
    if style in NOVA or style == "open-weight":
        return [text]
    if style != "claude":
        return _sizes(text, rng)
    return lead + ([] if block.input == {} else _sizes(text, rng))


def _sizes(text: str, rng: random.Random) -> list[str]:
    """Fragments of 2..12 characters, the sizes seen in real Claude streams."""
    out = []
    while text:
        size = rng.randint(2, 12)
        out.append(text[:size])
        text = text[size:]
    return out


def _cut(text: str, count: int, rng: random.Random, block: Block) -> list[str]:
    if count > max(1, len(text)):
        raise EmulatorScriptError(f"{block.where}.fragments: {count} fragments for {len(text)} characters of input")
    cuts = sorted(rng.sample(range(1, len(text)), count - 1))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]


def parsed_input(block: Block) -> dict:
    """The tool input as a document, for non-streamed renderings (raw_input must then be a JSON object)."""
    if block.input is not None:
        return block.input
    try:
        value = json.loads("".join(block.raw_input))
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise EmulatorScriptError(f"{block.where}.raw_input: not a JSON object, so no non-streamed rendering")
    return value


def tool_id(block: Block, seed: str, style: str = "claude") -> str | None:
    """The toolUseId: as given, None to omit it, Kimi's ``functions.<name>:<n>`` (open-weight), else ``tooluse_``
    + 22 url-safe characters of a sha256."""
    if block.id is not AUTO:
        return block.id
    if style == "open-weight":
        return f"functions.{block.name}:{block.ordinal}"
    return "tooluse_" + base64.urlsafe_b64encode(digest(seed, block.index)).decode()[:22]


def schedule(script: Script, parts: list[tuple[list, list, list]]) -> list[PlanFrame]:
    """Blocks in order; with ``interleave`` a run of tool_use blocks sends starts, round-robin deltas, stops."""
    out: list[PlanFrame] = []
    for run in _runs(script):
        out += [frame for n in run for frame in parts[n][0]]
        rows = itertools.zip_longest(*(parts[n][1] for n in run), fillvalue=_GAP)
        out += [frame for row in rows for frame in row if frame is not _GAP]
        out += [frame for n in run for frame in parts[n][2]]
    return out


def _runs(script: Script) -> list[list[int]]:
    runs: list[list[int]] = []
    for block in script.blocks:
        joins = script.interleave and block.kind == "tool_use" and runs
        if joins and script.blocks[runs[-1][-1]].kind == "tool_use":
            runs[-1].append(block.index)
        else:
            runs.append([block.index])
    return runs


def encode_plan(plan: list[PlanFrame], script: Script, seed: str, exceptions: tuple = EXCEPTIONS) -> list[bytes]:
    """Cut the plan at the script's exception, then encode every frame with a seeded padding length."""
    failure = script.exception
    if failure is not None:
        where = f"{script.where} exception"
        if failure.type not in exceptions:
            known = ", ".join(exceptions)
            raise EmulatorScriptError(f"{where}.type: {failure.type} is not in this stream (known: {known})")
        if failure.after_event > len(plan):
            count = f"{failure.after_event}, but the stream has {len(plan)} events"
            raise EmulatorScriptError(f"{where}.after_event: {count}")
        plan = plan[:failure.after_event] + [(encode_exception, failure.type, failure.body())]
    rng = random.Random(seed)
    return [encode(name, body, random_padding_length(rng)) for encode, name, body in plan]
