"""Grades (harness/judge/grade.py): a finding fails on evidence and is a warning where only a judgement
supports it; each judgement's counterfactual, and how a whole turn is graded."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.judge.compare import Diff
from harness.judge.grade import FORM_ONLY
from harness.judge.grade import DECLARED, JUDGEMENTS, Context, applicable, grade_turn, vocabulary_of
from harness.judge.normalize import ALL
from harness.suite.results import TurnResult, verdict

EVERYWHERE = applicable(())


def graded(diff: Diff, ctx: Context) -> TurnResult:
    return grade_turn(TurnResult(0, (diff,)), ctx)


def chunks_diff() -> Diff:
    return Diff("chunks", ("turn 0 chunk 1 (stop): expected reason 'guardrail_intervened' / actual ...",))


STOP = {"type": "stop", "reason": "guardrail_intervened"}
TEXT = {"type": "text", "text": "Sure."}


GUARDRAIL = {"guardrail-as-content-filter": "FinishReason = Literal['stop', 'content_filter']"}
RAISED = [{"type": "error", "code": "adapter_exception", "message": "RateLimitError: Bedrock throttlingException"}]


@pytest.mark.parametrize("expected, actual, judgement, extra", [
    ([TEXT, STOP], [TEXT, {**STOP, "reason": "content_filtered"}], "guardrail-as-content-filter",
     {"vocabulary": GUARDRAIL}),
    ([TEXT, {"type": "error", "code": "throttlingException"}], [TEXT, {"type": "error", "code": "adapter_error"}],
     "error-vocabulary", {"chunks": RAISED}),
    ([TEXT], [TEXT, {"type": "usage", "input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0,
                     "cache_write_input_tokens": 0}], "zero-usage-is-none", {}),
])
def test_a_chunk_difference_resting_on_a_judgement_is_a_warning_naming_it(expected, actual, judgement, extra):
    result = graded(chunks_diff(), Context(EVERYWHERE, expected_chunks=expected, actual_chunks=actual, **extra))
    assert result.ok and len(result.warnings) == 1
    assert result.warnings[0].reason.startswith(f"judgement {judgement}: ")
    assert verdict([result])[0] == "warn"


def test_a_declared_judgement_cites_the_library_and_without_a_citation_the_difference_fails():
    expected, actual = [TEXT, STOP], [TEXT, {**STOP, "reason": "content_filtered"}]
    cited = graded(chunks_diff(), Context(EVERYWHERE, expected_chunks=expected, actual_chunks=actual,
                                          vocabulary=GUARDRAIL))
    assert cited.warnings[0].reason.endswith("the library declares FinishReason = Literal['stop', 'content_filter'])")
    uncited = graded(chunks_diff(), Context(EVERYWHERE, expected_chunks=expected, actual_chunks=actual))
    assert not uncited.ok and not uncited.warnings
    assert uncited.diffs[0].changes[-1] == (
        "not excused by judgement guardrail-as-content-filter: it applies only where the adapter cites its library's "
        "own type that cannot hold it (vocabulary), and none is cited, so the stream is the evidence")


@pytest.mark.parametrize("expected, actual, chunks", [
    ([TEXT, STOP], [TEXT, {**STOP, "reason": "end_turn"}], []),  # a stop reason the stream never said
    ([TEXT, {"type": "error", "code": "throttlingException"}], [TEXT], []),  # Bedrock's error lost
    ([TEXT], [TEXT, {"type": "usage", "input_tokens": 3, "output_tokens": 0}], []),  # usage invented
    ([TEXT, {"type": "error", "code": "adapter_error"}], [TEXT, {"type": "stop", "reason": "end_turn"}], []),
    ([TEXT, {"type": "error", "code": "adapter_error"}], [TEXT], []),  # a cut stream surfaced as a complete answer
    # Bedrock's code replaced by a generic error whose text names no code: the application cannot tell throttling
    ([TEXT, {"type": "error", "code": "throttlingException"}], [TEXT, {"type": "error", "code": "adapter_error"}],
     [{"type": "error", "code": "adapter_exception", "message": "Error: Too many requests, please wait"}]),
])
def test_a_difference_the_stream_is_evidence_for_stays_a_failure(expected, actual, chunks):
    result = graded(chunks_diff(), Context(EVERYWHERE, expected_chunks=expected, actual_chunks=actual, chunks=chunks))
    assert not result.ok and not result.warnings and verdict([result])[0] == "fail"


def test_a_throttled_request_not_retried_is_a_warning_only_where_the_scenario_names_the_judgement():
    expected = [{"type": "tool_call", "id": "t", "name": "f", "input": {}}, {"type": "stop", "reason": "tool_use"}]
    raw = [{"type": "error", "code": "ThrottlingException", "message": "Rate exceeded"}]
    actual = [{"type": "error", "code": "ThrottlingException"}]
    named = Context(applicable(("retry-throttled-request",)), expected_chunks=expected, actual_chunks=actual,
                    chunks=raw)
    assert graded(chunks_diff(), named).warnings[0].reason.startswith("judgement retry-throttled-request")
    assert not graded(chunks_diff(), Context(EVERYWHERE, expected_chunks=expected, actual_chunks=actual,
                                             chunks=raw)).ok


def request_diff() -> Diff:
    return Diff("request", ("turn 1 request expected ...",))


ASSISTANT = {"role": "assistant", "content": [
    {"reasoningContent": {"reasoningText": {"text": "I call get_weather."}}}, {"text": "Checking."},
    {"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": {"city": "Paris"}}}]}
USER = {"role": "user", "content": [{"text": "Rain?"}]}
RESULT = {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "rain"}]}}]}


def request(*messages, **extra) -> dict:
    return {"messages": [USER, *messages, RESULT], **extra}


@pytest.mark.parametrize("actual, judgement", [
    (request({"role": "assistant", "content": ASSISTANT["content"][1:]}), "unsigned-reasoning-sent-back"),
    (request({"role": "assistant", "content": [{"text": "<think>\nI call get_weather.\n</think>"},
                                               *ASSISTANT["content"][1:]]}), "unsigned-reasoning-sent-back"),
    (request({"role": "assistant", "content": [ASSISTANT["content"][0], {"text": "."}, *ASSISTANT["content"][1:]]}),
     "no-placeholder-text"),
])
def test_a_request_difference_resting_on_a_judgement_is_a_warning(actual, judgement):
    ctx = Context(EVERYWHERE, expected_request=request(ASSISTANT), actual_request=actual)
    result = graded(request_diff(), ctx)
    assert result.ok and judgement in result.warnings[0].reason


@pytest.mark.parametrize("thought, ok", [
    ("<think>\nI call get_weather.\n</think>", True),  # pydantic-ai's to Kimi
    ("<thinking>\nI call get_weather.\n</thinking>", True),  # pydantic-ai 1.x's
    ("<thinking>I call get_weather.</thinking> Checking the weather.", False),  # words beyond the thought
    ("I call get_weather.", False),
])
def test_unsigned_reasoning_sent_as_tagged_text_is_a_warning_where_the_golden_left_it_out(thought, ok):
    golden = request({"role": "assistant", "content": ASSISTANT["content"][1:]})
    actual = request({"role": "assistant", "content": [{"text": thought}, *ASSISTANT["content"][1:]]})
    result = graded(request_diff(), Context(EVERYWHERE, expected_request=golden, actual_request=actual))
    assert result.ok is ok
    if ok:
        assert "unsigned-reasoning-sent-back" in result.warnings[0].reason


def test_a_changed_argument_or_a_dropped_call_in_the_request_fails():
    changed = {"role": "assistant", "content": [*ASSISTANT["content"][:2], {"toolUse": {
        "toolUseId": "t1", "name": "get_weather", "input": {"city": "Rome"}}}]}
    for actual in (request(changed), request({"role": "assistant", "content": ASSISTANT["content"][:2]})):
        assert not graded(request_diff(), Context(EVERYWHERE, expected_request=request(ASSISTANT),
                                                  actual_request=actual)).ok


def test_cache_points_placed_otherwise_fail_unless_the_library_declares_its_own_placement():
    """Where cache points go, and their TTL, is conversation content; only a library's cited declaration excuses it."""
    point = {"cachePoint": {"type": "default", "ttl": "1h"}}
    expected = {"messages": [USER, ASSISTANT, {"role": "user", "content": [*RESULT["content"], point]}]}
    inside = {"role": "user", "content": [{"toolResult": {**RESULT["content"][0]["toolResult"], "content": [
        {"text": "rain"}, point]}}]}
    moved = [{"messages": [USER, ASSISTANT, RESULT]},  # dropped, and of the default TTL (5m)
             {"messages": [USER, ASSISTANT, {"role": "user", "content": [*RESULT["content"], {"cachePoint": {
                 "type": "default"}}]}]}]
    for actual in moved:
        ctx = Context(EVERYWHERE, expected_request=expected, actual_request=actual)
        result = graded(request_diff(), ctx)
        assert not result.ok and "not excused by judgement cache-points-as-asked" in result.diffs[0].render()
        assert graded(request_diff(), replace(ctx, vocabulary={"cache-points-as-asked": "CacheConfig(auto)"})).ok
    # nested in the tool result, the result's own content differs: no declaration excuses that
    nested = Context(EVERYWHERE, expected_request=expected, actual_request={"messages": [USER, ASSISTANT, inside]},
                     vocabulary={"cache-points-as-asked": "CacheConfig(auto)"})
    assert not graded(request_diff(), nested).ok
    cited = replace(Context(EVERYWHERE, expected_request=expected, actual_request={"messages": [USER, ASSISTANT, RESULT]}),
                    vocabulary={"cache-points-as-asked": "the library places its own cache points"})
    assert graded(request_diff(), cited).warnings[0].reason.startswith("judgement cache-points-as-asked")


