"""Stream-level laws: what every streaming adapter's raw chunks obey, beyond what a golden diff can show.

Each law is ``(chunks, capabilities) -> violation messages`` naming the chunk index (DESIGN.md, Normalized
chunks: tool-call deltas arrive before the stream ends, text arrives incrementally, nothing follows an error,
ids never change or go empty, a broken stream never presents partial JSON as a complete call), plus the OpenAI
streaming laws on an OpenAI-format adapter's native chunks (harness.judge.openai_laws). ``CONTRACT_LAWS`` are the
laws of the adapter contract itself: a field Bedrock must send (a call's toolUseId, its name) that the stream left
out is reported, never passed on as a value ("" or null); they fail wherever they are broken, robustness scenarios
included (harness.judge.grade).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from harness.judge.normalize import ALL, CONTENT, UNPARSED, call_keys, parse_input
from harness.judge.openai_laws import openai_laws

__all__ = ["CONTRACT_LAWS", "LAWS", "count_text_deltas", "incremental_text", "laws"]


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
    """No chunk of any kind after an error chunk (but the library's own messages, reported after both calls)."""
    end = _first(chunks, ("error",))
    return [f"nothing_after_error: {_label(i, c)} arrives after the error at chunk {end}"
            for i, c in enumerate(chunks) if end is not None and i > end and c.get("type") != "native"]


def tool_call_ids_present(chunks: Sequence[Mapping], capabilities: frozenset[str]) -> list[str]:
    """Every call has a non-empty id (an index stands in for it on later deltas), unless the stream ends in an error."""
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
    return problems + [f"tool_call_ids_present: {_label(i, chunks[i])} passes a call on without an id (a missing "
                       "toolUseId must be reported, not passed on as null)"
                       for i in _calls_without(chunks, "id")
                       if chunks[i].get("id") is None and chunks[i].get("index") is not None]


def tool_call_names_present(chunks: Sequence[Mapping], capabilities: frozenset[str]) -> list[str]:
    """Every call the stream passes on has a name, unless the stream ends in an error (the adapter reported it)."""
    return [f"tool_call_names_present: {_label(i, chunks[i])} passes a call on without a name (a missing tool name "
            f"must be reported, not passed on as {chunks[i].get('name')!r})" for i in _calls_without(chunks, "name")]


def _calls_without(chunks: Sequence[Mapping], member: str) -> list[int]:
    """The first chunk of each call none of whose chunks carries a non-empty ``member``, in a stream not ended by an
    error."""
    if _first(chunks, ("error",)) is not None:
        return []
    first: dict[Any, int] = {}
    given: set[Any] = set()
    for i, (chunk, key) in enumerate(zip(chunks, call_keys(chunks))):
        if chunk.get("type") == "tool_call":
            first.setdefault(_hashable(key), i)
            if chunk.get(member) not in (None, ""):
                given.add(_hashable(key))
    return [i for key, i in first.items() if key not in given]


def _hashable(key: Any) -> Any:
    return key if isinstance(key, (str, int, float, tuple, type(None))) else repr(key)


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
    keys, problems = call_keys(chunks), []
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


LAWS = (content_before_stop, nothing_after_error, tool_call_ids_present, tool_call_names_present, tool_call_ids_stable,
        no_partial_input_as_complete)
CONTRACT_LAWS = ("tool_call_ids_present", "tool_call_names_present")  # never a warning, robustness or not


def count_text_deltas(chunks: Iterable[Mapping]) -> int:
    """Non-empty text chunks (e.g. in the reference adapter's stream, for ``incremental_text``)."""
    return sum(1 for chunk in chunks if chunk.get("type") == "text" and chunk.get("text"))


def incremental_text(chunks: Sequence[Mapping], capabilities: frozenset[str],
                     text_deltas: int | Callable[[], int | None] | None) -> list[str]:
    """An adapter declaring ``streaming`` yields text in more than one chunk when Bedrock sent several deltas
    (``text_deltas``: their recorded count, or a function that counts them, called only when the law needs it)."""
    if "streaming" not in capabilities or text_deltas is None or count_text_deltas(chunks) > 1:
        return []
    text_deltas = text_deltas() if callable(text_deltas) else text_deltas
    if text_deltas is None or text_deltas < 2:
        return []
    where = next((_label(i, c) for i, c in enumerate(chunks) if c.get("type") == "text" and c.get("text")), "no chunk")
    return [f"incremental_text: {where} holds all the text that Bedrock sent in {text_deltas} deltas"]


def laws(chunks: Iterable[Mapping], capabilities: Iterable[str] = ALL,
         text_deltas: int | Callable[[], int | None] | None = None) -> list[str]:
    """Every law violated by a raw chunk stream (OpenAI laws included); ``text_deltas`` (the recorded count, or a
    function counting it) enables incremental_text."""
    chunks, capabilities = list(chunks), frozenset(capabilities)
    problems = [problem for law in LAWS for problem in law(chunks, capabilities)]
    return problems + incremental_text(chunks, capabilities, text_deltas) + openai_laws(chunks)


