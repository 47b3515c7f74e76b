import base64
import copy
import json

import pytest
from hypothesis import given, strategies as st

from harness.judge import normalize as normalize_module
from harness.wire.eventstream import decode_events
from harness.judge.laws import CONTRACT_LAWS, LAWS, count_text_deltas, laws
from harness.judge.normalize import ALL, COMPARISON, RESTRICTIONS, fold, normalize, parse_input, restrict
from harness.judge.normalize_request import PINNABLE, REQUEST_STEPS, blobs_as_base64, normalize_request
from realworld import ids, interactions, requires_realworld, streams

SIG = "EqQBCkgIBhABGAIiQL+/9x==/sig"


def text(t, **kw):
    return {"type": "text", "text": t, **kw}


def tc(**kw):
    return {"type": "tool_call", **kw}


def usage(i=10, o=20, **kw):
    return {"type": "usage", "input_tokens": i, "output_tokens": o, **kw}


STOP = {"type": "stop", "reason": "tool_use"}


def test_exported_members_exist():
    assert all(hasattr(normalize_module, name) for name in normalize_module.__all__)


def test_every_step_has_a_one_line_docstring():
    for step in (*RESTRICTIONS, *COMPARISON, *LAWS, *REQUEST_STEPS, blobs_as_base64):
        assert step.__doc__ and "\n" not in step.__doc__.strip(), step.__name__


# ---- folding every chunk shape ----

def test_consecutive_text_joins_and_empty_text_is_dropped():
    chunks = [text(""), text("Hel", index=0), text(""), text("lo ", index=0), text("world", index=1)]
    assert normalize(chunks) == [{"type": "text", "text": "Hello world"}]
    assert normalize([text("")]) == []


def test_input_tokens_including_cache_are_read_in_bedrocks_convention():
    usage = {"type": "usage", "input_tokens": 1300, "output_tokens": 5, "cache_read_input_tokens": 1000,
             "cache_write_input_tokens": 200}
    declared = normalize([usage], ALL | {"usage_input_includes_cache"})
    assert declared == [{**usage, "input_tokens": 100}] and normalize([usage]) == [usage]


def test_a_cache_count_that_is_not_a_number_leaves_input_tokens_as_reported():
    """The diff shows the wrong count; the subtraction does not raise TypeError out of the judge."""
    usage = {"type": "usage", "input_tokens": 1300, "output_tokens": 5, "cache_read_input_tokens": "1000",
             "cache_write_input_tokens": 200}
    assert normalize([usage], ALL | {"usage_input_includes_cache"}) == [usage]


def test_the_assembled_message_and_native_openai_chunks_are_not_content():
    beside = [{"type": "openai_chunk", "chunk": {"choices": [{"index": 0, "delta": {"content": "Hi"}}]}},
              {"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": "Hi"}]}}]
    assert fold([text("Hi"), *beside, {"type": "stop", "reason": "end_turn"}]) == fold(
        [text("Hi"), {"type": "stop", "reason": "end_turn"}])


def test_text_separated_by_another_item_stays_separate():
    chunks = [text("explain "), tc(id="t1", name="f", input_delta="{}"), text("more")]
    assert [item["type"] for item in normalize(chunks)] == ["text", "tool_call", "text"]
    assert normalize(chunks)[2] == {"type": "text", "text": "more"}


def test_reasoning_deltas_then_signature_make_one_block():
    chunks = [{"type": "reasoning", "text": "Let me ", "index": 0}, {"type": "reasoning", "text": "think.", "index": 0},
              {"type": "reasoning", "signature": SIG, "index": 0}, text("Answer", index=1)]
    assert normalize(chunks) == [{"type": "reasoning", "text": "Let me think.", "signature": SIG},
                                 {"type": "text", "text": "Answer"}]


def test_signature_only_and_unsigned_reasoning():
    assert normalize([{"type": "reasoning", "signature": SIG}]) == [{"type": "reasoning", "text": "", "signature": SIG}]
    assert normalize([{"type": "reasoning", "text": "hmm"}]) == [{"type": "reasoning", "text": "hmm", "signature": None}]
    assert normalize([{"type": "reasoning", "text": ""}]) == []