def test_status_is_a_warning_only_where_no_source_settles_the_family():
    expected = request(ASSISTANT)
    actual = {**expected, "messages": [USER, ASSISTANT, {"role": "user", "content": [{"toolResult": {
        **RESULT["content"][0]["toolResult"], "status": "error"}}]}]}
    unknown = Context(EVERYWHERE, expected_request=expected, actual_request=actual,
                      family_verdicts={"tool-result-status": "warn"})
    assert graded(request_diff(), unknown).warnings[0].reason.startswith("judgement status-where-unknown")
    claude = Context(EVERYWHERE, expected_request=expected, actual_request=actual,
                     family_verdicts={"tool-result-status": "accept"})
    reason = graded(request_diff(), claude).warnings[0].reason  # Claude takes the flag; the text still says it failed
    assert reason.startswith("judgement error-status-kept")


def results(*items) -> dict:
    return {"messages": [USER, ASSISTANT, {"role": "user", "content": [{"toolResult": {
        "toolUseId": "t1", "content": list(items)}}]}]}


def test_an_object_result_sent_as_its_json_text_is_a_warning_a_changed_value_fails():
    ctx = Context(EVERYWHERE, expected_request=results({"json": {"lines": 42}}))
    ctx.actual_request = results({"text": '{"lines":42}'})
    assert graded(request_diff(), ctx).warnings[0].reason.startswith("judgement object-result-as-json")
    for changed in ('[{"lines": 42}]', '{"lines": 41}'):
        ctx.actual_request = results({"text": changed})
        assert not graded(request_diff(), ctx).ok
    # A scalar as json is the same value in another form: Bedrock's rejection of it (rule 26) is the failure.
    ctx = Context(EVERYWHERE, expected_request=results({"text": "310"}), actual_request=results({"json": 310}))
    assert graded(request_diff(), ctx).warnings[0].reason == FORM_ONLY
    rejected = TurnResult(0, (request_diff(),), request_problems=("The format of the value at messages.2.content.0."
                                                                  "toolResult.content.0.json is invalid.",))
    assert not grade_turn(rejected, ctx).ok


