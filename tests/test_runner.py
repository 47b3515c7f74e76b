"""The runner's own decisions: exceptions as findings, capability skips, broken inputs as error results, conversation
mode, and runs cut short that keep their earlier turns' findings."""

import copy
import shutil
from pathlib import Path

import pytest
import yaml

from harness.adapters.deadline import with_deadline
from harness import report
from broken_adapters import Variant
from harness.converse import ConverseAdapter
from harness.converse.request import build_request
from harness.converse.stream import error_chunk
from harness.suite.golden import load_golden
from harness.judge.protocol import AdapterFailure
from harness.suite.runner import ADAPTER_EXCEPTION, NO_REQUEST, project_root, run_scenario, stream_turn
from harness.suite.scenario import discover

REPO = Path(__file__).resolve().parents[1]
BY_ID = {s.id: s for s in discover(REPO / "suites")}


class Raising(ConverseAdapter):
    """Raises before yielding anything: an adapter bug, judged against the golden like any output."""

    name = "raising"

    def stream(self, turn, endpoint=None):
        raise RuntimeError("boom while parsing")
        yield  # pragma: no cover


class TextOnly(ConverseAdapter):
    name = "text-only"
    capabilities = frozenset({"text", "stop_reason", "usage", "streaming"})


class Yields:
    """Yields whatever its list holds: chunks, and things that are not chunks."""

    name, version, capabilities = "yields", "1", frozenset({"text", "stop_reason", "usage", "streaming"})

    def __init__(self, *chunks):
        self.chunks = chunks

    def stream(self, turn, endpoint=None):
        yield from self.chunks


def _parse(text):
    return _deep(text)


def _deep(text):
    raise ValueError(f"cannot parse {text!r}")


class RaisingDeep(ConverseAdapter):
    """Raises three calls down: the traceback tail shows where."""

    name = "raising-deep"

    def stream(self, turn, endpoint=None):
        yield {"type": "text", "text": "partial"}
        _parse("{")


def test_an_exception_from_the_adapter_closes_the_turn_as_an_error_chunk_with_its_traceback_tail():
    (chunk,) = stream_turn(Raising(), {"messages": []}, {})
    assert {k: chunk[k] for k in ("type", "code", "message")} == {
        "type": "error", "code": ADAPTER_EXCEPTION, "message": "RuntimeError: boom while parsing"}
    assert chunk["traceback"] == (f'  File "{__file__}", line {Raising.stream.__code__.co_firstlineno + 1}, in stream\n'
                                  '    raise RuntimeError("boom while parsing")')


def test_the_traceback_tail_keeps_the_innermost_frames_and_none_of_the_runners():
    *_, chunk = stream_turn(RaisingDeep(), {"messages": []}, {})
    frames = [line.split(", in ")[-1] for line in chunk["traceback"].splitlines() if line.startswith("  File ")]
    assert frames == ["stream", "_parse", "_deep"] and "suite/runner.py" not in chunk["traceback"]


def test_the_per_turn_timeouts_worker_is_left_out_of_the_traceback_tail():
    *_, chunk = stream_turn(with_deadline(RaisingDeep(), 30), {"messages": []}, {})
    frames = [line.split(", in ")[-1] for line in chunk["traceback"].splitlines() if line.startswith("  File ")]
    assert frames == ["stream", "_parse", "_deep"] and "deadline.py" not in chunk["traceback"]


def test_a_raising_adapter_fails_and_the_report_shows_its_error_text_and_traceback():
    result = run_scenario(BY_ID["core/smoke-text"], RaisingDeep(), REPO)
    assert result.status == "fail"
    text = report.render_text([result])
    assert "core/smoke-text turn 0 chunk 0 (text" in text
    assert "adapter error adapter_exception: ValueError: cannot parse '{'" in text
    assert "Traceback (innermost frames last):" in text and ", in _deep\n" in text
    assert "raise ValueError(f\"cannot parse {text!r}\")" in text


class Catching(ConverseAdapter):
    """A shim's way: catches what the library raised and yields it as the turn's error chunk."""

    name = "catching"

    def stream(self, turn, endpoint=None):
        try:
            {}["parameters"]
        except KeyError as exc:
            yield error_chunk(exc)


def test_an_exception_a_shim_catches_shows_its_exact_class_name_and_its_traceback_in_the_report():
    result = run_scenario(BY_ID["core/smoke-text"], Catching(), REPO)
    text = report.render_text([result])
    assert "adapter error KeyError: 'parameters'" in text and "keyError" not in text
    assert "Traceback (innermost frames last):" in text and ', in stream\n        {}["parameters"]' in text