def test_two_signed_blocks_stay_two_blocks():
    by_signature = [{"type": "reasoning", "text": "a"}, {"type": "reasoning", "signature": "S1"},
                    {"type": "reasoning", "text": "b"}, {"type": "reasoning", "signature": "S2"}]
    expected = [{"type": "reasoning", "text": "a", "signature": "S1"}, {"type": "reasoning", "text": "b", "signature": "S2"}]
    assert normalize(by_signature) == expected
    by_index = [{"type": "reasoning", "text": "a", "index": 0}, {"type": "reasoning", "text": "b", "index": 1}]
    assert [item["text"] for item in normalize(by_index)] == ["a", "b"]
    split_by_text = [{"type": "reasoning", "text": "a"}, text("x"), {"type": "reasoning", "text": "b"}]
    assert [item["type"] for item in normalize(split_by_text)] == ["reasoning", "text", "reasoning"]


def test_concatenated_signatures_are_kept_verbatim():
    chunks = [{"type": "reasoning", "text": "a"}, {"type": "reasoning", "text": "b"}, {"type": "reasoning", "signature": "S1S2"}]
    assert normalize(chunks) == [{"type": "reasoning", "text": "ab", "signature": "S1S2"}]


def test_redacted_reasoning_keeps_its_base64():
    chunks = [{"type": "redacted_reasoning", "data": "b3BhcXVl"}, {"type": "redacted_reasoning", "data": "AP8="}]
    assert normalize(chunks) == chunks


def test_tool_call_deltas_join_and_parse():
    chunks = [tc(id="tooluse_A", name="read_file", input_delta=""), tc(id="tooluse_A", input_delta='{"pa'),
              tc(id="tooluse_A", input_delta='th": "/tmp/a.txt", "n": [1, {"x": "é"}]}')]
    assert normalize(chunks) == [{"type": "tool_call", "id": "tooluse_A", "name": "read_file",
                                  "input": {"path": "/tmp/a.txt", "n": [1, {"x": "é"}]}}]


@pytest.mark.parametrize("deltas", [[], [""], ["", "  "]])
def test_zero_argument_tool_input_is_an_empty_object(deltas):
    chunks = [tc(id="t", name="list_files")] + [tc(id="t", input_delta=d) for d in deltas]
    assert normalize(chunks) == [{"type": "tool_call", "id": "t", "name": "list_files", "input": {}}]


def test_complete_input_is_taken_as_is():
    assert normalize([tc(id="t", name="f", input={"a": 1})])[0]["input"] == {"a": 1}
    assert normalize([tc(id="t", name="f", input="")])[0]["input"] == ""  # the zero-argument bug stays visible


def test_openai_style_index_deltas_follow_their_call():
    chunks = [tc(id="call_1", name="a", index=0, input_delta='{"x":'), tc(id="call_2", name="b", index=1, input_delta="{"),
              tc(index=0, input_delta=" 1}"), tc(index=1, input_delta='"y": 2}')]
    assert normalize(chunks) == [{"type": "tool_call", "id": "call_1", "name": "a", "input": {"x": 1}},
                                 {"type": "tool_call", "id": "call_2", "name": "b", "input": {"y": 2}}]


def test_interleaved_parallel_deltas_by_id():
    chunks = [tc(id="A", name="f", input_delta='{"p":'), tc(id="B", name="f", input_delta='{"p":'),
              tc(id="A", input_delta='"a"}'), tc(id="B", input_delta='"b"}'), STOP]
    assert [(i["id"], i["input"]) for i in normalize(chunks)[:2]] == [("A", {"p": "a"}), ("B", {"p": "b"})]


def test_unparsable_input_is_kept_marked_never_dropped():
    glued = [tc(id="tooluse_A", name="f", input_delta='{"p": 1}'), tc(id="tooluse_A", input_delta='{"p": 2}')]
    assert normalize(glued) == [{"type": "tool_call", "id": "tooluse_A", "name": "f", "input": {"__unparsed__": '{"p": 1}{"p": 2}'}}]
    truncated = [tc(id="t", name="f", input_delta='{"path": "/tmp/a')]
    assert normalize(truncated)[0]["input"] == {"__unparsed__": '{"path": "/tmp/a'}
    assert parse_input("[1, 2]") == [1, 2] and parse_input("") == {}


def test_closing_items_follow_content_in_order_whatever_the_stream_order():
    chunks = [usage(5, 0), text("a"), {"type": "error", "code": "throttlingException", "message": "slow"},
              {"type": "stop", "reason": "end_turn"}]
    assert normalize(chunks) == [
        {"type": "text", "text": "a"}, {"type": "stop", "reason": "end_turn"},
        {"type": "usage", "input_tokens": 5, "output_tokens": 0, "cache_read_input_tokens": 0, "cache_write_input_tokens": 0},
        {"type": "error", "code": "throttlingException", "message": "slow"}]