def test_an_array_result_sent_as_text_blocks_is_a_warning_naming_the_difference():
    """pydantic-ai's content_items: ["a.txt", "b.txt"] goes as two text blocks; no rule or evidence says Bedrock must
    be sent the array as one value, and the model reads the same items."""
    ctx = Context(EVERYWHERE, expected_request=results({"text": '["a.txt", "b.txt"]'}),
                  actual_request=results({"text": "a.txt"}, {"text": "b.txt"}))
    result = graded(request_diff(), ctx)
    assert result.ok and result.warnings[0].reason == FORM_ONLY
    assert result.warnings[0].finding == request_diff().render()
    for changed in (results({"text": "a.txt"}), results({"text": "a.txt"}, {"text": "c.txt"})):
        ctx.actual_request = changed  # an item lost or changed: other content
        assert not graded(request_diff(), ctx).ok


def test_parallel_results_in_another_order_are_a_warning_a_result_paired_with_another_call_fails():
    calls = {"role": "assistant", "content": [{"toolUse": {"toolUseId": i, "name": "f", "input": {}}}
                                              for i in ("t1", "t2")]}

    def answered(*pairs) -> dict:
        return {"messages": [USER, calls, {"role": "user", "content": [
            {"toolResult": {"toolUseId": i, "content": [{"text": t}]}} for i, t in pairs]}]}
    ctx = Context(EVERYWHERE, expected_request=answered(("t1", "a"), ("t2", "b")),
                  actual_request=answered(("t2", "b"), ("t1", "a")))
    assert graded(request_diff(), ctx).warnings[0].reason == FORM_ONLY
    ctx.actual_request = answered(("t1", "b"), ("t2", "a"))
    assert not graded(request_diff(), ctx).ok


