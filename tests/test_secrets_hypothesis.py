"""A canary written in any encoding the scan reads (as it is, JSON ``\\u`` escapes, percent escapes, HTML entities,
base64, hex with or without separators), then split anywhere into pieces spread over the deltas of a block, the
blocks of a message or the system prompt and messages of one request: the recorder refuses to write it, and
``cassette scan`` finds it in the same text written anyway (the two agree)."""

from __future__ import annotations

import base64
import json

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cassettes import cassette as cs
from harness.cassettes import secrets
from harness.wire.eventstream import encode_event

KEY_ID = "AKIA" + "HYPOCANARY012345"


def _escape(how: str, text: str) -> str:
    if how == "json-unicode":
        return "".join(f"\\u{ord(c):04x}" if n % 3 == 0 else c for n, c in enumerate(text))
    if how == "percent":
        return "".join(f"%{b:02X}" for b in text.encode())
    if how == "html":
        return "".join(f"&#{ord(c)};" if n % 2 else f"&#x{ord(c):x};" for n, c in enumerate(text))
    if how == "base64":
        return base64.b64encode(text.encode()).decode()
    if how == "hex":
        return text.encode().hex()
    if how.startswith("hex-"):
        return {"hex-space": " ", "hex-colon": ":", "hex-comma": ", "}[how].join(f"{b:02x}" for b in text.encode())
    return text


ENCODINGS = ["plain", "json-unicode", "percent", "html", "base64", "hex", "hex-space", "hex-colon", "hex-comma"]


def _pieces(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)]) if text[a:b]]


def _event(name: str, body: dict) -> bytes:
    return encode_event(name, body, 8)


def _interaction(where: str, pieces: list[str]) -> cs.Interaction:
    messages = [{"role": "user", "content": [{"text": "hello"}]}]
    body: dict = {"messages": messages}
    frames = [_event("messageStart", {"role": "assistant"})]
    if where == "text-deltas":
        frames += [_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": p}}) for p in pieces]
        frames.append(_event("contentBlockStop", {"contentBlockIndex": 0}))
    elif where == "tool-input-deltas":
        frames.append(_event("contentBlockStart", {"contentBlockIndex": 0, "start": {"toolUse": {
            "toolUseId": "tooluse_hypo0001", "name": "save"}}}))
        inner = json.dumps({"note": "".join(pieces)})  # the JSON text an SDK joins, cut where the pieces are
        cuts = _pieces(inner, [len(p) for p in pieces])
        frames += [_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": c}}})
                   for c in cuts]
        frames.append(_event("contentBlockStop", {"contentBlockIndex": 0}))
    else:
        frames += [_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "ok"}}),
                   _event("contentBlockStop", {"contentBlockIndex": 0})]
        if where == "content-blocks":
            messages[0]["content"] = [{"text": p} for p in pieces]
        elif where == "system-and-messages":
            body["system"] = [{"text": pieces[0]}]
            messages[:] = [{"role": "user" if n % 2 == 0 else "assistant", "content": [{"text": p}]}
                           for n, p in enumerate(pieces[1:] or ["hello"])]
    frames += [_event("messageStop", {"stopReason": "end_turn"}),
               _event("metadata", {"usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
                                   "metrics": {"latencyMs": 1}})]
    return cs.Interaction("POST", "http://127.0.0.1/model/m/converse-stream", {"Content-Type": "application/json"},
                          json.dumps(body).encode(), 200, "OK", {"Content-Type": "application/vnd.amazon.eventstream"},
                          cs.frames_from_body(b"".join(frames)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ENCODINGS), st.sampled_from(["text-deltas", "tool-input-deltas", "content-blocks",
                                                    "system-and-messages"]),
       st.lists(st.integers(min_value=1, max_value=400), min_size=1, max_size=4))
def test_a_canary_encoded_and_split_any_way_is_refused_and_scan_agrees(encoding, where, cuts):
    text = _escape(encoding, f"the key {KEY_ID} leaked")
    it = _interaction(where, _pieces(text, cuts))
    cassette = cs.Cassette(None, cs.metadata_for([it]), (it,))
    try:
        cs.dumps(cassette)
        refused = False
    except secrets.SecretFound:
        refused = True
    doc = {"metadata": cassette.metadata, "interactions": [cs._interaction_doc(it)]}
    written = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True).encode()
    found = secrets.scan_data(written, environ={})
    assert refused and found, (encoding, where, _pieces(text, cuts))
