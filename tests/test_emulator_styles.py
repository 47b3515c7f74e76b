"""Each emulator style streams content the way its model family's real recordings do: event SHAPES compared.

For every real ConverseStream recording in ../shared/realworld, the content alone is taken from it (whole texts,
parsed tool inputs, signatures, usage: no deltas, no fragments), rendered by the style of the recording's model
family, and both streams are reduced to shapes: event names and the keys of their payloads with every value
replaced by its kind ("" kept apart from other strings), runs of equal shapes folded into one, except that a
tool input sent whole (one delta) is told from one sent in fragments. What the style decides (starts for text and
reasoning or not, Claude's leading "" input delta, whole or fragmented input, a closing "" text delta, the toolUse
start's type, serverToolUsage) must come out as in the real stream.
"""

from __future__ import annotations

import json

import pytest
from realworld import ids, requires_realworld, streams

from harness.endpoint.emulator.derive import script_from_frames
from harness.endpoint.emulator.render import render_stream
from harness.endpoint.rules.scope import family
from harness.wire.eventstream import decode_frames

STYLE_OF = {"anthropic": "claude", "nova": "nova", "openai": "openai", "titan": "titan"}  # any other: open-weight
FAMILY_STREAMS = [s for s in streams("ConverseStream") if family(s.model_id)]


def style_of(model_id: str) -> str:
    return STYLE_OF.get(family(model_id), "open-weight")


def _kind(value):
    if isinstance(value, dict):
        return {key: _kind(item) for key, item in sorted(value.items()) if key != "p"}
    if isinstance(value, list):
        return [_kind(item) for item in value[:1]]
    if isinstance(value, str):
        return "''" if value == "" else "str"
    return type(value).__name__


def shapes(frames: list[bytes]) -> list[str]:
    """The stream's event shapes, equal runs folded; tool input deltas as one or many; an empty "" text delta is told
    from other text wherever it comes, so the style must put it where the real stream has it."""
    out: list[list] = []
    for frame in decode_frames(b"".join(frames)):
        body = frame.json()
        body.pop("contentBlockIndex", None)
        shape = f"{frame.type} {json.dumps(_kind(body), sort_keys=True)}"
        if out and out[-1][0] == shape:
            out[-1][1] += 1
        else:
            out.append([shape, 1])
    return [shape + (" (many)" if n > 1 and '"toolUse": {"input": "str"}' in shape else "") for shape, n in out]


def content_only(script: dict) -> dict:
    """A derived script reduced to content: whole texts and reasoning, parsed inputs, no fragment counts."""
    blocks = []
    for block in script["content"]:
        if "text" in block:
            block = {**block, "text": "".join(block["text"])}
        elif "reasoning" in block:
            block = {**block, "reasoning": "".join(block["reasoning"])}
        for kind in ("tool_use", "server_tool_use"):
            spec = block.get(kind)
            if spec is not None:
                spec = {k: v for k, v in spec.items() if k not in ("fragments", "raw_input")}
                raw = block[kind].get("raw_input")
                block = {kind: {**spec, "input": json.loads("".join(raw)) if raw is not None else spec.get("input", {})}}
        blocks.append(block)
    return {**script, "content": blocks}


@requires_realworld
@pytest.mark.parametrize("recorded", FAMILY_STREAMS, ids=ids(FAMILY_STREAMS))
def test_the_family_style_streams_real_content_in_the_real_shapes(recorded):
    style = style_of(recorded.model_id)
    script, _ = script_from_frames(recorded.body)
    script = content_only(script)
    if style == "openai":
        script["usage"].pop("server_tool_usage", None)  # the style sends serverToolUsage {} by itself
    ours = render_stream(script, style=style, seed="shape", tools=asked_with_tools(recorded))
    real = [frame.encode() for frame in decode_frames(recorded.body)]
    assert shapes(ours) == shapes(real)