def test_a_reply_split_into_two_messages_is_a_warning_where_no_rule_rejects_it():
    split = [{"role": "assistant", "content": ASSISTANT["content"][:2]},
             {"role": "assistant", "content": ASSISTANT["content"][2:]}]
    ctx = Context(EVERYWHERE, expected_request=request(ASSISTANT), actual_request=request(*split))
    assert graded(request_diff(), ctx).warnings[0].reason == FORM_ONLY


def test_a_form_difference_beside_one_a_judgement_excuses_names_both():
    ctx = Context(EVERYWHERE, expected_request=results({"json": {"lines": 42}}, {"text": '["a", "b"]'}),
                  actual_request=results({"text": '{"lines":42}'}, {"text": "a"}, {"text": "b"}))
    reason = graded(request_diff(), ctx).warnings[0].reason
    assert reason.startswith(FORM_ONLY + "; judgement object-result-as-json: ")


def test_an_error_text_wrapped_in_an_error_object_is_a_warning_a_changed_text_fails():
    ctx = Context(EVERYWHERE, expected_request=results({"text": "Error: gone"}))
    ctx.actual_request = results({"text": '{"error":"Error: gone"}'})
    assert graded(request_diff(), ctx).warnings[0].reason.startswith("judgement error-text-unwrapped")
    for changed in ('{"error":"Error: here"}', '{"error":"Error: gone","retry":true}', "Error: gone\n\nFix it."):
        ctx.actual_request = results({"text": changed})
        assert not graded(request_diff(), ctx).ok


def test_an_object_result_sent_as_its_json_text_is_a_warning_a_changed_value_or_a_bare_number_as_json_fails():
    def results(*parts) -> dict:
        return {"messages": [USER, ASSISTANT, {"role": "user", "content": [{"toolResult": {
            "toolUseId": "t1", "content": list(parts)}}]}]}
    expected = results({"json": {"lines": 42}}, {"text": "310"})
    ctx = Context(EVERYWHERE, expected_request=expected, actual_request=results({"text": '{"lines": 42}'},
                                                                                {"text": "310"}))
    assert graded(request_diff(), ctx).warnings[0].reason.startswith("judgement object-result-as-json")
    ctx.actual_request = results({"text": '{"lines": 43}'}, {"text": "310"})
    assert not graded(request_diff(), ctx).ok


def tools(schema: dict) -> dict:
    return {"toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": schema}}}]}}


def test_schema_descriptions_added_are_a_warning_a_changed_type_fails():
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    described = {"type": "object", "properties": {"path": {"type": "string", "description": "Property path"}}}
    retyped = {"type": "object", "properties": {"path": {"type": "integer"}}}
    ctx = Context(EVERYWHERE, expected_request=request(ASSISTANT, **tools(schema)))
    ctx.actual_request = request(ASSISTANT, **tools(described))
    assert graded(request_diff(), ctx).warnings[0].reason.startswith("judgement schema-unchanged")
    ctx.actual_request = request(ASSISTANT, **tools(retyped))
    assert not graded(request_diff(), ctx).ok


STREAMED = [{"type": "tool_call", "index": 0, "id": "t1", "name": "read", "input_delta": '{"path": "/a"}'},
            {"type": "stop", "reason": "tool_use"}]


def assembled_chunks(input_value, stop="tool_use"):
    return [STREAMED[0], {"type": "stop", "reason": stop},
            {"type": "message", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "read", "input": input_value}]}}]


def assembled(input_value, stop="tool_use", vocabulary=None):
    return grade_turn(TurnResult(0, (Diff("assembled", ("turn 0 assembled message ...",)),)),
                      Context(EVERYWHERE, chunks=assembled_chunks(input_value, stop), capabilities=ALL,
                              vocabulary=vocabulary or {}))


TEXT_ARGUMENTS = {"arguments-as-object": "ToolCallPart.args: str | dict[str, Any] | None"}


