"""The scenario files under suites/: they load, render, decode, and their checks agree with their scripts."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
import yaml
from botocore.exceptions import EventStreamError

from harness.suite import checks
from harness.converse.request import build_request
from harness.converse.stream import chunks_from_events
from harness.endpoint.emulator.plan import STYLES
from harness.endpoint.emulator.render import render_stream
from harness.wire.eventstream import TruncatedStream, decode_events, decode_frames
from harness.judge.normalize import normalize
from harness.converse.request import history_policy
from harness.endpoint.rules.converse import check_request
from harness.judge.protocol import CAPABILITIES
from harness.suite.scenario import discover, first_turn, next_turn

SUITES = Path(__file__).resolve().parent.parent / "suites"
CORE = {"smoke-text", "single-call", "parallel-calls", "round-trip", "interleaved-text", "thinking-tools"}
EDGE = {
    "zero-arg-tool", "parallel-results-round-trip", "interleaved-parallel-deltas", "two-signed-reasoning-blocks",
    "signature-only-reasoning", "redacted-reasoning-tool", "empty-text-before-reasoning", "nova-style",
    "cache-usage", "max-tokens-mid-tool", "end-turn-with-tool-use", "guardrail-intervened",
    "server-tool-then-client-tool", "unicode-nested-input", "tool-result-is-error",
    "nova-parallel-calls", "interleaved-reasoning-tools", "unsigned-reasoning-round-trip", "tool-result-no-status",
    "guardrail-trace", "cache-both-spellings", "tool-result-json-values", "zero-arg-after-text",
    # today's surface (issue 28): cache placement, structured output, a toolless final turn
    "cache-points", "nova-cache-points", "cache-point-before-document", "structured-output", "toolless-final-turn",
    "every-stop-reason", "tool-use-stop-without-tool-use", "tool-result-media", "nova-tool-result-media",
    "openai-tool-result-image", "tool-result-error-with-image", "unsigned-reasoning-to-claude",
    "document-citations", "search-result-citations",
    # how a request is served, and blocks the chunks do not carry (issue 28)
    "service-tier-flex", "latency-optimized", "prompt-router-trace", "guardrail-async", "response-field-paths",
    "image-output-block", "future-block-kind", "server-tool-text-result", "web-search-server-tool",
}
FAULTS = {"throttling-mid-tool", "model-stream-error-mid-tool", "http-429-then-success", "truncated-stream",
          "missing-tool-use-id"}
EXPECTED = {f"core/{n}" for n in CORE} | {f"edge/{n}" for n in EDGE} | {f"faults/{n}" for n in FAULTS}
MODEL_ID = re.compile(r"^((us\.|eu\.|apac\.)?(anthropic|amazon|openai|meta|mistral|moonshot|deepseek|qwen|writer)\."
                      r"[a-z0-9.-]+-(v?\d+(:\d+)?|thinking|sol)"  # gpt-5.6-sol: OpenAI's ids carry no version
                      r"|arn:aws:bedrock:[a-z0-9-]+:111111111111:default-prompt-router/[a-z]+\.[a-z]+:\d+)$")
SIGNATURE = re.compile(r"^[A-Za-z0-9+/]{96,300}={0,2}$")
THINKING = {"core/thinking-tools", "edge/two-signed-reasoning-blocks", "edge/signature-only-reasoning",
            "edge/redacted-reasoning-tool"}
# Scenarios whose stream a correct adapter ends with an error (runner: expect an error chunk, no stop).
ENDS_IN_ERROR = {"faults/throttling-mid-tool", "faults/model-stream-error-mid-tool", "faults/truncated-stream",
                 "faults/missing-tool-use-id"}
SCENARIOS = discover(SUITES)
BY_ID = {sc.id: sc for sc in SCENARIOS}


def seed(sc, turn: int) -> str:
    return f"{sc.id}:{turn}"


def body(sc, turn: int, seed_text: str | None = None, faults: bool = True) -> bytes:
    """The turn's emulated body, cut where the scenario's faults cut it (unless ``faults`` is off)."""
    data = b"".join(render_stream(sc.turns[turn].script, style=sc.style, seed=seed_text or seed(sc, turn)))
    cuts = [f["truncate_after_byte"] for f in sc.faults if faults and f["turn"] == turn and "truncate_after_byte" in f]
    return data[: cuts[0]] if cuts else data


def reference_output(sc, turn: int, faults: bool = True) -> list[dict]:
    """What the reference adapter yields for the turn, normalized; a raised error closes the list as the runner does."""
    chunks = []
    try:
        chunks.extend(chunks_from_events(decode_events(body(sc, turn, faults=faults))))
    except Exception as exc:  # the reference raises on a toolUse without toolUseId
        chunks.append({"type": "error", "code": type(exc).__name__, "message": str(exc)})
    return normalize(chunks)


def by_id(items):
    return pytest.mark.parametrize("sc", items, ids=[sc.id for sc in items])


def test_the_suites_hold_exactly_the_listed_scenarios():
    assert {sc.id for sc in SCENARIOS} == EXPECTED


def test_ids_are_unique_and_match_file_names():
    paths = sorted(p for p in SUITES.glob("*/*.yaml") if not p.name.endswith(".golden.yaml"))
    ids = [f"{p.parent.name}/{p.stem}" for p in paths]
    assert len(ids) == len(set(ids)) == len(SCENARIOS)
    assert all(BY_ID[f"{p.parent.name}/{p.stem}"].path.resolve() == p for p in paths)


@by_id(SCENARIOS)
def test_required_fields(sc):
    assert sc.title.strip() and len(sc.description) > 120, "title and a description naming the bug it catches"
    assert sc.tags and sc.requires and sc.requires <= CAPABILITIES
    assert MODEL_ID.match(sc.model_id), sc.model_id
    # Writer Palmyra's tool calls go through Converse only (rule 38); every other scenario streams
    assert sc.style in STYLES and sc.operation == ("converse" if "writer" in sc.tags else "converse-stream")
    assert all(turn.script and turn.script.get("usage") for turn in sc.turns), "every turn scripts its response"
    assert sc.checks["hard"], "at least one hard check"


@by_id(SCENARIOS)
def test_each_shipped_scenario_states_its_level_and_robustness_or_a_judgement_is_recommended(sc):
    stated = yaml.safe_load(sc.path.read_text(encoding="utf-8")).get("level")
    assert stated == sc.level in ("required", "recommended"), "every shipped scenario says its level"
    rests_on_judgement = bool(sc.judgements) or (sc.robustness and sc.id != "faults/missing-tool-use-id")
    # the missing toolUseId is a robustness stream but a founding document's check: refusing it is required
    assert (sc.level == "recommended") == bool(rests_on_judgement), sc.id


def test_fault_scenarios_are_tagged_for_the_recorder():
    faults = {sc.id for sc in SCENARIOS if sc.suite == "faults"}
    assert faults == {sc.id for sc in SCENARIOS if "fault" in sc.tags}
    assert faults <= {sc.id for sc in SCENARIOS if "emulator_only" in sc.tags}


def test_scenarios_needing_injected_faults_are_emulator_only_for_live_runs():
    """`certify --live`, `drift` and `record --live` skip them: real Bedrock does not fail on demand."""
    needs = {sc.id for sc in SCENARIOS if sc.faults or any((t.script or {}).get("exception") for t in sc.turns)}
    assert len(needs) >= 4 and needs <= {sc.id for sc in SCENARIOS if "emulator_only" in sc.tags}


@by_id(SCENARIOS)
def test_checks_use_known_names_with_valid_arguments(sc):
    entries = checks.validate(sc.checks, source=str(sc.path))
    assert all(turn is None or turn < len(sc.turns) for _, turn, _, _ in entries)


@by_id(SCENARIOS)
def test_scripted_tools_are_declared_and_answered(sc):
    names = {tool["name"] for tool in sc.tools}
    for index, turn in enumerate(sc.turns):
        called = {b["tool_use"]["name"] for b in turn.script["content"] if "tool_use" in b}
        assert called <= names, f"turn {index} calls undeclared tools {called - names}"
        if index + 1 < len(sc.turns):
            assert called <= set(turn.tool_results), f"turn {index} has no tool_results template for {called}"


def _null_keys(value, where: str = ""):
    """The paths of every key holding null in a tool's JSON schema (YAML's ``{description: a, e.g. b}`` flow mapping
    makes ``e.g. b`` a key of null: no application sends that)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from [f"{where}.{key}"] if item is None else _null_keys(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _null_keys(item, f"{where}[{index}]")


@by_id(SCENARIOS)
def test_tool_schemas_hold_no_null_keys(sc):
    found = [path for tool in sc.tools for path in _null_keys(tool.get("input_schema"), tool["name"])]
    assert not found, f"keys of null in tool schemas (a YAML flow mapping split at a comma?): {found}"


@by_id(SCENARIOS)
def test_signatures_and_redacted_data_look_real(sc):
    for turn in sc.turns:
        for block in turn.script["content"]:
            if "signature" in block:
                assert SIGNATURE.match(block["signature"]) and base64.b64decode(block["signature"], validate=True)
            if "redacted_reasoning" in block:
                assert base64.b64decode(block["redacted_reasoning"], validate=True)


def test_thinking_is_on_exactly_where_expected():
    assert {sc.id for sc in SCENARIOS if sc.options["thinking_budget"]} == THINKING


@by_id([sc for sc in SCENARIOS if sc.id in THINKING])
def test_thinking_scenarios_respect_bedrock_thinking_rules(sc):
    options = sc.options
    assert options["thinking_budget"] and options["max_tokens"] > options["thinking_budget"]
    assert options["temperature"] is None and options["tool_choice"] in (None, "auto")


TURNS = [(sc, i) for sc in SCENARIOS for i in range(len(sc.turns))]
TURN_IDS = [f"{sc.id}:{i}" for sc, i in TURNS]
MID_TOOL = [BY_ID[i] for i in ("faults/throttling-mid-tool", "faults/model-stream-error-mid-tool",
                               "faults/truncated-stream")]


def tool_inputs(events: list[dict]) -> dict[int, str]:
    """The joined toolUse input deltas per contentBlockIndex."""
    joined: dict[int, str] = {}
    for event in events:
        delta = event.get("contentBlockDelta", {})
        if "toolUse" in delta.get("delta", {}):
            index = delta["contentBlockIndex"]
            joined[index] = joined.get(index, "") + delta["delta"]["toolUse"]["input"]
    return joined


def events_until_error(data: bytes) -> tuple[list[dict], EventStreamError | None]:
    events = []
    try:
        for event in decode_events(data):
            events.append(event)
    except EventStreamError as exc:
        return events, exc
    return events, None


@pytest.mark.parametrize(("sc", "turn"), TURNS, ids=TURN_IDS)
def test_every_turn_renders_and_decodes_with_botocore(sc, turn):
    events, error = events_until_error(body(sc, turn))
    exception = sc.turns[turn].script.get("exception")
    truncated = any(f["turn"] == turn and "truncate_after_byte" in f for f in sc.faults)
    assert list(events[0]) == ["messageStart"]
    if exception:
        assert error is not None and error.response["Error"]["Code"] == exception["type"]
        assert "messageStop" not in {name for event in events for name in event}
    elif truncated:
        assert error is None and "messageStop" not in {name for event in events for name in event}
        with pytest.raises(TruncatedStream):
            decode_frames(body(sc, turn))
    else:
        assert error is None and [list(e)[0] for e in events[-2:]] == ["messageStop", "metadata"]
        assert events[-2]["messageStop"]["stopReason"] == sc.turns[turn].script["stop_reason"]


@by_id(MID_TOOL)
@pytest.mark.parametrize("variant", range(12))
def test_mid_tool_faults_cut_inside_the_tool_input_whatever_the_seed(sc, variant):
    events, _ = events_until_error(body(sc, 0, f"{seed(sc, 0)}:{variant}"))
    (partial,) = tool_inputs(events).values()
    assert partial.strip(), "at least one input fragment arrives before the cut"
    with pytest.raises(ValueError):
        json.loads(partial)


def test_model_stream_error_carries_the_original_status():
    sc = BY_ID["faults/model-stream-error-mid-tool"]
    last = decode_frames(body(sc, 0))[-1]  # botocore keeps only Code and Message; the frame has the rest
    assert (last.message_type, last.type) == ("exception", "modelStreamErrorException")
    assert {k: v for k, v in last.json().items() if k != "p"} == {
        "message": "The model stream was interrupted by an error from the model. Try your request again.",
        "originalStatusCode": 500, "originalMessage": "Internal server error"}


def test_missing_tool_use_id_start_omits_the_id():
    events, _ = events_until_error(body(BY_ID["faults/missing-tool-use-id"], 0))
    starts = [e["contentBlockStart"]["start"]["toolUse"] for e in events if "contentBlockStart" in e]
    assert starts == [{"name": "read_file"}]


def test_http_429_fault_precedes_a_normal_tool_call():
    sc = BY_ID["faults/http-429-then-success"]
    assert sc.faults == ({"turn": 0, "http_error": {"status": 429, "type": "ThrottlingException",
                                                    "message": "Rate exceeded", "times": 1}},)
    assert [json.loads(raw) for raw in tool_inputs(list(decode_events(body(sc, 0)))).values()] == [{"path": "/tmp/test.txt"}]


@by_id(SCENARIOS)
def test_the_reference_output_of_each_script_passes_its_checks(sc):
    """Checks judge a recording, and recordings are clean: transport faults are applied on replay."""
    outcome = checks.evaluate(sc.checks, [reference_output(sc, i, faults=False) for i in range(len(sc.turns))],
                              source=str(sc.path))
    assert outcome.hard_failures == [] and outcome.soft_warnings == []


def test_exactly_the_fault_scenarios_end_in_an_error():
    ending = {sc.id for sc in SCENARIOS for i in range(len(sc.turns)) if reference_output(sc, i)[-1]["type"] == "error"}
    assert ending == ENDS_IN_ERROR


def requests(sc) -> list[dict]:
    """Each turn's Bedrock request, built the way the runner builds turns (from the reference's output)."""
    turn, out = first_turn(sc), []
    for index in range(len(sc.turns)):
        if index:
            turn = next_turn(sc, index, turn, reference_output(sc, index - 1))
        out.append(build_request(turn))
    return out


MULTI_TURN = [sc for sc in SCENARIOS if len(sc.turns) > 1]


@by_id(MULTI_TURN)
def test_multi_turn_requests_pass_bedrock_rules(sc):
    for index, request in enumerate(requests(sc)):
        request = {key: value for key, value in request.items() if key != "modelId"}
        assert check_request(request, model_id=sc.model_id) == [], f"turn {index}"


@by_id(MULTI_TURN)
def test_follow_up_sends_every_call_and_signature_back(sc):
    script = sc.turns[0].script["content"]
    assistant, user = requests(sc)[1]["messages"][-2:]
    uses = [b["toolUse"] for b in assistant["content"] if "toolUse" in b]
    results = [b["toolResult"] for b in user["content"] if "toolResult" in b]
    assert [u["toolUseId"] for u in uses] == [r["toolUseId"] for r in results]
    assert [u["input"] for u in uses] == [b["tool_use"]["input"] for b in script if "tool_use" in b]
    sent = [b["reasoningContent"]["reasoningText"] for b in assistant["content"]
            if "reasoningText" in b.get("reasoningContent", {})]
    # unsigned reasoning goes back only to a family that takes it (rule 37)
    kept = history_policy(sc.model_id)["unsigned_reasoning"]
    assert [r.get("signature") for r in sent] == [b.get("signature") for b in script
                                                  if "reasoning" in b and (kept or b.get("signature"))]
    assert all(r.get("signature") != "" for r in sent)  # unsigned reasoning goes back without the field
