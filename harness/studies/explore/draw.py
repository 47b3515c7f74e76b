"""Hypothesis strategies for valid Bedrock conversations, drawn as scenario documents.

``conversations(options)`` draws an ``Example``: the YAML document of an ordinary scenario (tools, turns with their
emulator scripts and tool-result templates, faults, ``claims:``) plus what the oracles need that the document
implies. Every script gives its deltas exactly (text deltas, tool-input fragments, ids), so the stream does not
depend on the emulator's seed and a written example streams the same bytes under any scenario id.

The drawing follows each family's style and the claims of harness.studies.explore.families: a block kind is one
drawer in ``_BODY`` / ``_LEAD`` and the claims it rests on; what the adapter does not declare (reasoning, errors,
parallel calls) is not drawn, so no example is skipped.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from harness.studies.explore.families import FAMILIES, ROBUSTNESS, Family, claims_of
from harness.studies.explore.surface import surface

__all__ = ["TOOLS", "DrawOptions", "Example", "conversations"]

TOOLS = {
    "read_file": {"name": "read_file", "description": "Read the contents of a file at the specified path.",
                  "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    "get_weather": {"name": "get_weather", "description": "The current weather in a city.",
                    "input_schema": {"type": "object", "required": ["city"], "properties": {
                        "city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}}},
    "list_files": {"name": "list_files", "description": "List the files of the working directory.",
                   "input_schema": {"type": "object", "properties": {}}},
    "search": {"name": "search", "description": "Search the notes.",
               "input_schema": {"type": "object", "required": ["query"], "properties": {
                   "query": {"type": "string"}, "limit": {"type": "integer"},
                   "filters": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}},
                                                               "exact": {"type": "boolean"}}}}}},
}
_URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
# Letters, digits, spaces, punctuation JSON escapes ("\\), raw UTF-8 (2, 3 and 4 bytes) and control characters that
# JSON writes as \n, \t or \u00XX: a fragment cut can land inside any of them.
_STRING = st.text("abcxyz AZ09./-_:\"\\é日本🙂\n\t\x01\x1f", max_size=14)
_WORD = st.text("abcdefghij klmnoé日🙂.,!?", min_size=1, max_size=10)
_WORDS = st.lists(_WORD, min_size=1, max_size=5)
_ID = st.text(_URLSAFE, min_size=20, max_size=20)
_SIGNATURE = st.binary(min_size=9, max_size=48).map(lambda b: base64.b64encode(b).decode())
_TOOL_NAME = st.sampled_from(sorted(TOOLS))
_TRANSPORT = st.sampled_from(["none"] * 8 + ["exception", "exception", "truncated", "throttled"])
# How the endpoint writes replies: mostly frame by frame; else split at any byte, all at once, or frame by frame slowly.
_DELIVERY = st.one_of(st.just(None), st.just(None), st.just(None), st.builds(lambda n: {"chunking": n},
                      st.integers(1, 64)), st.just({"chunking": "whole"}),
                      st.just({"chunking": "frame", "delay": 0.001}))
_EXCEPTION = st.sampled_from(["throttlingException", "modelStreamErrorException", "modelStreamErrorException"])


@dataclass(frozen=True)
class DrawOptions:
    """What to draw: the families, the adapter's capabilities, how many turns; robustness shapes or not."""

    families: tuple[Family, ...] = FAMILIES
    capabilities: frozenset[str] = frozenset()
    max_turns: int = 3
    robustness: bool = True
    non_streaming: bool = False  # the adapter also calls Converse: every script must have a Converse rendering


@dataclass
class Example:
    """A drawn conversation: its scenario document, family and per-turn facts the oracles read."""

    document: dict
    family: str
    claims: list[str] = field(default_factory=list)
    cuts: dict[int, tuple[int, int]] = field(default_factory=dict)  # turn -> (frame, offset): the stream cut inside

    @property
    def scripts(self) -> list[dict]:
        return [turn["script"] for turn in self.document["turns"]]

    def materialized(self, sid: str) -> dict:
        """The document as scenario ``sid``: each cut as ``truncate_after_byte`` inside its frame of the stream the
        emulator renders for that id (frame padding, and so byte offsets, follow the scenario's seed)."""
        if not self.cuts:
            return self.document
        from harness.endpoint.emulator.render import render_stream
        from harness.endpoint.responders import turn_seed

        faults = list(self.document.get("faults", []))
        for turn, (frame, offset) in sorted(self.cuts.items()):
            frames = render_stream(self.scripts[turn], style=self.document["style"], seed=turn_seed(sid, turn))
            start = sum(len(f) for f in frames[:frame])
            faults.append({"turn": turn, "truncate_after_byte": start + 1 + offset % (len(frames[frame]) - 1)})
        return {**self.document, "faults": faults}


