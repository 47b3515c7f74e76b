"""OpenAI streaming laws, on the native chat-completion chunks an OpenAI-format adapter reports beside its stream.

Such an adapter (LiteLLM, a gateway) yields ``{"type": "openai_chunk", "chunk": {chat.completion.chunk}}`` for
every native chunk. What its users' code accumulates is that stream, so it must obey OpenAI's rules, whatever
Bedrock sent: one choice, index 0; ``tool_calls[].index`` dense from 0 in order of first appearance (never
Bedrock's ``contentBlockIndex``); a call's id and name in its first delta only, never changing; its argument
fragments joining into a JSON object (``{}`` for no arguments: one call, not two); ``finish_reason``
``tool_calls`` when calls were made. Each violation is one finding naming the chunk.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any, Iterable, Sequence

__all__ = ["OPENAI_LAWS", "openai_calls", "openai_laws"]


def _hashable(value: Any) -> Any:
    """A JSON value usable as a key (an adapter may send a list where an index belongs): others as their JSON."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, sort_keys=True, default=repr)


def _label(index: int) -> str:
    return f"chunk {index} (openai_chunk)"


def _native(chunks: Sequence[Mapping]) -> list[tuple[int, Mapping]]:
    """(position in the stream, native chunk) of every openai_chunk."""
    return [(i, c.get("chunk") if isinstance(c.get("chunk"), Mapping) else {}) for i, c in enumerate(chunks)
            if c.get("type") == "openai_chunk"]


def _choices(native: Mapping) -> list[Mapping]:
    choices = native.get("choices")
    return [c for c in choices if isinstance(c, Mapping)] if isinstance(choices, list) else []


def _deltas(native: Mapping) -> list[dict]:
    """The tool-call deltas of a native chunk's choices, index and id made usable as keys."""
    found = []
    for choice in _choices(native):
        delta = choice.get("delta") if isinstance(choice.get("delta"), Mapping) else {}
        calls = delta.get("tool_calls")
        found += [{**c, "index": _hashable(c.get("index")), "id": _hashable(c.get("id"))}
                  for c in calls if isinstance(c, Mapping)] if isinstance(calls, list) else []
    return found


@dataclass
class Call:
    """One OpenAI tool call as a client accumulates it."""

    index: Any
    id: Any
    name: Any
    first: int  # the stream position of its first delta
    last: int
    arguments: list[str] = field(default_factory=list)


def _function(delta: Mapping) -> dict:
    function = delta.get("function") if isinstance(delta.get("function"), Mapping) else {}
    return {**function, "name": _hashable(function.get("name"))}


def openai_calls(chunks: Sequence[Mapping]) -> list[Call]:
    """The tool calls of the native chunks, keyed by ``tool_calls[].index`` in order of first appearance."""
    calls: dict[Any, Call] = {}
    for position, native in _native(chunks):
        for delta in _deltas(native):
            function = _function(delta)
            call = calls.setdefault(delta.get("index"), Call(delta.get("index"), delta.get("id"), function.get("name"),
                                                             position, position))
            call.last = position
            arguments = function.get("arguments")
            call.arguments.append(arguments if isinstance(arguments, str) else "" if arguments is None
                                  else json.dumps(arguments, default=repr))
    return list(calls.values())


def single_choice(chunks: Sequence[Mapping]) -> list[str]:
    """Every chunk carries at most one choice, with index 0."""
    problems = []
    for position, native in _native(chunks):
        choices = _choices(native)
        if len(choices) > 1:
            problems.append(f"openai_single_choice: {_label(position)} carries {len(choices)} choices; a "
                            "single-choice stream carries one")
        for n, choice in enumerate(choices):
            if choice.get("index") != 0:
                problems.append(f"openai_single_choice: {_label(position)} has choices[{n}].index "
                                f"{json.dumps(choice.get('index'))}; a single-choice stream uses index 0 only")
    return problems


def dense_tool_call_index(chunks: Sequence[Mapping]) -> list[str]:
    """``tool_calls[].index`` runs 0..n-1 in order of first appearance."""
    problems, seen = [], []
    for position, native in _native(chunks):
        for delta in _deltas(native):
            index = delta.get("index")
            if index in seen:
                continue
            if index != len(seen):
                problems.append(f"openai_tool_call_index: {_label(position)} starts tool call {delta.get('id')!r} "
                                f"at index {json.dumps(index)}; expected {len(seen)} (indexes run 0..n-1 in order of "
                                "first appearance, never Bedrock's contentBlockIndex)")
            seen.append(index)
    return problems


