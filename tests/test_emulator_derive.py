"""Scripts derived from recordings render back the recorded semantic sequence, in any operation."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from realworld import ids, interactions, requires_realworld, streams

import harness.endpoint.emulator.derive as derive_module
from harness.cassettes import cassette
from harness.endpoint.emulator.render import (
    EmulatorScriptError,
    parse_script,
    render_converse,
    render_invoke_stream,
    render_stream,
)
from harness.endpoint.emulator.derive import (
    delivered,
    for_operation,
    recorded_text_deltas,
    script_from_converse,
    script_from_frames,
)
from harness.wire.eventstream import decode_frames, encode_error, encode_event

ROOT = Path(__file__).resolve().parents[1]
ALL_SHIPPED = [(f"{path.relative_to(ROOT / 'cassettes')}#{n}", item)
               for path in sorted((ROOT / "cassettes").glob("*/*.yaml"))
               for n, item in enumerate(cassette.load(path).interactions)]
SHIPPED = [(name, item) for name, item in ALL_SHIPPED if item.frames is not None]  # streams
# Converse answers: Writer Palmyra's tool turns go through Converse alone (rule 38)
SHIPPED_CONVERSE = [(name, item) for name, item in ALL_SHIPPED if item.frames is None and item.status == 200]
SIGNATURE = "EqQBCkgIBxABGAIqQExampleSignatureOnly=="
REDACTED = base64.b64encode(b"EtkECkgIBxABGAIqQOpaqueData").decode()


def events(body: bytes) -> list[tuple[str, dict]]:
    """(event or exception type, JSON payload without padding) of every frame."""
    out = []
    for frame in decode_frames(body):
        payload = frame.json()
        payload.pop("p", None)
        out.append((frame.type, payload))
    return out


def masked(items: list[tuple[str, dict]], script: dict) -> list[tuple[str, dict]]:
    """Fragment boundaries of a tool input given as a document are the emulator's choice; the rest must match."""
    exact = {n for n, block in enumerate(script["content"])
             if "raw_input" in (block.get("tool_use") or block.get("server_tool_use") or {})}
    out = []
    for name, body in items:
        delta = body.get("delta", {})
        if "toolUse" in delta and delta["toolUse"]["input"] and body["contentBlockIndex"] not in exact:
            body = {**body, "delta": {"toolUse": {"input": "<fragment>"}}}
        out.append((name, body))
    return out


def tool_inputs(items: list[tuple[str, dict]]) -> dict[int, str]:
    joined: dict[int, str] = {}
    for _name, body in items:
        if "toolUse" in body.get("delta", {}):
            index = body["contentBlockIndex"]
            joined[index] = joined.get(index, "") + body["delta"]["toolUse"]["input"]
    return joined


def check_round_trip(body: bytes, seed: str) -> dict:
    """The fidelity property: the derived script renders the recorded sequence back (fragments aside)."""
    script, style = script_from_frames(body)
    parse_script(script)
    json.dumps(script)  # plain data: it could be written into a scenario
    recorded, rendered = events(body), events(b"".join(render_stream(script, style=style, seed=seed)))
    assert masked(rendered, script) == masked(recorded, script)
    assert tool_inputs(rendered) == tool_inputs(recorded)  # the exact JSON text, spacing included
    return script


@pytest.mark.parametrize("name, item", SHIPPED, ids=[name for name, _ in SHIPPED])
def test_every_shipped_cassette_renders_back(name, item):
    check_round_trip(item.response_body(), seed=name)


@pytest.mark.parametrize("name, item", SHIPPED_CONVERSE, ids=[name for name, _ in SHIPPED_CONVERSE])
def test_every_shipped_converse_answer_renders_back(name, item):
    script, style = script_from_converse(item.response_json)
    assert render_converse(script, style=style, seed=name) == item.response_json


@requires_realworld
@pytest.mark.parametrize("interaction", streams("ConverseStream"), ids=ids(streams("ConverseStream")))
def test_every_real_stream_renders_back(interaction):
    check_round_trip(interaction.body, seed=interaction.id)


def real_converse():
    return [i for i in interactions() if i.operation == "Converse" and i.status == 200]


@requires_realworld
@pytest.mark.parametrize("interaction", real_converse(), ids=ids(real_converse()))
def test_every_real_converse_response_renders_back(interaction):
    script, style = script_from_converse(interaction.json())
    assert render_converse(script, style=style, seed=interaction.id) == interaction.json()


def test_what_a_derived_script_holds():
    body = [f.encode() for f in cassette.load(ROOT / "cassettes/faults/model-stream-error-mid-tool.yaml")
            .interactions[0].frames]
    script, style = script_from_frames(b"".join(body))
    assert style == "claude"
    assert script["content"] == [
        {"text": ["I'll read", " the error log", " for you."]},
        {"tool_use": {"name": "read_file", "id": "tooluse_lFBwQcdrwCQ-peTVe2InEK",
                      "raw_input": ['{"path": ', '"/var/lo']}}]  # cut mid-input: the exact fragments
    assert script["exception"] == {
        "type": "modelStreamErrorException", "after_event": 9, "original_status_code": 500,
        "original_message": "Internal server error",
        "message": "The model stream was interrupted by an error from the model. Try your request again."}
    assert "stop_reason" not in script and "usage" not in script  # the stream never got there


