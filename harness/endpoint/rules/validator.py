"""botocore's parameter validator (``botocore.validate.ParamValidator``), over the service model's own JSON.

The same checks in the same order with the same report lines, walking the shapes of ``service-2.json`` as plain
dicts (harness.wire.service_model.raw_model) instead of ``botocore.model`` objects: importing botocore's model and
validator loads botocore's HTTP stack (urllib3, dateutil, its auth and utilities), which ``serve`` paid before its
first answer. tests/test_validator.py holds every report equal to botocore's own on the shipped requests and on
each of their members replaced by values of every JSON type.

A member reference (``{"shape": name, ...traits}``) stands for the shape it names with the reference's other keys
merged over it, as botocore's ``ShapeResolver`` merges them; each merged shape is made once.
"""

from __future__ import annotations

import decimal
import json
from datetime import datetime
from typing import Any, Mapping

__all__ = ["report", "shape_of"]

_SCALARS = {"float": (float, decimal.Decimal, int), "double": (float, decimal.Decimal, int), "integer": (int,),
            "long": (int,), "boolean": (bool,), "string": (str,)}
_CONTAINERS = {"structure": (dict,), "map": (dict,), "list": (list, tuple)}
_CONSTRAINTS = {"required", "min", "document", "union"}  # ParamValidator.VALIDATED_METADATA_ATTRS
_DOCUMENT_TYPES = (str, int, bool, float, list, dict)


def report(params: Mapping, ref: Mapping, shapes: Mapping[str, dict]) -> str:
    """``ParamValidator().validate(params, shape).generate_report()`` for the shape ``ref`` refers to (an operation's
    ``input``) in the model's ``shapes``."""
    errors: list[str] = []
    _Walk(shapes, errors).validate(params, ref, "")
    return "\n".join(errors)


_MERGED: dict[int, tuple[Mapping, dict]] = {}  # id(reference) -> (the reference, kept alive; its merged shape)


def shape_of(ref: Mapping, shapes: Mapping[str, dict]) -> dict:
    """The shape a member reference names, its member traits merged over it (once per reference)."""
    if len(ref) == 1:
        return shapes[ref["shape"]]
    kept = _MERGED.get(id(ref))
    if kept is None or kept[0] is not ref:
        merged = {**shapes[ref["shape"]], **{k: v for k, v in ref.items() if k != "shape"}}
        kept = _MERGED[id(ref)] = (ref, merged)
    return kept[1]


def _name(name: str) -> str:
    return "input" if not name else name[1:] if name.startswith(".") else name


def _types(types: tuple) -> str:
    return ", ".join(str(t) for t in types)


