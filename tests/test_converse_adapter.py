"""The reference adapters end to end: boto3 against a loopback HTTP server (harness/converse/adapter.py)."""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote

import pytest
from realworld import ids, interactions, requires_realworld
from test_converse_stream import fold

from harness.converse import (
    ConverseAdapter,
    InvokeAdapter,
    build_invoke_body,
    build_request,
    chunks_from_response,
)
from harness.converse.request import converse_twin
from harness.wire.eventstream import encode_chunk, encode_event, encode_exception

MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
PNG = b"\x89PNG\r\n\x1a\n fake"
STREAM_HEADERS = [("Content-Type", "application/vnd.amazon.eventstream"), ("x-amzn-RequestId", "req-1")]
JSON_HEADERS = [("Content-Type", "application/json")]
TURN = {
    "model_id": MODEL, "system": "Be brief.",
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris and Rome?"},
                                     {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                  "data": base64.b64encode(PNG).decode()}}]},
        {"role": "assistant", "content": [
            {"type": "redacted_thinking", "data": base64.b64encode(b"EtkECkgI").decode()},
            {"type": "tool_use", "id": "tooluse_0", "name": "get_weather", "input": {"city": "Oslo"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tooluse_0", "content": "cold"}]}],
    "tools": [{"name": "get_weather", "description": "Weather.",
               "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
    "options": {"max_tokens": 2048, "temperature": None, "thinking_budget": 1024, "tool_choice": "auto"},
}


class Loopback:
    """A one-thread Bedrock stand-in: replies from a queue, records every request."""

    def __init__(self):
        self.replies, self.requests, self.headers = [], [], []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.owner = self
        threading.Thread(target=self.server.serve_forever, args=(0.01,), daemon=True).start()

    @property
    def endpoint(self) -> dict:
        return {"endpoint_url": f"http://127.0.0.1:{self.server.server_port}", "region": "us-east-1",
                "aws_access_key_id": "AKIATESTFAKE00000000", "aws_secret_access_key": "fake-secret-for-tests"}

    def reply(self, status=200, headers=JSON_HEADERS, body=b"", frames=None, cut=False):
        self.replies.append((status, headers, body, frames, cut))

    def body(self, n=-1) -> dict:
        return json.loads(self.requests[n][1])

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        owner = self.server.owner
        owner.requests.append((self.path, self.rfile.read(int(self.headers["Content-Length"]))))
        owner.headers.append(dict(self.headers))
        status, headers, body, frames, cut = owner.replies.pop(0)
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if frames is None:
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for frame in frames:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))
            self.wfile.flush()
        if cut:  # drop the connection inside a chunk, as a dying server would
            self.wfile.write(b"40\r\n" + b"\x00" * 10)
            self.close_connection = True
            return
        self.wfile.write(b"0\r\n\r\n")

    def log_message(self, *args):
        pass


@pytest.fixture
def loopback():
    server = Loopback()
    yield server
    server.close()


def wire(value):
    """A boto3 request value as it travels in JSON: blobs become base64 text."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {k: wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [wire(v) for v in value]
    return value


def ev(event_type, body):
    return encode_event(event_type, body, pad=7)


PARALLEL_FRAMES = [
    ev("messageStart", {"role": "assistant"}),
    ev("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Two cities."}}}),
    ev("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "SIG/+="}}}),
    ev("contentBlockStop", {"contentBlockIndex": 0}),
    ev("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "Checking both."}}),
    ev("contentBlockStop", {"contentBlockIndex": 1}),
    ev("contentBlockStart", {"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "tooluse_P", "name": "get_weather"}}}),
    ev("contentBlockStart", {"contentBlockIndex": 3, "start": {"toolUse": {"toolUseId": "tooluse_R", "name": "get_weather"}}}),
    ev("contentBlockDelta", {"contentBlockIndex": 3, "delta": {"toolUse": {"input": '{"city": "Ro'}}}),
    ev("contentBlockDelta", {"contentBlockIndex": 2, "delta": {"toolUse": {"input": '{"city": "Paris"}'}}}),
    ev("contentBlockDelta", {"contentBlockIndex": 3, "delta": {"toolUse": {"input": 'me"}'}}}),
    ev("contentBlockStop", {"contentBlockIndex": 2}),
    ev("contentBlockStop", {"contentBlockIndex": 3}),
    ev("messageStop", {"stopReason": "tool_use"}),
    ev("metadata", {"usage": {"inputTokens": 50, "outputTokens": 40, "totalTokens": 90, "cacheReadInputTokens": 30,
                              "cacheWriteInputTokens": 0}, "metrics": {"latencyMs": 9}}),
]
PARALLEL_CHUNKS = [
    {"type": "reasoning", "index": 0, "text": "Two cities."},
    {"type": "reasoning", "index": 0, "signature": "SIG/+="},
    {"type": "text", "index": 1, "text": "Checking both."},
    {"type": "tool_call", "index": 2, "id": "tooluse_P", "name": "get_weather", "input_delta": ""},
    {"type": "tool_call", "index": 3, "id": "tooluse_R", "name": "get_weather", "input_delta": ""},
    {"type": "tool_call", "index": 3, "id": "tooluse_R", "name": "get_weather", "input_delta": '{"city": "Ro'},
    {"type": "tool_call", "index": 2, "id": "tooluse_P", "name": "get_weather", "input_delta": '{"city": "Paris"}'},
    {"type": "tool_call", "index": 3, "id": "tooluse_R", "name": "get_weather", "input_delta": 'me"}'},
    {"type": "stop", "reason": "tool_use"},
    {"type": "usage", "input_tokens": 50, "output_tokens": 40, "cache_read_input_tokens": 30,
     "cache_write_input_tokens": 0},
]


def test_stream_end_to_end_yields_the_chunks_and_sends_build_request(loopback):
    loopback.reply(headers=STREAM_HEADERS, frames=PARALLEL_FRAMES)
    assert list(ConverseAdapter().stream(TURN, loopback.endpoint)) == PARALLEL_CHUNKS
    request = build_request(TURN)
    assert loopback.requests[0][0] == f"/model/{quote(MODEL, safe='-._~')}/converse-stream"
    assert loopback.body() == wire({k: v for k, v in request.items() if k != "modelId"})
    assert loopback.body()["messages"][0]["content"][1]["image"]["source"]["bytes"] == base64.b64encode(PNG).decode()


def test_converse_gives_the_same_items_as_converse_stream(loopback):
    response = {"metrics": {"latencyMs": 9}, "stopReason": "tool_use",
                "output": {"message": {"role": "assistant", "content": [
                    {"reasoningContent": {"reasoningText": {"text": "Two cities.", "signature": "SIG/+="}}},
                    {"text": "Checking both."},
                    {"toolUse": {"toolUseId": "tooluse_P", "name": "get_weather", "input": {"city": "Paris"}}},
                    {"toolUse": {"toolUseId": "tooluse_R", "name": "get_weather", "input": {"city": "Rome"}}}]}},
                "usage": {"inputTokens": 50, "outputTokens": 40, "totalTokens": 90, "cacheReadInputTokens": 30,
                          "cacheWriteInputTokens": 0}}
    loopback.reply(body=json.dumps(response).encode())
    chunks = list(ConverseAdapter().converse(TURN, loopback.endpoint))
    assert fold(chunks) == fold(PARALLEL_CHUNKS)
    assert loopback.requests[0][0].endswith("/converse") and loopback.body() == wire(
        {k: v for k, v in build_request(TURN).items() if k != "modelId"})


def test_invoke_adapter_end_to_end(loopback):
    events = [{"type": "message_start", "message": {"usage": {"input_tokens": 50, "output_tokens": 1,
                                                              "cache_read_input_tokens": 30}}},
              {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "",
                                                                             "signature": ""}},
              {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Two cities."}},
              {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "SIG/+="}},
              {"type": "content_block_stop", "index": 0},
              {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
              {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Checking both."}},
              {"type": "content_block_stop", "index": 1},
              {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "tooluse_P",
                                                                             "name": "get_weather", "input": {}}},
              {"type": "content_block_start", "index": 3, "content_block": {"type": "tool_use", "id": "tooluse_R",
                                                                             "name": "get_weather", "input": {}}},
              {"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": '{"city": "Ro'}},
              {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": '{"city": "Paris"}'}},
              {"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": 'me"}'}},
              {"type": "content_block_stop", "index": 2}, {"type": "content_block_stop", "index": 3},
              {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 40}},
              {"type": "message_stop"}]
    loopback.reply(headers=STREAM_HEADERS + [("X-Amzn-Bedrock-Content-Type", "application/json")],
                   frames=[encode_chunk(e, pad=5) for e in events])
    assert list(InvokeAdapter().stream(TURN, loopback.endpoint)) == PARALLEL_CHUNKS
    assert loopback.requests[0][0].endswith("/invoke-with-response-stream")
    assert loopback.body() == build_invoke_body(TURN)


def test_validation_exception_before_the_stream_is_an_error_chunk(loopback):
    message = "A conversation must start with a user message. Try again with a conversation that starts with a user message."
    loopback.reply(400, JSON_HEADERS + [("x-amzn-ErrorType", "ValidationException:http://internal.amazon.com/coral/")],
                   json.dumps({"message": message}).encode())
    assert list(ConverseAdapter().stream(TURN, loopback.endpoint)) == [
        {"type": "error", "code": "ValidationException", "message": message}]
    assert len(loopback.requests) == 1


def test_throttling_is_retried_then_becomes_an_error_chunk(loopback):
    for _ in range(2):
        loopback.reply(429, JSON_HEADERS, json.dumps({"__type": "ThrottlingException", "message": "Rate exceeded"}).encode())
    assert list(ConverseAdapter(max_attempts=2).stream(TURN, loopback.endpoint)) == [
        {"type": "error", "code": "ThrottlingException", "message": "Rate exceeded"}]
    assert len(loopback.requests) == 2


def test_in_stream_exception_over_http_ends_the_chunks(loopback):
    frames = PARALLEL_FRAMES[:5] + [encode_exception("throttlingException", {"message": "Too many tokens"})]
    loopback.reply(headers=STREAM_HEADERS, frames=frames)
    chunks = list(ConverseAdapter().stream(TURN, loopback.endpoint))
    assert chunks == PARALLEL_CHUNKS[:3] + [{"type": "error", "code": "throttlingException", "message": "Too many tokens"}]


def test_dropped_connection_mid_stream_ends_with_an_error_chunk(loopback):
    loopback.reply(headers=STREAM_HEADERS, frames=PARALLEL_FRAMES[:9], cut=True)
    chunks = list(ConverseAdapter(max_attempts=1).stream(TURN, loopback.endpoint))
    assert chunks[:-1] == PARALLEL_CHUNKS[:6]
    assert chunks[-1]["type"] == "error" and chunks[-1]["code"] == "ProtocolError"


def test_requests_are_signed_unless_the_endpoint_reads_no_signature(loopback):
    """A replay's loopback says "unsigned": the same request goes out without SigV4; any other endpoint is signed."""
    for _ in range(2):
        loopback.reply(headers=STREAM_HEADERS, frames=PARALLEL_FRAMES)
    adapter = ConverseAdapter()
    assert list(adapter.stream(TURN, loopback.endpoint)) == PARALLEL_CHUNKS
    assert list(adapter.stream(TURN, {**loopback.endpoint, "unsigned": True})) == PARALLEL_CHUNKS
    signed, unsigned = loopback.headers
    assert signed["Authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIATESTFAKE00000000/")
    assert "X-Amz-Date" in signed
    assert "Authorization" not in unsigned and "X-Amz-Date" not in unsigned
    assert loopback.requests[0] == loopback.requests[1]  # the same path and body bytes


def test_one_client_per_endpoint(loopback):
    adapter = ConverseAdapter()
    assert adapter.client(loopback.endpoint) is adapter.client(dict(loopback.endpoint))



def _structure(shape, seen: frozenset = frozenset()) -> object:
    """What botocore checks of a shape (its type, constraints, members, list member, enum), names of its own aside."""
    if shape.name in seen:  # a recursive shape: named where it comes round again
        return shape.name
    seen = seen | {shape.name}
    metadata = tuple(sorted((k, str(v)) for k, v in shape.metadata.items() if k not in ("documentation",)))
    inner = getattr(shape, "member", None)
    members = getattr(shape, "members", {})
    return (shape.type_name, metadata, tuple(shape.required_members) if hasattr(shape, "required_members") else (),
            tuple((name, _structure(member, seen)) for name, member in members.items()),
            _structure(inner, seen) if inner is not None else None,
            (_structure(shape.key, seen), _structure(shape.value, seen)) if shape.type_name == "map" else None)


def _shape_members(service_model, name: str) -> dict:
    return {member: _structure(shape) for member, shape in service_model.shape_for(name).members.items()}


def test_the_twin_goes_out_unvalidated_because_its_request_is_the_streams_botocore_checked():
    """The twin's client skips botocore's parameter check (the stream's call made it on the same request): that
    holds only while Converse takes what ConverseStream takes, member for member, but for the guardrail config
    converse_twin rewrites."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    stream, whole = (_shape_members(model, f"{op}Request") for op in ("ConverseStream", "Converse"))
    assert stream.pop("guardrailConfig")[0] == whole.pop("guardrailConfig")[0] == "structure"
    assert stream == whole and len(stream) > 10
    guardrail = _shape_members(model, "GuardrailStreamConfiguration")
    assert guardrail.pop("streamProcessingMode")
    assert guardrail == _shape_members(model, "GuardrailConfiguration")


def test_the_stream_is_validated_and_a_request_botocore_refuses_sends_no_twin(loopback):
    from botocore.exceptions import ParamValidationError

    adapter = ConverseAdapter()
    bad = {**TURN, "non_streaming": True, "options": {**TURN["options"], "max_tokens": 0}}  # maxTokens: min 1
    with pytest.raises(ParamValidationError, match="inferenceConfig.maxTokens"):
        list(adapter.stream(bad, loopback.endpoint))
    assert loopback.requests == []  # neither call went out
    loopback.reply(body=json.dumps({"output": {"message": {"role": "assistant", "content": [{"text": "Hi."}]}},
                                    "stopReason": "end_turn", "usage": {"inputTokens": 1, "outputTokens": 1,
                                                                        "totalTokens": 2}, "metrics": {"latencyMs": 1}}).encode())
    twin = adapter.client(loopback.endpoint, max_attempts=1, validate=False)  # the twin's: it sends what it is given
    twin.converse(**converse_twin(build_request(bad)))
    assert loopback.body()["inferenceConfig"] == {"maxTokens": 0}


# --- real Converse responses: converse and converse_stream of the same content agree ---------------------------

def _frames_for(response: dict) -> list[bytes]:
    """A ConverseStream rendering of a Converse response, block by block, the way Bedrock streams."""
    frames = [ev("messageStart", {"role": "assistant"})]
    for i, block in enumerate(response["output"]["message"]["content"]):
        rc = block.get("reasoningContent", {})
        if "text" in block:
            frames.append(ev("contentBlockDelta", {"contentBlockIndex": i, "delta": {"text": block["text"]}}))
        for key in ("text", "signature"):
            if key in rc.get("reasoningText", {}):
                frames.append(ev("contentBlockDelta", {"contentBlockIndex": i, "delta": {
                    "reasoningContent": {key: rc["reasoningText"][key]}}}))
        if "toolUse" in block:
            tool = block["toolUse"]
            start = {k: tool[k] for k in ("toolUseId", "name", "type") if k in tool}
            frames += [ev("contentBlockStart", {"contentBlockIndex": i, "start": {"toolUse": start}}),
                       ev("contentBlockDelta", {"contentBlockIndex": i, "delta": {"toolUse": {"input": json.dumps(tool["input"])}}})]
        frames.append(ev("contentBlockStop", {"contentBlockIndex": i}))
    return frames + [ev("messageStop", {"stopReason": response["stopReason"]}),
                     ev("metadata", {"usage": response["usage"], "metrics": response["metrics"]})]


def _expected(response: dict) -> list[dict]:
    """The normalized items of a Converse response, read straight off its JSON."""
    items = []
    for block in response["output"]["message"]["content"]:
        if "text" in block:
            items.append({"type": "text", "text": block["text"]})
        elif "reasoningText" in block.get("reasoningContent", {}):
            rt = block["reasoningContent"]["reasoningText"]
            items.append({"type": "reasoning", "text": rt["text"], "signature": rt.get("signature")})
        elif "toolUse" in block:
            tool = block["toolUse"]
            items.append({"type": "tool_call", "id": tool["toolUseId"], "name": tool["name"], "input": tool["input"]})
    u = response["usage"]
    return items + [{"type": "stop", "reason": response["stopReason"]},
                    {"type": "usage", "input_tokens": u["inputTokens"], "output_tokens": u["outputTokens"],
                     "cache_read_input_tokens": u.get("cacheReadInputTokens", 0),
                     "cache_write_input_tokens": u.get("cacheWriteInputTokens", 0)}]


CONVERSE = [i for i in interactions() if i.operation == "Converse" and i.status == 200]


@requires_realworld
@pytest.mark.parametrize("interaction", CONVERSE, ids=ids(CONVERSE))
def test_real_converse_response_matches_the_stream_of_the_same_content(loopback, interaction):
    response = interaction.json()
    loopback.reply(body=interaction.body)
    loopback.reply(headers=STREAM_HEADERS, frames=_frames_for(response))
    adapter, turn = ConverseAdapter(), {"model_id": interaction.model_id, "messages": [{"role": "user", "content": "x"}]}
    from_converse = list(adapter.converse(turn, loopback.endpoint))
    from_stream = list(adapter.stream(turn, loopback.endpoint))
    assert fold(from_converse) == fold(from_stream) == _expected(response)


def test_chunks_from_response_needs_no_network():
    response = {"output": {"message": {"content": [{"text": "hi"}]}}, "stopReason": "end_turn",
                "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}}
    assert [c["type"] for c in chunks_from_response(response)] == ["text", "stop", "usage"]