def test_arguments_held_as_json_text_are_a_warning_where_the_library_types_them_so_garbled_ones_fail():
    warned = assembled('{"path": "/a"}', vocabulary=TEXT_ARGUMENTS)
    assert warned.ok and warned.warnings[0].reason.startswith("judgement arguments-as-object")
    assert "the library declares ToolCallPart.args: str | dict[str, Any] | None" in warned.warnings[0].reason
    assert not assembled('{"path": "/b"}', vocabulary=TEXT_ARGUMENTS).ok  # other arguments
    assert not assembled('{"path": "/a', vocabulary=TEXT_ARGUMENTS).ok  # partial JSON, and the stream ended well


def test_arguments_handed_over_as_text_where_no_library_type_holds_text_fail():
    result = assembled('{"path": "/a"}')
    assert not result.ok and not result.warnings
    assert result.diffs[0].changes[-1].startswith("not excused by judgement arguments-as-object: it applies only "
                                                  "where the adapter cites its library's own type")


def native(path, blocks):
    return {"type": "native", "path": path, "message": {"blocks": blocks}}


def test_an_empty_text_block_on_one_path_only_is_a_warning_other_parity_differences_fail():
    text = {"block_type": "text", "text": "Hi"}
    chunks = [native("stream", [{"block_type": "text", "text": ""}, text]), native("converse", [text])]
    result = grade_turn(TurnResult(0, (Diff("parity", ("turn 0 native ...",)),)), Context(EVERYWHERE, chunks=chunks))
    assert result.ok and result.warnings[0].reason.startswith("judgement no-empty-text-block")
    chunks = [native("stream", [{"block_type": "text", "text": "Hi!"}]), native("converse", [text])]
    assert not grade_turn(TurnResult(0, (Diff("parity", ("x",)),)), Context(EVERYWHERE, chunks=chunks)).ok


def test_a_cut_off_call_only_the_stream_holds_as_its_partial_text_is_a_warning_a_parsed_one_fails():
    text = {"block_type": "text", "text": "Reading."}
    cut = {"tool_name": "read", "args": '{"path": "/home/rev'}
    stop = {"type": "stop", "reason": "max_tokens"}
    chunks = [stop, native("stream", [text, cut]), native("converse", [text])]
    result = grade_turn(TurnResult(0, (Diff("parity", ("turn 0 native ...",)),)), Context(EVERYWHERE, chunks=chunks))
    assert result.ok and result.warnings[0].reason.startswith("judgement cut-call-on-both-paths")
    parsed = [stop, native("stream", [text, {"tool_name": "read", "args": {"path": "/home/rev"}}]),
              native("converse", [text])]
    assert not grade_turn(TurnResult(0, (Diff("parity", ("x",)),)), Context(EVERYWHERE, chunks=parsed)).ok
    ended = [{"type": "stop", "reason": "tool_use"}, *chunks[1:]]  # a complete stream: the difference stands
    assert not grade_turn(TurnResult(0, (Diff("parity", ("x",)),)), Context(EVERYWHERE, chunks=ended)).ok


def test_a_cut_off_call_held_the_openai_way_is_the_same_warning_and_a_message_holding_it_is_kept():
    """LiteLLM holds the cut-off call's partial text at ``function.arguments``, a field of a field of the call."""
    stop = {"type": "stop", "reason": "max_tokens"}
    call = {"id": "t", "type": "function", "function": {"name": "read", "arguments": '{"path": "/home/rev'}}
    streamed = {"type": "native", "path": "stream", "message": {"content": "Reading.", "tool_calls": [call]}}
    converse = {"type": "native", "path": "converse", "message": {"content": "Reading.", "tool_calls": None}}
    result = grade_turn(TurnResult(0, (Diff("parity", ("turn 0 native ...",)),)),
                        Context(EVERYWHERE, chunks=[stop, streamed, converse]))
    assert result.ok and result.warnings[0].reason.startswith("judgement cut-call-on-both-paths")
    other = {**converse, "message": {"content": "Reading!", "tool_calls": None}}  # the text differs too
    assert not grade_turn(TurnResult(0, (Diff("parity", ("x",)),)), Context(EVERYWHERE, chunks=[stop, streamed, other])).ok


def test_a_law_is_a_warning_only_where_a_scenario_names_its_judgement():
    law = 'openai_finish_reason: chunk 9 (openai_chunk) finishes with "stop" although tool calls were made'
    named = grade_turn(TurnResult(0, laws=(law,)), Context(applicable(("finish-reason-on-end-turn",))))
    assert named.ok and named.warnings[0].finding == law
    assert not grade_turn(TurnResult(0, laws=(law,)), Context(EVERYWHERE)).ok


