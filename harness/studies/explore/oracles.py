"""Oracles without goldens: what a drawn conversation's run must show, judged from the draw itself.

- ``law``: the stream laws of harness.judge.laws (OpenAI laws included) on each turn's raw chunks;
- ``conservation``: the normalized chunks carry exactly what the stream delivered (text, reasoning with its
  signature, redacted data, ids, names, inputs, stop reason, usage, the error), folded from the decoded frames by
  ``delivered`` here, independently of any adapter;
- ``assembly`` and ``parity``: the assembled message and the non-streamed call agree with the stream
  (harness.judge.assembly, harness.judge.parity);
- ``request``: the request carries the served options and the answer's schema the turn asked for;
- ``rule``: the request broke one of Bedrock's rules (the endpoint's verdict, with the rule's id); ``round_trip``: the
  follow-up carries the assistant turn back (every call with its id, name and input; signed reasoning first, text and
  signature byte-exact; redacted data), its text too (a warning: Bedrock does not need it).

A ``Finding`` names its oracle, law (or rule, or field kind) and field, so a summary groups them; its ``grade`` is
``fail`` or ``warn`` (a robustness example, a rule whose evidence does not settle the family, a judgement).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.converse.request import served_options
from harness.endpoint.emulator.render import render_stream
from harness.judge.assembly import check_assembly
from harness.judge.laws import CONTRACT_LAWS, laws
from harness.judge.normalize import UNPARSED, comparable, normalize, parse_input
from harness.judge.parity import check_parity
from harness.wire.eventstream import decode_frames

__all__ = ["Finding", "asked", "delivered", "expected_items", "judge_turn", "round_trip", "grade"]


@dataclass(frozen=True)
class Finding:
    """One thing an oracle found on one turn of an example."""

    oracle: str  # law | conservation | assembly | parity | rule | round_trip | compare | adapter
    law: str  # the law, rule id or item kind the finding is about
    field: str  # the field within it (tool_call.input, reasoning.signature, messages[1].content ...)
    turn: int
    message: str
    grade: str = "fail"

    @property
    def key(self) -> tuple[str, str, str]:
        """What makes two findings the same failure: oracle, law and field (never the drawn values)."""
        return self.oracle, self.law, self.field

    def label(self) -> str:
        return f"{self.oracle}/{self.law}" + (f" [{self.field}]" if self.field else "")


# ---- what the stream delivered, folded from its frames ----

INCOMPLETE = "incompleteStream"  # what ends a stream cut before its end (an adapter's own code: any will do)


def delivered(script: Mapping, style: str, seed: str, keep: int | None = None) -> tuple[list[tuple[str, dict]],
                                                                                     str | None]:
    """(event type, body) of every event the client receives, and the exception type that ends the stream;
    ``keep``: the connection is cut inside that frame, so only the frames before it arrive."""
    events = []
    frames = decode_frames(b"".join(render_stream(script, style=style, seed=seed)))
    if keep is not None and keep < len(frames):
        return [(f.type, {k: v for k, v in f.json().items() if k != "p"}) for f in frames[:keep]], INCOMPLETE
    for frame in frames:
        if frame.message_type == "exception":
            return events, frame.header_map.get(":exception-type")
        body = dict(frame.json())
        body.pop("p", None)
        events.append((frame.type, body))
    return events, None


def _blocks(events: Sequence[tuple[str, dict]]) -> dict[int, dict]:
    """Per contentBlockIndex, in order of first appearance: kind, joined text / input, signature, id, stopped."""
    blocks: dict[int, dict] = {}
    for name, body in events:
        if name not in ("contentBlockStart", "contentBlockDelta", "contentBlockStop"):
            continue
        block = blocks.setdefault(body["contentBlockIndex"], {"kind": None, "text": "", "deltas": 0, "stopped": False})
        if name == "contentBlockStart":
            tool = body["start"].get("toolUse")
            if tool is None or tool.get("type") == "server_tool_use":  # the service's own block: no item
                block["kind"] = "service"
            else:
                block.update(kind="tool_call", id=tool.get("toolUseId"), name=tool.get("name"), input="")
        elif name == "contentBlockStop":
            block["stopped"] = True
        else:
            _delta(block, body["delta"])
    return blocks


def _delta(block: dict, delta: Mapping) -> None:
    if "text" in delta:
        block["kind"] = block["kind"] or "text"
        block["text"] += delta["text"]
        block["deltas"] += bool(delta["text"])
        block.setdefault("parts", []).append({"type": "text", "text": delta["text"]})
    elif "citation" in delta:  # a citation streams inside its text block, before the text it cites
        block["kind"] = block["kind"] or "text"
        block.setdefault("parts", []).append({"type": "citation", "citation": delta["citation"]})
    elif "toolUse" in delta:
        block["input"] = block.get("input", "") + delta["toolUse"].get("input", "")
    elif "reasoningContent" in delta:
        part = delta["reasoningContent"]
        if "redactedContent" in part:
            block.update(kind="redacted_reasoning", data=part["redactedContent"])
        else:
            block["kind"] = "reasoning"
            block["text"] += part.get("text", "")
            if "signature" in part:
                block["signature"] = part["signature"]


def _items(block: dict) -> list[dict]:
    """A text block's text and citations in stream order (a citation is an item of its own); else its one item."""
    if block["kind"] == "text":
        return [dict(part) for part in block.get("parts", ())]
    item = _item(block)
    return [] if item is None else [item]


