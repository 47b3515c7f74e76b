"""Grades of findings: **fail** where evidence supports a finding, **warn** where only a judgement does.

A finding fails when the stream itself is its evidence (text, calls, ids, arguments, stop reason, usage; a crash;
an error or its code lost), when the request breaks a rule whose evidence covers the model
(harness.endpoint.rules.scope), when it sends other content than the stream and the turn gave (a call, an
argument, a tool's result changed, added or lost), or when the library's streamed and non-streamed results differ.
It is a warning when it rests on a judgement: each ``Judgement`` says what a library is held to, why that is a
judgement and not a fact about Bedrock, why the application cannot observe the difference or does not need it
(``application``), and how to compare without it (``step``, a counterfactual applied to both sides). A diff that
disappears under the judgements that apply is a warning naming them; one that survives them fails, whole, but a
request that still holds the same content in another form than the golden's (an array's items as text blocks,
results in another order) is a warning: no rule and no evidence supports the golden's form. A ``declared``
judgement excuses a difference only where the adapter cites its library's own type that cannot hold what the
judgement asks (``vocabulary``: judgement id -> the declaration); without one, the failure says so. A robustness
scenario (a stream shape no real recording shows) makes every finding of it a warning but what is never one: a law of
the adapter contract (``CONTRACT_LAWS``: a required field missing from the stream passed on as a value), a value
handed over in another type than the library declares (``TYPES``), and a request a rule with evidence rejects. A rule
problem no evidence settles for the model (``warnings`` of the captured request) is a warning.

``JUDGEMENTS`` is the registry: ``everywhere`` ones apply to every scenario, the others where a scenario names
them (``judgements:`` in its file). ``evidence`` lists them all beside the claims.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from harness.judge.assembly import check_assembly
from harness.judge.compare import Diff, diff_request
from harness.judge.laws import CONTRACT_LAWS
from harness.judge.normalize_request import conversation_content, drop_cache_points, normalize_request, paired
from harness.judge.parity import check_parity

__all__ = ["DECLARED", "JUDGEMENTS", "Context", "Judgement", "Warned", "applicable", "grade_turn", "vocabulary_of"]


@dataclass(frozen=True)
class Warned:
    """A finding graded **warn**: only a judgement supports it, named with its reason (never fails but --strict)."""

    finding: str  # the finding as it would fail (a rendered diff, a law, a rule warning)
    reason: str  # why it is a warning: the judgement it rests on, or the missing evidence

    @property
    def headline(self) -> str:
        return self.finding.splitlines()[0] if self.finding else ""


@dataclass(frozen=True)
class Judgement:
    """What a library is held to that no evidence about Bedrock settles, and how to compare without it."""

    id: str
    says: str  # what the library is held to
    reason: str  # why it is a judgement, not a fact about Bedrock
    subject: str  # the findings it can grade: chunks, request, assembled, parity, laws
    step: Callable | None = None  # the comparison without it (see the module docstring)
    laws: tuple[str, ...] = ()
    everywhere: bool = True
    application: str = ""  # why the application cannot observe the difference, or does not need what it loses
    declared: bool = False  # excuses only where the adapter cites its library's declaration (Context.vocabulary)

    def cite(self, declaration: str = "") -> str:
        cited = f"; the library declares {declaration}" if declaration else ""
        return f"judgement {self.id}: {self.says} ({self.reason}{cited})"


@dataclass
class Context:
    """What grading one turn needs: the material of its findings and what applies to the scenario."""

    judgements: Sequence[Judgement]
    robustness: str = ""
    expected_chunks: list | None = None  # the golden's comparable chunks (harness.suite.golden.compared)
    actual_chunks: list | None = None
    expected_request: dict | None = None  # the golden's normalized request
    actual_request: dict | None = None  # the request as sent
    chunks: list = field(default_factory=list)  # the turn's raw chunks
    capabilities: frozenset = frozenset()
    family_verdicts: Mapping[str, str] = field(default_factory=dict)  # rule id -> reject/accept/warn for the model
    declared: Mapping[str, str] = field(default_factory=dict)  # the adapter's documented native differences
    requests: tuple = (None, None)  # the streamed call's request and its non-streamed twin's
    vocabulary: Mapping[str, str] = field(default_factory=dict)  # judgement id -> the library's declaration cited


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


# ---- chunk steps: (expected items, actual items, context) -> both ----

def _guardrail_as_content_filter(expected: list, actual: list, ctx: Context) -> tuple[list, list]:
    wanted = {i.get("reason") for i in expected if i.get("type") == "stop"}
    if "guardrail_intervened" not in wanted:
        return expected, actual
    return expected, [{**i, "reason": "guardrail_intervened"} if i.get("type") == "stop" and i.get("reason") ==
                      "content_filtered" else i for i in actual]


def _error_vocabulary(expected: list, actual: list, ctx: Context) -> tuple[list, list]:
    """An error whose own text names the code Bedrock sent compares as carrying that code."""
    said = " ".join(str(c.get("message")) for c in ctx.chunks if c.get("type") == "error").lower()
    codes = iter([i for i in expected if i.get("type") == "error"])

    def kept(item: dict) -> dict:
        wanted = next(codes, None)
        code = wanted.get("code") if wanted else None
        return {**item, "code": code} if isinstance(code, str) and code.lower() in said else item
    return expected, [kept(i) if i.get("type") == "error" else i for i in actual]


def _zero_usage(expected: list, actual: list, ctx: Context) -> tuple[list, list]:
    if any(i.get("type") == "usage" for i in expected):
        return expected, actual
    zero = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_write_input_tokens")
    return expected, [i for i in actual if not (i.get("type") == "usage" and not any(i.get(k) for k in zero))]


_THROTTLED = re.compile(r"throttl|rate.?limit|too many requests", re.IGNORECASE)


def _throttled_not_retried(expected: list, actual: list, ctx: Context) -> tuple[list, list]:
    errors = [c for c in ctx.chunks if c.get("type") == "error"]
    only_error = len(actual) == 1 and actual[0].get("type") == "error"
    said = " ".join(f"{c.get('code')} {c.get('message')}" for c in errors)
    return (expected, expected) if only_error and _THROTTLED.search(said) else (expected, actual)


# ---- request steps: (expected normalized request, actual raw request, context) -> both ----

def _messages(body: dict, change: Callable[[dict], dict]) -> dict:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return body
    return {**body, "messages": [change(m) if isinstance(m, dict) and isinstance(m.get("content"), list) else m
                                 for m in messages]}


def _unsigned(block: Any) -> str | None:
    """The text of an unsigned reasoningText block, else None."""
    reasoning = block.get("reasoningContent") if isinstance(block, dict) else None
    text = reasoning.get("reasoningText") if isinstance(reasoning, dict) else None
    return text.get("text") if isinstance(text, dict) and not text.get("signature") else None


_THINK = re.compile(r"</?think(?:ing)?>")
# A text block that is one thought in tags, as libraries send unsigned reasoning back as text (pydantic-ai's
# <think> to Kimi, its <thinking> up to 1.x): the reasoning itself, whether or not the golden kept it.
_THOUGHT = re.compile(r"\s*<(think(?:ing)?)>.*</\1>\s*", re.DOTALL)


def _list(value: Any) -> list:
    """``value`` when it is a list, else []: a hand-edited golden may hold any JSON where a list belongs."""
    return value if isinstance(value, list) else []


def _plain(text: Any) -> str:
    return " ".join(_THINK.sub(" ", text).split()) if isinstance(text, str) else ""


def _unsigned_reasoning_optional(expected: dict, actual: dict, ctx: Context) -> tuple[dict, dict]:
    # Either side's: the golden leaves unsigned reasoning out where sending it is unsettled (rule 37), and keeps it
    # where the family takes it; an adapter doing the other is held to no evidence either way.
    texts = {_plain(_unsigned(b)) for side in (expected, actual) for m in _list(side.get("messages"))
             if isinstance(m, dict) for b in _list(m.get("content")) if _unsigned(b) is not None}

    def thought(block: Any) -> bool:
        if not (isinstance(block, dict) and list(block) == ["text"] and isinstance(block["text"], str)):
            return False
        return _plain(block["text"]) in texts or _THOUGHT.fullmatch(block["text"]) is not None

    def without(message: dict) -> dict:
        if message.get("role") != "assistant":
            return message
        kept = [b for b in message["content"] if _unsigned(b) is None and not thought(b)]
        return {**message, "content": kept}
    return _messages(expected, without), _messages(actual, without)


_WORD = re.compile(r"\w")


def _placeholder_text(expected: dict, actual: dict, ctx: Context) -> tuple[dict, dict]:
    def without(message: dict) -> dict:
        if message.get("role") != "assistant":
            return message
        return {**message, "content": [b for b in message["content"] if not (
            isinstance(b, dict) and list(b) == ["text"] and isinstance(b["text"], str) and b["text"].strip()
            and not _WORD.search(b["text"]))]}
    return expected, _messages(actual, without)


def _no_descriptions(schema: Any, top: bool = True) -> Any:
    if isinstance(schema, list):
        return [_no_descriptions(item, False) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {k: _no_descriptions(v, False) for k, v in schema.items() if top or k != "description"}


def _schema_rewritten(expected: dict, actual: dict, ctx: Context) -> tuple[dict, dict]:
    def strip(body: dict) -> dict:
        config = body.get("toolConfig")
        if not isinstance(config, dict) or not isinstance(config.get("tools"), list):
            return body
        tools = [{**t, "toolSpec": {**t["toolSpec"], "inputSchema": _no_descriptions(t["toolSpec"].get("inputSchema"))}}
                 if isinstance(t, dict) and isinstance(t.get("toolSpec"), dict) else t for t in config["tools"]]
        return {**body, "toolConfig": {**config, "tools": tools}}
    return strip(expected), strip(actual)


def _status_where_unknown(expected: dict, actual: dict, ctx: Context) -> tuple[dict, dict]:
    if ctx.family_verdicts.get("tool-result-status") != "warn":
        return expected, actual

    def without(message: dict) -> dict:
        return {**message, "content": [{**b, "toolResult": {k: v for k, v in b["toolResult"].items() if k != "status"}}
                                       if isinstance(b, dict) and isinstance(b.get("toolResult"), dict) else b
                                       for b in message["content"]]}
    return _messages(expected, without), _messages(actual, without)


def _error_status_dropped(expected: dict, actual: dict, ctx: Context) -> tuple[dict, dict]:
    def without(message: dict) -> dict:
        return {**message, "content": [{**b, "toolResult": {k: v for k, v in b["toolResult"].items() if k != "status"}}
                                       if isinstance(b, dict) and isinstance(b.get("toolResult"), dict) else b
                                       for b in message["content"]]}
    return _messages(expected, without), _messages(actual, without)


def _results(body: dict, change: Callable[[dict], dict]) -> dict:
    """``body`` with ``change`` applied to each toolResult content item."""
    def message(m: dict) -> dict:
        return {**m, "content": [{**b, "toolResult": {**b["toolResult"], "content": [
            change(i) if isinstance(i, dict) else i for i in b["toolResult"]["content"]]}}
            if isinstance(b, dict) and isinstance(b.get("toolResult"), dict)
            and isinstance(b["toolResult"].get("content"), list) else b for b in m["content"]]}
    return _messages(body, message)


def _parsed(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None


def _object_as_text(expected: dict, actual: dict, ctx: Context) -> tuple[dict, dict]:
    def as_json(item: dict) -> dict:
        value = _parsed(item.get("text")) if list(item) == ["text"] else None
        return {"json": value} if isinstance(value, dict) else item
    return _results(expected, as_json), _results(actual, as_json)


def _error_wrapped(expected: dict, actual: dict, ctx: Context) -> tuple[dict, dict]:
    def unwrapped(item: dict) -> dict:
        value = _parsed(item.get("text")) if list(item) == ["text"] else None
        lone = isinstance(value, dict) and list(value) == ["error"] and isinstance(value["error"], str)
        return {"text": value["error"]} if lone else item
    return expected, _results(actual, unwrapped)


def _own_cache_placement(expected: dict, actual: dict, ctx: Context) -> tuple[dict, dict]:
    return drop_cache_points(expected), drop_cache_points(normalize_request(actual))


# ---- assembled steps: (the turn's raw chunks, context) -> chunks ----

def _ended_badly(chunks: Sequence[Mapping]) -> bool:
    stops = [c.get("reason") for c in chunks if c.get("type") == "stop"]
    return any(c.get("type") == "error" for c in chunks) or "max_tokens" in stops or not stops


def _arguments_as_text(chunks: list, ctx: Context) -> list:
    badly = _ended_badly(chunks)

    def block(b: Any) -> Any:
        if not (isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("input"), str)):
            return b
        try:
            return {**b, "input": json.loads(b["input"]) if b["input"].strip() else {}}
        except ValueError:
            return None if badly else b

    def message(chunk: dict) -> dict:
        content = (chunk.get("message") or {}).get("content") if isinstance(chunk.get("message"), dict) else None
        if chunk.get("type") != "message" or not isinstance(content, list):
            return chunk
        return {**chunk, "message": {**chunk["message"], "content": [b for b in map(block, content) if b is not None]}}
    return [message(c) for c in chunks]


# ---- parity steps: (the turn's raw chunks, context) -> chunks ----

_TYPE_KEYS = ("type", "block_type")


def _empty_text_block(value: Any) -> bool:
    """A text block holding "" in a library's own serialization: only ``text`` and a type marker."""
    return (isinstance(value, dict) and value.get("text") == "" and set(value) <= {"text", *_TYPE_KEYS}
            and all(isinstance(value[k], str) for k in value))


