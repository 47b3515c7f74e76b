"""The request against botocore's own service model, before any of Bedrock's rules: the model id against the
operation's ``modelId`` shape (length and pattern, which botocore leaves to the server), the body against the
operation's input shape with botocore's validator's checks (harness.endpoint.rules.validator, over the model's
JSON): unknown members and members of the wrong type. (Required
members, unions and minima the validator finds too are left to the Coral rules of ``shape``, which carry
Bedrock's own texts.)

Bedrock's text for a body of the wrong shape was never captured (bedrock-wire.md has none), so a problem
carries the line botocore's validator writes, in Coral's "N validation errors detected" frame; JSON nulls are
left out first, as Bedrock's JSON reader treats a null member as absent.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Hashable
from typing import Any

from harness.endpoint.rules.shape import CORAL_PREFIX, Problem, body_text
from harness.endpoint.rules.validator import report as _report, shape_of
from harness.wire.service_model import raw_model  # read on the first request (or by load_model)

__all__ = ["INVALID_MODEL", "MAX_SHOWN", "RULE_IDS", "input_problems", "load_model", "valid_model_id"]

RULE_IDS = ("model-id", "input-shape")  # the problem ids of this check

INVALID_MODEL = "The provided model identifier is invalid."  # bedrock-wire.md §9 rule 23, verbatim

MAX_SHOWN = 300  # characters of one validator line: a misplaced 50 MB string must not become the error text
_LINE_STARTS = ("Missing required parameter", "Unknown parameter", "Invalid type for", "Invalid value for",
                "Invalid length for", "Invalid parameter", "Invalid number of parameters", "Must set one of")
_REPORTED = ("Unknown parameter", "Invalid type for")
_SPLIT = re.compile(r"\n(?=(?:" + "|".join(map(re.escape, _LINE_STARTS)) + "))")
_NAME = re.compile(r"(?:parameter|structure) ([A-Za-z0-9_.\[\]]+)")
_UNKNOWN = re.compile(r'Unknown parameter in ([A-Za-z0-9_.\[\]]+): "([^"]*)"')
# A cache point inside toolResult.content: rule 31 (rules.caching) reports it, scoped by its evidence.
_RESULT_CACHE_POINT = re.compile(r'Unknown parameter in messages\[\d+\]\.content\[\d+\]\.toolResult\.content\[\d+\]: '
                                 r'"cachePoint"')


def load_model() -> None:
    """Read the service model now (``serve`` does it right after it listens, before a request waits)."""
    raw_model()


def _input(operation: str) -> tuple[dict, dict]:
    """(the operation's input reference, the model's shapes)."""
    model = raw_model()
    return model["operations"][operation]["input"], model["shapes"]


@functools.lru_cache(maxsize=1024)  # asked twice for every request a session answers
def valid_model_id(model_id: str, operation: str) -> bool:
    """Whether ``model_id`` fits the operation's modelId shape (its length bounds and pattern)."""
    ref, shapes = _input(operation)
    shape = shape_of(shapes[ref["shape"]]["members"]["modelId"], shapes)
    if not shape.get("min", 1) <= len(model_id) <= shape.get("max", 2048):
        return False
    return re.fullmatch(shape.get("pattern", ".*"), model_id) is not None


def _without_nulls(value: Any) -> Any:
    """The value with null object members dropped (a null member is an absent one)."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _problem(line: str) -> Problem:
    unknown, found = _UNKNOWN.match(line), _NAME.search(line)
    if unknown:  # the path of the unknown member itself: its container's, then its name
        path = ".".join(p for p in ("" if unknown.group(1) == "input" else unknown.group(1), unknown.group(2)) if p)
    else:
        path = found.group(1) if found else ""
    path = re.sub(r"\[(\d+)\]", r".\1", path)
    shown = line if len(line) <= MAX_SHOWN else line[: MAX_SHOWN - 3] + "..."
    return Problem("input-shape", "" if path == "input" else path, CORAL_PREFIX + shown)


def input_problems(body: dict, operation: str, model_id: str | None = None, *, text: Hashable | None = None
                   ) -> list[Problem]:
    """What botocore's validator finds in ``body`` against the operation's input shape, and a model id that
    does not fit its shape; ``model_id`` None: not known (it travels in the URI), not checked. ``text``: the
    body's ``body_text`` when the caller has it, or another key only this body has (its bytes and model id)."""
    if model_id is not None and not valid_model_id(model_id, operation):
        return [Problem("model-id", "modelId", INVALID_MODEL)]
    return list(_validated(body, model_id, *_input(operation), body_text(body) if text is None else text))


_last: tuple[tuple, list[Problem]] = ((), [])  # what the validator read last, and what it found


def _validated(body: dict, model_id: str | None, ref: dict, shapes: dict, text: Hashable) -> list[Problem]:
    """The validator's problems with ``body`` (``text``: its key) against the input shape ``ref`` names. What it
    reports depends only on the body, the model id, the shape's member names and required ones, and the shapes of
    the members present, so the same body sent again at once to the other Converse operation (the streaming-parity
    twin, whose input shape differs only in members such as ``guardrailConfig``) reuses the findings unless it
    holds a member whose shape differs."""
    global _last
    shape = shapes[ref["shape"]]
    members = shape["members"]
    key = (text, model_id, tuple(members), tuple(shape.get("required", ())),
           tuple(members[k]["shape"] for k in body if k in members))
    seen, found = _last
    if key != seen:
        params = {**_without_nulls(body), "modelId": model_id or "model"}
        report = _report(params, ref, shapes)
        found = [_problem(line) for line in _SPLIT.split(report) if line.startswith(_REPORTED)
                 and not _RESULT_CACHE_POINT.match(line)] if report else []
        _last = (key, found)
    return found