def _item(block: dict) -> dict | None:
    kind = block["kind"]
    if kind == "reasoning":
        return {"type": "reasoning", "text": block["text"], "signature": block.get("signature")}
    if kind == "redacted_reasoning":
        return {"type": "redacted_reasoning", "data": block["data"]}
    if kind == "tool_call":
        return {"type": "tool_call", "id": block["id"], "name": block["name"], "input": parse_input(block["input"])}
    return None


def expected_items(events: Sequence[tuple[str, dict]], exception: str | None) -> tuple[list[dict], set]:
    """(the normalized list a correct adapter yields for these events, ids of calls either way is right for).

    Consecutive text joins and empty text drops, as normalize does; a call whose block never stopped but whose
    input parses may or may not be surfaced. A call without toolUseId ends the expected content with an error."""
    items, either = [], set()
    unnamed = _missing_id(events)
    if unnamed is not None:  # what came before that start, then the error a correct adapter reports
        events, exception = events[:unnamed], "missing toolUseId"
    for block in _blocks(events).values():
        for item in _items(block):
            if item["type"] == "tool_call" and not block["stopped"]:
                either.add(item["id"])
            if item["type"] != "reasoning" or item["text"] or item["signature"] is not None:
                items.append(item)
    bodies = dict(events) if unnamed is None else {}
    if "messageStop" in bodies:
        stop = bodies["messageStop"]
        items.append({"type": "stop", "reason": stop["stopReason"]})
        if stop.get("additionalModelResponseFields") is not None:
            items.append({"type": "response_fields", "fields": stop["additionalModelResponseFields"]})
    if "metadata" in bodies:
        metadata = bodies["metadata"]
        usage = metadata["usage"]
        items.append({"type": "usage", "input_tokens": usage["inputTokens"], "output_tokens": usage["outputTokens"],
                      "cache_read_input_tokens": usage.get("cacheReadInputTokens", 0),
                      "cache_write_input_tokens": usage.get("cacheWriteInputTokens", 0)})
        served = _served(metadata)
        items += [served] if served else []
    if exception is not None:
        items.append({"type": "error", "code": exception, "message": ""})
    return _joined(items), either


def _served(metadata: Mapping) -> dict | None:
    """The metadata item: the invoked model of a prompt router's trace, the tier and latency that served the turn."""
    item = {"invoked_model_id": ((metadata.get("trace") or {}).get("promptRouter") or {}).get("invokedModelId"),
            "service_tier": (metadata.get("serviceTier") or {}).get("type"),
            "latency": (metadata.get("performanceConfig") or {}).get("latency")}
    return {"type": "metadata", **item} if any(v is not None for v in item.values()) else None


