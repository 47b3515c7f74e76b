"""Responders: a cassette replayed in its own operation, or rendered for another one, and the runner on top."""

from __future__ import annotations

import json
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from botocore.exceptions import EventStreamError

from harness import load_adapter
from harness.cassettes import cassette
from harness.converse import ConverseAdapter
from harness.converse.adapter import make_client
from harness.endpoint.emulator.render import render_converse, render_invoke_stream, render_stream
from harness.endpoint.faults import Fault, Faults
from harness.endpoint.responders import CassetteResponder, Rendering
from harness.suite.runner import loopback_endpoint, replay, run, run_scenario
from harness.suite.scenario import discover, scenario_ids
from harness.endpoint.exchange import CapturedRequest, RequestError
from harness.endpoint.server import BedrockServer

ROOT = Path(__file__).resolve().parents[1]
MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
USER = [{"role": "user", "content": [{"text": "Read both files."}]}]
SCRIPT = {"content": [{"text": ["Reading", " both", " files."]},
                      {"reasoning": ["Two paths", " given."], "signature": "EqQBSignature=="},
                      {"tool_use": {"name": "read_file", "id": "tooluse_recordedA", "input": {"path": "/tmp/a"}}},
                      {"tool_use": {"name": "read_file", "id": "tooluse_recordedB", "input": {"path": "/tmp/b"}}}],
          "stop_reason": "tool_use", "usage": {"input_tokens": 40, "output_tokens": 20}}
FAILING = {**SCRIPT, "exception": {"type": "throttlingException", "message": "Too many tokens.", "after_event": 5}}


# ---- helpers ----------------------------------------------------------------------------------------------

def interaction(operation="converse-stream", status=200, frames=None, body=b"", headers=None):
    uri = f"https://bedrock-runtime.us-east-1.amazonaws.com/model/{MODEL.replace(':', '%3A')}/{operation}"
    response_headers = headers or {"Content-Type": "application/vnd.amazon.eventstream" if frames
                                   else "application/json"}
    request = json.dumps({"messages": USER}).encode()
    return cassette.Interaction("POST", uri, {"Content-Type": "application/json"}, request, status, "OK",
                                response_headers, frames, body)


def stream_interaction(script=SCRIPT):
    return interaction(frames=cassette.frames_from_body(b"".join(render_stream(script, seed="recorded"))))


def loaded(tmp_path, *interactions):
    path = tmp_path / "demo.yaml"
    cassette.save(path, cassette.Cassette(None, cassette.metadata_for(interactions, source="emulator"),
                                          tuple(interactions)))
    return cassette.load(path)


def client(server, attempts=1):
    return make_client(loopback_endpoint(server), max_attempts=attempts)


def invoke(bedrock):
    body = json.dumps({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 64,
                       "messages": [{"role": "user", "content": "Read both files."}]})
    return bedrock.invoke_model_with_response_stream(modelId=MODEL, body=body)


def anthropic_events(response) -> list[dict]:
    return [json.loads(event["chunk"]["bytes"]) for event in response["body"]]


def captured(operation: str, turn: int = 0) -> CapturedRequest:
    return CapturedRequest("POST", f"/model/{MODEL}/x", operation, MODEL, {}, {"messages": USER}, b"{}", turn=turn)


# ---- cross-operation serving ----------------------------------------------------------------------------

def test_a_stream_recording_serves_invoke_with_the_recorded_content_and_ids(tmp_path, caplog):
    responder = CassetteResponder(loaded(tmp_path, stream_interaction()))
    with BedrockServer(responder) as server, caplog.at_level(logging.INFO, "harness.endpoint.responders"):
        events = anthropic_events(invoke(client(server)))
    starts = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    assert [s.get("id") for s in starts if s["type"] == "tool_use"] == ["tooluse_recordedA", "tooluse_recordedB"]
    assert [e["delta"]["text"] for e in events if e.get("delta", {}).get("type") == "text_delta"] == \
        ["Reading", " both", " files."]
    assert [e["delta"]["signature"] for e in events if e.get("delta", {}).get("type") == "signature_delta"] == \
        ["EqQBSignature=="]
    partial = "".join(e["delta"]["partial_json"] for e in events if e.get("index") == 3 and e["type"] == "content_block_delta")
    assert json.loads(partial) == {"path": "/tmp/b"}
    assert events[-2]["delta"]["stop_reason"] == "tool_use" and events[-2]["usage"] == {"output_tokens": 20}
    assert responder.renderings == [Rendering(0, "ConverseStream", "InvokeModelWithResponseStream")]
    lines = [r.getMessage() for r in caplog.records if r.name == "harness.endpoint.responders"]
    assert lines == [(f"cassette {tmp_path / 'demo.yaml'}, request 1 (turn 0): recorded ConverseStream, "
                      f"rendered as InvokeModelWithResponseStream")]


