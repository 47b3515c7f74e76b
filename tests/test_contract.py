"""The adapter contract as JSON Schemas (harness/suite/contract.py, harness/suite/schemas/*.json): the schemas are valid
draft 2020-12, hold every chunk, turn and hello the reference adapters and the harness produce, agree with the
vocabulary the judge folds, and every rule of the chunk schema, broken by one mutated chunk, is refused naming the
field and the rule, in-process and over the subprocess protocol. The examples certify over the subprocess protocol
in tests/test_examples.py, where a chunk the schema refuses would be an ``error``; the shims' tests run the suite the
same way wherever their libraries are installed."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from harness.adapters import AdapterFailure
from harness.adapters.subprocess import SubprocessAdapter
from harness.converse import ConverseAdapter, InvokeAdapter, conversation_reference, conversation_reference_invoke
from harness.suite import runner
from harness.suite.contract import SCHEMAS, _plain_check, chunk_problem, problem, schema, schema_text
from harness.judge.normalize import BESIDE, CLOSING, CONTENT
from harness.judge.protocol import CAPABILITIES, NATIVE_PATHS, NON_STREAMING, OWN_HISTORY
from harness.suite.scenario import discover

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = discover(ROOT / "suites")
DEFS = schema("chunk")["$defs"]
WRONG = [({"x": 1}, "object"), (["x"], "array"), (True, "boolean"), ("x", "string"), (1.5, "number")]


class Yields:
    """An in-process adapter yielding the given chunks."""

    name, version, capabilities = "yields", "1", frozenset({"text"})

    def __init__(self, *chunks):
        self.chunks = chunks

    def stream(self, turn, endpoint):
        yield from self.chunks


class Checked:
    """Wraps an adapter: records every turn message it is sent and every chunk it yields, unvalidated."""

    def __init__(self, inner):
        self.inner, self.turns, self.chunks = inner, [], []
        self.name, self.version, self.capabilities = inner.name, inner.version, inner.capabilities
        self.scenario = ""

    def stream(self, turn, endpoint):
        index = sum(1 for t in self.turns if t["scenario"] == self.scenario)
        self.turns.append({"type": "turn", "scenario": self.scenario, "index": index, "endpoint": endpoint,
                           "turn": turn})
        for chunk in self.inner.stream(turn, endpoint):
            self.chunks.append(chunk)
            yield chunk


def _wrong(types) -> object:
    """A value of none of the JSON ``types`` (an integer counts as a number)."""
    allowed = {types} if isinstance(types, str) else set(types)
    allowed |= {"number"} if "integer" in allowed else set()
    return next(value for value, kind in WRONG if kind not in allowed)


def _mutations():
    """(id, chunk, what the message names, the rule): one per rule of every chunk definition."""
    for kind, definition in DEFS.items():
        valid = definition["examples"][0]
        for field, spec in definition["properties"].items():
            if field != "type" and "type" in spec:
                yield (f"{kind}.{field}.type", {**valid, field: _wrong(spec["type"])}, f"{field}: ",
                       f"$defs/{kind}/properties/{field}/type")
            if "enum" in spec:
                yield f"{kind}.{field}.enum", {**valid, field: "nope"}, f"{field}: 'nope' is not one of", \
                    f"$defs/{kind}/properties/{field}/enum"
            if "minimum" in spec:
                yield f"{kind}.{field}.minimum", {**valid, field: -1}, f"{field}: -1 is less than the minimum of 0", \
                    f"$defs/{kind}/properties/{field}/minimum"
        for field in [f for f in definition["required"] if f != "type"]:  # in order: xdist workers collect alike
            yield (f"{kind}.{field}.required", {k: v for k, v in valid.items() if k != field},
                   f"'{field}' is a required property", f"$defs/{kind}/required")
        yield (f"{kind}.additionalProperties", {**valid, "signatures": "x"}, "('signatures' was unexpected)",
               f"$defs/{kind}/additionalProperties")
    yield "unknown type", {"type": "thinking", "text": "x"}, "type: 'thinking' is not one of", "properties/type/enum"
    yield "no type", {"text": "x"}, "'type' is a required property", "required"
    yield "not an object", "text", "'text' is not of type 'object'", "type"


MUTATIONS = list(_mutations())


# ---- the schemas themselves ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", SCHEMAS)
def test_each_schema_is_a_valid_draft_2020_12_schema_and_holds_its_examples(name):
    Draft202012Validator.check_schema(schema(name))
    assert json.loads(schema_text(name)) == schema(name)
    examples = schema(name).get("examples", []) + [e for d in schema(name).get("$defs", {}).values()
                                                   for e in d.get("examples", [])]
    assert examples and all(problem(name, e) is None for e in examples)


def test_the_chunk_types_are_the_vocabulary_the_judge_folds():
    assert set(DEFS) == set(CONTENT) | set(CLOSING) | set(BESIDE)
    assert schema("chunk")["properties"]["type"]["enum"] == list(DEFS)
    assert all(d["properties"]["type"] == {"const": kind} for kind, d in DEFS.items())
    assert tuple(DEFS["native"]["properties"]["path"]["enum"]) == NATIVE_PATHS


def test_the_hello_capabilities_are_the_protocols():
    assert set(schema("hello")["properties"]["capabilities"]["items"]["enum"]) == CAPABILITIES


def test_a_schema_name_outside_the_three_is_refused():
    with pytest.raises(ValueError, match="no schema 'signature' \\(known: chunk, turn, hello\\)"):
        schema_text("signature")


# ---- what the reference adapters and the harness send holds -------------------------------------------------

@pytest.mark.parametrize("make", [ConverseAdapter, InvokeAdapter, conversation_reference,
                                  conversation_reference_invoke])
def test_every_chunk_and_turn_of_the_reference_adapters_holds_on_the_whole_suite(make):
    adapter = Checked(make())
    adapter.scenario = SCENARIOS[0].id
    results = runner.run(SCENARIOS, adapter, ROOT, progress=lambda done, total, result: setattr(
        adapter, "scenario", SCENARIOS[done].id if done < total else ""))
    assert [r.scenario for r in results if r.status == "error"] == []
    whole = Draft202012Validator(schema("chunk"))  # the schema as an adapter author uses it, if/then and all
    assert [c for c in adapter.chunks if not whole.is_valid(c) or chunk_problem(c)] == []
    beside = {"native"} if NON_STREAMING in adapter.capabilities else set()
    beside |= {"message"} if OWN_HISTORY in adapter.capabilities else set()
    assert {c["type"] for c in adapter.chunks} == set(CONTENT) | set(CLOSING) | beside
    assert [(t["scenario"], t["index"], problem("turn", t)) for t in adapter.turns if problem("turn", t)] == []


def _turn_with(*content) -> dict:
    endpoint = {"endpoint_url": "http://127.0.0.1:1", "region": "us-east-1"}
    return {"type": "turn", "scenario": "core/round-trip", "index": 1, "endpoint": endpoint,
            "turn": {"model_id": "m", "messages": [{"role": "user", "content": list(content)}], "tools": [],
                     "options": {}}}


RESULT = {"type": "tool_result", "tool_use_id": "tooluse_1", "is_error": False}


@pytest.mark.parametrize("block", [
    {"type": "text", "text": "hi"},
    {"type": "tool_use", "id": "tooluse_1", "name": "f", "input": {}},
    RESULT | {"content": "plain"},
    RESULT | {"content": [{"json": {"lines": 42}}, {"json": 310}, {"text": "t"}, "s", {"type": "text", "text": "t"}]},
    {"type": "thinking", "thinking": "", "signature": "sig"},
    {"type": "redacted_thinking", "data": "AAAA"},
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
])
def test_the_turn_schema_describes_each_content_block_an_adapter_receives(block):
    assert problem("turn", _turn_with(block)) is None


@pytest.mark.parametrize("block, named", [
    ({"type": "tool_use", "id": "tooluse_1", "name": "f"}, "input"),
    ({"type": "tool_use", "id": "tooluse_1", "name": "f", "input": "{}"}, "input"),
    (RESULT | {"content": [{"json": 1, "extra": 2}]}, "content"),
    ({"type": "tool_result", "content": "x"}, "tool_use_id"),
    ({"type": "thinking", "signature": "sig"}, "thinking"),
    ({"type": "image", "source": {"type": "url", "media_type": "image/png", "data": "x"}}, "source"),
    ({"type": "video"}, "type"),
])
def test_a_content_block_off_its_kinds_schema_is_refused(block, named):
    found = problem("turn", _turn_with(block))
    assert found is not None and named in found


class Text(str):
    """A str subclass: JSON Schema's string, which the plain check leaves to jsonschema."""