def test_usage_keeps_cache_counts_and_drops_extras():
    item = normalize([usage(1, 2, cache_read_input_tokens=30, cache_write_input_tokens=40, total_tokens=3)])[0]
    assert item == {"type": "usage", "input_tokens": 1, "output_tokens": 2, "cache_read_input_tokens": 30,
                    "cache_write_input_tokens": 40}


def test_duplicate_stops_and_unknown_chunks_stay_visible():
    result = normalize([text("a"), {"type": "annotation", "title": "x"}, STOP, STOP])
    assert result == [{"type": "text", "text": "a"}, {"type": "annotation", "title": "x"}, STOP, STOP]


def test_fold_does_not_mutate_chunks():
    chunks = [{"type": "reasoning", "text": "a", "index": 0}, text("b"), tc(id="t", name="f", input={"k": [1]})]
    before = copy.deepcopy(chunks)
    result = fold(chunks)
    result[2]["input"]["k"].append(2)
    assert chunks[:2] == before[:2]


# ---- capability filtering ----

FULL = [{"type": "reasoning", "text": "r", "signature": SIG}, {"type": "redacted_reasoning", "data": "eA=="},
        text("t"), tc(id="A", name="f", input={}), {"type": "stop", "reason": "tool_use"},
        usage(1, 2, cache_read_input_tokens=3, cache_write_input_tokens=4),
        {"type": "error", "code": "c", "message": "m"}]


@pytest.mark.parametrize("missing, expected_types, check", [
    ("usage", ["reasoning", "redacted_reasoning", "text", "tool_call", "stop", "error"], None),
    ("stop_reason", ["reasoning", "redacted_reasoning", "text", "tool_call", "usage", "error"], None),
    ("errors", ["reasoning", "redacted_reasoning", "text", "tool_call", "stop", "usage"], None),
    ("reasoning", ["redacted_reasoning", "text", "tool_call", "stop", "usage", "error"], None),
    ("redacted_reasoning", ["reasoning", "text", "tool_call", "stop", "usage", "error"], None),
    ("tool_use", ["reasoning", "redacted_reasoning", "text", "stop", "usage", "error"], None),
    ("text", ["reasoning", "redacted_reasoning", "tool_call", "stop", "usage", "error"], None),
    ("reasoning_signature", None, lambda items: items[0] == {"type": "reasoning", "text": "r"}),
    ("cache_usage", None, lambda items: items[5] == {"type": "usage", "input_tokens": 1, "output_tokens": 2}),
])
def test_undeclared_capabilities_drop_their_fields(missing, expected_types, check):
    result = normalize(FULL, ALL - {missing})
    if expected_types is not None:
        assert [item["type"] for item in result] == expected_types
        kept = [item for item in normalize(FULL) if item["type"] in expected_types]
        assert result == kept
    else:
        assert check(result) and len(result) == len(FULL)


def test_all_capabilities_keep_everything_and_restrict_is_idempotent():
    full = normalize(FULL)
    assert len(full) == len(FULL) and full[0]["signature"] == SIG and full[5]["cache_write_input_tokens"] == 4
    few = {"text", "tool_use"}
    assert restrict(restrict(full, few), few) == restrict(full, few) == normalize(FULL, few)
    assert restrict(full) == full


# ---- laws ----

NAMELESS = ("tool_call_names_present: chunk {} (tool_call) passes a call on without a name (a missing tool name must be "
            "reported, not passed on as {})")

GOOD = [text("I'll "), text("read."), tc(id="A", name="f", input_delta=""), tc(id="A", input_delta='{"p": 1}'),
        STOP, usage()]


def test_a_clean_stream_breaks_no_law():
    assert laws(GOOD) == [] and laws(GOOD, ALL, text_deltas=2) == []