def test_robustness_makes_a_finding_of_the_stream_a_warning_but_not_a_request_a_rule_rejects():
    turn = TurnResult(0, (chunks_diff(),), ("nothing_after_error: chunk 2",))
    result = grade_turn(turn, Context(EVERYWHERE, robustness="no recording shows it"), ("warning text-blank (...)",))
    assert result.ok and len(result.warnings) == 3
    assert {w.reason for w in result.warnings[1:]} == {"robustness: no recording shows it"}
    assert result.warnings[0].reason == "no evidence shows Bedrock rejecting this for the model's family"
    rejected = grade_turn(replace(turn, request_problems=("Expected toolResult blocks",)),
                          Context(EVERYWHERE, robustness="no recording shows it"))
    assert rejected.request_problems == ("Expected toolResult blocks",) and verdict([rejected])[0] == "fail"


def test_robustness_does_not_excuse_arguments_handed_over_as_text_where_no_library_type_holds_text():
    robust = {"robustness": "no recording shows it"}
    typed = grade_turn(TurnResult(0, (Diff("assembled", ("turn 0 assembled message ...",)),)),
                       Context(EVERYWHERE, chunks=assembled_chunks('{"path": "/a"}'), capabilities=ALL, **robust))
    assert not typed.ok and typed.diffs[0].changes[-1].startswith("not excused by judgement arguments-as-object")
    garbled = grade_turn(TurnResult(0, (Diff("assembled", ("turn 0 assembled message ...",)),)),
                         Context(EVERYWHERE, chunks=assembled_chunks('{"path": "/b"}'), capabilities=ALL, **robust))
    assert garbled.ok and garbled.warnings[0].reason == "robustness: no recording shows it"


@pytest.mark.parametrize("law", ["tool_call_ids_present: chunk 3 (tool_call) has an empty id",
                                 "tool_call_names_present: chunk 3 (tool_call) passes a call on without a name"])
def test_a_contract_law_fails_in_a_robustness_scenario_too(law):
    turn = TurnResult(0, (chunks_diff(),), (law, "tool_call_ids_stable: chunk 4"))
    result = grade_turn(turn, Context(EVERYWHERE, robustness="no recording shows it"))
    assert result.laws == (law,) and not result.diffs and verdict([result])[0] == "fail"
    assert [w.finding for w in result.warnings] == [chunks_diff().render(), "tool_call_ids_stable: chunk 4"]


def test_every_judgement_says_what_why_and_why_the_application_can_do_without_it():
    for judgement in JUDGEMENTS.values():
        assert judgement.says and judgement.reason and judgement.subject in ("chunks", "request", "assembled",
                                                                             "parity", "laws")
        assert judgement.application, judgement.id
        assert (judgement.step is not None) != bool(judgement.laws)
    assert "incomplete-stream-raises" not in JUDGEMENTS  # a cut stream surfaced as complete: the stream says so
    assert {j.id for j in JUDGEMENTS.values() if j.declared} == set(DECLARED) == {"guardrail-as-content-filter", "cache-points-as-asked",
                                                                                  "arguments-as-object"}


def test_an_adapter_vocabulary_citing_no_declared_judgement_is_refused():
    class Adapter:
        vocabulary = {"zero-usage-is-none": "Usage | None"}

    with pytest.raises(ValueError, match="cites 'zero-usage-is-none', which is no declared judgement"):
        vocabulary_of(Adapter())
    Adapter.vocabulary = dict(GUARDRAIL)
    assert vocabulary_of(Adapter()) == GUARDRAIL and vocabulary_of(object()) == {}


@pytest.mark.parametrize("content", [True, 3, "text", {"text": "hi"}])
def test_a_golden_request_of_any_shape_is_graded_without_a_crash(content):
    """Found by tests/test_agreement.py: a hand-edited golden whose message content is a bool made a request step
    raise; whatever the golden holds, grading gives a verdict."""
    body = {"messages": [{"role": "user", "content": content}]}
    ctx = Context(EVERYWHERE, expected_request=body, actual_request=results({"text": "x"}))
    assert not graded(request_diff(), ctx).ok
    ctx = Context(EVERYWHERE, expected_request={"messages": True}, actual_request=results({"text": "x"}))
    assert not graded(request_diff(), ctx).ok


def test_the_judgements_a_scenario_may_name_are_the_registry_s_that_do_not_apply_everywhere():
    from harness.judge.judgement_ids import SCENARIO_JUDGEMENTS

    assert SCENARIO_JUDGEMENTS == tuple(sorted(j.id for j in JUDGEMENTS.values() if not j.everywhere))