EDGES = [{"type": "usage", "input_tokens": 1.0, "output_tokens": 2}, {"type": "usage", "input_tokens": True,
         "output_tokens": 2}, {"type": "text", "text": Text("hi")}, {"type": "native", "path": Text("stream")},
         {"type": "usage", "input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": None},
         {"type": "error", "code": 1.5}, {"type": "stop", "reason": None}, {"type": "tool_call", "input": [1]}]


def test_the_plain_check_never_passes_what_jsonschema_refuses():
    """The fast path (harness.suite.contract._plain_check) only ever says 'surely valid'; jsonschema has the rest."""
    chunks = [m[1] for m in MUTATIONS] + EDGES + [e for d in DEFS.values() for e in d["examples"]]
    whole = Draft202012Validator(schema("chunk"))
    for chunk in chunks:
        kind = chunk.get("type") if isinstance(chunk, dict) else None
        plain = _plain_check(kind) if kind in DEFS else None
        assert not (plain and plain(chunk)) or whole.is_valid(chunk), chunk
    assert all(_plain_check(kind)(e) for kind, d in DEFS.items() for e in d["examples"])


def test_valid_chunks_are_passed_without_importing_jsonschema():
    code = ("import sys; from harness.suite.contract import chunk_problem, schema; "
            "assert all(chunk_problem(e) is None for d in schema('chunk')['$defs'].values() for e in d['examples']); "
            "print('jsonschema' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_the_subprocess_adapters_own_hello_and_turns_hold(tmp_path):
    """What the harness writes on the adapter's stdin (the turn, with its endpoint URL) against the turn schema."""
    script = tmp_path / "echo.py"
    script.write_text(textwrap.dedent('''
        import json, sys
        for line in sys.stdin:
            message = json.loads(line)
            if message["type"] == "hello":
                answer = {"type": "hello", "name": "echo", "version": "1", "capabilities": ["text"]}
                print(json.dumps(answer), flush=True)
                continue
            print(json.dumps({"type": "chunk", "chunk": {"type": "text", "text": json.dumps(message)}}), flush=True)
            print(json.dumps({"type": "done"}), flush=True)
    '''))
    with SubprocessAdapter([sys.executable, str(script)], timeout=30) as adapter:
        adapter.scenario = "core/round-trip"
        turn = runner.first_turn(next(s for s in SCENARIOS if s.id == "core/round-trip"))
        [chunk] = adapter.stream(turn, {"endpoint_url": "http://127.0.0.1:9", "region": "us-east-1"})
    assert problem("turn", json.loads(chunk["text"])) is None


# ---- every rule, broken, is refused naming the field and the rule -------------------------------------------

@pytest.mark.parametrize("case, chunk, named, rule", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_a_mutated_chunk_is_refused_in_process_naming_the_field_and_rule(case, chunk, named, rule):
    with pytest.raises(AdapterFailure) as error:
        runner.stream_turn(Yields({"type": "text", "text": "fine"}, chunk), {"messages": []}, {}, index=2)
    message = str(error.value)
    assert message.startswith("adapter protocol error: turn 2 chunk 1")
    assert named in message and f"(schema chunk, {rule})" in message and "\n" not in message


def test_the_issues_example_a_signature_chunk_names_the_shape_of_a_reasoning_signature():
    assert chunk_problem({"type": "signature", "signature": "SIG"}).endswith(
        'signature is a field of the reasoning chunk, not a chunk type: {"type": "reasoning", "index": 0, '
        '"signature": "EqQBCkgIARABGAIiQ..."}')


def test_raw_bytes_as_redacted_data_are_refused_in_process():
    """An in-process adapter could yield bytes; the contract (and the wire) carry base64 text."""
    with pytest.raises(AdapterFailure, match=r"chunk 0 \(redacted_reasoning\): data: b'\\x00\\x01' is not of type "
                                             r"'string', 'null' \(schema chunk, "
                                             r"\$defs/redacted_reasoning/properties/data/type\)"):
        runner.stream_turn(Yields({"type": "redacted_reasoning", "data": b"\x00\x01"}), {"messages": []}, {})


def test_a_huge_value_is_quoted_cut_and_the_rule_still_named():
    found = chunk_problem({"type": "text", "text": ["x" * 100_000]})
    assert len(found) < 400 and found.endswith("(schema chunk, $defs/text/properties/text/type)")


SENDS = textwrap.dedent('''
    import json, sys
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            answer = {"type": "hello", "name": "sends", "version": "1", "capabilities": ["text"]}
            print(json.dumps(answer), flush=True)
            continue
        print(json.dumps({"type": "chunk", "chunk": {"type": "text", "text": "fine"}}), flush=True)
        print(json.dumps({"type": "chunk", "chunk": message["turn"]["send"]}), flush=True)
        print(json.dumps({"type": "done"}), flush=True)
''')
# Over the subprocess protocol, one mutation per kind of rule (each costs a process start).
BY_RULE: dict = {}
for _mutation in MUTATIONS:
    BY_RULE.setdefault(_mutation[3].rsplit("/", 1)[-1] + ("" if _mutation[3].startswith("$defs") else " (root)"),
                       _mutation)
ENDPOINT = {"endpoint_url": "http://127.0.0.1:9", "region": "us-east-1"}


@pytest.fixture(scope="module")
def sends(tmp_path_factory):
    script = tmp_path_factory.mktemp("sends") / "sends.py"
    script.write_text(SENDS)
    with SubprocessAdapter([sys.executable, str(script)], timeout=30) as adapter:
        yield adapter


@pytest.mark.parametrize("case, chunk, named, rule", BY_RULE.values(), ids=list(BY_RULE))
def test_a_mutated_chunk_over_the_subprocess_protocol_is_refused_naming_the_field_and_rule(sends, case, chunk,
                                                                                             named, rule):
    with pytest.raises(AdapterFailure) as error:
        list(sends.stream({"send": chunk}, dict(ENDPOINT)))
    message = str(error.value)
    assert "broke the protocol during the scenario turn 0: sent " in message
    assert named in message and f"(schema chunk, {rule})" in message
    assert [c["text"] for c in sends.stream({"send": {"type": "text", "text": "ok"}}, dict(ENDPOINT))] == ["fine", "ok"]


def test_a_mutated_chunk_over_the_subprocess_protocol_makes_the_scenario_an_error(sends):
    class Sending:
        name, version, capabilities = sends.name, sends.version, sends.capabilities

        def stream(self, turn, endpoint):
            yield from sends.stream({**turn, "send": {"type": "usage", "input_tokens": "x", "output_tokens": 1}},
                                    endpoint)

    result = runner.run_scenario(next(s for s in SCENARIOS if s.id == "core/smoke-text"), Sending(), ROOT)
    assert result.status == "error"
    assert ("input_tokens: 'x' is not of type 'integer', 'null' (schema chunk, "
            "$defs/usage/properties/input_tokens/type)") in result.reason