@pytest.mark.parametrize("chunks, expected", [
    ([text("a"), STOP, tc(id="A", name="f", input_delta="{}"), usage()],
     ["content_before_stop: chunk 2 (tool_call) arrives after the stream ended at chunk 1 (stop)"]),
    ([text("a"), {"type": "error", "code": "x", "message": "y"}, usage()],
     ["nothing_after_error: chunk 2 (usage) arrives after the error at chunk 1"]),
    ([tc(id="", name="f", input_delta="{}"), STOP],
     ["tool_call_ids_present: chunk 0 (tool_call) has an empty id (a missing toolUseId must be reported, not passed on as '')"]),
    ([tc(name="f", input_delta="{}"), STOP], ["tool_call_ids_present: chunk 0 (tool_call) has neither an id nor an index"]),
    ([tc(id="A", name="f", index=0, input_delta="{"), tc(id="B", index=0, input_delta="}"), STOP],
     [NAMELESS.format(1, None), "tool_call_ids_stable: chunk 1 (tool_call) carries id 'B' for index 0, which had id 'A'"]),
    ([tc(id="A", name="f", input_delta="{"), tc(id="A2", input_delta="}"), STOP],
     [NAMELESS.format(1, None),
      "tool_call_ids_stable: chunk 1 (tool_call) starts call 'A2' without a name (did the id change mid-call?)"]),
    ([tc(index=3, input_delta="{}"), STOP],
     ["tool_call_ids_present: chunk 0 (tool_call) passes a call on without an id (a missing toolUseId must be reported, "
      "not passed on as null)", NAMELESS.format(0, None),
      "tool_call_ids_stable: chunk 0 (tool_call) is a delta for index 3 before any chunk gave that call an id"]),
    ([tc(id="A", name="", index=1, input_delta="{}"), STOP], [NAMELESS.format(0, "''")]),
    ([tc(id="A", name="f", input_delta='{"p": "/tm'), tc(id="A", input={"p": "/tm"}),
      {"type": "error", "code": "modelStreamErrorException", "message": "boom"}],
     ["no_partial_input_as_complete: chunk 1 (tool_call) presents call 'A' as complete although the stream ended "
      "badly with partial JSON '{\"p\": \"/tm'"]),
    ([tc(id="A", name="f", input='{"p": "/tm')],  # no stop at all: truncated
     ["no_partial_input_as_complete: chunk 0 (tool_call) presents call 'A' as complete although the stream ended "
      "badly with partial JSON '{\"p\": \"/tm'"]),
    ([tc(id="A", name="f", input_delta='{"p"'), tc(id="A", input={}), {"type": "stop", "reason": "max_tokens"}],
     ["no_partial_input_as_complete: chunk 1 (tool_call) presents call 'A' as complete although the stream ended "
      "badly with partial JSON '{\"p\"'"]),
], ids=["content-after-stop", "after-error", "empty-id", "no-id-no-index", "id-changes-by-index", "id-changes-unnamed",
        "unbound-index", "empty-name", "partial-after-error", "partial-no-stop", "partial-max-tokens"])
def test_each_law_names_the_violating_chunk(chunks, expected):
    assert laws(chunks) == expected


def test_a_call_without_id_or_name_is_the_adapter_s_to_report_and_one_that_reports_it_breaks_no_law():
    reported = [text("Let me read."), tc(index=1, name="f", input_delta="{}"),
                {"type": "error", "code": "adapter_exception", "message": "toolUse has no toolUseId"}]
    assert [p for p in laws(reported) if not p.startswith("tool_call_ids_stable")] == []
    passed_on = reported[:2] + [STOP]
    assert laws(passed_on)[0] == ("tool_call_ids_present: chunk 1 (tool_call) passes a call on without an id (a "
                                  "missing toolUseId must be reported, not passed on as null)")
    assert set(CONTRACT_LAWS) == {"tool_call_ids_present", "tool_call_names_present"}


def test_partial_input_laws_pass_clean_variants():
    truncated_deltas_only = [tc(id="A", name="f", input_delta='{"p": "/tm'),
                             {"type": "error", "code": "throttlingException", "message": "slow"}]
    assert laws(truncated_deltas_only) == []  # deltas alone never claim completeness
    complete_then_error = [tc(id="A", name="f", input_delta='{"p": 1}'), tc(id="A", input={"p": 1}),
                           {"type": "error", "code": "x", "message": "y"}]
    assert laws(complete_then_error) == []
    without_stop_capability = [tc(id="A", name="f", input='{"p"')]
    assert laws(without_stop_capability, ALL - {"stop_reason"}) == []


def test_openai_style_ids_are_stable():
    chunks = [tc(id="call_1", name="a", index=0, input_delta="{"), tc(index=0, input_delta="}"),
              tc(id="call_1", index=0, input_delta=""), STOP]
    assert laws(chunks) == []


