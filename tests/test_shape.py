"""The wire shape of a cassette (harness.studies.shape): what it keeps, what it ignores, and how two compare."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from harness.cassettes import cassette
from harness.studies.shape import Difference, compare, shape_of
from harness.wire import eventstream as es

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = cassette.load(ROOT / "cassettes" / "core" / "single-call.yaml")


def rewritten(loaded, edit, headers=None, status=None):
    """The cassette with ``edit(frames as (type, body) pairs) -> pairs`` applied to its first interaction."""
    first = loaded.interactions[0]
    pairs = edit([(f.type, {k: v for k, v in f.json().items() if k != "p"}) for f in first.frames])
    frames = cassette.frames_from_body(b"".join(es.encode_event(t, body, 3) for t, body in pairs))
    changed = dataclasses.replace(first, frames=frames, response_headers=headers or first.response_headers,
                                  status=status or first.status)
    return dataclasses.replace(loaded, interactions=(changed, *loaded.interactions[1:]))


def test_the_shape_of_a_shipped_cassette():
    shape = shape_of(SHIPPED)
    assert shape.orders == (("messageStart", "contentBlockStart(toolUse)", "contentBlockDelta(toolUse)",
                             "contentBlockStop(toolUse)", "messageStop", "metadata"),)
    assert shape.fields["contentBlockStart(toolUse)"] == {"contentBlockIndex", "start.toolUse.name",
                                                          "start.toolUse.toolUseId"}
    assert shape.fields["metadata"] == {"usage.inputTokens", "usage.outputTokens", "usage.totalTokens",
                                        "usage.serverToolUsage", "metrics.latencyMs"}
    assert shape.stop_reasons == {"tool_use"} and shape.statuses == (200,) and "content-type" in shape.headers


def test_content_ids_and_counts_are_ignored_and_runs_collapse():
    def noisy(pairs):
        out = []
        for kind, body in pairs:
            text = json.dumps(body).replace("tooluse_", "tooluse_X").replace("452", "9").replace("/tmp", "/var")
            out.append((kind, json.loads(text)))
            if kind == "contentBlockDelta":
                out.append((kind, json.loads(text)))  # one more delta: a longer answer, the same shape
        return out

    assert compare(shape_of(SHIPPED), shape_of(rewritten(SHIPPED, noisy))) == []


def test_a_new_field_a_reordered_event_a_stop_reason_and_a_header_are_each_one_row():
    def drifted(pairs):
        pairs = [(k, {**b, "trace": {"guardrail": {}}} if k == "metadata" else b) for k, b in pairs]
        pairs[-2], pairs[-1] = pairs[-1], pairs[-2]
        return [(k, {"stopReason": "model_context_window_exceeded"} if k == "messageStop" else b) for k, b in pairs]

    headers = {**SHIPPED.interactions[0].response_headers, "x-amzn-bedrock-trace": "1"}
    assert compare(shape_of(SHIPPED), shape_of(rewritten(SHIPPED, drifted, headers))) == [
        Difference("event order (interaction 0)", "… messageStop metadata", "… metadata messageStop"),
        Difference("fields of metadata: new", "-", "trace.guardrail"),
        Difference("stop reasons: new", "tool_use", "model_context_window_exceeded"),
        Difference("response headers: new", "-", "x-amzn-bedrock-trace"),
    ]


def test_missing_fields_events_and_a_new_block_type():
    def thinner(pairs):
        pairs = [(k, {"usage": b["usage"]} if k == "metadata" else b) for k, b in pairs]
        return [(k, b) for k, b in pairs if k != "messageStart"][:1] + \
            [("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"citation": {"title": "t"}}})] + pairs[2:]

    rows = compare(shape_of(SHIPPED), shape_of(rewritten(SHIPPED, thinner)))
    assert Difference("events: new", "-", "contentBlockDelta(citation)") in rows
    assert Difference("events: missing", "messageStart", "-") in rows
    assert Difference("fields of metadata: missing", "metrics.latencyMs", "-") in rows


def test_status_and_interaction_count():
    failed = rewritten(SHIPPED, lambda pairs: pairs, status=503)
    assert compare(shape_of(SHIPPED), shape_of(failed)) == [Difference("status (interaction 0)", "200", "503")]
    two = dataclasses.replace(SHIPPED, interactions=SHIPPED.interactions * 2)
    assert compare(shape_of(SHIPPED), shape_of(two))[0] == Difference("interactions", "1", "2")
