"""What a drawn conversation asks of its request beyond messages and tools, and what the service answers for it.

``surface(family, capabilities, turns, parts)`` draws, after the turns' scripts, a text document with citations beside
the first question (and the citations of the answer), cache marks on the tools, the system prompt, the first question
and the tool results, the options a turn may carry and the parts of each script that answer them, each resting on a claim of harness.studies.explore.families: stop sequences for a
``stop_sequence`` stop, a guardrail (sync or async) for a ``guardrail_intervened`` one, response field paths and the
fields messageStop carries, a service tier or the optimized latency and the metadata reporting it, a JSON schema for
the answer, a tool choice on a request without tools (which the adapter must leave out, rule 40), and a prompt
router's invoked model in each turn's metadata trace. What the adapter does not declare is not drawn.
"""

from __future__ import annotations

from hypothesis import strategies as st

from harness.studies.explore.families import Family

__all__ = ["ANSWER_SCHEMA", "surface"]

ANSWER_SCHEMA = {"type": "json_schema", "name": "answer", "description": "The answer and whether it is final.",
                 "schema": {"type": "object", "properties": {"answer": {"type": "string"}, "final": {"type": "boolean"}},
                            "required": ["answer", "final"], "additionalProperties": False}}
_GUARDRAIL = {"identifier": "grd1abcd2345", "version": "1", "trace": "enabled"}


def _stops(turns: list[dict]) -> set[str]:
    return {t["script"]["stop_reason"] for t in turns}


_DOCUMENT = ("The return window is thirty days from purchase. Refunds go to the original payment method. "
             "Gift cards are not refundable.")
_SENTENCES = [(0, 47), (48, 91), (92, 122)]  # (start, end) of each sentence of _DOCUMENT


def _first_question(turns: list[dict]) -> dict:
    """The first user message, its content as text blocks (a cache mark or a document goes beside them)."""
    message = turns[0]["messages"][0]
    if isinstance(message["content"], str):
        message["content"] = [{"type": "text", "text": message["content"]}]
    return message


def _document(draw, turns: list[dict]) -> None:
    """A text document with citations enabled after the first question; some answer text blocks cite a sentence."""
    _first_question(turns)["content"].append({
        "type": "document", "title": "Returns policy", "citations": {"enabled": True},
        "source": {"type": "text", "media_type": "text/plain", "data": _DOCUMENT}})
    for turn in turns:
        for block in turn["script"]["content"]:
            if "text" in block and any(block["text"]) and draw(st.booleans()):
                start, end = draw(st.sampled_from(_SENTENCES))
                block["citations"] = [{"title": "Returns policy", "sourceContent": [{"text": _DOCUMENT[start:end]}],
                                       "location": {"documentChar": {"documentIndex": 0, "start": start, "end": end}}}]


def _cache_points(draw, fam: Family, turns: list[dict], parts: dict) -> None:
    """Cache marks where the family takes them, in the order tools, system, messages (the first question, then each
    tool result); for Claude the first few 1h, the rest 5m (no 1h mark after a 5m one, rule 32)."""
    places = [p for p in ("tools", "system") if p in fam.points and (p != "tools" or parts["tools"])]
    places += ["question"] + (["results"] if any(t.get("tool_results") for t in turns) else [])
    chosen = [p for p in places if draw(st.booleans())] or [draw(st.sampled_from(places))]
    hours = draw(st.integers(0, len(chosen))) if fam.style == "claude" else 0
    for n, place in enumerate(chosen):
        control = {"type": "ephemeral", **({"ttl": "1h"} if n < hours else {})}
        if place == "tools":
            parts["tools"][-1] = {**parts["tools"][-1], "cache_control": control}
        elif place == "system":
            parts["system"] = [{"type": "text", "text": parts["system"], "cache_control": control}]
        elif place == "question":
            _first_question(turns)["content"][0]["cache_control"] = control
        else:
            for turn in turns:
                for spec in (turn.get("tool_results") or {}).values():
                    spec["cache_control"] = control


@st.composite
def surface(draw, fam: Family, caps: frozenset[str], turns: list[dict],
            parts: dict) -> tuple[dict, list[str], set[str]]:
    """(options to add, claims, capabilities required) for the drawn turns; the scripts get what answers them, and
    ``parts`` (the conversation's tools and system prompt) and the turns' messages the marks and documents drawn."""
    asked, claims, needs = {}, [], set()
    if fam.style == "claude" and fam.points and "citations" in caps and draw(st.integers(0, 3)) == 3:
        _document(draw, turns)
        claims.append("document-citations")
        needs.add("citations")
    if fam.points and "cache_points" in caps and draw(st.integers(0, 2)) == 2:
        _cache_points(draw, fam, turns, parts)
        claims.append("cache-placed" if fam.style == "claude" else "nova-cache-placement")
        if len(_first_question(turns)["content"]) > 1 and "cache_control" in turns[0]["messages"][0]["content"][0]:
            claims.append("cache-before-document")
        needs.add("cache_points")
    stops = _stops(turns)
    if "stop_sequence" in stops:
        asked["stop_sequences"] = ["END"]
    if "guardrail_intervened" in stops and "guardrail" in caps:
        mode = draw(st.sampled_from(["sync", "async"]))
        asked["guardrail"] = {**_GUARDRAIL, "stream_processing_mode": mode}
        claims.append("async-guardrail")
        needs.add("guardrail")
    # Claude's own families (signed reasoning): the recordings of the claim; Writer and the router are not drawn
    if fam.reasoning == "signed" and "response_fields" in caps and draw(st.integers(0, 3)) == 3:
        asked["response_field_paths"] = ["/stop_sequence"]
        for turn in turns:
            script = turn["script"]
            script["additional_model_response_fields"] = {
                "stop_sequence": "END" if script["stop_reason"] == "stop_sequence" else None}
        claims.append("response-field-paths")
        needs.add("response_fields")
    served = [s for s in fam.served if "service_tier" in caps]
    if served and draw(st.integers(0, 3)) == 3:
        which = draw(st.sampled_from(served))
        asked.update({"service_tier": "flex"} if which == "service_tier" else {"latency": "optimized"})
        for turn in turns:
            turn["script"].update({"service_tier": "flex"} if which == "service_tier" else {"performance": "optimized"})
        claims.append("service-tier" if which == "service_tier" else "latency-optimized")
        needs.add("service_tier")
    if fam.structured and "structured_output" in caps and draw(st.integers(0, 3)) == 3:
        asked["output_format"] = ANSWER_SCHEMA
        claims.append("structured-output")
        needs.add("structured_output")
    if not fam.tools and "tool_use" in caps and draw(st.integers(0, 2)) == 2:
        asked["tool_choice"] = "auto"
        claims.append("no-choice-without-tools")
    if fam.router is not None:
        for turn in turns:
            turn["script"]["trace"] = {"promptRouter": {"invokedModelId": fam.router}}
    return asked, claims, needs
