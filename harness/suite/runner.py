"""Run scenarios against an adapter over the loopback endpoint and judge each one.

Per scenario: skip when the adapter lacks a required capability; otherwise serve the scenario's cassette
(with the scenario's transport faults) on 127.0.0.1, stream every turn through the adapter, build the next
turn from the folded output (the whole history for a stateless adapter; only the new user message for one that
owns its history, which sends the assistant message its library assembled), and judge the chunks (golden,
stream laws) and the captured requests (Bedrock's rules, golden request). A next turn that cannot be built,
or an adapter that breaks during it, ends the run there: the turns before it are still judged and reported. An adapter that raises is a closing error chunk, never a harness crash; one that raises
``AdapterFailure`` (it broke itself: crash, hang, garbage) makes the scenario an ``error`` with its message.
An adapter on another operation than the recorded one is served a rendering of the recording
(harness.endpoint.responders); when that rendering cannot carry what the golden judges, the scenario is a skip saying so.
"""

from __future__ import annotations

import dataclasses
import functools
import shlex
import time
import weakref
from dataclasses import dataclass, replace
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Callable, Iterable, Iterator, Sequence

from harness.cassettes import cassette
from harness.converse.stream import traceback_tail
from harness.cassettes.limits import MAX_ERROR_CHARS, MAX_TRACEBACK_CHARS, clip
from harness.suite import golden
from harness.judge.assembly import check_assembly
from harness.suite.contract import chunk_problem, schema
from harness.endpoint.rules import scope
from harness.judge.grade import Context, applicable, grade_turn, vocabulary_of
from harness.judge.parity import check_parity, declared_paths, empty_alike, natives
from harness.judge.protocol import NON_STREAMING, OWN_HISTORY, AdapterFailure
from harness.endpoint.emulator.derive import recorded_text_deltas
from harness.endpoint.faults import Faults
from harness.judge.compare import note
from harness.judge.laws import laws
from harness.judge.normalize import ALL, BEDROCK_ERROR_CODES, CONTENT, fold, normalize
from harness.judge.normalize_request import converse_form, normalize_request
from harness.endpoint.responders import CassetteResponder
from harness.suite.results import Result, TurnResult, verdict
from harness.suite.scenario import Scenario, ScenarioError, first_turn, new_messages, next_turn, turn_dict
from harness.endpoint.server import BedrockServer, RequestError
from harness.suite.roots import SHIPPED_ROOT, project_root, shipped_root  # where the default suite is: roots says

__all__ = ["ADAPTER_EXCEPTION", "NO_REQUEST", "PARITY_HTTP_FAULT", "Run", "SHIPPED_ROOT",
           "cassette_path", "exception_chunk", "iter_runs", "judge", "loopback_endpoint", "project_root", "replay", "run",
           "run_scenario", "scenario_root", "shipped_root", "stream_turn"]

ADAPTER_EXCEPTION = "adapter_exception"  # the error code of an exception raised by the adapter itself
CONVERSE_OPERATIONS = ("ConverseStream", "Converse")  # the operations Bedrock's rules and goldens describe
TWIN = "Converse"  # a non_streaming adapter's second call per turn, judged against its streamed one
CHUNK_TYPES = frozenset(schema("chunk")["$defs"])  # the chunk vocabulary: the chunk schema's definitions
DUMMY_KEYS = {"aws_access_key_id": "AKIAFAKEFAKEFAKEFAKE", "aws_secret_access_key": "fake-secret-for-loopback"}


def scenario_root(root: str | Path | None, scenario: Scenario) -> Path:
    """``root``; None: the root the scenario was found in (``<root>/suites/<suite>/<name>.yaml``, layered roots)."""
    return Path(root) if root is not None else scenario.path.parents[2]


def cassette_path(root: str | Path | None, scenario: Scenario) -> Path:
    """``<root>/cassettes/<id>.yaml`` (root None: see ``scenario_root``)."""
    return scenario_root(root, scenario) / "cassettes" / f"{scenario.id}.yaml"


@dataclass
class Run:
    """One scenario's raw material: per turn the adapter's chunks and the request Bedrock received."""

    turns: list[dict]  # {"turn", "chunks", "request": body or None, "problems": [...], "notes": [...]}
    unbuilt: ScenarioError | None = None  # why the turn after the last one could not be built
    failure: AdapterFailure | None = None  # the adapter broke itself during the turn after the last one

    def golden_turns(self, capabilities: Iterable[str] = ALL) -> list[dict]:
        """What a golden holds: per turn the normalized chunks and the normalized request."""
        return [{"index": i, "chunks": normalize(t["chunks"], capabilities),
                 "request": normalize_request(t["request"]) if isinstance(t["request"], Mapping) else None}
                for i, t in enumerate(self.turns)]