def _missing_id(events: Sequence[tuple[str, dict]]) -> int | None:
    """The position of the first toolUse start without a toolUseId (robustness examples only)."""
    return next((n for n, (name, body) in enumerate(events) if name == "contentBlockStart"
                 and "toolUse" in body["start"] and not body["start"]["toolUse"].get("toolUseId")), None)


def _joined(items: list[dict]) -> list[dict]:
    out: list[dict] = []
    for item in items:
        if item["type"] == "text" and out and out[-1]["type"] == "text":
            out[-1] = {**out[-1], "text": out[-1]["text"] + item["text"]}
        else:
            out.append(dict(item))
    return [i for i in out if not (i["type"] == "text" and not i["text"])]


def text_delta_count(events: Sequence[tuple[str, dict]]) -> int:
    return sum(b["deltas"] for b in _blocks(events).values() if b["kind"] == "text")


# ---- the oracles of one turn ----

def _conservation(expected: list[dict], actual: list[dict], turn: int) -> list[Finding]:
    """Item by item: the kinds in order, then each field of each item."""
    kinds = [i["type"] for i in expected], [i["type"] for i in actual]
    if kinds[0] != kinds[1]:
        missing = [k for k in dict.fromkeys(kinds[0] + kinds[1]) if kinds[0].count(k) != kinds[1].count(k)]
        field = missing[0] if missing else "order"
        return [Finding("conservation", "content", field, turn,
                        f"turn {turn}: expected items {kinds[0]}, got {kinds[1]}")]
    found = []
    for n, (want, got) in enumerate(zip(*(expected, actual))):
        for key in sorted(set(want) | set(got)):
            if key != "type" and want.get(key) != got.get(key):
                found.append(Finding("conservation", want["type"], f"{want['type']}.{key}", turn,
                                     f"turn {turn} item {n} ({want['type']}) {key}: expected "
                                     f"{_show(want.get(key))}, got {_show(got.get(key))}"))
    return found


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 160 else text[:150] + "..."


def _law_findings(chunks: list[dict], capabilities: frozenset[str], deltas: int | None, turn: int) -> list[Finding]:
    found = []
    for problem in laws(chunks, capabilities, text_deltas=deltas):
        name = problem.split(":", 1)[0]
        found.append(Finding("law", name, "", turn, f"turn {turn} {problem}"))
    return found


def judge_turn(record: Mapping, script: Mapping, style: str, seed: str, capabilities: frozenset[str],
               declared: Mapping[str, str], rules: Sequence[tuple[str, str, str]] = (),
               cut: int | None = None) -> list[Finding]:
    """Every oracle on one turn of a run (``record``: harness.suite.runner's turn record; ``rules``: (rule id, grade,
    message) of the request it was served for; ``cut``: the frame the connection was cut inside)."""
    turn = record["index"]
    chunks = list(record["chunks"])
    events, exception = delivered(script, style, seed, cut)
    expected, either = expected_items(events, exception)
    actual = [i for i in normalize(chunks, capabilities)
              if not (i["type"] == "tool_call" and i.get("id") in either)]
    expected = [i for i in expected if not (i["type"] == "tool_call" and i.get("id") in either)]
    if exception == INCOMPLETE and any(name == "messageStop" for name, _ in events):
        # cut after the message stopped, only the usage lost: an error then or none are both right
        expected, actual = ([i for i in items if i["type"] != "error"] for items in (expected, actual))
    found, rejected = [], bool(record.get("http_error"))  # answered with an error: that is the finding, no text came
    if not rejected:
        found += _conservation(_comparable(expected, capabilities), _comparable(actual, capabilities), turn)
    unnamed = _missing_id(events)  # the adapter stops reading there: the text after it never reaches it
    deltas = None if rejected or record.get("whole") else text_delta_count(events if unnamed is None else events[:unnamed])
    found += _law_findings(chunks, capabilities, deltas, turn)
    assembled = check_assembly(chunks, capabilities, turn=turn)
    found += [Finding("assembly", "message", "", turn, assembled.headline)] if assembled else []
    if record.get("paired") and cut is None:  # a cut lands on different content in the Converse body: unjudged
        parity = check_parity(chunks, declared, requests=(record["request"], record.get("twin")), turn=turn)
        found += [Finding("parity", "message", "", turn, line) for line in parity.changes[:1]] if parity else []
    found += [Finding("rule", rule, "request", turn, f"turn {turn} request: {message}", grade)
              for rule, grade, message in rules]
    if record.get("unsent"):
        found.append(Finding("rule", "no-request", "request", turn, f"turn {turn}: no request reached the endpoint"))
    return found