def test_a_stream_recording_serves_converse_as_the_whole_answer(tmp_path):
    with BedrockServer(CassetteResponder(loaded(tmp_path, stream_interaction()))) as server:
        answer = client(server).converse(modelId=MODEL, messages=USER)
    expected = render_converse(SCRIPT, seed="other")  # ids are given, text is whole: the seed does not show
    assert answer["output"] == expected["output"]
    assert answer["stopReason"] == "tool_use" and answer["usage"]["inputTokens"] == 40


def test_a_converse_recording_serves_both_streams(tmp_path):
    document = json.dumps(render_converse(SCRIPT, seed="recorded"), separators=(",", ":")).encode()
    recording = loaded(tmp_path, interaction("converse", body=document), interaction("converse", body=document))
    with BedrockServer(CassetteResponder(recording)) as server:
        bedrock = client(server)
        streamed = list(bedrock.converse_stream(modelId=MODEL, messages=USER)["stream"])
        events = anthropic_events(invoke(bedrock))
    text = "".join(e["contentBlockDelta"]["delta"].get("text", "") for e in streamed if "contentBlockDelta" in e)
    ids = [e["contentBlockStart"]["start"]["toolUse"]["toolUseId"] for e in streamed if "contentBlockStart" in e]
    assert text == "Reading both files." and ids == ["tooluse_recordedA", "tooluse_recordedB"]
    assert streamed[-2]["messageStop"]["stopReason"] == "tool_use"
    assert [e["content_block"]["id"] for e in events if e["type"] == "content_block_start"
            and e["content_block"]["type"] == "tool_use"] == ids


def test_cross_operation_false_refuses_without_consuming_the_turn(tmp_path):
    recording = loaded(tmp_path, stream_interaction())
    with BedrockServer(CassetteResponder(recording, cross_operation=False)) as server:
        bedrock = client(server)
        with pytest.raises(bedrock.exceptions.ValidationException, match="recorded ConverseStream, got Converse$"):
            bedrock.converse(modelId=MODEL, messages=USER)
        assert server.turn == 0
        assert len(list(bedrock.converse_stream(modelId=MODEL, messages=USER)["stream"])) > 10
    refusing = BedrockServer.from_cassette(recording.path, cross_operation=False)
    with refusing as server, pytest.raises(bedrock.exceptions.ValidationException, match="got InvokeModelWith"):
        invoke(client(server))


def test_a_recorded_http_error_is_replayed_as_is_for_any_operation(tmp_path):
    body = json.dumps({"message": "The provided model identifier is invalid."}).encode()
    headers = {"Content-Type": "application/json", "x-amzn-ErrorType": "ValidationException:http://x/"}
    responder = CassetteResponder(loaded(tmp_path, interaction(status=400, body=body, headers=headers)))
    with BedrockServer(responder) as server:
        bedrock = client(server)
        with pytest.raises(bedrock.exceptions.ValidationException, match="model identifier is invalid"):
            invoke(bedrock)
        assert server.turn == 1 and responder.renderings == []


def test_an_anthropic_native_recording_is_not_rendered_for_other_operations(tmp_path):
    frames = cassette.frames_from_body(b"".join(render_invoke_stream(SCRIPT, seed="r", model_id=MODEL)))
    responder = CassetteResponder(loaded(tmp_path, interaction("invoke-with-response-stream", frames=frames)))
    with pytest.raises(RequestError, match="recorded InvokeModelWithResponseStream, got ConverseStream"):
        responder.respond(captured("ConverseStream"))