def stream_turn(adapter: Any, turn: dict, endpoint: dict, index: int = 0) -> list[dict]:
    """All chunks of turn ``index``; an exception raised by the adapter becomes a closing error chunk."""
    chunks: list[dict] = []
    try:
        chunks.extend(_checked(chunk, index, n) for n, chunk in enumerate(adapter.stream(turn, endpoint)))
    except AdapterFailure:
        raise  # not a finding about this turn's chunks: run_scenario gives the scenario its status
    except Exception as exc:  # noqa: BLE001 - any adapter failure is a finding about this scenario
        chunks.append(exception_chunk(exc))
    return chunks


def _checked(chunk: Any, turn: int, n: int) -> dict:
    """The chunk as a dict; one the chunk schema refuses (harness.suite.contract) breaks the adapter protocol."""
    chunk = dict(chunk) if isinstance(chunk, Mapping) else chunk
    problem = chunk_problem(chunk)
    if problem is None:
        return chunk
    kind = chunk.get("type") if isinstance(chunk, dict) else None
    named = f" ({kind})" if isinstance(kind, str) and kind in CHUNK_TYPES else ""
    raise AdapterFailure(f"adapter protocol error: turn {turn} chunk {n}{named}: {problem}: {_shown(chunk)}")


def _shown(chunk: Any) -> str:
    shown = repr(chunk)
    return shown if len(shown) <= 120 else f"{shown[:100]}... ({len(shown)} characters)"


def exception_chunk(exc: BaseException, caller: str = __file__) -> dict:
    """The closing error chunk of an exception the adapter raised, with its traceback's tail (``caller``'s frames
    and those marked ``__tracebackhide__``, pytest's convention, left out: they are the harness calling the
    adapter, e.g. the per-turn timeout's worker thread)."""
    shown = traceback_tail(exc, lambda summary, frame: summary.filename != caller
                           and not frame.f_locals.get("__tracebackhide__"))
    return {"type": "error", "code": ADAPTER_EXCEPTION, "message": clip(f"{type(exc).__name__}: {exc}", MAX_ERROR_CHARS),
            "traceback": clip(shown, MAX_TRACEBACK_CHARS)}


def loopback_endpoint(server: BedrockServer, region: str = "us-east-1", *, unsigned: bool = False) -> dict:
    """The endpoint dict of DESIGN.md's adapter protocol for a loopback server (dummy credentials). ``unsigned``:
    it also says ``"unsigned": True``, that no one reads the requests' signatures (a replay: the server checks none,
    and nothing records them), so an adapter may leave its requests unsigned (the reference does: SigV4 was about
    5 % of its replay's CPU). A recording keeps them signed, as a cassette holds the scrubbed Authorization."""
    endpoint = {"endpoint_url": server.endpoint_url, "region": region, **DUMMY_KEYS}
    return {**endpoint, "unsigned": True} if unsigned else endpoint


def _captured(server: BedrockServer | None, index: int, seen: int, paired: bool = False) -> tuple:
    """(the request turn ``index`` was answered from, its non-streamed twin): the last attempt of each, after
    retried faults; a paired turn's twin is its Converse call (None when the session is not paired)."""
    if server is None:
        return None, None
    matched = [r for r in server.requests if r.turn == index]
    twins = [r for r in matched if paired and r.operation == TWIN]
    main = [r for r in matched if r not in twins] or twins
    if main:
        return main[-1], (twins[-1] if twins and twins[-1] is not main[-1] else None)
    return (server.requests[-1] if len(server.requests) > seen else None), None


def _ended_in_error(chunks: Sequence[Mapping]) -> bool:
    return any(chunk.get("type") == "error" for chunk in chunks)