def _deltas(words: list[str]) -> list[str]:
    """Word deltas, each after the first with its leading space (as real streams send them)."""
    return [w if n == 0 else " " + w for n, w in enumerate(words)]


def _tool_input(draw, name: str) -> dict:
    if name == "read_file":
        return {"path": draw(_STRING)}
    if name == "get_weather":
        unit = draw(st.one_of(st.none(), st.sampled_from(["celsius", "fahrenheit"])))
        return {"city": draw(_STRING), **({"unit": unit} if unit else {})}
    if name == "list_files":
        return {}
    filters = draw(st.one_of(st.none(), st.fixed_dictionaries(
        {"tags": st.lists(_STRING, max_size=3)}, optional={"exact": st.booleans()})))
    limit = draw(st.one_of(st.none(), st.integers(-5, 10**6)))
    return {"query": draw(_STRING), **({"limit": limit} if limit is not None else {}),
            **({"filters": filters} if filters is not None else {})}


def _fragments(draw, text: str) -> list[str]:
    """The JSON text cut at drawn places (anywhere: inside keys, strings, escapes and UTF-8 characters)."""
    if len(text) < 2:
        return [text]
    cuts = sorted(draw(st.sets(st.integers(1, len(text) - 1), max_size=min(8, len(text) - 1))))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]


def _input_json(value: dict, style: str) -> str:
    separators = (", ", ": ") if style == "claude" else (",", ":")
    return json.dumps(value, separators=separators, ensure_ascii=False)


