"""harness.endpoint.rules.validator reports what botocore's ParamValidator reports, line for line: on every
request the shipped cassettes hold, on each of their members replaced by a value of every type, and on a small
model of its own holding what bedrock-runtime's input shapes lack (timestamps, host labels, JSON-value headers)."""

from __future__ import annotations

import copy
import datetime
import decimal
import json
from pathlib import Path

import pytest
from botocore.model import ServiceModel
from botocore.validate import ParamValidator

from harness.cassettes.cassette import load
from harness.endpoint.rules.validator import report
from harness.wire.service_model import raw_model

ROOT = Path(__file__).resolve().parents[1]
OPERATIONS = ("ConverseStream", "Converse")
REPLACEMENTS = (None, True, 0, -1, 2.5, "", "text", [], [1, "a"], {}, {"x": 1}, ("t",), b"raw",
                decimal.Decimal("1.5"), datetime.datetime(2024, 1, 2))


def _botocore(params, operation: str, model: dict) -> str:
    shape = ServiceModel(model, service_name="bedrock-runtime").operation_model(operation).input_shape
    return ParamValidator().validate(params, shape).generate_report()


def _ours(params, operation: str, model: dict) -> str:
    return report(params, model["operations"][operation]["input"], model["shapes"])


def _requests() -> list[dict]:
    bodies = []
    for path in sorted((ROOT / "cassettes").glob("*/*.yaml")):
        for it in load(path).interactions:
            if it.operation in OPERATIONS:
                try:
                    body = json.loads(it.request_body)
                except ValueError:
                    continue
                if isinstance(body, dict) and {**body, "modelId": it.model_id} not in bodies:
                    bodies.append({**body, "modelId": it.model_id})
    return bodies


REQUESTS = _requests()


def _paths(value, prefix=()):
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        yield (*prefix, key)
        yield from _paths(inner, (*prefix, key))


def _replaced(body: dict, path: tuple, value) -> dict:
    body = copy.deepcopy(body)
    target = body
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return body


def test_the_shipped_requests_are_read_alike():
    assert len(REQUESTS) > 20
    model = raw_model()
    for body in REQUESTS:
        for operation in OPERATIONS:
            assert _ours(body, operation, model) == _botocore(body, operation, model)


@pytest.mark.parametrize("index", range(0, 40, 4))
def test_every_member_replaced_by_every_type_is_reported_alike(index):
    model, shape = raw_model(), ServiceModel(raw_model(), service_name="bedrock-runtime")
    inputs = {op: shape.operation_model(op).input_shape for op in OPERATIONS}
    body = REQUESTS[index % len(REQUESTS)]
    checked = 0
    for path in _paths(body):
        for value in REPLACEMENTS:
            changed = _replaced(body, path, value)
            for operation in OPERATIONS:
                theirs = ParamValidator().validate(changed, inputs[operation]).generate_report()
                assert _ours(changed, operation, model) == theirs, (path, value, operation)
                checked += bool(theirs)
    assert checked  # the replacements do break the shape


def test_unknown_members_unions_and_documents_are_reported_alike():
    model = raw_model()
    body = {**REQUESTS[0], "extra": 1, "messages": [{"role": "user", "content": [{}]},
                                                    {"role": "user", "content": [{"text": "a", "image": {}}]}],
            "additionalModelRequestFields": {"a": [1, {"b": ("tuple",)}], "c": object()},
            "toolConfig": {"tools": [{"toolSpec": {"name": "n", "inputSchema": {"json": {"k": {1, 2}}}}}]}}
    theirs = _botocore(body, "Converse", model)
    assert "Unknown parameter" in theirs and "tagged union" in theirs and "document parameter" in theirs
    assert _ours(body, "Converse", model) == theirs


MINI = {
    "metadata": {"apiVersion": "2023-09-30", "protocol": "rest-json", "serviceId": "Bedrock Runtime",
                 "signatureVersion": "v4", "endpointPrefix": "bedrock-runtime"},
    "operations": {"Op": {"name": "Op", "http": {"method": "POST", "requestUri": "/{Host}"}, "input": {"shape": "In"}}},
    "shapes": {
        "In": {"type": "structure", "required": ["Host"], "members": {
            "Host": {"shape": "Str", "hostLabel": True}, "When": {"shape": "Time"}, "Meta": {"shape": "Json",
                                                                                            "location": "header",
                                                                                            "jsonvalue": True},
            "Count": {"shape": "Count"}, "Ratio": {"shape": "Ratio"}, "Big": {"shape": "Big"},
            "Names": {"shape": "Names"}, "Tags": {"shape": "Tags"}, "Data": {"shape": "Data"}, "Flag": {"shape": "Flag"},
            "Short": {"shape": "Str", "min": 3}}},
        "Str": {"type": "string"}, "Json": {"type": "string"}, "Time": {"type": "timestamp"},
        "Count": {"type": "integer", "min": 1}, "Ratio": {"type": "double", "min": 0}, "Big": {"type": "long"},
        "Names": {"type": "list", "member": {"shape": "Str"}, "min": 1},
        "Tags": {"type": "map", "key": {"shape": "Key"}, "value": {"shape": "Str"}},
        "Key": {"type": "string", "min": 2}, "Data": {"type": "blob"}, "Flag": {"type": "boolean"},
    },
}


@pytest.mark.parametrize("params", [
    {"Host": "h"}, {}, {"Host": ""}, {"Host": 1, "When": "2024-01-02T03:04:05Z", "Meta": {"a": 1}},
    {"Host": "h", "When": "not a date", "Meta": {"a": object()}}, {"Host": "h", "When": datetime.datetime(2024, 1, 2)},
    {"Host": "h", "Count": 0, "Ratio": -0.5, "Big": 2.0, "Names": [], "Tags": {"k": "v", "kk": 1}},
    {"Host": "h", "Names": ["a", 1, None], "Data": 5, "Flag": "yes", "Short": "ab", "Tags": []},
    {"Host": "h", "Data": b"x", "Count": True, "Ratio": decimal.Decimal("2"), "Names": ("a",)},
])
def test_what_bedrock_runtime_lacks_is_reported_alike(params):
    assert _ours(params, "Op", MINI) == _botocore(params, "Op", MINI)