def test_incremental_text_when_streaming_is_declared():
    one_chunk = [text("I'll read all three files."), STOP]
    assert laws(one_chunk, ALL, text_deltas=4) == [
        "incremental_text: chunk 0 (text) holds all the text that Bedrock sent in 4 deltas"]
    assert laws(one_chunk, ALL - {"streaming"}, text_deltas=4) == []
    assert laws(one_chunk, ALL, text_deltas=1) == [] and laws(one_chunk, ALL) == []
    assert count_text_deltas([text("a"), text(""), text("b"), STOP]) == 2


def test_incremental_text_counts_the_recorded_deltas_only_when_it_needs_them():
    asked = []

    def recorded(count):
        return lambda: asked.append(count) or count
    one_chunk, streamed = [text("I'll read all three files."), STOP], [text("I'll read "), text("all three."), STOP]
    assert laws(one_chunk, ALL, text_deltas=recorded(4)) == [
        "incremental_text: chunk 0 (text) holds all the text that Bedrock sent in 4 deltas"]
    assert laws(one_chunk, ALL, text_deltas=recorded(None)) == [] and laws(one_chunk, ALL, recorded(1)) == []
    assert laws(streamed, ALL, text_deltas=recorded(5)) == [] and laws(one_chunk, ALL - {"streaming"}, recorded(6)) == []
    assert asked == [4, None, 1]


# ---- the normalized request ----

RAW_REQUEST = {
    "modelId": "us.anthropic.claude-sonnet-4-20250514-v1:0",
    "system": [{"text": "You are a coding assistant."}, {"cachePoint": {"type": "default"}}],
    "messages": [
        {"role": "user", "content": [{"text": "Read /tmp/a.txt"}, {"image": {"format": "png", "source": {"bytes": b"\x89PNG"}}}]},
        {"role": "assistant", "content": [
            {"reasoningContent": {"reasoningText": {"text": "thinking", "signature": SIG}}},
            {"toolUse": {"toolUseId": "tooluse_A", "name": "read_file", "input": {"path": "/tmp/a.txt"}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "tooluse_A", "content": [{"text": "contents"}], "status": "success"}},
            {"cachePoint": {"type": "default"}}]},
    ],
    "inferenceConfig": {"maxTokens": 4096},
    "toolConfig": {"tools": [{"toolSpec": {"name": "read_file", "description": "Read", "strict": False,
                                           "inputSchema": {"json": {"type": "object"}}}},
                             {"cachePoint": {"type": "default"}}], "toolChoice": {"auto": {}}},
    "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 1024}, "top_k": 8},
    "requestMetadata": {"run": "1"},
}
NORMALIZED_REQUEST = {  # cache points stay: where a library puts them is conversation content (rules 31-34)
    "system": [{"text": "You are a coding assistant."}, {"cachePoint": {"type": "default"}}],
    "messages": [
        {"role": "user", "content": [{"text": "Read /tmp/a.txt"},
                                     {"image": {"format": "png", "source": {"bytes": base64.b64encode(b"\x89PNG").decode()}}}]},
        RAW_REQUEST["messages"][1],
        {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_A", "content": [{"text": "contents"}]}},
                                     {"cachePoint": {"type": "default"}}]},
    ],
    "toolConfig": {"tools": [{"toolSpec": {"name": "read_file", "description": "Read",
                                           "inputSchema": {"json": {"type": "object"}}}},
                             {"cachePoint": {"type": "default"}}]},
    "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 1024}},
}


def test_normalize_request_keeps_what_scenarios_pin():
    before = copy.deepcopy(RAW_REQUEST)
    assert normalize_request(RAW_REQUEST) == NORMALIZED_REQUEST
    assert RAW_REQUEST == before
    assert normalize_request(NORMALIZED_REQUEST) == NORMALIZED_REQUEST


def test_equivalent_requests_normalize_alike():
    plain = {"messages": [{"role": "user", "content": [{"toolResult": {"toolUseId": "t", "content": [{"text": "x"}]}}]}]}
    noisy = {**copy.deepcopy(plain), "system": [], "inferenceConfig": {}, "additionalModelRequestFields": {"top_k": 1},
             "performanceConfig": {"latency": "standard"}}
    noisy["messages"][0]["content"][0]["toolResult"]["status"] = "success"
    assert normalize_request(noisy) == normalize_request(plain) == plain
    error = copy.deepcopy(plain)
    error["messages"][0]["content"][0]["toolResult"]["status"] = "error"
    assert normalize_request(error) != normalize_request(plain)


