"""The adapter contract as JSON Schemas (``harness/suite/schemas``: chunk, turn, hello), and what adapters send checked
against them.

The schemas are the single source of the chunk vocabulary, the hello and the turn: ``bedrock-harness schema``
prints them, the runner and the subprocess adapter validate with them, and docs/reference/adapter-schema.md is
rendered from them (harness.suite.schema_docs). A violation reads ``field: what is wrong (schema chunk, rule)``,
the field as a JSON path and the rule as the schema location it breaks, e.g. ``input_tokens: 'x' is not of type
'integer', 'null' (schema chunk, $defs/usage/properties/input_tokens/type)``. A chunk surely valid passes a plain
check read from its definition; jsonschema decides the rest and words every violation, imported only then.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Callable

__all__ = ["SCHEMAS", "chunk_problem", "problem", "schema", "schema_text"]

SCHEMAS = ("chunk", "turn", "hello")
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
MESSAGE_CHARS = 300  # a violation quotes the offending value; a huge one is cut
OWN_FIELDS = ("type", "index")  # fields every chunk type may have: naming one as a type points at no chunk
# The keywords the plain check of a chunk definition reads (every other one: jsonschema decides alone).
DEFINITION_KEYWORDS = {"type", "required", "additionalProperties", "properties", "description", "examples"}
FIELD_KEYWORDS = {"type", "enum", "const", "minimum", "description", "contentEncoding"}
# JSON type -> the exact Python types that are surely of it (a bool is no number; 1.0 and str subclasses, which
# jsonschema may accept, go to jsonschema).
PLAIN_TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "null": (type(None),), "object": (dict,),
               "array": (list,), "boolean": (bool,)}


def schema_text(name: str) -> str:
    """The schema ``name`` as shipped (JSON text)."""
    if name not in SCHEMAS:
        raise ValueError(f"no schema {name!r} (known: {', '.join(SCHEMAS)})")
    return (SCHEMA_DIR / f"{name}.json").read_text(encoding="utf-8")


@functools.cache
def schema(name: str) -> dict:
    """The schema ``name``, parsed (one shared object: do not change it)."""
    return json.loads(schema_text(name))


@functools.cache
def _validator(name: str, kind: str | None = None) -> Any:
    """A validator of schema ``name``, or of its definition ``kind`` alone (what a chunk of that type must be)."""
    from jsonschema import Draft202012Validator  # the one place jsonschema is used (see the module docstring)

    whole = schema(name)
    return Draft202012Validator(whole if kind is None else whole["$defs"][kind])


def _path(parts) -> str:
    """A JSON path as people write it: ``message.content[0].type``."""
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)
    return text.lstrip(".")


def _rule(prefix: str, parts) -> str:
    return "/".join([prefix, *map(str, parts)] if prefix else map(str, parts)) or "(root)"


def _described(name: str, error: Any, prefix: str) -> str:
    """One line: the field, what is wrong with it, and the schema rule it breaks."""
    message, quoted = error.message, repr(error.instance)
    if len(message) > MESSAGE_CHARS and len(quoted) > MESSAGE_CHARS // 3:  # the value it quotes is what is long
        message = message.replace(quoted, f"{quoted[:MESSAGE_CHARS // 3]}... ({len(quoted)} characters)")
    where = _path(error.absolute_path)
    return f"{where + ': ' if where else ''}{message} (schema {name}, {_rule(prefix, error.absolute_schema_path)})"


def _first_error(validator: Any, instance: Any) -> Any:
    """The most relevant violation, or None: the fast path is one pass that finds nothing."""
    from jsonschema.exceptions import best_match

    errors = validator.iter_errors(instance)
    first = next(errors, None)
    return None if first is None else best_match([first, *errors])


def problem(name: str, instance: Any) -> str | None:
    """Why ``instance`` breaks schema ``name`` (one line), or None when it holds."""
    error = _first_error(_validator(name), instance)
    return None if error is None else _described(name, error, "")


def chunk_problem(chunk: Any) -> str | None:
    """Why ``chunk`` breaks the chunk schema (one line; an unknown type says which chunk holds a field so named),
    or None when it holds. A known type is checked against its own definition: the rule reads ``$defs/<type>/...``."""
    kind = chunk.get("type") if isinstance(chunk, dict) else None
    if isinstance(kind, str) and kind in schema("chunk")["$defs"]:
        plain = _plain_check(kind)
        if plain is not None and plain(chunk):
            return None
        error = _first_error(_validator("chunk", kind), chunk)
        return None if error is None else _described("chunk", error, f"$defs/{kind}")
    found = problem("chunk", chunk)
    return found and found + _field_hint(kind)


def _field_hint(kind: Any) -> str:
    """For a type that is the name of a chunk's field (``signature``): the chunk that carries it, by its example."""
    definitions = schema("chunk")["$defs"]
    owners = [k for k, d in definitions.items() if isinstance(kind, str) and kind not in OWN_FIELDS
              and kind in d["properties"]]
    if not owners:
        return ""
    example = next((e for e in definitions[owners[0]]["examples"] if kind in e), definitions[owners[0]]["examples"][0])
    return f"; {kind} is a field of the {owners[0]} chunk, not a chunk type: {json.dumps(example)}"


# ---- the fast path: a chunk surely valid is passed without jsonschema (it costs ~20 us a chunk) ----


def _field_check(spec: dict) -> Callable[[Any], bool] | None:
    """A predicate true only of values surely valid under a field's ``spec``; None: a keyword it does not read. An
    array's ``items`` are read when they are an object definition the plain check reads."""
    if "items" in spec:
        whole, item = _field_check({k: v for k, v in spec.items() if k != "items"}), _object_check(spec["items"])
        if whole is None or item is None:
            return None
        return lambda value: whole(value) and all(type(v) is dict and item(v) for v in value)
    if set(spec) - FIELD_KEYWORDS:
        return None
    kinds = spec.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    allowed = tuple(t for k in kinds for t in PLAIN_TYPES[k]) if kinds else None
    choices = [(type(v), v) for v in spec.get("enum", [spec["const"]] if "const" in spec else [])] or None
    floor = spec.get("minimum")

    def holds(value: Any) -> bool:
        if allowed is not None and type(value) not in allowed:
            return False
        if choices is not None and (type(value), value) not in choices:
            return False
        return floor is None or type(value) not in (int, float) or value >= floor
    return holds


@functools.cache
def _plain_check(kind: str) -> Callable[[dict], bool] | None:
    """A check of chunk definition ``kind``, read from the schema, true only of chunks surely valid (False: ask
    jsonschema, which also words the violation); None when the definition uses a keyword it does not read."""
    return _object_check(schema("chunk")["$defs"][kind])


def _object_check(definition: dict) -> Callable[[dict], bool] | None:
    """``_plain_check`` of one object definition (a chunk's, or an array item's)."""
    fields = {name: _field_check(spec) for name, spec in definition.get("properties", {}).items()}
    if set(definition) - DEFINITION_KEYWORDS or None in fields.values() or definition.get("type") != "object" \
            or definition.get("additionalProperties", True) is not False:
        return None
    required = frozenset(definition.get("required", ()))
    return lambda chunk: required <= chunk.keys() and all(
        name in fields and fields[name](value) for name, value in chunk.items())