def asked_with_tools(recorded) -> bool:
    """Whether the recorded request carried toolConfig (Nova closes an end_turn answer with "" only then)."""
    return bool((recorded.request or {}).get("toolConfig"))


def whole_inputs(frames) -> list[str]:
    """The tool input deltas of calls whose input arrived in one delta, as sent."""
    inputs: dict = {}
    for frame in decode_frames(b"".join(frames) if isinstance(frames, list) else frames):
        body = frame.json()
        if frame.type == "contentBlockDelta" and "toolUse" in body["delta"]:
            inputs.setdefault(body["contentBlockIndex"], []).append(body["delta"]["toolUse"]["input"])
    return [parts[0] for parts in inputs.values() if len(parts) == 1]


WHOLE = [s for s in FAMILY_STREAMS if whole_inputs(s.body)]


@requires_realworld
@pytest.mark.parametrize("recorded", WHOLE, ids=ids(WHOLE))
def test_a_whole_tool_input_is_written_byte_for_byte_as_the_family_writes_it(recorded):
    """Separators and key order of an input sent in one delta, as the real stream wrote it (Nova: compact)."""
    style = style_of(recorded.model_id)
    script = content_only(script_from_frames(recorded.body)[0])
    assert whole_inputs(render_stream(script, style=style, seed="whole")) == whole_inputs(recorded.body)


def test_kimi_writes_its_whole_tool_input_with_spaced_separators():
    """R-kimi-stream and R-kimi-read-file (vercel/ai fixtures, kept as decoded events) send {"pattern": "**/*cursor*"}
    and {"target_file": "src/cursor-config.ts"}: one delta each, ", " and ": " as separators."""
    script = {"content": [{"tool_use": {"name": "glob_search", "input": {"pattern": "**/*cursor*"}}},
                          {"tool_use": {"name": "read_file", "input": {"target_file": "src/cursor-config.ts",
                                                                       "limit": 20}}}]}
    assert deltas("open-weight", "toolUse", script) == [
        {"input": '{"pattern": "**/*cursor*"}'}, {"input": '{"target_file": "src/cursor-config.ts", "limit": 20}'}]


@requires_realworld
def test_the_nova_closing_empty_delta_follows_whether_the_request_had_tools():
    """Both real Nova v1 end_turn answers: with tools the last text closes with "", without tools it does not."""
    answers = [s for s in FAMILY_STREAMS if style_of(s.model_id) == "nova" and b"end_turn" in s.body]
    seen = {asked_with_tools(s): [d for n, b in events_of(s.body) if n == "contentBlockDelta"
                                  for d in [b["delta"].get("text")] if d is not None][-1] for s in answers}
    assert seen[True] == "" and seen[False] != ""
    for recorded in answers:
        script = content_only(script_from_frames(recorded.body)[0])
        ours = render_stream(script, style="nova", seed="n", tools=asked_with_tools(recorded))
        assert ([b["delta"]["text"] for n, b in events_of(b"".join(ours)) if n == "contentBlockDelta"][-1] == "") \
            == asked_with_tools(recorded)


def events_of(body: bytes) -> list:
    return [(f.type, f.json()) for f in decode_frames(body)]