def _without_empty_text(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_empty_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_empty_text(v) for v in value if not _empty_text_block(v)]
    return value


def _empty_text_blocks(chunks: list, ctx: Context) -> list:
    return [{**c, "message": _without_empty_text(c["message"])} if c.get("type") == "native" and "message" in c
            else c for c in chunks]


def _partial(value: Any) -> bool:
    """JSON text cut off before it closed: a call's arguments as far as they streamed."""
    if not (isinstance(value, str) and value.lstrip()[:1] in ("{", "[")):
        return False
    try:
        json.loads(value)
    except ValueError:
        return True
    return False


def _holds_partial(value: Any) -> bool:
    """A block holding partial JSON text in one of its fields, or in a field of a field (OpenAI's
    ``function.arguments``); not through a list, so a message holding such a block is not one itself."""
    return _partial(value) or (isinstance(value, dict) and any(map(_holds_partial, value.values())))


def _without_cut(value: Any, other: Any) -> Any:
    """``value`` without the blocks holding partial JSON text; a list that held nothing else is null where the
    other path's message holds null there (LiteLLM's ``tool_calls``: None when there are no calls)."""
    if isinstance(value, dict):
        return {k: _without_cut(v, other.get(k) if isinstance(other, dict) else None) for k, v in value.items()}
    if isinstance(value, list):
        kept = [v for v in value if not (isinstance(v, dict) and _holds_partial(v))]
        if value and not kept and other is None:
            return None
        pairs = other if isinstance(other, list) else []
        return [_without_cut(v, pairs[i] if i < len(pairs) else None) for i, v in enumerate(kept)]
    return value