def assistant(*blocks):
    return {"messages": [{"role": "user", "content": [{"text": "Go."}]}, {"role": "assistant", "content": list(blocks)}]}


REASONED = {"reasoningContent": {"reasoningText": {"text": "r", "signature": "S"}}}
CALL = {"toolUse": {"toolUseId": "t1", "name": "read_file", "input": {}}}


def test_an_assistant_turns_text_compares_as_one_block_before_its_tool_uses():
    """Acceptable variation in a library-assembled turn: merged, moved and omitted-empty text blocks."""
    canonical = normalize_request(assistant(REASONED, {"text": "I will read. Done."}, CALL))
    assert canonical == assistant(REASONED, {"text": "I will read. Done."}, CALL)
    assert normalize_request(assistant(REASONED, {"text": "I will read."}, {"text": " Done."}, CALL)) == canonical
    assert normalize_request(assistant(REASONED, {"text": "I will read."}, CALL, {"text": " Done."})) == canonical
    assert normalize_request(assistant(REASONED, {"text": ""}, {"text": "I will read. Done."}, CALL)) == canonical
    assert normalize_request(assistant(REASONED, CALL)) == assistant(REASONED, CALL)


def test_reasoning_tool_uses_and_user_text_stay_as_sent():
    """Material: reasoning position, tool-use order, and the user's own text blocks."""
    other = {"toolUse": {"toolUseId": "t2", "name": "read_file", "input": {}}}
    assert normalize_request(assistant(CALL, REASONED)) == assistant(CALL, REASONED)
    assert normalize_request(assistant(other, CALL)) != normalize_request(assistant(CALL, other))
    user = {"messages": [{"role": "user", "content": [{"text": "a"}, {"text": "b"}]}]}
    assert normalize_request(user) == user


def test_pinned_fields_survive():
    pinned = normalize_request(RAW_REQUEST, pinned=("inferenceConfig",))
    assert pinned["inferenceConfig"] == {"maxTokens": 4096}
    with pytest.raises(ValueError, match=r"cannot pin modelId \(pinnable: inferenceConfig\)"):
        normalize_request(RAW_REQUEST, pinned=("modelId",))
    assert set(PINNABLE) == {"inferenceConfig"}


def point(ttl=None):
    return {"cachePoint": {"type": "default", **({"ttl": ttl} if ttl else {})}}


def test_cache_points_compare_by_place_and_ttl_and_5m_is_the_default():
    """Placement and TTL are conversation content: a point moved, dropped or of another TTL normalizes apart."""
    def body(system, tools, user):
        return {"system": [{"text": "Be brief."}, *system], "messages": [{"role": "user", "content": user}],
                "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}, *tools]}}
    asked = body([point("1h")], [point("1h")], [{"text": "hi"}, point("5m")])
    assert normalize_request(asked) == body([point("1h")], [point("1h")], [{"text": "hi"}, point()])
    assert normalize_request(asked) == normalize_request(body([point("1h")], [point("1h")], [{"text": "hi"}, point()]))
    for other in (body([point()], [point("1h")], [{"text": "hi"}, point()]),  # the system TTL lost
                  body([point("1h")], [], [{"text": "hi"}, point()]),  # the tools point dropped
                  body([point("1h")], [point("1h")], [point(), {"text": "hi"}])):  # moved before the text
        assert normalize_request(other) != normalize_request(asked)


def test_strict_tools_and_output_format_are_compared_as_content():
    spec = {"name": "f", "inputSchema": {"json": {"type": "object"}}}
    def body(strict, schema, effort=None):
        config = {"textFormat": {"type": "json_schema", "structure": {"jsonSchema": {"schema": schema, "name": "a"}}},
                  **({"effort": effort} if effort else {})}
        return {"messages": [], "toolConfig": {"tools": [{"toolSpec": {**spec, **strict}}]}, "outputConfig": config}
    compact = body({"strict": True}, '{"type":"object","required":["x"]}', effort="low")
    assert normalize_request(compact) == normalize_request(body({"strict": True}, '{"required": ["x"], "type": "object"}'))
    assert normalize_request(compact)["outputConfig"]["textFormat"]["structure"]["jsonSchema"]["schema"] == {
        "type": "object", "required": ["x"]}
    assert normalize_request(body({"strict": False}, "{}")) == normalize_request(body({}, "{}"))
    assert normalize_request(body({"strict": True}, "{}")) != normalize_request(body({}, "{}"))
    assert normalize_request(body({}, '{"type": "object"}')) != normalize_request(body({}, "{}"))


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                           max_leaves=12)