SURFACE = {"content": [{"text": "See the source.", "citations": [
                           {"title": "Guide", "sourceContent": [{"text": "Paris"}],
                            "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 5}}}]},
                       {"server_tool_use": {"name": "web_search", "input": {"query": "Paris"}}},
                       {"tool_result": {"status": "error", "type": "web_search_tool_result",
                                        "content": [{"text": "timed out"}]}},
                       {"image": {"format": "png", "data": "iVBORw0K"}},
                       {"future_block": {"kind": "videoOutput", "deltas": [{"part": 1}]}},
                       {"text": "Done."}],
           "stop_reason": "end_turn", "additional_model_response_fields": {"stop_sequence": None},
           "trace": {"promptRouter": {"invokedModelId": "arn:aws:bedrock:us-east-1::foundation-model/x"}},
           "service_tier": "priority", "performance": "optimized",
           "usage": {"input_tokens": 3, "output_tokens": 4, "cache_read_input_tokens": 2, "cache_write_input_tokens": 1}}


@pytest.mark.parametrize("style", ["claude", "nova", "nova-2", "openai", "open-weight", "titan"])
def test_every_member_of_todays_surface_renders_in_each_family_style_that_has_it(style):
    """Citations, a server tool's toolResult with status and a text item, an image block, a future member, response
    fields, a prompt router's trace, the service tier, latency and cache counts: in every style (no tool use in
    Titan's)."""
    script = SURFACE if style != "titan" else {**SURFACE, "content": [b for b in SURFACE["content"]
                                                                       if "server_tool_use" not in b
                                                                       and "tool_result" not in b]}
    seen = events(style, script)
    deltas_seen = {key for name, body in seen if name == "contentBlockDelta" for key in body["delta"]}
    starts = {key for name, body in seen if name == "contentBlockStart" for key in body["start"]}
    expected = {"text", "citation", "image", "videoOutput"} | ({"toolUse", "toolResult"} if style != "titan" else set())
    assert deltas_seen == expected and starts >= {"image"} | ({"toolUse", "toolResult"} if style != "titan" else set())
    if style != "titan":
        [result] = [b["start"]["toolResult"] for n, b in seen if n == "contentBlockStart" and "toolResult" in b["start"]]
        assert result["status"] == "error" and result["type"] == "web_search_tool_result"
        assert [b["delta"]["toolResult"] for n, b in seen if n == "contentBlockDelta" and "toolResult" in b["delta"]] \
            == [[{"text": "timed out"}]]
    [(_, stop)] = [(n, b) for n, b in seen if n == "messageStop"]
    [(_, metadata)] = [(n, b) for n, b in seen if n == "metadata"]
    assert stop["additionalModelResponseFields"] == {"stop_sequence": None}
    assert {k: metadata[k] for k in ("trace", "serviceTier", "performanceConfig")} == {
        "trace": SURFACE["trace"], "serviceTier": {"type": "priority"}, "performanceConfig": {"latency": "optimized"}}
    assert (metadata["usage"]["cacheReadInputTokens"], metadata["usage"]["cacheWriteInputTokens"]) == (2, 1)


@requires_realworld
def test_the_real_recordings_cover_each_family_seen():
    seen = {style_of(s.model_id) for s in FAMILY_STREAMS}
    assert {"claude", "nova", "openai", "open-weight"} <= seen  # no Titan stream is among the recordings


SCRIPT = {"content": [{"text": ""}, {"reasoning": "Search for it."}, {"text": "I will search."},
                      {"tool_use": {"name": "glob_search", "input": {"pattern": "*.py"}}},
                      {"tool_use": {"name": "read_file", "input": {"path": "a.py"}}}, {"text": ""}],
          "usage": {"input_tokens": 5, "output_tokens": 9}}


def events(style: str, script=SCRIPT):
    return [(f.type, f.json()) for f in decode_frames(b"".join(render_stream(script, style=style, seed="s")))]


def deltas(style: str, kind: str, script=SCRIPT) -> list:
    return [body["delta"][kind] for name, body in events(style, script)
            if name == "contentBlockDelta" and kind in body["delta"]]


def test_open_weight_closes_text_with_an_empty_delta_and_uses_kimi_ids():
    texts = deltas("open-weight", "text")
    assert texts[0] == "" and texts[-2:] == ["", ""] and texts[-3].endswith("search.") and "".join(texts) == "I will search."
    starts = [body["start"]["toolUse"] for name, body in events("open-weight") if name == "contentBlockStart"]
    assert [s["toolUseId"] for s in starts] == ["functions.glob_search:0", "functions.read_file:1"]


def test_openai_fragments_tool_input_without_a_leading_empty_delta():
    inputs = [d["input"] for d in deltas("openai", "toolUse")]
    assert "" not in inputs and len(inputs) > 2
    assert "".join(inputs) == '{"pattern":"*.py"}{"path":"a.py"}'


def test_open_weight_sends_each_tool_input_whole_as_kimi_k2_does():
    assert [d["input"] for d in deltas("open-weight", "toolUse")] == ['{"pattern": "*.py"}', '{"path": "a.py"}']


@pytest.mark.parametrize("style", ["claude", "nova", "nova-2", "openai", "open-weight"])
def test_current_streams_send_server_tool_usage_unless_the_script_says_otherwise(style):
    usage = [body["usage"] for name, body in events(style) if name == "metadata"][0]
    assert usage["serverToolUsage"] == {}
    given = {**SCRIPT, "usage": {"input_tokens": 1, "output_tokens": 1, "server_tool_usage": {"webSearch": 1}}}
    assert [b["usage"]["serverToolUsage"] for n, b in events(style, given) if n == "metadata"] == [{"webSearch": 1}]
    older = {**SCRIPT, "usage": {"input_tokens": 1, "output_tokens": 1, "server_tool_usage": False}}
    assert "serverToolUsage" not in [b["usage"] for n, b in events(style, older) if n == "metadata"][0]


def test_titan_sends_no_server_tool_usage():
    script = {"content": [{"text": "One whole answer."}], "usage": {"input_tokens": 1, "output_tokens": 1}}
    assert "serverToolUsage" not in [b["usage"] for n, b in events("titan", script) if n == "metadata"][0]


def test_nova_v1_starts_carry_no_type_and_nova_2_starts_do():
    for style, kind in (("nova", None), ("nova-2", "tool_use")):
        starts = [body["start"]["toolUse"] for name, body in events(style) if name == "contentBlockStart"]
        assert [s.get("type") for s in starts] == [kind, kind]


def test_nova_closes_the_last_text_of_an_end_turn_answer_with_an_empty_delta():
    answer = {"content": [{"text": "Paris is 30 degrees."}], "stop_reason": "end_turn",
              "usage": {"input_tokens": 1, "output_tokens": 1}}
    calling = {"content": [{"text": "I will look it up."}, {"tool_use": {"name": "weather", "input": {}}}],
               "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}}
    for style in ("nova", "nova-2"):
        assert deltas(style, "text", answer)[-1] == "" and deltas(style, "text", calling)[-1] != ""
    assert deltas("claude", "text", answer)[-1] != ""


def test_titan_sends_each_text_whole_and_has_no_tool_use():
    script = {"content": [{"text": "One whole answer in several words here."}]}
    assert deltas("titan", "text", script) == ["One whole answer in several words here."]
    from harness.endpoint.emulator.script import EmulatorScriptError
    with pytest.raises(EmulatorScriptError, match=r"content\[3\]\.tool_use: the titan style streams no tool use"):
        render_stream(SCRIPT, style="titan", seed="s")


TRACE = {"guardrail": {"actionReason": "Guardrail blocked.", "modelOutput": ["No."]}}


def test_trace_and_both_cache_spellings_ride_in_metadata():
    script = {"content": [{"text": "No."}], "stop_reason": "guardrail_intervened", "trace": TRACE,
              "usage": {"input_tokens": 3, "output_tokens": 1, "cache_read_input_tokens": 7,
                        "cache_write_input_tokens": 0, "both_cache_spellings": True}}
    [(name, metadata)] = [(n, b) for n, b in events("claude", script) if n == "metadata"]
    assert metadata["trace"] == TRACE
    assert {k: metadata["usage"][k] for k in ("cacheReadInputTokens", "cacheReadInputTokenCount",
                                               "cacheWriteInputTokens", "cacheWriteInputTokenCount")} == \
        {"cacheReadInputTokens": 7, "cacheReadInputTokenCount": 7, "cacheWriteInputTokens": 0,
         "cacheWriteInputTokenCount": 0}
    from harness.endpoint.emulator.render import render_converse
    assert render_converse(script, style="claude", seed="s")["trace"] == TRACE