def _cut_call_streamed_only(chunks: list, ctx: Context) -> list:
    if not _ended_badly(chunks):
        return chunks
    converse = next((c.get("message") for c in chunks if c.get("type") == "native" and c.get("path") == "converse"),
                    None)
    return [{**c, "message": _without_cut(c["message"], converse)} if c.get("type") == "native"
            and c.get("path") == "stream" and "message" in c else c for c in chunks]


JUDGEMENTS: dict[str, Judgement] = {j.id: j for j in (
    Judgement("guardrail-as-content-filter", "guardrail_intervened is reported apart from content_filtered",
              "the stream says guardrail_intervened; a library whose stop-reason type has one filter reason for both "
              "cannot say it", "chunks", _guardrail_as_content_filter, declared=True,
              application="where the library's own type has a single filter reason, no application of it can tell a "
                          "guardrail from the model's filter whatever the library does; where the type tells them "
                          "apart, the application is told the wrong one, so it fails"),
    Judgement("error-vocabulary", "an error keeps Bedrock's code (throttlingException, modelStreamErrorException) as "
              "its code", "the error is surfaced, and its text names Bedrock's code; which field carries it is the "
              "library's own vocabulary", "chunks", _error_vocabulary,
              application="the application reads the code in the error's text and can still tell throttling from "
                          "a model error to decide whether to retry; an error that names no code at all fails"),
    Judgement("zero-usage-is-none", "usage is reported only when Bedrock sent it",
              "a usage of all zeros where the stream sent none is how some libraries' types say 'no usage'",
              "chunks", _zero_usage,
              application="a count of zero tokens and no count bill and budget the same nothing"),
    Judgement("retry-throttled-request", "a request throttled before the stream (HTTP 429) is retried",
              "the 429 is real (R-429); whether a library retries it by default is a design choice (the AWS SDKs do)",
              "chunks", _throttled_not_retried, everywhere=False,
              application="the application is given the throttling error itself, code and text, and can retry"),
    Judgement("unsigned-reasoning-sent-back", "unsigned reasoning goes back as a reasoningText block before the call",
              "no evidence shows Bedrock rejecting a follow-up that omits unsigned reasoning or sends it as text (a "
              "Kimi follow-up with <think> text was accepted, R-kimi-rt)", "request", _unsigned_reasoning_optional,
              application="the application holds the reasoning as streamed; only what the model re-reads of its own "
                          "unsigned thoughts changes, which no evidence shows it needs"),
    Judgement("no-placeholder-text", "blank text blocks are left out, not replaced by placeholder punctuation",
              "a placeholder avoids Bedrock's blank-text rejection and leaves the model's words as they were",
              "request", _placeholder_text,
              application="the application's messages are unchanged; the model reads a punctuation mark where it "
                          "wrote nothing"),
    Judgement("schema-unchanged", "a tool's input schema goes to Bedrock as the application wrote it",
              "descriptions a library adds to schema properties change no type or constraint; no evidence shows a "
              "model answering worse for them", "request", _schema_rewritten,
              application="every argument the application's tool accepts is still asked for in the same type"),
    Judgement("status-where-unknown", "toolResult.status is sent only to families known to accept it",
              "no source says whether this model family accepts or rejects toolResult.status (rule 29)", "request",
              _status_where_unknown,
              application="the request went through; whether the family would refuse the flag is unknown"),
    Judgement("error-status-kept", "a failed tool result goes back with toolResult status error",
              "Bedrock accepts a failed result without its status, and the error text still reaches the model; only "
              "the flag is dropped, information Bedrock does not need", "request", _error_status_dropped,
              application="the model still reads the tool's error text, which says it failed"),
    Judgement("error-text-unwrapped", "a failed result's text goes back as the tool wrote it",
              "a library that cannot send toolResult.status may wrap the error text in {\"error\": ...} to say "
              "the call failed; the whole text still reaches the model", "request", _error_wrapped,
              application="the model reads the tool's whole error text, marked as an error"),
    Judgement("object-result-as-json", "a tool result that is a JSON object goes as a json block",
              "Bedrock accepts an object as json or as its JSON text (only a non-object json is rejected, rule 26); "
              "the model is given the same value either way", "request", _object_as_text,
              application="the tool's value reaches the model whole, in one of the two forms Bedrock takes"),
    Judgement("cache-points-as-asked", "cache points go where the turn asks for them, with the TTL it asks",
              "a library whose API places cache points itself (after the tools, the system prompt, the last message) "
              "declares where; that placement is then its documented choice, and the request rules still check it "
              "against what Bedrock rejects (rules 31-34)", "request", _own_cache_placement, declared=True,
              application="the model reads the same conversation; only what is cached, and for how long, differs"),
    Judgement("arguments-as-object", "a call's arguments are held as a JSON object",
              "a library whose own type holds arguments as JSON text (the OpenAI format's function.arguments) hands "
              "them over as that text; Bedrock needs an object only in what is sent back, which the follow-up "
              "request shows; a cut-off call kept as its partial text is not presented as complete", "assembled",
              _arguments_as_text, declared=True,
              application="an application of a library that declares the text form parses the arguments as its "
                          "type tells it to; where the type says object, text is a value of the wrong type and fails"),
    Judgement("no-empty-text-block", "a library's streamed and non-streamed messages hold the same blocks, empty "
              "text ones included", "an empty text block held on one path only carries no content; sent back, it "
              "meets Bedrock's blank-text rule, which the request shows", "parity", _empty_text_blocks,
              application="an empty text block holds nothing for the application to read"),
    Judgement("cut-call-on-both-paths", "a call cut off by max_tokens is held alike by the streamed and non-streamed "
              "messages", "the non-streamed twin is the endpoint's Converse reply, which holds no partial toolUse (no "
              "recording shows what Converse returns for a call cut by max_tokens); a streamed message that keeps the "
              "call as its unparsed partial text presents nothing as complete", "parity", _cut_call_streamed_only,
              application="the application is given no complete call on either path, and the stop reason max_tokens "
                          "on both"),
    Judgement("finish-reason-on-end-turn", "OpenAI chunks finish with tool_calls when a call was made, even after "
              "end_turn", "the stream's own stop reason is end_turn, which finish_reason stop mirrors faithfully",
              "laws", laws=("openai_finish_reason",), everywhere=False,
              application="the tool calls themselves are in the chunks; only the finish reason says end_turn as "
                          "Bedrock did"),
)}