RICH = {"content": [{"text": [""]},
                    {"reasoning": ["Let me think", " carefully."], "signature": SIGNATURE},
                    {"redacted_reasoning": REDACTED},
                    {"reasoning": [], "signature": SIGNATURE},
                    {"text": ["Returns:", " thirty days."], "citations": [{
                        "title": "Document 1", "sourceContent": [{"text": "Thirty days."}],
                        "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 12}}}]},
                    {"server_tool_use": {"name": "nova_code_interpreter", "id": "tooluse_srv",
                                         "input": {"snippet": "1 + 1"}, "fragments": 2}},
                    {"tool_result": {"status": "success", "type": "nova_code_interpreter_result",
                                     "content": [{"json": {"stdOut": "2", "exitCode": 0}}]}},
                    {"tool_use": {"name": "spaced", "id": "tooluse_b", "raw_input": ['{"a" :', ' 1}']}},
                    {"tool_use": {"name": "none", "id": None, "input": {}}}],
        "stop_reason": "tool_use", "latency_ms": 812,
        "usage": {"input_tokens": 20, "output_tokens": 30, "cache_read_input_tokens": 1209,
                  "cache_write_input_tokens": 7, "server_tool_usage": {}},
        "additional_model_response_fields": {"delta": {"stop_sequence": None}}}


@pytest.mark.parametrize("style", ["claude", "nova"])
def test_a_rich_script_survives_a_round_trip(style):
    body = b"".join(render_stream(RICH, style=style, seed="rich"))
    script, derived_style = script_from_frames(body)
    assert derived_style == style
    assert script["content"][:5] == RICH["content"][:5]  # exact deltas, signatures, blobs, citations
    assert script["content"][7]["tool_use"]["raw_input"][-1] == " 1}"  # '{"a" : 1}' is no style's spacing
    assert script["content"][8]["tool_use"] == {"name": "none", "id": None, "input": {}}
    assert {k: script[k] for k in ("stop_reason", "latency_ms", "usage", "additional_model_response_fields")} == \
        {k: RICH[k] for k in ("stop_reason", "latency_ms", "usage", "additional_model_response_fields")}
    check_round_trip(body, seed="again")


def test_interleaved_deltas_are_scripted_as_interleaved():
    script = {"content": [{"tool_use": {"name": n, "input": {"path": f"/tmp/{n}"}}} for n in "abc"], "interleave": True}
    derived, _ = script_from_frames(b"".join(render_stream(script, seed="i")))
    assert derived["interleave"] is True
    plain, _ = script_from_frames(b"".join(render_stream({**script, "interleave": False}, seed="i")))
    assert "interleave" not in plain


def test_frames_that_have_no_script_form_are_refused():
    body = encode_event("messageStart", {"role": "assistant"}) + encode_error("InternalFailure", "boom")
    with pytest.raises(EmulatorScriptError, match="^frame 1: a error frame"):
        script_from_frames(body)
    with pytest.raises(EmulatorScriptError, match="'image' has no script form"):
        script_from_converse({"output": {"message": {"content": [{"image": {}}]}}, "stopReason": "end_turn"})


# ---- another operation --------------------------------------------------------------------------------

EXCEPTION_SCRIPT = {"content": [{"text": ["One", " two", " three."]},
                                {"reasoning": ["hm", "m"], "signature": SIGNATURE},
                                {"tool_use": {"name": "f", "id": "tooluse_x", "raw_input": ['{"p": ', '"v', '"}']}},
                                {"tool_use": {"name": "g", "id": "tooluse_y", "input": {}}}],
                    "stop_reason": "tool_use"}


def converse_delivery(body: bytes) -> tuple[dict, list]:
    """Per block the content delivered before the exception, and the message events delivered."""
    content, message = {}, []
    for name, payload in events(body):
        delta = payload.get("delta", {})
        if name == "contentBlockStart":
            content.setdefault(payload["contentBlockIndex"], "")
        elif name == "contentBlockDelta":
            value = delta.get("text") or delta.get("toolUse", {}).get("input") or \
                next(iter(delta.get("reasoningContent", {}).values()), "")
            content[payload["contentBlockIndex"]] = content.get(payload["contentBlockIndex"], "") + value
        elif name in ("messageStop", "metadata"):
            message.append(name)
    return content, message


def invoke_delivery(body: bytes) -> tuple[dict, list]:
    content, message = {}, []
    for frame in decode_frames(body):
        if frame.message_type != "event":
            continue
        event = json.loads(base64.b64decode(frame.json()["bytes"]))
        if event["type"] == "content_block_delta":
            delta = {k: v for k, v in event["delta"].items() if k != "type"}
            content[event["index"]] = content.get(event["index"], "") + next(iter(delta.values()))
        elif event["type"] == "content_block_start" and event["content_block"]["type"] != "text":
            content.setdefault(event["index"], "")
        elif event["type"] in ("message_delta", "message_stop"):
            message.append({"message_delta": "messageStop", "message_stop": "metadata"}[event["type"]])
    return content, message


@pytest.mark.parametrize("after", range(1, 21))
def test_an_exception_moves_to_the_same_content_in_an_invoke_rendering(after):
    script = {**EXCEPTION_SCRIPT, "exception": {"type": "throttlingException", "message": "slow", "after_event": after}}
    recorded = b"".join(render_stream(script, seed="s"))
    derived, style = script_from_frames(recorded)
    moved = for_operation(derived, style, "InvokeModelWithResponseStream", "s")
    rendered = b"".join(render_invoke_stream(moved, seed="s"))
    assert decode_frames(rendered)[-1].type == "throttlingException"
    assert invoke_delivery(rendered) == converse_delivery(recorded)
    assert derived["exception"]["after_event"] == after and for_operation(derived, style, "ConverseStream", "s") == derived


def test_a_whole_converse_answer_leaves_out_inputs_that_never_parsed():
    script = {"content": [{"text": "Reading."}, {"tool_use": {"name": "f", "raw_input": '{"path": "/tm'}},
                          {"tool_use": {"name": "g", "raw_input": ['{"a":', ' 1}']}}], "stop_reason": "max_tokens"}
    derived, style = script_from_frames(b"".join(render_stream(script, seed="m")))
    kept = for_operation(derived, style, "Converse", "m")
    assert [next(iter(block)) for block in kept["content"]] == ["text", "tool_use"]
    content = render_converse(kept, style=style, seed="m")["output"]["message"]["content"]
    assert content[1]["toolUse"]["input"] == {"a": 1}
    assert for_operation(derived, style, "InvokeModelWithResponseStream", "m") == derived  # no exception to move


def test_delivered_names_the_content_a_byte_cut_leaves_whole():
    frames = render_stream(EXCEPTION_SCRIPT, seed="d")
    assert delivered(frames, "ConverseStream", len(frames[0]) - 1) == frozenset()
    assert delivered(frames, "ConverseStream", len(frames[0]) + len(frames[1])) == {
        "messageStart", ("open", 0), ("delta", 0, 0)}
    everything = delivered(frames, "ConverseStream", sum(map(len, frames)))
    assert everything == delivered(render_invoke_stream(EXCEPTION_SCRIPT, seed="d"), "InvokeModelWithResponseStream",
                                   10 ** 9)


def test_recorded_text_deltas_counts_non_empty_text_deltas_of_either_stream():
    item = dict(SHIPPED)["core/interleaved-text.yaml#0"]
    expected = sum(1 for name, body in events(item.response_body()) if body.get("delta", {}).get("text"))
    assert recorded_text_deltas(item) == expected > 2
    script = {"content": [{"text": ["a", "", "b"]}, {"reasoning": ["not text"]}]}
    invoke = type("Recorded", (), {"frames": decode_frames(b"".join(render_invoke_stream(script, seed="x"))),
                                   "operation": "InvokeModelWithResponseStream"})()
    assert recorded_text_deltas(invoke) == 2
    assert recorded_text_deltas(type("Json", (), {"frames": None})()) is None


def test_public_names_exist():
    assert all(hasattr(derive_module, name) for name in derive_module.__all__)


def test_a_trace_and_the_older_cache_spelling_survive_derivation():
    from harness.endpoint.emulator.derive import script_from_converse, script_from_frames
    from harness.endpoint.emulator.render import render_converse, render_stream

    trace = {"guardrail": {"actionReason": "Guardrail blocked."}}
    script = {"content": [{"text": "No."}], "stop_reason": "guardrail_intervened", "trace": trace,
              "usage": {"input_tokens": 3, "output_tokens": 1, "cache_read_input_tokens": 7,
                        "cache_write_input_tokens": 0, "both_cache_spellings": True}}
    derived, style = script_from_frames(b"".join(render_stream(script, style="claude", seed="s")))
    assert derived["trace"] == trace and derived["usage"]["both_cache_spellings"] is True
    assert render_stream(derived, style=style, seed="s") == render_stream(script, style="claude", seed="s")
    answer = render_converse(script, style="claude", seed="s")
    assert script_from_converse(answer)[0]["trace"] == trace
    only_counts = {**answer, "usage": {"inputTokens": 3, "outputTokens": 1, "totalTokens": 11,
                                       "cacheReadInputTokenCount": 7}}
    assert script_from_converse(only_counts)[0]["usage"]["cache_read_input_tokens"] == 7