def replay(scenario: Scenario, adapter: Any, endpoint: dict, server: BedrockServer | None = None,
           paired: bool = False) -> Run:
    """Stream every turn of ``scenario`` through ``adapter``; ``server`` (when local) supplies the requests;
    ``paired``: each turn asks for the non-streaming call too (the server serves both)."""
    run_, turn = Run([]), first_turn(scenario)
    own_history, conversation = OWN_HISTORY in adapter.capabilities, _conversation(adapter, scenario)
    for index in range(len(scenario.turns)):
        if index:
            output = fold(run_.turns[-1]["chunks"])
            if not any(item["type"] in CONTENT for item in output):
                break  # nothing to continue from: the missing content is the finding, shown by the diff
            try:
                turn = _following(scenario, index, turn, output, own_history)
            except ScenarioError as exc:
                run_.unbuilt = exc
                break
        turn["conversation"] = conversation
        if paired:
            turn["non_streaming"] = True  # also through the library's non-streaming call: streaming parity
        seen = len(server.requests) if server else 0
        try:
            chunks = stream_turn(adapter, turn, endpoint, index)
        except AdapterFailure as exc:
            if not index:
                raise
            run_.failure = exc
            break
        run_.turns.append(_turn_record(turn, chunks, *_captured(server, index, seen, paired), server is not None))
        if _ended_in_error(chunks):
            break
    return run_


_LAST_CONVERSATION: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _conversation(adapter: Any, scenario: Scenario) -> str:
    """The scenario id, or ``<id>#2`` when this adapter's previous conversation had that id (a retried attempt):
    a new value tells an adapter that owns its history to start afresh."""
    name = scenario.id
    try:
        name = f"{scenario.id}#2" if _LAST_CONVERSATION.get(adapter) == scenario.id else scenario.id
        _LAST_CONVERSATION[adapter] = name
    except TypeError:  # an adapter object that cannot be weakly referenced: the id alone
        pass
    return name


def _following(scenario: Scenario, index: int, previous: dict, output: list[dict], own_history: bool) -> dict:
    """Turn ``index``: the whole history (stateless), or only what is new (the adapter owns its history)."""
    if own_history:
        return turn_dict(scenario, index, new_messages(scenario, index, output))
    return next_turn(scenario, index, previous, output)


NO_REQUEST = "no request reached the endpoint for this turn (the adapter streamed without calling Bedrock)"


def _turn_record(turn: dict, chunks: list[dict], captured: Any, twin: Any, local: bool) -> dict:
    """One turn of a Run: its chunks, the request it was served for (Converse operations are judged) and the
    non-streamed twin request of a paired turn."""
    # Bedrock's Converse rules and the golden's Converse request say nothing about another operation's body
    # (an Anthropic-native invoke body): such a request is neither checked nor compared, and no problem.
    converse = captured is None or captured.operation in CONVERSE_OPERATIONS
    return {"turn": turn, "chunks": chunks, "operation": getattr(captured, "operation", None),
            "served": getattr(captured, "turn", None), "status": getattr(captured, "status", None), "unsent": local and captured is None and not _ended_in_error(chunks),
            "request": getattr(captured, "body_json", None) if converse else None,
            "problems": [str(p) for p in getattr(captured, "problems", [])] if converse else [],
            "notes": list(getattr(captured, "notes", [])) if converse else [],
            "warnings": list(getattr(captured, "warnings", [])) if converse else [],
            "twin": getattr(twin, "body_json", None)}


def _adapter_errors(scenario: Scenario, index: int, chunks: Sequence[Mapping]) -> tuple:
    """The adapter's own error text (and traceback tail), which the comparison ignores, beside a failing turn's diff."""
    return tuple(replace(note("adapter error", f"adapter error {c.get('code')}: {c.get('message')}", scenario=scenario.id,
                              turn=index), listing=_traceback_lines(c.get("traceback")))
                 for c in chunks if c.get("type") == "error" and c.get("code") not in BEDROCK_ERROR_CODES)


def _answered_error(turn: Mapping) -> bool:
    """Whether the endpoint answered the turn's request with an HTTP error (a 4xx rejection, a 5xx fault)."""
    return isinstance(turn.get("status"), int) and turn["status"] >= 400


def _traceback_lines(text: Any) -> tuple[str, ...]:
    if not isinstance(text, str) or not text:
        return ()
    return ("Traceback (innermost frames last):", *text.splitlines())