DECLARED = tuple(j.id for j in JUDGEMENTS.values() if j.declared)  # what an adapter's ``vocabulary`` may cite


def vocabulary_of(adapter: Any) -> dict[str, str]:
    """An adapter's ``vocabulary`` (declared judgement id -> its library's declaration that cannot hold what the
    judgement asks), or none; a key that is no declared judgement raises ValueError naming the known ones."""
    value = getattr(adapter, "vocabulary", None)
    if not isinstance(value, Mapping):
        return {}
    unknown = sorted(str(k) for k in value if k not in DECLARED)
    if unknown:
        raise ValueError(f"adapter vocabulary cites {unknown[0]!r}, which is no declared judgement (known: "
                         f"{', '.join(DECLARED)})")
    return {str(k): str(v) for k, v in value.items()}


def applicable(named: Sequence[str]) -> tuple[Judgement, ...]:
    """The judgements of a scenario: every ``everywhere`` one plus those it names."""
    return tuple(j for j in JUDGEMENTS.values() if j.everywhere or j.id in named)


def _counterfactual(subject: str, ctx: Context, left: Any, right: Any = None) -> tuple[Any, Any, list[Judgement]]:
    """Both sides after every applicable step of ``subject``, and the judgements whose step changed something."""
    used = []
    for judgement in (j for j in ctx.judgements if j.subject == subject and j.step is not None):
        before = _key((left, right))
        one_sided = subject in ("assembled", "parity")
        stepped = judgement.step(left, ctx) if one_sided else judgement.step(left, right, ctx)
        left, right = (stepped, right) if one_sided else stepped
        if _key((left, right)) != before:
            used.append(judgement)
    return left, right, used


