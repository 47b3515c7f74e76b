"""Streaming parity: the message a library built from the stream against the one its non-streaming call built.

An adapter declaring ``non_streaming`` runs each turn through both calls of its library on the same content and
closes the turn with one ``native`` chunk per call: ``{"type": "native", "path": "stream" | "converse",
"message": <the library's own serialization>}``, or ``"error"`` in place of ``message`` when that call raised.
The seed plan's "streamed tool calls must equal non-streamed ones", in the library's own types: every
difference is one line at its path ("streamed parts[1].args a str '...', non-streamed a dict {...}"), except at
the paths the adapter declares (``native_differences``: pattern -> why the library documents them apart, such as
generated ids or timestamps). A declaration ``"<pattern> as <equivalence>"`` declares only that the two hold the
same thing in two forms there, so any other difference still shows: ``json-text`` (JSON text and the value it
parses to; "" and {}) and ``lone-text`` (a string and a list holding one text block with that text). Strings of
JSON compare by their value anywhere (arguments written with other separators are the same arguments). The
requests of both calls are compared as the golden request is. A native chunk may also carry ``sent``: the message as
the library's own request formatter writes it to send it back; where both paths carry one and they agree, a
difference between ``""`` and an absent or null value is no finding (the application reads no value either way, and
Bedrock is sent the same bytes), only a note (``empty_alike``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Sequence

from harness.judge.compare import Diff, compile_pattern, diff_pair, same_json
from harness.judge.normalize_request import converse_form, normalize_request
from harness.judge.protocol import NATIVE_PATHS

__all__ = ["EMPTY_ALIKE", "EQUIVALENCES", "SIDES", "check_parity", "declared_paths", "empty_alike", "natives"]

SIDES = ("streamed", "non-streamed")
ADAPTER_EXCEPTION = "adapter_exception"  # harness.suite.runner's code for an exception the adapter raised


def natives(chunks: Sequence[Mapping]) -> dict[str, Mapping]:
    """The last native chunk of each path."""
    return {chunk.get("path"): chunk for chunk in chunks if chunk.get("type") == "native"}


def check_parity(chunks: Sequence[Mapping], declared: Mapping[str, str] = {}, *, requests: tuple = (None, None),
                 scenario: str = "", turn: int | None = None) -> Diff | None:
    """Where the two calls' messages (and requests) differ; None when they agree on everything not declared."""
    where = " ".join(p for p in (scenario, "" if turn is None else f"turn {turn}") if p)
    found = natives(chunks)
    missing = [path for path in NATIVE_PATHS if path not in found]
    if missing and not found and _raised(chunks):
        return None  # the adapter raised before it could report: that exception is the finding
    if missing:
        lines = [f"{_at(where)}parity: no native chunk from the {' or '.join(missing)} call (an adapter declaring "
                 "non_streaming reports the message its library built on each path)"]
    else:
        lines = _outcomes(found["stream"], found["converse"], where, declared) + _requests(requests, where)
    return Diff("parity", tuple(lines), scenario=scenario, turn=turn) if lines else None


def _outcomes(stream: Mapping, converse: Mapping, where: str, declared: Mapping[str, str]) -> list[str]:
    """Both failed: nothing to compare; one failed: that is the difference; else the messages path by path."""
    failed = ["message" not in stream, "message" not in converse]
    if all(failed):
        return []
    if any(failed):
        shown = [f"raised {_error(side)}" if bad else "built a message" for side, bad in zip((stream, converse), failed)]
        return [f"{_at(where)}parity: the streamed call {shown[0]} / the non-streamed call {shown[1]}"]
    unknown = [key for key in declared if " as " in key and key.split(" as ", 1)[1] not in EQUIVALENCES]
    if unknown:
        return [f"{_at(where)}parity: native_differences declares {unknown[0]!r}, an unknown equivalence (known: "
                f"{', '.join(EQUIVALENCES)})"]
    return _messages(stream, converse, where, declared)[0]