def judge(scenario: Scenario, run: Run, capabilities: frozenset[str],
          text_deltas: Sequence[int | Callable[[], int | None] | None] = (),
          declared: Mapping[str, str] | None = None, vocabulary: Mapping[str, str] | None = None) -> list[TurnResult]:
    """Golden diffs, assembled-message disagreements, streaming parity (``non_streaming``; ``declared``: the
    adapter's documented native differences), stream-law violations and request problems, per turn;
    ``text_deltas``: recorded, per turn; ``vocabulary``: the library declarations the adapter cites for declared
    judgements."""
    actual = run.golden_turns(capabilities)  # in Bedrock's usage convention, whichever the adapter declares
    expected = _as_operation(golden.load_golden(scenario), run.turns)
    diffs = golden.check(scenario, actual, capabilities, expected)
    expected = expected or []
    results = []
    for index, turn in enumerate(run.turns):
        mine = tuple(d for d in diffs if d.turn == index)
        assembled = check_assembly(turn["chunks"], capabilities, scenario=scenario.id, turn=index)
        mine += (assembled,) if assembled else ()
        parity, notes = _parity(scenario, index, turn, capabilities, declared or {})
        mine += (parity,) if parity else ()
        mine += (note("request", NO_REQUEST, scenario=scenario.id, turn=index),) if turn.get("unsent") else ()
        mine += _adapter_errors(scenario, index, turn["chunks"]) if mine else ()
        # A request the endpoint answered with an error (a rule it broke) streamed no text: the rejection is the
        # finding, not text that never came.
        deltas = text_deltas[index] if index < len(text_deltas) and not _answered_error(turn) else None
        found = laws(turn["chunks"], capabilities, text_deltas=deltas)
        result = TurnResult(index, mine, tuple(found), tuple(turn["problems"]), tuple(turn.get("notes", ())) + notes)
        context = _grading(scenario, index, turn, actual[index]["chunks"], expected, capabilities, declared or {},
                           vocabulary or {})
        results.append(grade_turn(result, context, turn.get("warnings", ())))
    stray = tuple(d for d in diffs if d.turn is None or d.turn >= len(run.turns)) + _cut_short(scenario, run)
    if stray:
        last = results[-1] if results else TurnResult(0)
        results[-1:] = [TurnResult(last.index, last.diffs + stray, last.laws, last.request_problems,
                                   last.request_notes, last.warnings)]
    return results


def _as_operation(expected: list[dict] | None, turns: list[dict]) -> list[dict] | None:
    """The golden's turns with each request in the form of the operation the turn went through (a ConverseStream
    request compared with one sent through Converse loses what only ConverseStream takes)."""
    if expected is None:
        return None
    return [{**want, "request": converse_form(want.get("request"))}
            if index < len(turns) and turns[index].get("operation") == "Converse" else want
            for index, want in enumerate(expected)]


def _grading(scenario: Scenario, index: int, turn: dict, normalized: list[dict], expected: list[dict],
             capabilities: frozenset[str], declared: Mapping[str, str], vocabulary: Mapping[str, str]) -> Context:
    """What grading turn ``index`` needs: the golden's side and the run's of each comparison (``normalized``: the
    turn's chunks as the golden diff read them), the judgements."""
    want = expected[index] if index < len(expected) else None
    chunks = golden.compared(scenario, index, want["chunks"], normalized, capabilities) if want else (None, None)
    status = scope.EVIDENCE["tool-result-status"].verdict(scope.family(scenario.model_id))
    return Context(applicable(scenario.judgements), scenario.robustness, *chunks,
                   want.get("request") if want else None, turn["request"], list(turn["chunks"]), capabilities,
                   {"tool-result-status": status}, declared, (turn["request"], turn.get("twin")), vocabulary)


BYTE_FAULTS = ("truncate_after_byte", "drop_after_byte")
PARITY_UNJUDGED = ("parity not judged on this turn: a byte-offset fault cuts the streamed and the non-streamed "
                   "answers at different content")


PARITY_HTTP_FAULT = ("parity not graded on this turn: a pre-stream HTTP error is served to the first call that comes, "
                     "so a library that does not retry meets it on one path only")


def _parity(scenario: Scenario, index: int, turn: dict, capabilities: frozenset[str],
            declared: Mapping[str, str]) -> tuple:
    """(the parity Diff or None, notes) of a turn of a ``non_streaming`` adapter."""
    if NON_STREAMING not in capabilities:
        return None, ()
    if any(f["turn"] == index and any(k in f for k in BYTE_FAULTS) for f in scenario.faults):
        return None, (PARITY_UNJUDGED,)
    found = check_parity(turn["chunks"], declared, requests=(turn["request"], turn.get("twin")),
                         scenario=scenario.id, turn=index)
    alike = tuple(empty_alike(turn["chunks"], declared, scenario=scenario.id, turn=index))
    why = _ungraded_parity(scenario, index, turn["chunks"])
    if found is not None and why:
        return None, alike + tuple(f"{why}: {line}" for line in found.changes)
    return found, alike