def _survives(diff: Diff, ctx: Context) -> list[Judgement] | None:
    """The judgements ``diff`` rests on (the fewest under which it disappears), or None when it survives them all."""
    used = _vanishes(diff, ctx)
    if used is None:
        return None
    for judgement in list(used):  # a step that only changed what both sides already agreed on is no reason
        fewer = [j for j in used if j is not judgement]
        if _vanishes(diff, replace(ctx, judgements=tuple(fewer))) is not None:
            used = fewer
    return used


def _vanishes(diff: Diff, ctx: Context) -> list[Judgement] | None:
    """The judgements whose steps changed something, when under them ``diff`` disappears; else None."""
    if diff.subject == "chunks" and ctx.expected_chunks is not None and ctx.actual_chunks is not None:
        left, right, used = _counterfactual("chunks", ctx, ctx.expected_chunks, ctx.actual_chunks)
        return used if used and _key(left) == _key(right) else None
    if diff.subject == "request" and ctx.expected_request is not None and isinstance(ctx.actual_request, dict):
        left, right, used = _counterfactual("request", ctx, ctx.expected_request, ctx.actual_request)
        return used if used and diff_request(left, paired(left, normalize_request(right))) is None else None
    if diff.subject in ("assembled", "parity"):
        chunks, _, used = _counterfactual(diff.subject, ctx, list(ctx.chunks))
        judged = (check_assembly(chunks, ctx.capabilities) if diff.subject == "assembled"
                  else check_parity(chunks, ctx.declared, requests=ctx.requests))
        return used if used and judged is None else None
    return None