def _comparable(items: list[dict], capabilities: frozenset[str]) -> list[dict]:
    """What two correct adapters agree on (harness.judge.normalize.comparable): error codes as their class, calls
    that never parsed left out."""
    return [i for i in comparable(items, capabilities)
            if not (i["type"] == "tool_call" and isinstance(i.get("input"), dict) and UNPARSED in i["input"])]


# ---- asked: the request carries how the turn asked to be served ----

_ASKED = (("serviceTier", "service_tier"), ("performanceConfig", "service_tier"), ("guardrailConfig", "guardrail"),
          ("additionalModelResponseFieldPaths", "response_fields"))


def asked(request: Mapping | None, options: Mapping, capabilities: frozenset[str], turn: int) -> list[Finding]:
    """The request members the turn's options ask for (service tier, latency, guardrail, response field paths, the
    answer's JSON schema), as Bedrock names them (harness.converse.request's mapping), for what the adapter declares."""
    if request is None:
        return []
    found = []
    wanted = served_options(dict(options))
    for member, capability in _ASKED:
        if capability in capabilities and wanted.get(member) is not None and request.get(member) != wanted[member]:
            found.append(Finding("request", "asked", member, turn, f"turn {turn} request: {member} "
                                 f"{_show(request.get(member))}, the turn asked for {_show(wanted[member])}"))
    schema = (options.get("output_format") or {}).get("schema")
    if "structured_output" in capabilities and schema is not None and _schema(request) != schema:
        found.append(Finding("request", "asked", "outputConfig", turn, f"turn {turn} request: outputConfig "
                             f"{_show(request.get('outputConfig'))} does not carry the answer's JSON schema"))
    return found


def _schema(request: Mapping) -> object:
    structure = (((request.get("outputConfig") or {}).get("textFormat") or {}).get("structure") or {})
    try:
        return json.loads((structure.get("jsonSchema") or {}).get("schema") or "null")
    except (TypeError, ValueError):
        return None


# ---- round trip: the follow-up carries the assistant turn back ----

def _assistant(request: Mapping | None) -> list[dict] | None:
    """The content of the last assistant message of a Converse request."""
    messages = (request or {}).get("messages") or []
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            content = message.get("content")
            return [b for b in content if isinstance(b, Mapping)] if isinstance(content, list) else []
    return None


def round_trip(request: Mapping | None, previous: list[dict], turn: int, capabilities: frozenset[str] = frozenset(),
               media: Sequence[str] = ()) -> list[Finding]:
    """Turn ``turn``'s request against the items turn ``turn - 1`` delivered (the expected, not the adapter's) and the
    base64 bytes of the images and documents of its tool results (``media``)."""
    content = _assistant(request)
    if content is None:
        return [Finding("round_trip", "assistant", "message", turn, f"turn {turn} request holds no assistant message")]
    found = _calls_back(content, previous, turn) + _reasoning_back(content, previous, turn)
    if "citations" in capabilities:
        found += _citations_back(content, previous, turn)
    found += _media_back(request, media, turn) if "tool_result_media" in capabilities else []
    want = "".join(i["text"] for i in previous if i["type"] == "text" and i["text"].strip())
    sent = "".join(_texts(b) for b in content)
    if want.strip() != sent.strip():
        found.append(Finding("round_trip", "text", "text", turn, f"turn {turn} request: the assistant text "
                             f"{_show(sent)} is not the streamed {_show(want)}", "warn"))
    return found


def _texts(block: Mapping) -> str:
    """The text of an assistant block: a text block's, or the cited text inside a citationsContent block."""
    if isinstance(block.get("text"), str):
        return block["text"]
    cited = block.get("citationsContent")
    parts = cited.get("content") if isinstance(cited, Mapping) else None
    return "".join(p["text"] for p in parts if isinstance(p, Mapping) and isinstance(p.get("text"), str)) \
        if isinstance(parts, list) else ""