class _Walk:
    """One validation: the model's shapes and the report lines so far."""

    def __init__(self, shapes: Mapping[str, dict], errors: list[str]) -> None:
        self.shapes, self.errors = shapes, errors

    def validate(self, value: Any, ref: Mapping, name: str) -> None:
        shape = shape_of(ref, self.shapes)
        kind = shape["type"]
        if shape.get("jsonvalue") and shape.get("location") == "header" and kind == "string":
            try:
                json.dumps(value)
            except (ValueError, TypeError) as error:
                self.errors.append(f"Invalid parameter {_name(name)} must be json serializable: {error}")
            return
        if kind == "structure" and shape.get("document"):
            self.document(value, name)
            return
        getattr(self, f"_{kind}")(value, shape, name)

    def invalid_type(self, value: Any, name: str, valid: str) -> None:
        self.errors.append(f"Invalid type for parameter {_name(name)}, value: {value}, type: {type(value)}, "
                           f"valid types: {valid}")

    def typed(self, value: Any, types: tuple, name: str) -> bool:
        if isinstance(value, types):
            return True
        self.invalid_type(value, name, _types(types))
        return False

    def range(self, name: str, value: Any, shape: Mapping, size: str) -> None:
        """botocore's ``range_check``: below the shape's ``min`` (a host label's is 1); ``size``: length or value."""
        if "min" in shape:
            low = shape["min"]
        elif shape.get("hostLabel"):
            low = 1
        else:
            return
        if value < low:
            self.errors.append(f"Invalid {size} for parameter {_name(name)}, value: {value}, valid min {size}: {low}")

    def document(self, value: Any, name: str) -> None:
        if value is None:
            return
        if isinstance(value, dict):
            for key in value:
                self.document(value[key], key)  # botocore names a document's members by their key alone
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self.document(item, f"{name}[{index}]")
        elif not isinstance(value, (str, int, bool, float)):
            self.errors.append(f"Invalid type for document parameter {_name(name)}, value: {value}, "
                               f"type: {type(value)}, valid types: {_types(_DOCUMENT_TYPES)}")

    def _structure(self, value: Any, shape: Mapping, name: str) -> None:
        if not self.typed(value, _CONTAINERS["structure"], name):
            return
        members = shape.get("members", {})
        if shape.get("union"):
            if not value:
                self.errors.append(f"Must set one of the following keys for tagged unionstructure {_name(name)}: "
                                   f"{', '.join(members)}.")
            elif len(value) > 1:
                self.errors.append(f"Invalid number of parameters set for tagged union structure {_name(name)}. "
                                   f"Can only set one of the following keys: {', '.join(members)}.")
        for required in shape.get("required", []):
            if required not in value:
                self.errors.append(f'Missing required parameter in {_name(name)}: "{required}"')
        known = []
        for key in value:
            if key in members:
                known.append(key)
            else:
                self.errors.append(f'Unknown parameter in {_name(name)}: "{key}", must be one of: '
                                   f"{', '.join(members)}")
        for key in known:
            self.validate(value[key], members[key], f"{name}.{key}")

    def _string(self, value: Any, shape: Mapping, name: str) -> None:
        if self.typed(value, _SCALARS["string"], name):
            self.range(name, len(value), shape, "length")

    def _list(self, value: Any, shape: Mapping, name: str) -> None:
        if not self.typed(value, _CONTAINERS["list"], name):
            return
        self.range(name, len(value), shape, "length")
        ref = shape["member"]
        member = shape_of(ref, self.shapes)
        if member["type"] in _SCALARS and not _CONSTRAINTS & member.keys():
            types = _SCALARS[member["type"]]
            for index, item in enumerate(value):
                if not isinstance(item, types):
                    self.invalid_type(item, f"{name}[{index}]", _types(types))
            return
        for index, item in enumerate(value):
            self.validate(item, ref, f"{name}[{index}]")

    def _map(self, value: Any, shape: Mapping, name: str) -> None:
        if not self.typed(value, _CONTAINERS["map"], name):
            return
        for key, item in value.items():
            self.validate(key, shape["key"], f"{name} (key: {key})")
            self.validate(item, shape["value"], f"{name}.{key}")

    def _number(self, value: Any, shape: Mapping, name: str) -> None:
        if self.typed(value, _SCALARS[shape["type"]], name):
            self.range(name, value, shape, "value")

    _integer = _long = _double = _float = _number

    def _boolean(self, value: Any, shape: Mapping, name: str) -> None:
        self.typed(value, _SCALARS["boolean"], name)

    def _blob(self, value: Any, shape: Mapping, name: str) -> None:
        if not isinstance(value, (bytes, bytearray, str)) and not hasattr(value, "read"):
            self.invalid_type(value, name, f"{bytes}, {bytearray}, file-like object")

    def _timestamp(self, value: Any, shape: Mapping, name: str) -> None:
        if not _datetime_like(value):
            self.invalid_type(value, name, f"{datetime}, timestamp-string")


def _datetime_like(value: Any) -> bool:
    """botocore's ``_type_check_datetime``: a datetime, or what its date parser reads (botocore loads for it: no
    input shape of bedrock-runtime has a timestamp)."""
    from botocore.utils import parse_to_aware_datetime

    try:
        parse_to_aware_datetime(value)
        return True
    except (TypeError, ValueError, AttributeError):
        return False