def _because(judgements: Sequence[Judgement], ctx: Context) -> str:
    return "; ".join(j.cite(ctx.vocabulary.get(j.id, "")) for j in judgements)


def _cited(ctx: Context) -> Context:
    """``ctx`` without the declared judgements the adapter cites no declaration of its library for."""
    return replace(ctx, judgements=tuple(j for j in ctx.judgements if not j.declared or j.id in ctx.vocabulary))


FORM_ONLY = ("the request holds the golden's content in another form (no rule with evidence for the model's family "
             "rejects it, and neither the stream nor the turn says which form Bedrock is sent)")


def _steps_changed(ctx: Context, without: Judgement | None = None) -> tuple[dict, dict]:
    """The golden's request and the one sent, normalized, after the request steps (all but ``without``)."""
    kept = replace(ctx, judgements=tuple(j for j in ctx.judgements if j is not without))
    left, right, _ = _counterfactual("request", kept, ctx.expected_request, ctx.actual_request)
    return left, paired(left, normalize_request(right))


def _form_only(diff: Diff, ctx: Context) -> str | None:
    """Why a request diff that survives the judgements is a warning: the content is the golden's, in another form
    (an array's items as text blocks, results in another order); None when the content differs."""
    if diff.subject != "request" or ctx.expected_request is None or not isinstance(ctx.actual_request, dict):
        return None
    left, right = _steps_changed(ctx)
    if _key(conversation_content(left)) != _key(conversation_content(right)):
        return None
    remaining = diff_request(left, right)
    count = len(remaining.changes) if remaining else 0
    used = [j for j in ctx.judgements if j.subject == "request" and j.step is not None
            and len((diff_request(*_steps_changed(ctx, j)) or Diff("request", ())).changes) > count]
    return "; ".join([FORM_ONLY] + ([_because(used, ctx)] if used else []))