def _messages(stream: Mapping, converse: Mapping, where: str, declared: Mapping[str, str]) -> tuple[list, list]:
    """(the differences of the two messages, those of them the library sends alike: '' against absent or null)."""
    forms = [(compile_pattern(key.split(" as ")[0]), EQUIVALENCES[key.split(" as ")[1]]) for key in declared
             if " as " in key and key.split(" as ", 1)[1] in EQUIVALENCES]
    ignored = tuple(key for key in declared if " as " not in key)
    left, right = (_json_texts(_alike(m, forms)) for m in (stream["message"], converse["message"]))
    lines = diff_pair(left, right, SIDES, f"{_at(where)}native", ignored)
    sent = [chunk.get("sent") for chunk in (stream, converse)]
    if not lines or "sent" not in stream or "sent" not in converse or not same_json(*sent):
        return lines, []
    if diff_pair(_without_empty(left), _without_empty(right), SIDES, "", ignored):
        return lines, []
    return [], lines


EMPTY_ALIKE = "parity: '' on one path, absent or null on the other, and the library sends both alike"


def empty_alike(chunks: Sequence[Mapping], declared: Mapping[str, str] = {}, *, scenario: str = "",
                turn: int | None = None) -> list[str]:
    """The parity differences that are no finding: '' against absent or null where both paths' ``sent`` agree."""
    where = " ".join(p for p in (scenario, "" if turn is None else f"turn {turn}") if p)
    found = natives(chunks)
    if any(path not in found or "message" not in found[path] for path in NATIVE_PATHS):
        return []
    return [f"{EMPTY_ALIKE}: {line}" for line in _messages(found["stream"], found["converse"], where, declared)[1]]


def _without_empty(value: Any) -> Any:
    """``value`` without the members holding "" or null, at any depth (list items are kept)."""
    if isinstance(value, dict):
        return {k: _without_empty(v) for k, v in value.items() if v not in ("", None)}
    if isinstance(value, list):
        return [_without_empty(v) for v in value]
    return value


def _json_value(value: Any) -> Any:
    """``json-text``: JSON text and the value it parses to, alike; the empty text Bedrock streams for a call
    without arguments is the empty object its Converse reply holds."""
    if value == "":
        return {}
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _lone_text(value: Any) -> Any:
    """``lone-text``: a list holding one text block, alike with its text."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        block = value[0]
        kind = block.get("type", block.get("block_type"))
        if kind == "text" and isinstance(block.get("text"), str) and set(block) <= {"type", "block_type", "text",
                                                                                    "index"}:
            return block["text"]
    return value


EQUIVALENCES = {"json-text": _json_value, "lone-text": _lone_text}


def _alike(value: Any, forms: list, path: str = "") -> Any:
    """``value`` with each declared equivalence applied where its pattern matches the path."""
    for pattern, form in forms:
        if path and pattern.fullmatch(path):
            value = form(value)
    if isinstance(value, dict):
        return {k: _alike(v, forms, f"{path}.{k}" if path else str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_alike(v, forms, f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def _json_texts(value: Any) -> Any:
    """Strings holding a JSON object or array compared by their value: the same arguments written with other
    separators or escapes are the same arguments (a string against an object still differs)."""
    if isinstance(value, dict):
        return {k: _json_texts(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_texts(v) for v in value]
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return json.dumps(parsed, sort_keys=True, ensure_ascii=False) if isinstance(parsed, (dict, list)) else value
    return value


def _raised(chunks: Sequence[Mapping]) -> bool:
    """Whether the turn ended in an exception the adapter raised (the runner's closing error chunk)."""
    return bool(chunks) and chunks[-1].get("type") == "error" and chunks[-1].get("code") == ADAPTER_EXCEPTION


def _error(chunk: Mapping) -> str:
    text = str(chunk.get("error") or "an error")
    return repr(text if len(text) <= 120 else text[:117] + "...")


def _requests(requests: tuple, where: str) -> list[str]:
    streamed, other = requests
    if not isinstance(streamed, Mapping) or not isinstance(other, Mapping) or same_json(streamed, other):
        return []
    # the twin goes through Converse, whose guardrailConfig has no streamProcessingMode
    return diff_pair(converse_form(normalize_request(streamed)), normalize_request(other), SIDES,
                     f"{_at(where)}request")


def _at(where: str) -> str:
    return f"{where} " if where else ""


def declared_paths(adapter: Any) -> dict[str, str]:
    """An adapter's ``native_differences`` (pattern -> reason), or none."""
    value = getattr(adapter, "native_differences", None)
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, Mapping) else {}