class BlankText(Variant):
    """Sends a blank text block, which Bedrock rejects (400) before anything streams."""

    name = "blank-text"

    def request(self, turn):
        request = build_request(turn)
        request["messages"][0]["content"] = [{"text": ""}]
        return request


def test_a_rejected_request_is_the_finding_and_no_text_finding_follows_it():
    result = run_scenario(BY_ID["core/smoke-text"], BlankText(), REPO)
    (turn,) = result.turns
    assert result.status == "fail" and turn.request_problems[0].startswith("The text field in the ContentBlock")
    assert turn.laws == () and "incremental_text" not in report.render_text([result])


@pytest.mark.parametrize("chunk, what, shown", [
    ("hello", "'hello' is not of type 'object' (schema chunk, type)", "'hello'"),
    (["text", "hi"], "['text', 'hi'] is not of type 'object' (schema chunk, type)", "['text', 'hi']"),
    ({"text": "hi"}, "'type' is a required property (schema chunk, required)", "{'text': 'hi'}"),
    ("x" * 5000, "is not of type 'object' (schema chunk, type)", "'" + "x" * 99 + "... (5002 characters)"),
])
def test_a_chunk_that_is_not_a_chunk_is_a_protocol_error_naming_it(chunk, what, shown):
    adapter = Yields({"type": "text", "text": "fine"}, chunk)
    with pytest.raises(AdapterFailure) as error:
        stream_turn(adapter, {"messages": []}, {}, index=1)
    message = str(error.value)
    assert message.startswith("adapter protocol error: turn 1 chunk 1: ") and what in message
    assert message.endswith(": " + shown) and "dictionary update sequence" not in message and len(message) < 1000
    result = run_scenario(BY_ID["core/smoke-text"], adapter, REPO)
    assert result.status == "error" and result.reason.startswith("adapter protocol error: turn 0 chunk 1: ")


@pytest.mark.parametrize("chunk, what", [
    ({"type": "error", "code": ["x"], "message": "m"}, "(error): code: ['x'] is not of type 'string', 'number', "
                                                       "'null' (schema chunk, $defs/error/properties/code/type)"),
    ({"type": "text", "text": ["Hi"]}, "(text): text: ['Hi'] is not of type 'string', 'null' (schema chunk, "
                                       "$defs/text/properties/text/type)"),
    ({"type": "reasoning", "text": 5}, "(reasoning): text: 5 is not of type 'string', 'null' (schema chunk, "
                                       "$defs/reasoning/properties/text/type)"),
    ({"type": "tool_call", "id": ["t"], "name": "f", "input_delta": ""}, "(tool_call): id: ['t'] is not of type "),
    ({"type": "tool_call", "id": "t", "name": "f", "input_delta": {"a": 1}}, "(tool_call): input_delta: {'a': 1} is "
                                                                             "not of type 'string', 'null'"),
    ({"type": "tool_call", "index": [0], "name": "f", "input_delta": ""}, "(tool_call): index: [0] is not of type "),
    ({"type": "tool_call", "id": "t", "name": ["f"], "input_delta": ""}, "(tool_call): name: ['f'] is not of type "
                                                                          "'string', 'null' (schema chunk, "
                                                                          "$defs/tool_call/properties/name/type)"),
    ({"type": "usage", "input_tokens": "x", "output_tokens": 1},
     "(usage): input_tokens: 'x' is not of type 'integer', 'null' (schema chunk, "
     "$defs/usage/properties/input_tokens/type)"),
    ({"type": "signature", "signature": "SIG"}, ": type: 'signature' is not one of ['text', 'reasoning', "),
])
def test_a_chunk_the_schema_refuses_is_a_protocol_error_naming_the_field_and_rule(chunk, what):
    """A field the schema types otherwise (a subprocess adapter sends any JSON): the scenario's error naming the
    chunk, the field and the schema rule, never a TypeError out of the harness or a bare one as the reason."""
    adapter = Yields({"type": "text", "text": "fine"}, chunk)
    with pytest.raises(AdapterFailure) as error:
        stream_turn(adapter, {"messages": []}, {}, index=1)
    assert str(error.value).startswith(f"adapter protocol error: turn 1 chunk 1 {what}".replace(" :", ":"))
    result = run_scenario(BY_ID["core/smoke-text"], adapter, REPO)
    assert result.status == "error"
    assert result.reason.startswith(f"adapter protocol error: turn 0 chunk 1 {what}".replace(" :", ":"))