def _uncited(diff: Diff, ctx: Context) -> Diff:
    """``diff`` with a line naming the declared judgements that would excuse it had the adapter cited its library's
    declaration for them."""
    missing = tuple(j for j in ctx.judgements if j.declared and j.id not in ctx.vocabulary)
    used = _survives(diff, ctx) if missing else None
    named = [j.id for j in used or () if j in missing]
    if not named:
        return diff
    where = " ".join(p for p in (diff.scenario, "" if diff.turn is None else f"turn {diff.turn}") if p)
    line = (f"{where} " if where else "") + (
        f"not excused by judgement {', '.join(named)}: it applies only where the adapter cites its library's own "
        "type that cannot hold it (vocabulary), and none is cited, so the stream is the evidence")
    return replace(diff, changes=diff.changes + (line,))


def _contract(law: str) -> bool:
    return law.split(":", 1)[0] in CONTRACT_LAWS


TYPES = ("arguments-as-object",)  # a value handed over in another type than the library declares: never a warning


def _mistyped(diff: Diff, ctx: Context) -> bool:
    """Whether ``diff`` is only a value handed over in another type, which the adapter cites no library type for."""
    judgements = tuple(j for j in ctx.judgements if j.id in TYPES and j.id not in ctx.vocabulary)
    return bool(judgements) and _survives(diff, replace(ctx, judgements=judgements)) is not None


def grade_turn(result: Any, ctx: Context, rule_warnings: Sequence[str] = ()) -> Any:
    """``result`` (a TurnResult) with every finding that rests on a judgement (or on no evidence) moved to its
    warnings."""
    warned = [Warned(w, "no evidence shows Bedrock rejecting this for the model's family") for w in rule_warnings]
    if ctx.robustness:  # the stream is no evidence, but a contract law, a type and a rule with evidence still are
        why = f"robustness: {ctx.robustness}"
        typed = [d for d in result.diffs if _mistyped(d, ctx)]
        warned += [Warned(d.render(), why) for d in result.diffs if d not in typed]
        warned += [Warned(f, why) for f in result.laws if not _contract(f)]
        return replace(result, diffs=tuple(_uncited(d, ctx) for d in typed), laws=tuple(filter(_contract, result.laws)),
                       warnings=result.warnings + tuple(warned))
    cited, diffs = _cited(ctx), []
    for diff in result.diffs:
        used = _survives(diff, cited)
        form = _form_only(diff, cited) if used is None else None
        if used is not None:
            warned.append(Warned(diff.render(), _because(used, ctx)))
        elif form is not None:
            warned.append(Warned(diff.render(), form))
        else:
            diffs.append(_uncited(diff, ctx))
    laws = []
    for law in result.laws:
        covering = [j for j in cited.judgements if any(law.startswith(f"{name}:") for name in j.laws)]
        (warned.append(Warned(law, _because(covering, ctx))) if covering else laws.append(law))
    if not any(d.subject != "adapter error" for d in diffs) and not laws and not result.request_problems:
        warned += [Warned(d.render(), "context of the findings above") for d in diffs]
        diffs = []
    return replace(result, diffs=tuple(diffs), laws=tuple(laws), warnings=result.warnings + tuple(warned))