class _Turn:
    """One turn's drawing state: its blocks, the claims they rest on, how many calls so far."""

    def __init__(self, family: Family, ordinal_base: int):
        self.family, self.blocks, self.claims, self.calls, self.base = family, [], [], 0, ordinal_base

    def text(self, draw, claim: str = "text-stream") -> None:
        style = self.family.style
        words = draw(_WORDS)
        deltas = ["".join(_deltas(words))] if style == "titan" else _deltas(words)
        self.blocks.append({"text": deltas + ([""] if style == "open-weight" else [])})
        self.claims += [claim, "raw-utf8"]

    def empty_text(self) -> None:
        self.blocks.append({"text": [""]})

    def call(self, draw, ids: set, name: str | None = None, missing_id: bool = False, cut: bool = False) -> str:
        name = name or draw(_TOOL_NAME)
        value = _tool_input(draw, name)
        spec: dict = {"name": name}
        style = self.family.style
        if missing_id:
            spec["id"] = None
            self.claims.append("id-always-sent")
        elif style == "open-weight":
            spec["id"] = f"functions.{name}:{self.calls}"  # Kimi's ids count the message's calls from 0
        else:
            spec["id"] = "tooluse_" + draw(_ID) \
                + _URLSAFE[(self.base + self.calls) // 64] + _URLSAFE[(self.base + self.calls) % 64]
        text = _input_json(value, style)
        if cut:  # max_tokens inside the input: a prefix of its JSON, never complete
            spec["raw_input"] = _fragments(draw, text[:draw(st.integers(1, len(text) - 1))])
            self.claims.append("cut-mid-call")
        elif style in ("nova", "open-weight") or value == {}:
            spec["input"] = value
            self.claims.append("zero-arg-call" if value == {} else
                               "nova-whole-input" if style == "nova" else "kimi-stream")
        else:
            spec["raw_input"] = _fragments(draw, text)
            self.claims += ["tool-use-start", "fragments-split-anywhere"] if style == "claude" else ["gpt-oss-calls"]
        self.blocks.append({"tool_use": spec})
        self.calls += 1
        ids.add(spec.get("id"))
        return name


def _reasoning_lead(draw, turn: _Turn, capabilities: frozenset[str], thinks: bool | None) -> None:
    """Claude's signed (or signature-only, or redacted) reasoning blocks before the answer; ``thinks``: whether the
    conversation thinks (None: not decided yet, drawn now). With thinking on, each question starts with reasoning."""
    fam = turn.family
    if fam.reasoning != "signed" or "reasoning" not in capabilities:
        return
    if not (draw(st.booleans()) if thinks is None else thinks):
        return
    for n in range(draw(st.integers(1, 2))):
        if fam.redacted and "redacted_reasoning" in capabilities and draw(st.booleans()):
            turn.blocks.append({"redacted_reasoning": draw(_SIGNATURE)})
            turn.claims.append("redacted-one-delta")
            continue
        signature = draw(_SIGNATURE)
        if draw(st.integers(0, 3)) == 0:
            turn.blocks.append({"reasoning": "", "signature": signature})
            turn.claims.append("signature-only")
        else:
            turn.blocks.append({"reasoning": _deltas(draw(_WORDS)),
                                "signature": signature})
            turn.claims.append("reasoning-stream")
        if n:
            turn.claims.append("several-signed-blocks")
    turn.claims.append("thinking-block-first")


def _unsigned_lead(draw, turn: _Turn, capabilities: frozenset[str]) -> None:
    """gpt-oss and Kimi: an empty text block, then unsigned reasoning (Kimi: another empty text block)."""
    fam = turn.family
    if fam.reasoning != "unsigned" or "reasoning" not in capabilities or not draw(st.booleans()):
        return
    turn.empty_text()
    turn.blocks.append({"reasoning": _deltas(draw(_WORDS))})
    turn.claims.append("gpt-oss-shape" if fam.style == "openai" else "kimi-stream")


_SNIPPET = st.sampled_from(["print(2 ** 64)", "print(len(str(2 ** 100000)))", "import math; print(math.pi)"])
_IMAGE_PART = st.binary(min_size=3, max_size=36).map(lambda b: base64.b64encode(b).decode())


def _server_tool(draw, turn: _Turn) -> None:
    """Nova 2's system tool: its use (input whole) and the service's result, success or error, text or json items."""
    status = draw(st.sampled_from(["success", "success", "error"]))
    items = draw(st.lists(st.one_of(_WORDS.map(lambda w: {"text": " ".join(w)}),
                                    _WORDS.map(lambda w: {"json": {"stdout": " ".join(w), "exitCode": 0}})),
                          min_size=1, max_size=2))
    turn.blocks.append({"server_tool_use": {"name": "nova_code_interpreter", "input": {"snippet": draw(_SNIPPET)}}})
    turn.blocks.append({"tool_result": {"status": status, "type": "nova_code_interpreter_result", "content": items}})
    turn.claims.append("nova2-server-tool")


def _image(draw, turn: _Turn) -> None:
    """An image the model made, its bytes in one or more deltas."""
    turn.blocks.append({"image": {"format": draw(st.sampled_from(["png", "jpeg"])),
                                  "data": draw(st.lists(_IMAGE_PART, min_size=1, max_size=3))}})
    turn.claims.append("image-output")


def _future_block(draw, turn: _Turn) -> None:
    """A block of a kind no model streams yet (the next union member): a start and a few deltas of its own."""
    parts = draw(st.lists(_IMAGE_PART, min_size=1, max_size=2))
    turn.blocks.append({"future_block": {"kind": "videoOutput", "start": {"format": "mp4"},
                                         "deltas": [{"source": {"bytes": part}} for part in parts]}})
    turn.claims.append("unions-grow")


@st.composite
def _turn_script(draw, fam: Family, options: DrawOptions, ids: set, index: int, fresh: bool,
                 thinks: bool | None) -> tuple[dict, list]:
    """One turn's script and claims; a turn that calls tools (and is not the last) is followed by results."""
    caps = options.capabilities
    turn = _Turn(fam, len(ids))
    if fresh:  # Claude thinks at the start of a tool loop (a question); later answers in it carry no new thinking
        _reasoning_lead(draw, turn, caps, thinks)
    _unsigned_lead(draw, turn, caps)
    may_call = fam.tools and "tool_use" in caps and not (fam.style == "open-weight" and index > 0)
    most = 4 if "parallel_tool_use" in caps and fam.parallel else 1
    calls = draw(st.integers(0, most)) if may_call else 0
    texts_before = draw(st.booleans()) if calls else True
    if fam.server_tools and draw(st.booleans()):
        _server_tool(draw, turn)
    if texts_before:
        turn.text(draw, "text-before-call" if calls else "text-stream")
    if fam.images and draw(st.booleans()):
        _image(draw, turn)
        if draw(st.booleans()):
            turn.text(draw)
    if fam.style == "claude" and options.robustness and draw(st.integers(0, 11)) == 11:  # shrinks away
        _future_block(draw, turn)
        if not calls:
            turn.text(draw)
    missing = options.robustness and calls and not fam.whole and draw(st.integers(0, 15)) == 15  # shrinks away
    for n in range(calls):
        if n and fam.style == "claude" and draw(st.integers(0, 3)) == 0:
            turn.text(draw, "text-after-call")
        turn.call(draw, ids, missing_id=bool(missing) and n == calls - 1)
    if calls > 1:
        turn.claims.append("parallel-calls" if fam.style != "nova" else "nova-parallel-calls")
    if calls and fam.style == "claude" and draw(st.integers(0, 4)) == 0:
        turn.text(draw, "text-after-call")
    stop = _stop_reason(draw, fam, turn, calls, options)
    script = {"content": turn.blocks, "stop_reason": stop, "usage": _usage(draw, fam, caps)}
    turn.claims += ["max-tokens-stream"] if stop == "max_tokens" else []
    if calls > 1 and options.robustness and draw(st.integers(0, 3)) == 3:  # shrinks away
        script["interleave"] = True
        turn.claims.append("interleaved-deltas")
    return script, turn.claims


def _stop_reason(draw, fam: Family, turn: _Turn, calls: int, options: DrawOptions) -> str:
    """tool_use with calls (end_turn too, as Claude sometimes closes); otherwise end_turn, max_tokens with the last
    block cut (inside a call's input when no Converse rendering is needed), guardrail_intervened."""
    if calls:
        if fam.style == "claude" and draw(st.integers(0, 5)) == 0:
            turn.claims.append("end-turn-with-call")
            return "end_turn"
        if "max_tokens" in fam.stops and not (options.non_streaming or fam.whole) and draw(st.integers(0, 7)) == 0:
            last = turn.blocks[-1].get("tool_use")
            if last is not None and last.get("id") is not None and "raw_input" in last:
                text = "".join(last.pop("raw_input"))
                last["raw_input"] = _fragments(draw, text[:draw(st.integers(1, len(text) - 1))])
                turn.claims.append("cut-mid-call")
                return "max_tokens"
        turn.claims.append("stop-tool-use")
        return "tool_use"
    if fam.style == "claude" and fam.tools and "tool_use" in options.capabilities and draw(st.integers(0, 3)) == 3:
        turn.claims.append("tool-use-stop-without-call")
        return "tool_use"
    if "guardrail_intervened" in fam.stops and draw(st.integers(0, 3)) >= 2:
        turn.claims.append("guardrail-stop")
        return "guardrail_intervened"
    others = [s for s in fam.stops if s not in ("end_turn", "tool_use", "guardrail_intervened")]
    if others and draw(st.integers(0, 5)) == 0:
        stop = draw(st.sampled_from(others))
        turn.claims.append({"guardrail_intervened": "guardrail-stop", "max_tokens": "max-tokens-stream"}.get(
            stop, "newer-stop-reasons"))
        return stop
    return "end_turn"


def _usage(draw, fam: Family, caps: frozenset[str]) -> dict:
    usage = {"input_tokens": draw(st.integers(1, 5000)), "output_tokens": draw(st.integers(1, 2000))}
    if fam.cache and draw(st.integers(0, 3)) == 0:
        usage.update(cache_read_input_tokens=draw(st.integers(0, 3000)),
                     cache_write_input_tokens=draw(st.integers(0, 3000)),
                     both_cache_spellings=draw(st.booleans()))
    if fam.style == "titan":
        usage["server_tool_usage"] = False
    return usage


_RESULT_FORMS = ("string", "object", "text-parts", "json-part")
# Media bytes of their format's signature and a few drawn bytes after it (nothing reads them but the adapter).
_PNG = st.binary(min_size=4, max_size=24).map(lambda b: base64.b64encode(b"\x89PNG\r\n\x1a\n" + b).decode())
_PDF = st.binary(min_size=4, max_size=24).map(lambda b: base64.b64encode(b"%PDF-1.4\n" + b).decode())


@st.composite
def _tool_results(draw, fam: Family, names: list[str], caps: frozenset[str]) -> tuple[dict, list]:
    """A result template per tool called: a string, an object, text parts or a JSON-object part, text with an image
    or a document; some errors."""
    results, said = {}, []
    for name in dict.fromkeys(names):
        form = draw(st.sampled_from(_RESULT_FORMS))
        words = " ".join(draw(_WORDS))
        content = {"string": words, "object": {"result": words, "call": "{id}"},
                   "text-parts": [{"type": "text", "text": words}, {"type": "text", "text": "for {id}"}],
                   "json-part": [{"type": "json", "json": {"value": words}}]}[form]
        error = bool(fam.status) and draw(st.integers(0, 4)) == 0
        # Media in an error result only for Claude, whose rule the evidence settles (for Nova nothing does).
        if fam.media and "tool_result_media" in caps and (not error or fam.style == "claude") and draw(st.booleans()):
            # An error result's media goes beside it for Claude (rule 35): an image there is seen accepted, a
            # document needs a text block of its own in that message ("A text block must be included when using
            # documents"), which no source shows an adapter adding, so it is not drawn.
            forms = [_image_part] if error and fam.style == "claude" else [_image_part, _image_part, _document_part]
            content = [{"type": "text", "text": words}, draw(st.sampled_from(forms))(draw)]
            said += ["result-media"] + (["openai-result-image-beside"] if fam.style == "openai" else []) \
                + (["claude-error-text-only"] if error and fam.style == "claude" else [])
        results[name] = {"content": content, "is_error": error}
    return results, ["results-paired", "round-trip-accepted", "result-forms", *said]


def _image_part(draw) -> dict:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": draw(_PNG)}}


def _document_part(draw) -> dict:
    return {"type": "document", "title": "report",
            "source": {"type": "base64", "media_type": "application/pdf", "data": draw(_PDF)}}


def _called(script: dict) -> list[str]:
    return [b["tool_use"]["name"] for b in script["content"] if "tool_use" in b]


def _thinks(turns: list[dict]) -> bool:
    """Whether the conversation so far thinks (its first answer opened with reasoning)."""
    return any("reasoning" in b or "redacted_reasoning" in b for b in turns[0]["script"]["content"])


def _answered(script: dict) -> bool:
    """A text answer that ended normally (end_turn, or tool_use without a call): the application may ask again."""
    return script["stop_reason"] in ("end_turn", "tool_use") and "exception" not in script


def _continues(script: dict) -> bool:
    """A follow-up turn is built: the turn surfaced complete calls and did not end in an error or a cut."""
    uses = [b["tool_use"] for b in script["content"] if "tool_use" in b]
    return bool(uses) and script["stop_reason"] in ("tool_use", "end_turn") and "exception" not in script \
        and all(u.get("id") is not None for u in uses)



@st.composite
def _transport(draw, script: dict, turn: int, fam: Family, options: DrawOptions) -> tuple[list, list, Any]:
    """A mid-stream exception frame in the script, HTTP 429 before the stream, or the connection cut inside a frame:
    (faults, claims, the cut as (frame, offset) or None)."""
    # Mostly clean streams: a fault ends the conversation (and HTTP 429 costs the client's retry back-off).
    kind = draw(_TRANSPORT)
    if fam.whole and kind in ("truncated", "exception"):  # a whole Converse answer: no frame to cut or end early
        kind = "none"
    if kind == "truncated" and "errors" in options.capabilities:
        from harness.endpoint.emulator.render import render_stream  # the frame count of this script

        frames = len(render_stream(script, style=fam.style, seed="count"))
        return [], ["stream-cut"], (draw(st.integers(1, frames - 1)), draw(st.integers(0, 255)))
    if kind == "throttled":
        return [{"turn": turn, "http_error": {"status": 429, "times": 1}}], ["throttled-before-stream"], None
    if kind == "exception" and "errors" in options.capabilities:
        from harness.endpoint.emulator.render import render_stream  # the event count of this script

        events = len(render_stream(script, style=fam.style, seed="count"))
        exc = draw(_EXCEPTION)
        script["exception"] = {"type": exc, "after_event": draw(st.integers(1, events - 2)),
                               **({"message": "Too many requests, please wait before trying again."}
                                  if exc == "throttlingException" else {"message": "The model stream failed."})}
        return [], ["mid-stream-throttling" if exc == "throttlingException" else "mid-stream-model-error"], None
    return [], [], None


def _options_of(fam: Family, scripts: list[dict]) -> dict:
    thinking = any("reasoning" in b or "redacted_reasoning" in b for s in scripts for b in s["content"])
    if fam.reasoning == "signed" and thinking:
        return {"max_tokens": 4096, "temperature": None, "thinking_budget": 2048, "tool_choice": "auto"}
    return {"max_tokens": 1024, "temperature": None, "tool_choice": None}


@st.composite
def conversations(draw, options: DrawOptions = DrawOptions()) -> Example:
    """A conversation of 1..max_turns turns for one family, as an ordinary scenario document."""
    fam = draw(st.sampled_from(options.families))
    turns, claims, faults, ids, cuts, ask = [], list(fam.claims), [], set(), {}, False
    for index in range(options.max_turns):
        last = index == options.max_turns - 1
        script, said = draw(_turn_script(fam, options, ids, index, index == 0 or ask,
                                         None if index == 0 else _thinks(turns)))
        claims += said
        more, told, cut = draw(_transport(script, index, fam, options))
        faults += more
        claims += told
        if cut is not None:
            cuts[index] = cut
        turn = {"messages": [{"role": "user", "content": "Help me with my files and the weather."}] if not index
                else [], "script": script}
        if ask:
            turn["messages"] = [{"role": "user", "content": "Thanks. And what else should I know?"}]
        turns.append(turn)
        ask = not _called(script) and fam.style == "claude" and _answered(script)
        if ask and not last and index not in cuts and draw(st.booleans()):  # the application asks again
            claims.append("text-follow-up-accepted")
            continue
        if last or not _continues(script) or index in cuts or draw(st.integers(0, 3)) == 0:  # mostly: results
            break
        turn["tool_results"], said = draw(_tool_results(fam, _called(script), options.capabilities))
        claims += said
    if not _continues(turns[-1]["script"]) or len(turns) - 1 in cuts:
        turns[-1].pop("tool_results", None)
    names = sorted({n for t in turns for n in _called(t["script"])})
    parts = {"tools": ([dict(TOOLS[n]) for n in names] or [dict(TOOLS["read_file"])]) if fam.tools else [],
             "system": "You are a helpful assistant. Use the tools when they help."}
    asked, said, needs = draw(surface(fam, options.capabilities, turns, parts))
    claims += said
    delivery = draw(_DELIVERY)
    claims += ["network-chunks"] if delivery else []
    robust = [ROBUSTNESS[c] for c in dict.fromkeys(claims) if c in ROBUSTNESS]
    document = {
        "title": f"Drawn by bedrock-harness explore ({fam.name})",
        "description": "A conversation drawn by `bedrock-harness explore`, shrunk to the smallest that shows the "
                       "finding. Its claims are the ones each drawing choice rests on.",
        "tags": ["explore", fam.name], "requires": sorted({*_requires(turns, options.capabilities), *needs}),
        "model_id": fam.model_id, "style": fam.style, "tools": parts["tools"], "system": parts["system"],
        "options": {**_options_of(fam, [t["script"] for t in turns]), **asked}, "turns": turns,
        **({"faults": faults} if faults else {}), **({"delivery": delivery} if delivery else {}),
        "claims": claims_of(claims),
        **({"robustness": "; ".join(robust)} if robust else {}),
    }
    return Example(document, fam.name, list(dict.fromkeys(claims)), cuts)


def _requires(turns: list[dict], caps: frozenset[str]) -> list[str]:
    """The capabilities the conversation exercises (the adapter declares them all: nothing else is drawn)."""
    kinds = {key for t in turns for b in t["script"]["content"] for key in b}
    need = {"text"} if "text" in kinds else set()
    need |= {"tool_use"} if "tool_use" in kinds else set()
    need |= {"reasoning"} if "reasoning" in kinds else set()
    need |= {"redacted_reasoning"} if "redacted_reasoning" in kinds else set()
    need |= {"parallel_tool_use"} if any(len(_called(t["script"])) > 1 for t in turns) else set()
    need |= {"round_trip"} if len(turns) > 1 else set()
    need |= {"errors"} if any("exception" in t["script"] for t in turns) else set()
    return sorted(need & caps) if caps else sorted(need)