def test_a_mid_stream_failure_answers_converse_with_the_http_error_every_attempt(tmp_path):
    responder = CassetteResponder(loaded(tmp_path, stream_interaction(FAILING)))
    with BedrockServer(responder) as server:
        bedrock = client(server, attempts=2)
        with pytest.raises(bedrock.exceptions.ThrottlingException, match="Too many tokens"):
            bedrock.converse(modelId=MODEL, messages=USER)
        assert [(r.turn, r.status) for r in server.requests] == [(0, 429), (0, 429)] and server.turn == 0
    assert len(responder.renderings) == 1 and "before the recorded throttlingException" in responder.renderings[0].lost


def test_a_mid_stream_failure_cuts_the_invoke_rendering_after_the_same_content(tmp_path):
    responder = CassetteResponder(loaded(tmp_path, stream_interaction(FAILING)))  # after the whole text block
    events = []
    with BedrockServer(responder) as server, pytest.raises(EventStreamError, match="throttlingException"):
        for event in invoke(client(server))["body"]:
            events.append(json.loads(event["chunk"]["bytes"]))
    assert [e["delta"]["text"] for e in events if e["type"] == "content_block_delta"] == ["Reading", " both", " files."]
    assert [e["type"] for e in events][-1] == "content_block_stop" and responder.renderings[0].lost == ""


def test_a_byte_fault_that_lands_elsewhere_is_reported_as_lost(tmp_path):
    recording = loaded(tmp_path, stream_interaction())
    first = len(recording.interactions[0].frames[0].encode())
    for cut, lost in ((first - 1, ""), (900, "a byte-offset fault lands elsewhere")):
        responder = CassetteResponder(recording, faults=Faults((Fault(turn=0, truncate_after_byte=cut),)))
        responder.respond(captured("InvokeModelWithResponseStream"))
        assert responder.renderings[0].lost.startswith(lost)
    converse = CassetteResponder(recording, faults=Faults((Fault(drop_after_byte=10),)))
    converse.respond(captured("Converse"))
    assert converse.renderings[0].lost.startswith("a byte-offset fault")  # a JSON body has no frames to match
    same = CassetteResponder(recording, faults=Faults((Fault(turn=0, truncate_after_byte=900),)))
    same.respond(captured("ConverseStream"))
    assert same.renderings == []  # its own operation: the recorded bytes, the fault where it was meant


def test_guardrail_stop_is_lost_on_the_anthropic_native_path(tmp_path):
    responder = CassetteResponder(loaded(tmp_path, stream_interaction({**SCRIPT, "stop_reason": "guardrail_intervened"})))
    responder.respond(captured("InvokeModelWithResponseStream"))
    assert responder.renderings[0].lost == "stop reason guardrail_intervened has no Anthropic-native twin"
    responder.respond(captured("Converse", turn=0))  # the same turn again (a retry): noted once
    assert len(responder.renderings) == 1


# ---- the runner over every shipped scenario --------------------------------------------------------------

class NonStreaming(ConverseAdapter):
    """The reference implementation through non-streaming Converse (text and tool input whole per block)."""

    name = "converse-non-streaming"
    capabilities = ConverseAdapter.capabilities - {"streaming", "non_streaming"}

    def stream(self, turn, endpoint=None):
        return self.converse(turn, endpoint)


class BufferedText(ConverseAdapter):
    """Declares ``streaming`` but holds every text delta back and yields the text as one chunk at the end."""

    name = "buffered-text"

    def stream(self, turn, endpoint=None):
        chunks = list(super().stream(turn, endpoint))
        text = "".join(chunk["text"] for chunk in chunks if chunk["type"] == "text")
        yield {"type": "text", "text": text}
        yield from (chunk for chunk in chunks if chunk["type"] != "text")


SCENARIOS = discover(ROOT / "suites")
INVOKE_SKIPS = {"edge/guardrail-intervened": "stop reason guardrail_intervened has no Anthropic-native twin",
                "edge/every-stop-reason": "stop reason malformed_model_output has no Anthropic-native twin",
                "edge/guardrail-trace": "stop reason guardrail_intervened has no Anthropic-native twin",
                "faults/truncated-stream": "a byte-offset fault lands elsewhere",
                # the Anthropic-native request is not judged: the reference-invoke declares no cache placement
                **{sid: "adapter lacks cache_points" for sid in ("edge/cache-points", "edge/nova-cache-points",
                                                                 "edge/cache-point-before-document")},
                "edge/structured-output": "adapter lacks structured_output",
                **{sid: "adapter lacks tool_result_media" for sid in (
                    "edge/tool-result-media", "edge/nova-tool-result-media", "edge/openai-tool-result-image",
                    "edge/tool-result-error-with-image")},
                **{sid: "adapter lacks citations" for sid in ("edge/document-citations",
                                                               "edge/search-result-citations")},
                # how ConverseStream is served: the InvokeModel reference has no such members
                "edge/guardrail-async": "adapter lacks guardrail", "edge/latency-optimized": "adapter lacks service_tier",
                "edge/response-field-paths": "adapter lacks response_fields",
                "edge/service-tier-flex": "adapter lacks service_tier"}