@given(st.dictionaries(st.sampled_from(["messages", "system", "toolConfig", "inferenceConfig", "modelId",
                                        "additionalModelRequestFields", "x"]), json_values, max_size=5))
def test_normalize_request_is_idempotent_on_any_json(body):
    once = normalize_request(body)
    assert normalize_request(once) == once


# ---- real recordings (the oracle) ----

def _chunks_from_events(events):
    """A minimal ConverseStream -> chunk mapping, written independently for the test."""
    chunks = []
    for event in events:
        (name, body), = event.items()
        i = body.get("contentBlockIndex")
        if name == "contentBlockStart" and "toolUse" in body["start"]:
            start = body["start"]["toolUse"]
            chunks.append(tc(id=start["toolUseId"], name=start["name"], index=i))
        elif name == "contentBlockDelta":
            delta = body["delta"]
            if "text" in delta:
                chunks.append(text(delta["text"], index=i))
            elif "toolUse" in delta:
                chunks.append(tc(index=i, input_delta=delta["toolUse"]["input"]))
            elif "reasoningContent" in delta:
                r = delta["reasoningContent"]
                if "redactedContent" in r:
                    chunks.append({"type": "redacted_reasoning", "data": r["redactedContent"], "index": i})
                else:
                    chunks.append({"type": "reasoning", "index": i, **{k: v for k, v in r.items() if k in ("text", "signature")}})
        elif name == "messageStop":
            chunks.append({"type": "stop", "reason": body["stopReason"]})
        elif name == "metadata":
            u = body["usage"]
            chunks.append(usage(u["inputTokens"], u["outputTokens"], cache_read_input_tokens=u.get("cacheReadInputTokens"),
                                cache_write_input_tokens=u.get("cacheWriteInputTokens")))
    return chunks


@requires_realworld
@pytest.mark.parametrize("interaction", streams("ConverseStream"), ids=ids(streams("ConverseStream")))
def test_real_streams_normalize_cleanly(interaction):
    events = list(decode_events(interaction.body, "ConverseStream"))
    chunks = _chunks_from_events(events)
    assert laws(chunks) == []
    result = normalize(chunks)
    starts = [e["contentBlockStart"]["start"]["toolUse"] for e in events
              if "contentBlockStart" in e and "toolUse" in e["contentBlockStart"]["start"]]
    calls = [item for item in result if item["type"] == "tool_call"]
    assert [(c["id"], c["name"]) for c in calls] == [(s["toolUseId"], s["name"]) for s in starts]
    assert all(isinstance(c["input"], dict) and "__unparsed__" not in c["input"] for c in calls)
    signatures = [e["contentBlockDelta"]["delta"]["reasoningContent"]["signature"] for e in events
                  if "reasoningContent" in e.get("contentBlockDelta", {}).get("delta", {})
                  and "signature" in e["contentBlockDelta"]["delta"]["reasoningContent"]]
    assert [item["signature"] for item in result if item["type"] == "reasoning" and item["signature"]] == signatures
    assert [item["type"] for item in result][-2:] == ["stop", "usage"]


def _converse_requests():
    return [i for i in interactions() if i.operation in ("Converse", "ConverseStream") and isinstance(i.request, dict)]


@requires_realworld
def test_real_requests_normalize_idempotently_and_keep_signatures():
    requests = _converse_requests()
    assert requests
    for interaction in requests:
        normalized = normalize_request(interaction.request)
        assert normalize_request(normalized) == normalized, interaction.id
        assert normalized.get("messages") == json.loads(json.dumps(_expected_messages(interaction.request))), interaction.id


def _expected_messages(body):
    """The messages with only success statuses and cache points' default TTL removed (reasoning untouched)."""
    messages = []
    for message in body.get("messages") or []:
        content = [{"cachePoint": {k: v for k, v in b["cachePoint"].items() if (k, v) != ("ttl", "5m")}}
                   if "cachePoint" in b else b for b in message["content"]]
        content = [{"toolResult": {k: v for k, v in b["toolResult"].items() if not (k == "status" and v == "success")}}
                   if "toolResult" in b else b for b in content]
        messages.append({**message, "content": content})
    return messages or None