def _identity(delta: Mapping, call: Call | None, position: int) -> list[str]:
    """The id and name of one delta: present and set on a call's first delta, absent on every later one."""
    values = {"id": delta.get("id"), "name": _function(delta).get("name")}
    where = f"openai_tool_call_identity: {_label(position)}"
    if call is None:
        return [f"{where} starts tool call at index {json.dumps(delta.get('index'))} without a {key}"
                for key, value in values.items() if not value]
    problems = []
    for key, value in values.items():
        known = getattr(call, key)
        if value and value != known:
            problems.append(f"{where} changes the {key} of tool call {json.dumps(call.index)} from {known!r} to "
                            f"{value!r}")
        elif value:
            problems.append(f"{where} repeats the {key} {value!r} of tool call {json.dumps(call.index)}; it arrives "
                            "once (clients that accumulate deltas would double it)")
    return problems


def tool_call_identity(chunks: Sequence[Mapping]) -> list[str]:
    """A call's id and name arrive once, in its first delta, and never change; no two calls share an id."""
    problems, calls, ids = [], {}, {}
    for position, native in _native(chunks):
        for delta in _deltas(native):
            index = delta.get("index")
            problems += _identity(delta, calls.get(index), position)
            if index in calls:
                continue
            calls[index] = Call(index, delta.get("id"), _function(delta).get("name"), position, position)
            if delta.get("id") and delta["id"] in ids:
                problems.append(f"openai_tool_call_identity: {_label(position)} starts tool call {json.dumps(index)} "
                                f"with the id {delta['id']!r} of tool call {json.dumps(ids[delta['id']])}: one call, "
                                "not two")
            ids.setdefault(delta.get("id"), index)
    return problems


def _ended_badly(chunks: Sequence[Mapping]) -> bool:
    """An error, or a stop for length: a call's arguments may rightly be cut off."""
    stops = {_hashable(c.get("reason")) for c in chunks if c.get("type") == "stop"}
    reasons = {_hashable(choice.get("finish_reason")) for _, native in _native(chunks) for choice in _choices(native)}
    return any(c.get("type") == "error" for c in chunks) or "max_tokens" in stops or "length" in reasons


def arguments_json(chunks: Sequence[Mapping]) -> list[str]:
    """Each call's argument fragments join into a JSON object; no arguments at all is ``{}``, never ``""``."""
    if _ended_badly(chunks):
        return []
    problems = []
    for call in openai_calls(chunks):
        joined, where = "".join(call.arguments), f"openai_tool_call_arguments: {_label(call.last)}"
        try:
            value = json.loads(joined)
        except ValueError:
            value = None
            why = ("are empty; a zero-argument call's arguments are '{}'" if not joined.strip()
                   else f"join into {joined[:80]!r}, which is not valid JSON")
        else:
            why = None if isinstance(value, dict) else f"join into a JSON {type(value).__name__}, not an object"
        if why:
            problems.append(f"{where} ends tool call {json.dumps(call.index)} ({call.id!r}) whose arguments {why}")
    return problems


def one_call_per_call(chunks: Sequence[Mapping]) -> list[str]:
    """The native stream carries as many tool calls as the adapter's own stream (a zero-argument call is one)."""
    calls = openai_calls(chunks)
    streamed = {_hashable(c.get("id")) for c in chunks if c.get("type") == "tool_call" and c.get("id")}
    if not calls or not streamed or len(calls) == len(streamed):
        return []
    last = calls[-1]
    return [f"openai_one_call_each: {_label(last.first)} brings the native stream to {len(calls)} tool calls; the "
            f"adapter streamed {len(streamed)} ({', '.join(sorted(map(str, streamed)))})"]


def finish_reason_tool_calls(chunks: Sequence[Mapping]) -> list[str]:
    """``finish_reason`` is ``tool_calls`` when the stream made calls."""
    native = _native(chunks)
    if not openai_calls(chunks) or _ended_badly(chunks):
        return []
    finished = [(p, choice.get("finish_reason")) for p, n in native for choice in _choices(n)
                if choice.get("finish_reason")]
    if finished and finished[-1][1] == "tool_calls":
        return []
    position, reason = finished[-1] if finished else (native[-1][0], None)
    return [f"openai_finish_reason: {_label(position)} finishes with {json.dumps(reason)} although tool calls were "
            "made; expected \"tool_calls\""]


OPENAI_LAWS = (single_choice, dense_tool_call_index, tool_call_identity, arguments_json, one_call_per_call,
               finish_reason_tool_calls)


def openai_laws(chunks: Iterable[Mapping]) -> list[str]:
    """Every OpenAI streaming law the stream's ``openai_chunk`` chunks break (none when it has none)."""
    chunks = list(chunks)
    if not _native(chunks):
        return []
    return [problem for law in OPENAI_LAWS for problem in law(chunks)]