def _ungraded_parity(scenario: Scenario, index: int, chunks: Sequence[Mapping]) -> str:
    """Why a parity difference on turn ``index`` is noted rather than graded: the two calls met different answers (a
    pre-stream HTTP error that only one of them failed on). A call cut off by max_tokens, which the non-streamed
    answer leaves out, is the judgement cut-call-on-both-paths instead: only that call's difference is a warning."""
    failed = {path: "message" not in chunk for path, chunk in natives(chunks).items()}
    if len(set(failed.values())) == 2 and any(f.get("turn", index) == index and "http_error" in f
                                              for f in scenario.faults):
        return PARITY_HTTP_FAULT
    return ""


def _cut_short(scenario: Scenario, run: Run) -> tuple:
    """Why the run has fewer turns than the scenario, when the harness or a broken adapter ended it."""
    why = (f"cannot be built: {run.unbuilt}" if run.unbuilt is not None
           else f"failed: {run.failure}" if run.failure is not None else None)
    return (note("turns", f"turn {len(run.turns)} {why}", scenario=scenario.id),) if why else ()


class _Idle:
    """The responder of a run's server between scenarios: nothing is being served. A call reaching it outlived its
    scenario (an adapter's thread still sending as the run was interrupted or moved on): it is answered, at INFO."""

    def respond(self, request):
        raise RequestError(400, "ValidationException", "no scenario is being served on this endpoint", expected=True)


def _record_command(scenario: Scenario, root: Path) -> str:
    """The command recording ``scenario``'s cassette under ``root``, which it names unless it is the default."""
    named = "" if root.resolve() == project_root().resolve() else f" --root {shlex.quote(str(root))}"
    return f"bedrock-harness record --emulate {scenario.id}{named}"


def run_scenario(scenario: Scenario, adapter: Any, root: str | Path, server: BedrockServer | None = None) -> Result:
    """One scenario's verdict against ``adapter``, served from its cassette (on ``server`` when given), at the
    scenario's level."""
    return dataclasses.replace(_verdict(scenario, adapter, root, server), level=scenario.level)


def _verdict(scenario: Scenario, adapter: Any, root: str | Path, server: BedrockServer | None) -> Result:
    start = time.monotonic()
    unmet = scenario.unmet(adapter.capabilities)
    if unmet:
        return Result(scenario.id, "skip", f"adapter lacks {', '.join(sorted(unmet))}")
    try:
        vocabulary = vocabulary_of(adapter)
    except ValueError as exc:  # the adapter's own declaration is broken: every scenario says so
        return Result(scenario.id, "error", str(exc))
    path = cassette_path(root, scenario)
    if not path.is_file():
        return Result(scenario.id, "error", f"no cassette at {path}; record it with "
                                            f"`{_record_command(scenario, scenario_root(root, scenario))}`")
    try:
        loaded = cassette.load_checked(path)
        responder, run_ = _served_run(scenario, adapter, loaded, server)
        text_deltas = _text_deltas(loaded, run_)
    except AdapterFailure as exc:
        return Result(scenario.id, exc.status, str(exc), duration_s=time.monotonic() - start)
    except cassette.CassetteError as exc:  # the recording is broken, not the adapter
        return Result(scenario.id, "error", f"broken cassette: {exc}", duration_s=time.monotonic() - start)
    except Exception as exc:  # noqa: BLE001 - a broken scenario is this scenario's error
        return Result(scenario.id, "error", f"{type(exc).__name__}: {exc}", duration_s=time.monotonic() - start)
    twins = NON_STREAMING in adapter.capabilities  # a paired turn's Converse call is rendered beside its stream
    rendered = [r for r in responder.renderings if r.lost and not (twins and r.asked == TWIN)]
    lost = [f"turn {r.turn}: {r.lost}" for r in rendered]
    if lost:
        return Result(scenario.id, "skip", f"the recording rendered as {rendered[0].asked} loses what the "
                                           f"golden judges ({'; '.join(lost)})", duration_s=time.monotonic() - start)
    try:
        turns = judge(scenario, run_, frozenset(adapter.capabilities), text_deltas, declared_paths(adapter), vocabulary)
    except golden.GoldenError as exc:  # the golden is broken, not the adapter
        return Result(scenario.id, "error", f"broken golden: {exc}", duration_s=time.monotonic() - start)
    status, reason = _ended(scenario, run_, turns)
    return Result(scenario.id, status, reason, tuple(turns), time.monotonic() - start)