def test_an_empty_id_is_reported_once_per_call_not_per_delta():
    chunks = [{"type": "tool_call", "id": "", "index": 0, "name": "read_file", "input_delta": part}
              for part in ('{"pa', 'th": ', '"/tmp/a"}')]
    chunks.append({"type": "tool_call", "id": "", "index": 1, "name": "read_file", "input_delta": "{}"})
    problems = [p for p in laws(chunks) if p.startswith("tool_call_ids_present")]
    assert len(problems) == 2 and "chunk 0" in problems[0] and "chunk 3" in problems[1]


def test_default_tool_choice_and_empty_required_lists_compare_as_absent():
    spec = {"name": "list_files", "inputSchema": {"json": {"type": "object", "properties": {}, "required": []}}}
    sent = {"messages": [], "toolConfig": {"tools": [{"toolSpec": spec}], "toolChoice": {"auto": {}}}}
    bare = {"messages": [], "toolConfig": {"tools": [{"toolSpec": {
        "name": "list_files", "inputSchema": {"json": {"type": "object", "properties": {}}}}}]}}
    assert normalize_request(sent) == normalize_request(bare)
    forced = {**sent, "toolConfig": {**sent["toolConfig"], "toolChoice": {"any": {}}}}
    assert normalize_request(forced)["toolConfig"]["toolChoice"] == {"any": {}}


# ---- how the turn was served, response fields, blocks the chunks do not carry ----------------------------

SERVED_CHUNKS = [{"type": "text", "text": "Hi."}, {"type": "other", "index": 1, "kind": "image"},
                 {"type": "metadata", "invoked_model_id": "arn:x", "service_tier": None},
                 {"type": "usage", "input_tokens": 1, "output_tokens": 2},
                 {"type": "response_fields", "fields": {"stop_sequence": None}}, {"type": "stop", "reason": "end_turn"}]


def test_served_items_close_the_list_in_a_fixed_order_and_other_blocks_never_reach_it():
    assert [item["type"] for item in fold(SERVED_CHUNKS)] == ["text", "stop", "response_fields", "usage", "metadata"]
    assert fold(SERVED_CHUNKS)[-1] == {"type": "metadata", "invoked_model_id": "arn:x", "service_tier": None,
                                       "latency": None}


def test_served_items_are_compared_only_for_an_adapter_declaring_them():
    kinds = [item["type"] for item in normalize(SERVED_CHUNKS, ALL - {"response_fields", "response_metadata"})]
    assert kinds == ["text", "stop", "usage"]
    assert [item["type"] for item in normalize(SERVED_CHUNKS, ALL - {"response_metadata"})][-1] == "usage"


def test_how_the_turn_asked_to_be_served_is_pinned_and_bedrocks_defaults_compare_as_absent():
    served = {"messages": [], "serviceTier": {"type": "flex"}, "performanceConfig": {"latency": "optimized"},
              "guardrailConfig": {"guardrailIdentifier": "g", "guardrailVersion": "1", "streamProcessingMode": "async"},
              "additionalModelResponseFieldPaths": ["/stop_sequence"], "requestMetadata": {"team": "a"}}
    assert normalize_request(served) == {k: v for k, v in served.items() if k not in ("requestMetadata", "messages")}
    defaults = {"serviceTier": {"type": "default"}, "performanceConfig": {"latency": "standard"},
                "guardrailConfig": {"guardrailIdentifier": "g", "guardrailVersion": "1", "streamProcessingMode": "sync"}}
    assert normalize_request(defaults) == {"guardrailConfig": {"guardrailIdentifier": "g", "guardrailVersion": "1"}}


def test_response_field_paths_a_library_adds_on_its_own_compare_as_asked_and_a_dropped_one_does_not():
    from harness.judge.compare import diff_request
    from harness.judge.normalize_request import paired

    key = "additionalModelResponseFieldPaths"
    plain, asked = {"messages": []}, {"messages": [], key: ["/stop_sequence"]}
    extra = {"messages": [], key: ["/delta/stop_sequence"]}  # what the AI SDK sends on every call
    assert diff_request(plain, paired(plain, extra)) is None
    assert diff_request(asked, paired(asked, {**asked, key: ["/delta/stop_sequence", "/stop_sequence"]})) is None
    dropped = diff_request(asked, paired(asked, extra))
    assert dropped is not None and key in " ".join(dropped.changes)
    assert diff_request(asked, paired(asked, plain)) is not None