CONVERSE_SKIPS = {"faults/model-stream-error-mid-tool": "cannot hold the content streamed before the recorded "
                                                        "modelStreamErrorException",
                  "faults/throttling-mid-tool": "cannot hold the content streamed before the recorded "
                                                "throttlingException",
                  "faults/truncated-stream": "a byte-offset fault lands elsewhere"}


@pytest.fixture(scope="module")
def results():
    adapters = {"invoke": load_adapter("reference-invoke"), "converse": NonStreaming(),
                "invoke-conversation": load_adapter("reference-invoke-conversation"),
                "converse-conversation": NonStreaming(conversation=True)}
    with ThreadPoolExecutor(len(adapters)) as pool:  # each run has its own loopback servers
        runs = dict(zip(adapters, pool.map(lambda adapter: run(SCENARIOS, adapter, ROOT), adapters.values())))
    return {key: {result.scenario: result for result in found} for key, found in runs.items()}


@pytest.mark.parametrize("key, skips", [("invoke", INVOKE_SKIPS), ("converse", CONVERSE_SKIPS),
                                        ("invoke-conversation", INVOKE_SKIPS),
                                        ("converse-conversation", CONVERSE_SKIPS)])
def test_every_shipped_scenario_passes_on_another_operation(results, key, skips):
    assert len(results[key]) == len(SCENARIOS) == len(scenario_ids(ROOT / "suites"))
    assert {sid: r.status for sid, r in results[key].items() if r.status != "pass"} == dict.fromkeys(skips, "skip")
    for sid, expected in skips.items():
        assert expected in results[key][sid].reason


def test_invoke_requests_are_neither_checked_nor_compared_but_converse_requests_are():
    scenario = next(s for s in SCENARIOS if s.id == "core/round-trip")
    path = ROOT / "cassettes" / "core/round-trip.yaml"
    for spec, operation, kind in (("reference-invoke", "InvokeModelWithResponseStream", type(None)),
                                  ("reference", "ConverseStream", dict)):
        with BedrockServer.from_cassette(path) as server:
            turns = replay(scenario, load_adapter(spec), loopback_endpoint(server), server).turns
        assert [(t["operation"], type(t["request"]), t["problems"]) for t in turns] == [(operation, kind, [])] * 2
        assert spec == "reference" or "anthropic_version" in server.requests[0].body_json


def test_text_held_back_by_a_streaming_adapter_breaks_the_incremental_text_law():
    scenario = next(s for s in SCENARIOS if s.id == "core/smoke-text")
    buffered = run_scenario(scenario, BufferedText(), ROOT)
    assert buffered.status == "fail" and buffered.reason.startswith("incremental_text: chunk 0 (text) holds all")
    assert buffered.turns[0].diffs == () and buffered.reason.endswith("in 2 deltas")
    honest = BufferedText()
    honest.capabilities = ConverseAdapter.capabilities - {"streaming"}
    assert run_scenario(scenario, honest, ROOT).status == "pass"
    assert run_scenario(scenario, load_adapter("reference"), ROOT).status == "pass"


def test_a_recording_the_asked_operation_cannot_express_is_refused_and_reported(tmp_path):
    cited = {"content": [{"text": "Thirty days.", "citations": [{"title": "Policy", "sourceContent": [{"text": "x"}]}]}]}
    responder = CassetteResponder(loaded(tmp_path, stream_interaction(cited)))
    with pytest.raises(RequestError, match=r"cannot render the recorded ConverseStream as InvokeModelWithResponse"
                                           r"Stream: .*citations\[0\]\.location"):
        responder.respond(captured("InvokeModelWithResponseStream"))
    assert responder.renderings[0].lost.startswith("no InvokeModelWithResponseStream rendering: ")
    assert responder.respond(captured("Converse", turn=0)).status == 200  # the whole answer carries it