def _ended(scenario: Scenario, run_: Run, turns: list[TurnResult]) -> tuple[str, str]:
    """The verdict; a run cut short by the harness or a broken adapter keeps its earlier turns' findings."""
    status, reason = verdict(turns)
    if run_.failure is not None:  # the adapter broke itself: that is the verdict, the turns before show why
        return run_.failure.status, f"turn {len(run_.turns)}: {run_.failure}"
    if run_.unbuilt is not None and not any(_explains(t) for t in turns):  # the scenario itself is broken
        return "error", f"turn {len(run_.turns)} cannot be built: {run_.unbuilt}"
    return status, reason


def _explains(turn: TurnResult) -> bool:
    """A finding besides the missing turns themselves: what made the next turn impossible to build."""
    return bool(turn.laws or turn.request_problems or any(d.subject != "turns" for d in turn.diffs))


def _served_run(scenario: Scenario, adapter: Any, loaded: cassette.Cassette, server: BedrockServer | None):
    """(responder, run) of ``scenario`` served from the ``loaded`` cassette, on ``server`` or its own."""
    faults = Faults.from_scenario(scenario.faults, **(scenario.delivery or {}))
    responder = CassetteResponder(loaded, faults=faults)
    pairs = NON_STREAMING in adapter.capabilities  # each turn also answers the adapter's non-streaming call
    if server is None:
        with BedrockServer(responder, faults=faults, pairs=pairs) as own:
            return responder, replay(scenario, adapter, loopback_endpoint(own, unsigned=True), own, pairs)
    server.reset(responder, faults=faults, pairs=pairs)
    try:
        return responder, replay(scenario, adapter, loopback_endpoint(server, unsigned=True), server, pairs)
    finally:
        server.reset(_Idle())


def _text_deltas(loaded: cassette.Cassette, run_: Run) -> list[Callable[[], int | None] | None]:
    """Per turn, what counts the text deltas Bedrock sent in the interaction that served it (for the incremental_text
    law, which counts them only for a turn that streamed its text in one chunk or none)."""
    items = loaded.interactions
    return [functools.partial(recorded_text_deltas, items[t["served"]])
            if t.get("served") is not None and t["served"] < len(items) else None for t in run_.turns]


def run(scenarios: Sequence[Scenario], adapter: Any, root: str | Path,
        progress: Callable[[int, int, Result], None] | None = None, in_process: bool = True) -> list[Result]:
    """Every scenario's verdict, in order; ``progress(done, total, result)`` after each. ``in_process``: botocore
    clients of this process reach the endpoint without a socket (harness.endpoint.inprocess), others over HTTP."""
    results = []
    # One endpoint for the whole run, a new session per scenario: adapters keep one client and its connections.
    # A turn abandoned past the per-turn timeout (``abandoned``, harness.adapters.deadline) may still call that
    # endpoint later: the scenarios after it get a new one, on another port, so its calls cannot become theirs.
    server = BedrockServer(_Idle(), in_process=in_process).start()
    try:
        for done, scenario in enumerate(scenarios, 1):
            abandoned = getattr(adapter, "abandoned", 0)
            results.append(run_scenario(scenario, adapter, root, server))
            if getattr(adapter, "abandoned", 0) != abandoned:
                server, stale = BedrockServer(_Idle(), in_process=in_process).start(), server
                stale.close()
            if progress:
                progress(done, len(scenarios), results[-1])
    finally:
        server.close()
    return results


def iter_runs(scenarios: Sequence[Scenario], adapter: Any,
              root: str | Path) -> Iterator[tuple[Scenario, Run | cassette.CassetteError]]:
    """(scenario, raw run) for each scenario with a cassette: what `golden update` writes goldens from; a broken
    cassette gives its CassetteError in place of the run, and the next scenario follows."""
    with BedrockServer(_Idle(), in_process=True) as server:
        for scenario in scenarios:
            try:
                loaded = cassette.load_checked(cassette_path(root, scenario))
            except cassette.CassetteError as err:
                yield scenario, err
                continue
            yield scenario, _served_run(scenario, adapter, loaded, server)[1]