def test_a_signature_sent_as_a_chunk_type_is_refused_naming_the_reasoning_shape():
    """The issue's example: {"type": "signature"} once passed the protocol check and failed as 'unexpected'."""
    adapter = Yields({"type": "reasoning", "text": "hmm"}, {"type": "signature", "signature": "SIG"})
    with pytest.raises(AdapterFailure) as error:
        stream_turn(adapter, {"messages": []}, {})
    assert ('signature is a field of the reasoning chunk, not a chunk type: {"type": "reasoning", "index": 0, '
            '"signature": ') in str(error.value)


def test_a_chunk_field_of_another_scalar_type_is_still_judged_by_the_diff():
    adapter = Yields({"type": "text", "text": "Hello there, friend!", "index": "0"}, {"type": "error", "code": 5})
    result = run_scenario(BY_ID["core/smoke-text"], adapter, REPO)
    assert result.status == "fail" and "chunk 1 (stop): missing; expected stop" in result.reason


def test_a_passing_turn_carries_no_adapter_error_note():
    """The reference raises on a toolUse without toolUseId, which is what the golden expects."""
    result = run_scenario(BY_ID["faults/missing-tool-use-id"], ConverseAdapter(), REPO)
    assert result.status == "pass" and all(not t.diffs for t in result.turns)


def test_a_missing_capability_is_a_skip_naming_it():
    result = run_scenario(BY_ID["core/parallel-calls"], TextOnly(), REPO)
    assert (result.status, result.reason) == ("skip", "adapter lacks parallel_tool_use, tool_use")


def test_a_corrupt_cassette_is_an_error_result_not_a_crash(tmp_path):
    scenario = BY_ID["core/smoke-text"]
    (tmp_path / "cassettes" / "core").mkdir(parents=True)
    (tmp_path / "cassettes" / "core" / "smoke-text.yaml").write_text("interactions: [\n")
    result = run_scenario(scenario, ConverseAdapter(), tmp_path)
    assert result.status == "error"
    assert "smoke-text.yaml" in result.reason and "\n" not in result.reason


def test_project_root_prefers_a_working_directory_with_suites(tmp_path):
    (tmp_path / "suites").mkdir()
    assert project_root(tmp_path) == tmp_path
    assert project_root(tmp_path / "elsewhere") == REPO


# ---- conversation mode: the adapter owns its history -------------------------------------------------------

class Recording(ConverseAdapter):
    """The reference in conversation mode, keeping the turns the runner handed it."""

    name = "recording"

    def __init__(self, rename=None):
        super().__init__(conversation=True)
        self.given, self.rename = [], rename or {}

    def stream(self, turn, endpoint=None):
        self.given.append(copy.deepcopy(turn))
        for chunk in super().stream(turn, endpoint):
            yield {**chunk, "id": self.rename.get(chunk["id"], chunk["id"])} if "id" in chunk else chunk