def _citations_back(content: list[dict], previous: list[dict], turn: int) -> list[Finding]:
    """Each streamed citation goes back inside a citationsContent block of the assistant message."""
    sent = [c for b in content if isinstance(b.get("citationsContent"), Mapping)
            for c in b["citationsContent"].get("citations") or ()]
    for item in (i for i in previous if i["type"] == "citation"):
        if item["citation"] not in sent:
            return [Finding("round_trip", "citations", "citationsContent", turn, f"turn {turn} request: the "
                            f"assistant message does not carry the citation {_show(item['citation'])} back")]
    return []


def _media_back(request: Mapping, media: Sequence[str], turn: int) -> list[Finding]:
    """Each image and document of the tool results reaches the request as an image or document block with its bytes
    (inside the toolResult or beside it, where the family takes it)."""
    sent: set = set()

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            for key in ("image", "document"):
                source = value.get(key, {}).get("source") if isinstance(value.get(key), Mapping) else None
                if isinstance(source, Mapping):
                    sent.add(source.get("bytes"))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(request.get("messages"))
    lost = [m for m in media if m not in sent]
    return [Finding("round_trip", "results", "toolResult.media", turn, f"turn {turn} request: {len(lost)} image or "
                    f"document part(s) of the tool results are not sent as such (first: {_show(lost[0][:24])})")] \
        if lost else []


def _calls_back(content: list[dict], previous: list[dict], turn: int) -> list[Finding]:
    uses = {b["toolUse"].get("toolUseId"): b["toolUse"] for b in content if isinstance(b.get("toolUse"), Mapping)}
    found = []
    for call in (i for i in previous if i["type"] == "tool_call"):
        sent = uses.get(call["id"])
        if sent is None:
            found.append(Finding("round_trip", "toolUse", "toolUse", turn,
                                 f"turn {turn} request: the assistant message lacks toolUse {call['id']}"))
            continue
        for key, want in (("name", call["name"]), ("input", call["input"])):
            if sent.get(key) != want:
                found.append(Finding("round_trip", "toolUse", f"toolUse.{key}", turn,
                                     f"turn {turn} request: toolUse {call['id']} {key} {_show(sent.get(key))}, "
                                     f"streamed {_show(want)}"))
    return found


def _reasoning_back(content: list[dict], previous: list[dict], turn: int) -> list[Finding]:
    """Signed and redacted reasoning first, in order, byte-exact (unsigned reasoning has several accepted forms)."""
    want = [i for i in previous if i["type"] == "redacted_reasoning" or
            (i["type"] == "reasoning" and i.get("signature") is not None)]
    if not want:
        return []
    sent = [b.get("reasoningContent") for b in content[:len(want)]]
    for n, item in enumerate(want):
        got = sent[n] if n < len(sent) and isinstance(sent[n], Mapping) else None
        expect = ({"redactedContent": item["data"]} if item["type"] == "redacted_reasoning" else
                  {"reasoningText": {"text": item["text"], "signature": item["signature"]}})
        if got != expect:
            field = "redactedContent" if item["type"] == "redacted_reasoning" else _reasoning_field(got, expect)
            return [Finding("round_trip", "reasoning", field, turn, f"turn {turn} request: assistant block {n} "
                            f"{_show(got)}, streamed {_show(expect)}")]
    return []


def _reasoning_field(got: Any, expect: Mapping) -> str:
    text = (got or {}).get("reasoningText") if isinstance(got, Mapping) else None
    if not isinstance(text, Mapping):
        return "reasoningContent"
    diff = [k for k in ("signature", "text") if text.get(k) != expect["reasoningText"][k]]
    return f"reasoningText.{diff[0]}" if diff else "reasoningContent"


def grade(findings: list[Finding], robustness: bool) -> list[Finding]:
    """A robustness example's findings are warnings, but the contract laws', which fail wherever they are broken."""
    if not robustness:
        return findings
    return [f if f.oracle == "law" and f.law in CONTRACT_LAWS else
            Finding(f.oracle, f.law, f.field, f.turn, f.message, "warn") for f in findings]