def test_an_own_history_adapter_gets_the_opening_messages_then_only_what_is_new():
    adapter = Recording()
    result = run_scenario(BY_ID["core/round-trip"], adapter, REPO)
    assert result.status == "pass", result.reason
    first, second = adapter.given
    assert first["messages"] == [{"role": "user", "content": "What is in /tmp/test.txt?"}]
    assert first["conversation"] == second["conversation"] == "core/round-trip"
    (call_id,) = [c["id"] for c in load_golden(BY_ID["core/round-trip"])[0]["chunks"] if c["type"] == "tool_call"]
    assert second["messages"] == [{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": call_id, "content": "Hello, this is the file content.", "is_error": False}]}]
    assert {k: v for k, v in second.items() if k != "messages"} == {k: v for k, v in first.items() if k != "messages"}


def test_tool_results_carry_the_ids_the_adapter_reported():
    sid = "core/round-trip"
    (call_id,) = [c["id"] for c in load_golden(BY_ID[sid])[0]["chunks"] if c["type"] == "tool_call"]
    adapter = Recording(rename={call_id: "renamed-id"})
    result = run_scenario(BY_ID[sid], adapter, REPO)
    assert adapter.given[1]["messages"][0]["content"][0]["tool_use_id"] == "renamed-id"
    assert result.status == "fail" and result.reason.startswith(f"{sid} turn 0 chunk 0 (tool_call): expected id")


def test_a_stateless_adapter_still_gets_the_whole_history():
    given = []

    class Stateless(ConverseAdapter):
        def stream(self, turn, endpoint=None):
            given.append(turn)
            yield from super().stream(turn, endpoint)
    assert run_scenario(BY_ID["core/round-trip"], Stateless(), REPO).status == "pass"
    assert [m["role"] for m in given[1]["messages"]] == ["user", "assistant", "user"]
    assert given[1]["conversation"] == "core/round-trip"


# ---- a run cut short keeps the findings of the turns before ------------------------------------------------

class MisnamedCall(ConverseAdapter):
    """Reports its tool call under a name the scenario has no tool-result template for."""

    name = "misnamed-call"

    def __init__(self, conversation=False, wrong="read_fil"):
        super().__init__(conversation=conversation)
        self.wrong = wrong

    def stream(self, turn, endpoint=None):
        for chunk in super().stream(turn, endpoint):
            yield {**chunk, "name": self.wrong} if chunk.get("name") else chunk


@pytest.mark.parametrize("wrong, shown", [("read_fil", "'read_fil'")])
@pytest.mark.parametrize("conversation", [False, True])
def test_a_next_turn_that_cannot_be_built_keeps_the_first_turns_diff(conversation, wrong, shown):
    adapter = MisnamedCall(conversation=conversation, wrong=wrong)
    result = run_scenario(BY_ID["core/round-trip"], adapter, REPO)
    assert result.status == "fail" and len(result.turns) == 1
    assert result.reason == f"core/round-trip turn 0 chunk 0 (tool_call): expected name 'read_file' / actual {shown}"
    text = report.render_text([result])
    assert "core/round-trip turn 1 cannot be built: " in text and f"no template for tool {wrong!r}" in text


def test_a_broken_scenario_after_a_clean_turn_is_an_error_with_that_turn_judged(tmp_path):
    scenario = BY_ID["core/round-trip"]
    for part in ("suites", "cassettes"):
        (tmp_path / part / "core").mkdir(parents=True)
    shutil.copy(REPO / "cassettes" / "core" / "round-trip.yaml", tmp_path / "cassettes" / "core")
    shutil.copy(REPO / "suites" / "core" / "round-trip.golden.yaml", tmp_path / "suites" / "core")
    data = yaml.safe_load(scenario.path.read_text())
    del data["turns"][0]["tool_results"]
    (tmp_path / "suites" / "core" / "round-trip.yaml").write_text(yaml.safe_dump(data))
    (broken,) = discover(tmp_path / "suites")
    result = run_scenario(broken, ConverseAdapter(conversation=True), tmp_path)
    assert result.status == "error" and result.reason.startswith("turn 1 cannot be built: ")
    assert "turns[0].tool_results: no template for tool 'read_file'" in result.reason
    assert [t.index for t in result.turns] == [0] and result.turns[0].diffs[0].subject == "turns"


class BreaksOnTurnOne(ConverseAdapter):
    """Answers turn 0 wrongly, then breaks itself (a crashed subprocess) on turn 1."""

    name = "breaks-on-turn-one"

    def stream(self, turn, endpoint=None):
        if len(turn["messages"]) > 1:
            raise AdapterFailure("subprocess adapter 'x' crashed: exited with code 1 during core/round-trip turn 1")
        yield from (c for c in super().stream(turn, endpoint) if c["type"] != "usage")


def test_an_adapter_breaking_on_a_later_turn_keeps_the_earlier_turns_findings():
    result = run_scenario(BY_ID["core/round-trip"], BreaksOnTurnOne(), REPO)
    assert result.status == "error" and result.reason.startswith("turn 1: subprocess adapter 'x' crashed")
    assert len(result.turns) == 1 and "turn 0 chunk 2 (usage): missing" in result.turns[0].chunk_text()


class NoFollowUp(ConverseAdapter):
    """An agent that answers the tool results itself, without asking the model again."""

    name = "no-follow-up"

    def stream(self, turn, endpoint=None):
        if len(turn["messages"]) > 1:
            yield {"type": "text", "text": "The file holds: Hello, this is the file content."}
            return
        yield from super().stream(turn, endpoint)


def test_a_turn_that_never_reaches_the_endpoint_says_so():
    result = run_scenario(BY_ID["core/round-trip"], NoFollowUp(), REPO)
    assert result.status == "fail" and result.reason == f"core/round-trip turn 1 {NO_REQUEST}"
    assert result.turns[1].request_texts() == [f"core/round-trip turn 1 {NO_REQUEST}"]


# ---- the usage convention ------------------------------------------------------------------------------------

class CacheInInputTokens(ConverseAdapter):
    """Reports input_tokens including cache reads and writes (as some libraries do); ``drop`` loses the counts."""

    name = "cache-in-input-tokens"

    def __init__(self, declares=True, drop=False):
        super().__init__()
        self.capabilities = self.capabilities | ({"usage_input_includes_cache"} if declares else set())
        self.drop = drop

    def stream(self, turn, endpoint=None):
        for chunk in super().stream(turn, endpoint):
            if chunk["type"] == "usage":
                cache = chunk["cache_read_input_tokens"] + chunk["cache_write_input_tokens"]
                chunk = {**chunk, "input_tokens": chunk["input_tokens"] + cache}
                chunk.update({"cache_read_input_tokens": 0, "cache_write_input_tokens": 0} if self.drop else {})
            yield chunk


@pytest.mark.parametrize("declares, drop, status", [(True, False, "pass"), (False, False, "fail"), (True, True, "fail")])
def test_both_usage_conventions_pass_when_the_cache_counts_are_right(declares, drop, status):
    result = run_scenario(BY_ID["edge/cache-usage"], CacheInInputTokens(declares, drop), REPO)
    assert result.status == status, result.reason
    if status == "fail":
        assert "(usage): expected " in result.reason


# ---- a stop reason the scenario accepts besides the golden's ---------------------------------------------------

class RewritesEndTurn(ConverseAdapter):
    """Reports ``end_turn`` as ``reason`` whenever the turn made calls (as strands does with ``tool_use``)."""

    name = "rewrites-end-turn"

    def __init__(self, reason):
        super().__init__()
        self.reason = reason

    def stream(self, turn, endpoint=None):
        chunks = list(super().stream(turn, endpoint))
        called = any(c["type"] == "tool_call" for c in chunks)
        yield from ({**c, "reason": self.reason} if c["type"] == "stop" and called else c for c in chunks)


def test_end_turn_with_tool_use_accepts_tool_use_but_no_other_rewrite():
    scenario = BY_ID["edge/end-turn-with-tool-use"]
    assert scenario.turns[0].accepted_stop_reasons == ("tool_use",)
    assert run_scenario(scenario, RewritesEndTurn("tool_use"), REPO).status == "pass"
    wrong = run_scenario(scenario, RewritesEndTurn("stop_sequence"), REPO)
    assert wrong.reason == ("edge/end-turn-with-tool-use turn 0 chunk 2 (stop): expected reason 'end_turn' / "
                            "actual 'stop_sequence'")


class FoldsGuardrail(CacheInInputTokens):
    """Reports guardrail_intervened as content_filtered (the OpenAI vocabulary's one filter reason), its input_tokens
    including the cache counts (declared)."""

    name = "folds-guardrail"
    vocabulary = {"guardrail-as-content-filter": "finish_reason: Literal['stop', 'length', 'content_filter']"}

    def stream(self, turn, endpoint=None):
        for chunk in super().stream(turn, endpoint):
            yield {**chunk, "reason": "content_filtered"} if chunk.get("reason") == "guardrail_intervened" else chunk


@pytest.mark.parametrize("sid", ["edge/guardrail-intervened", "edge/guardrail-trace"])
def test_a_judgement_grades_the_chunks_as_the_golden_diff_read_them(sid):
    """The judgement sees the normalized chunks (text deltas joined, usage in Bedrock's convention), not the raw
    stream, so a difference it covers is a warning however the adapter split its text."""
    result = run_scenario(BY_ID[sid], FoldsGuardrail(), REPO)
    assert result.status == "warn", report.render_text([result])
    (warned,) = result.turns[0].warnings
    assert "expected reason 'guardrail_intervened' / actual 'content_filtered'" in warned.finding
    assert warned.reason.startswith("judgement guardrail-as-content-filter")
    assert warned.reason.endswith("the library declares finish_reason: Literal['stop', 'length', 'content_filter'])")


def test_a_guardrail_reported_as_a_content_filter_fails_where_the_adapter_cites_no_vocabulary_without_one():
    adapter = FoldsGuardrail()
    adapter.vocabulary = {}
    result = run_scenario(BY_ID["edge/guardrail-intervened"], adapter, REPO)
    assert result.status == "fail" and not result.warnings
    assert "not excused by judgement guardrail-as-content-filter" in report.render_text([result])


def test_an_adapter_vocabulary_citing_an_unknown_judgement_is_every_scenario_s_error():
    adapter = FoldsGuardrail()
    adapter.vocabulary = {"no-such-judgement": "x"}
    result = run_scenario(BY_ID["core/smoke-text"], adapter, REPO)
    assert (result.status, result.reason) == ("error", "adapter vocabulary cites 'no-such-judgement', which is no "
                                              "declared judgement (known: guardrail-as-content-filter, "
                                              "cache-points-as-asked, arguments-as-object)")


def test_the_same_scenario_twice_in_a_row_is_a_new_conversation_each_time():
    """record and certify --live retry a scenario with the same adapter: each attempt starts a fresh history."""
    adapter = Recording()
    first, second, third = (run_scenario(BY_ID["core/round-trip"], adapter, REPO) for _ in range(3))
    assert [r.status for r in (first, second, third)] == ["pass"] * 3
    names = [turn["conversation"] for turn in adapter.given]
    assert names == ["core/round-trip"] * 2 + ["core/round-trip#2"] * 2 + ["core/round-trip"] * 2
    assert run_scenario(BY_ID["core/single-call"], adapter, REPO).status == "pass"
    assert adapter.given[-1]["conversation"] == "core/single-call"


def test_an_adapter_exception_keeps_its_message_and_traceback_within_their_limits():
    from harness.suite import runner

    try:
        raise RuntimeError("x" * (5 << 20))  # five megabytes of message
    except RuntimeError as exc:
        chunk = runner.exception_chunk(exc, caller="")
    assert chunk["message"] == "RuntimeError: " + "x" * (4096 - 14) + f"… ({(5 << 20) + 14 - 4096} more characters cut)"
    assert len(chunk["traceback"]) <= 16384 + 40


def test_an_adapters_traceback_is_formatted_without_building_an_ast(monkeypatch):
    """Python's traceback formatting ast.parses its lines for carets (CPython 3.11); a thread doing it while another
    ran deepdiff failed CI with 'AST constructor recursion depth mismatch'. The tail writes no carets: no AST."""
    import ast

    from harness.suite import runner

    parsed = []
    monkeypatch.setattr(ast, "parse", lambda *args, **kwargs: parsed.append(args))
    try:
        {}["missing"]
    except KeyError as exc:
        chunk = runner.exception_chunk(exc, caller="")
    assert parsed == [] and chunk["message"] == "KeyError: 'missing'" and '{}["missing"]' in chunk["traceback"]


def test_a_scenario_reads_its_golden_once_and_its_verdict_stands(monkeypatch):
    from harness.suite import golden

    reads = []
    real = golden.load_golden
    monkeypatch.setattr(golden, "load_golden", lambda scenario: reads.append(scenario.id) or real(scenario))
    result = run_scenario(BY_ID["core/round-trip"], ConverseAdapter(), REPO)
    assert result.status == "pass" and reads == ["core/round-trip"]


class Unsigned(ConverseAdapter):
    """The reference, keeping each endpoint it is given and whether the request it sent was signed."""

    name = "unsigned-witness"

    def __init__(self):
        super().__init__()
        self.endpoints, self.signed = [], []

    def stream(self, turn, endpoint=None):
        self.endpoints.append(dict(endpoint))
        for client in (self.client(endpoint), self._twin_client(endpoint)):  # the stream's, the twin's
            client.meta.events.register("before-send.bedrock-runtime.*", self._sent, unique_id="unsigned-witness")
        yield from super().stream(turn, endpoint)

    def _sent(self, request, **kwargs):
        self.signed.append(("Authorization" in request.headers, request.url.rsplit("/", 1)[-1]))


def test_a_replay_tells_the_adapter_that_no_one_reads_its_signatures_and_the_reference_sends_none():
    adapter = Unsigned()
    result = run_scenario(BY_ID["core/single-call"], adapter, REPO)
    assert result.status == "pass", result
    assert adapter.endpoints and all(e["unsigned"] is True and e["aws_access_key_id"].startswith("AKIAFAKE")
                                     for e in adapter.endpoints)
    assert sorted(set(adapter.signed)) == [(False, "converse"), (False, "converse-stream")]
