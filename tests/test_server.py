"""The loopback endpoint over HTTP, against boto3: faults, error shapes, captures, sessions.

The oracle for every stream is botocore itself: what boto3 yields through the server must equal what
harness.wire.eventstream.decode_events yields over the bytes the server sent (read here over a raw socket).
"""

from __future__ import annotations

import dataclasses
import email.utils
import http.client
import json
import logging
import selectors
import socket
import threading
import time
import tracemalloc
import uuid
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import boto3
import botocore.exceptions
import botocore.retries.standard
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError, EventStreamError
from hostile_http import CASES as HOSTILE_HTTP
from hostile_http import CONTROL, answers, send_case
from realworld import ids, requires_realworld, streams
from urllib3.exceptions import ProtocolError

from harness.cassettes import cassette as cassette_module
from harness.endpoint import server as server_module
from harness.endpoint.emulator import render as emulator
from harness.cassettes import vcr as recording
from harness.cassettes.cassette import Cassette, Interaction
from harness.wire.eventstream import decode_events, decode_frames, encode_chunk, encode_event
from harness.endpoint.faults import Fault, Faults, HttpError, StreamException, parse_fault
from harness.suite.scenario import load_scenario
from harness.endpoint.exchange import INVALID_MODEL, MALFORMED_INPUT, MAX_JSON_DEPTH, Reply, RequestError
from harness.endpoint.responders import turn_seed
from harness.endpoint.server import BedrockServer

USER = [{"role": "user", "content": [{"text": "Read /tmp/a.txt"}]}]
TOOLS = {"tools": [{"toolSpec": {"name": "read_file", "inputSchema": {"json": {"type": "object"}}}}]}


def converse_frames(text: str = "I'll read it.", tool_id: str = "tooluse_AAAAAAAAAAAAAAAAAAAAAA") -> list[bytes]:
    """A ConverseStream reply with text, a tool call in fragments, messageStop and metadata."""
    frames = [encode_event("messageStart", {"role": "assistant"}, 7)]
    frames += [encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": w}}, 11) for w in text.split(" ")]
    frames.append(encode_event("contentBlockStop", {"contentBlockIndex": 0}, 3))
    start = {"toolUse": {"name": "read_file", "toolUseId": tool_id}}
    frames.append(encode_event("contentBlockStart", {"contentBlockIndex": 1, "start": start}, 20))
    for fragment in ["", '{"path"', ': "/tmp', '/a.txt"}']:
        frames.append(encode_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": fragment}}}, 9))
    frames.append(encode_event("contentBlockStop", {"contentBlockIndex": 1}, 30))
    frames.append(encode_event("messageStop", {"stopReason": "tool_use"}, 5))
    usage = {"inputTokens": 10, "outputTokens": 20, "totalTokens": 30}
    frames.append(encode_event("metadata", {"usage": usage, "metrics": {"latencyMs": 120}}, 41))
    return frames


def invoke_frames() -> list[bytes]:
    """An InvokeModelWithResponseStream reply: Anthropic-native events in ``chunk`` frames."""
    events = [
        {"type": "message_start", "message": {"id": "msg_bdrk_01", "type": "message", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 2}},
        {"type": "message_stop"},
    ]
    return [encode_chunk(event, 12) for event in events]


CONVERSE_DOCUMENT = {
    "output": {"message": {"role": "assistant", "content": [{"text": "Hello"}]}},
    "stopReason": "end_turn",
    "usage": {"inputTokens": 3, "outputTokens": 1, "totalTokens": 4},
    "metrics": {"latencyMs": 9},
}


class Canned:
    """A test responder: the same reply for every turn, per operation."""

    def __init__(self, frames: list[bytes] | None = None, document: dict | None = None):
        self.frames = frames or converse_frames()
        self.document = document or CONVERSE_DOCUMENT
        self.seen = []

    def respond(self, request):
        self.seen.append(request)
        if request.operation == "Converse":
            return Reply.json(self.document)
        if request.operation == "InvokeModelWithResponseStream":
            return Reply(frames=invoke_frames())
        return Reply(frames=self.frames)


def client(server, retries: int = 0):
    """A boto3 bedrock-runtime client for the server, with ``retries`` SDK retries (standard mode)."""
    config = Config(retries={"mode": "standard", "total_max_attempts": retries + 1}, read_timeout=30)
    return boto3.client("bedrock-runtime", endpoint_url=server.endpoint_url, region_name="us-east-1", config=config)


def outcome(events):
    """(events, error) of an event iterator: error is ("EventStreamError", code, message), ("ProtocolError",) or None."""
    seen = []
    try:
        for event in events:
            seen.append(event)  # noqa: PERF402 -- keep the events seen before the error
    except EventStreamError as error:
        return seen, ("EventStreamError", error.response["Error"]["Code"], error.response["Error"]["Message"])
    except ProtocolError:
        return seen, ("ProtocolError",)
    return seen, None


def raw_post(endpoint_url: str, path: str, body: bytes, method: str = "POST") -> tuple[int, dict, bytes, bool]:
    """One request over a fresh socket: (status, headers, de-chunked body, whether the body was terminated)."""
    return raw_exchange(endpoint_url, f"{method} {path}", [f"Content-Length: {len(body)}"], body)


def raw_exchange(endpoint_url: str, request_line: str, headers: list[str], body: bytes):
    """Send exactly these bytes (plus Host and Connection: close); read the answer as raw_post does."""
    host, port = urlsplit(endpoint_url).hostname, urlsplit(endpoint_url).port
    head = "\r\n".join([f"{request_line} HTTP/1.1", f"Host: {host}", *headers, "Connection: close", "", ""])
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(head.encode() + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    if headers.get("transfer-encoding") != "chunked":
        return int(lines[0].split()[1]), headers, rest, True
    body, terminated = _dechunk(rest)
    return int(lines[0].split()[1]), headers, body, terminated


def _dechunk(data: bytes) -> tuple[bytes, bool]:
    body = b""
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            return body, True
        body, data = body + data[:size], data[size + 2:]
    return body, False


def converse_body(messages=USER, **extra) -> bytes:
    return json.dumps({"messages": messages, **extra}).encode()


def converse_stream(bedrock, model_id="us.anthropic.claude-sonnet-4-20250514-v1:0", messages=USER, **extra):
    return bedrock.converse_stream(modelId=model_id, messages=messages, **extra)


def served_outcome(server, operation="ConverseStream"):
    """(boto3 outcome, decode_events outcome over the raw bytes) of one request each."""
    path, member = {
        "ConverseStream": ("/model/m%3A0/converse-stream", "stream"),
        "InvokeModelWithResponseStream": ("/model/m%3A0/invoke-with-response-stream", "body"),
    }[operation]
    status, _, body, terminated = raw_post(server.endpoint_url, path, converse_body())
    assert status == 200
    events, error = outcome(decode_events(body, operation))
    expected = (events, error if terminated else ("ProtocolError",))
    bedrock = client(server)
    if operation == "ConverseStream":
        response = converse_stream(bedrock, "m:0")
    else:
        response = bedrock.invoke_model_with_response_stream(modelId="m:0", body=b'{"messages": []}')
    return outcome(response[member]), expected, body


FULL_EVENTS = list(decode_events(b"".join(converse_frames())))
FULL_SIZE = len(b"".join(converse_frames()))

STREAM_FAULTS = [
    *[pytest.param(Faults(chunking=c), id=f"chunking-{c}") for c in ("whole", "frame", 1, 5, 64)],
    *[pytest.param(Faults([parse_fault(f"exception:{t}:after={n}")]), id=f"{t}-after-{n}")
      for t in ("internalServerException", "validationException", "throttlingException",
                "serviceUnavailableException") for n in (0, 4)],
    pytest.param(Faults([Fault(exception=StreamException("modelStreamErrorException", "Model produced invalid sequence",
                                                         3, 500, "upstream boom"))], chunking=1), id="modelStreamError"),
    *[pytest.param(Faults([Fault(truncate_after_byte=n)], chunking=c), id=f"truncate-{n}-{c}")
      for n, c in ((0, "frame"), (1, "frame"), (150, 1), (FULL_SIZE // 2, "whole"), (FULL_SIZE - 1, 7))],
    *[pytest.param(Faults([Fault(drop_after_byte=n)], chunking=c), id=f"drop-{n}-{c}")
      for n, c in ((0, "frame"), (97, "frame"), (FULL_SIZE // 2, 3), (FULL_SIZE - 1, "whole"))],
]


@pytest.mark.parametrize("faults", STREAM_FAULTS)
def test_boto3_gets_what_botocore_gets_from_the_same_bytes(faults):
    with BedrockServer(Canned(), faults=faults) as server:
        got, expected, body = served_outcome(server)
    assert got == expected
    events, error = got
    fault = faults.faults[0] if faults.faults else Fault()
    if fault.exception:
        assert events == FULL_EVENTS[: fault.exception.after_event]
        assert error == ("EventStreamError", fault.exception.type, fault.exception.message)
    elif fault.truncate_after_byte is not None or fault.drop_after_byte is not None:
        cut = fault.truncate_after_byte if fault.drop_after_byte is None else fault.drop_after_byte
        assert len(body) == cut and len(events) < len(FULL_EVENTS) and events == FULL_EVENTS[: len(events)]
        assert error == (None if fault.drop_after_byte is None else ("ProtocolError",))
    else:
        assert (events, error) == (FULL_EVENTS, None)


INVOKE_EVENTS = list(decode_events(b"".join(invoke_frames()), "InvokeModelWithResponseStream"))


@pytest.mark.parametrize(
    "faults",
    [
        pytest.param(Faults(chunking=1), id="chunking-1"),
        pytest.param(Faults([parse_fault("exception:modelTimeoutException:after=2")]), id="modelTimeout"),
        pytest.param(Faults([parse_fault("truncate:300")]), id="truncate"),
        pytest.param(Faults([parse_fault("drop:300")], chunking=2), id="drop"),
    ],
)
def test_invoke_stream_faults_match_botocore(faults):
    with BedrockServer(Canned(), faults=faults) as server:
        got, expected, _ = served_outcome(server, "InvokeModelWithResponseStream")
    assert got == expected
    if faults.faults and faults.faults[0].exception:
        assert got == (INVOKE_EVENTS[:2], ("EventStreamError", "modelTimeoutException", faults.faults[0].exception.message))
    if not faults.faults:
        assert got == (INVOKE_EVENTS, None)


def test_one_byte_chunks_yield_the_same_events_as_the_whole_body():
    results = []
    for chunking in ("whole", 1):
        with BedrockServer(Canned(), faults=Faults(chunking=chunking)) as server:
            results.append(outcome(converse_stream(client(server))["stream"]))
    assert results[0] == results[1] == (FULL_EVENTS, None)


@pytest.fixture
def no_backoff(monkeypatch):
    """SDK retries without their exponential sleeps (the retry decision itself is untouched)."""
    monkeypatch.setattr(botocore.retries.standard.ExponentialBackoff, "delay_amount", lambda self, context: 0)


@pytest.mark.parametrize("status, code", [(429, "ThrottlingException"), (500, "InternalServerException"),
                                          (503, "ServiceUnavailableException")])
@pytest.mark.parametrize("times", [1, 2])
def test_http_errors_for_k_attempts_then_success(no_backoff, status, code, times):
    faults = Faults([Fault(turn=0, http_error=HttpError(status, times=times))], chunking=3)
    with BedrockServer(Canned(), faults=faults) as server:
        response = converse_stream(client(server, retries=times))
        assert response["ResponseMetadata"]["RetryAttempts"] == times
        assert outcome(response["stream"]) == (FULL_EVENTS, None)
        assert [r.status for r in server.requests] == [status] * times + [200]
        assert [r.turn for r in server.requests] == [0] * (times + 1) and server.turn == 1


def test_http_error_beyond_the_retries_raises_the_modelled_exception(no_backoff):
    faults = Faults([Fault(turn=0, http_error=HttpError(429, message="Rate exceeded", times=3))])
    with BedrockServer(Canned(), faults=faults) as server:
        bedrock = client(server, retries=1)
        with pytest.raises(bedrock.exceptions.ThrottlingException) as caught:
            converse_stream(bedrock)
        assert caught.value.response["Error"] == {"Code": "ThrottlingException", "Message": "Rate exceeded"}
        assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 429
        assert outcome(converse_stream(bedrock)["stream"]) == (FULL_EVENTS, None)  # third failure, then success
        assert [r.status for r in server.requests] == [429, 429, 429, 200] and server.turn == 1


def test_converse_json_and_invoke_content_type():
    with BedrockServer(Canned()) as server:
        bedrock = client(server)
        response = bedrock.converse(modelId="m:0", messages=USER)
        assert {k: response[k] for k in CONVERSE_DOCUMENT} == CONVERSE_DOCUMENT
        invoke = bedrock.invoke_model_with_response_stream(modelId="m:0", body=b"{}")
        assert invoke["contentType"] == "application/json"
        assert outcome(invoke["body"]) == (INVOKE_EVENTS, None)


def test_stream_reply_headers():
    with BedrockServer(Canned()) as server:
        status, headers, _, terminated = raw_post(server.endpoint_url, "/model/m/converse-stream", converse_body())
        _, invoke_headers, _, _ = raw_post(server.endpoint_url, "/model/m/invoke-with-response-stream", b"{}")
    assert status == 200 and terminated
    assert headers["content-type"] == "application/vnd.amazon.eventstream"
    assert headers["transfer-encoding"] == "chunked" and len(headers["x-amzn-requestid"]) == 36
    assert invoke_headers["x-amzn-bedrock-content-type"] == "application/json"


def test_each_reply_has_its_own_request_id_and_the_date_of_now():
    with BedrockServer(Canned()) as server:
        before = time.time()
        heads = [raw_post(server.endpoint_url, "/model/m/converse-stream", converse_body())[1] for _ in range(3)]
        after = time.time()
    ids_ = [uuid.UUID(head["x-amzn-requestid"]) for head in heads]
    assert len(set(ids_)) == 3 and {i.version for i in ids_} == {4} and all(i.variant == uuid.RFC_4122 for i in ids_)
    assert [str(i) for i in ids_] == [head["x-amzn-requestid"] for head in heads]
    for head in heads:
        date = email.utils.parsedate_to_datetime(head["date"])
        assert head["date"].endswith(" GMT") and int(before) <= date.timestamp() <= after


def test_every_request_is_captured_with_its_turn():
    arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-20250514-v1:0"
    responder = Canned()
    with BedrockServer(responder) as server:
        bedrock = client(server)
        outcome(converse_stream(bedrock, arn, toolConfig=TOOLS)["stream"])
        bedrock.converse(modelId="m:1", messages=USER, inferenceConfig={"maxTokens": 10})
        first, second = server.requests
    assert (first.method, first.operation, first.model_id, first.turn, first.status) == (
        "POST", "ConverseStream", arn, 0, 200)
    assert first.path.startswith("/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2F")
    assert first.body_json == {"messages": USER, "toolConfig": TOOLS} and first.raw_body == b""  # JSON kept, not bytes
    assert first.headers["Content-Type"] == "application/json" and "Authorization" in first.headers
    assert (second.operation, second.model_id, second.turn) == ("Converse", "m:1", 1)
    assert second.body_json["inferenceConfig"] == {"maxTokens": 10}
    assert responder.seen == [first, second]


def _corrupt_body(request, **kwargs):
    request.body = b'{"messages": [tru'
    request.headers["Content-Length"] = str(len(request.body))


def test_unparseable_body_gets_a_validation_exception_and_the_server_keeps_serving():
    with BedrockServer(Canned()) as server:
        bedrock = client(server)
        bedrock.meta.events.register_first("before-send.bedrock-runtime.ConverseStream", _corrupt_body)
        with pytest.raises(bedrock.exceptions.ValidationException, match="Malformed input request"):
            converse_stream(bedrock)
        bedrock.meta.events.unregister("before-send.bedrock-runtime.ConverseStream", _corrupt_body)
        assert outcome(converse_stream(bedrock)["stream"]) == (FULL_EVENTS, None)
        assert [(r.status, r.turn, r.raw_body) for r in server.requests] == [(400, None, b'{"messages": [tru'),
                                                                             (200, 0, b"")]
        assert server.requests[0].malformed and server.requests[0].body_json is None
        assert server.requests[1].body_json == {"messages": USER} and not server.requests[1].malformed


def test_unknown_operation_gets_bedrock_error_shape():
    with BedrockServer(Canned()) as server:
        bedrock = client(server)
        with pytest.raises(ClientError) as caught:
            bedrock.invoke_model(modelId="m:0", body=b"{}")
        assert caught.value.response["Error"]["Code"] == "UnknownOperationException"
        assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
        assert outcome(converse_stream(bedrock)["stream"]) == (FULL_EVENTS, None)
        assert server.turn == 1


@pytest.mark.parametrize(
    "method, path, body, status, code, message",
    [
        ("POST", "/model//converse-stream", converse_body(), 400, "ValidationException", INVALID_MODEL),
        ("POST", "/model/m%3A0/converse", b"[1, 2]", 400, "ValidationException", MALFORMED_INPUT),
        ("POST", "/model/m%3A0/converse-stream", b"", 400, "ValidationException", MALFORMED_INPUT),
        ("GET", "/model/m%3A0/converse-stream", b"", 405, "UnknownOperationException", "GET is not allowed"),
        ("POST", "/foundation-models", b"{}", 404, "UnknownOperationException", "serves no operation"),
        ("DELETE", "/", b"", 404, "UnknownOperationException", "serves no operation"),
    ],
)
def test_bad_requests_get_bedrock_errors_never_a_500(method, path, body, status, code, message):
    with BedrockServer(Canned()) as server:
        got_status, headers, got_body, _ = raw_post(server.endpoint_url, path, body, method)
        assert got_status == status
        assert headers["x-amzn-errortype"].split(":")[0] == code
        assert headers["content-type"] == "application/json"
        assert message in json.loads(got_body)["message"]
        assert outcome(converse_stream(client(server))["stream"]) == (FULL_EVENTS, None)


def raw_bytes(endpoint_url: str, data: bytes) -> tuple[int, dict, dict]:
    """Send exactly ``data`` on a fresh connection; (status, headers, JSON body) of the one answer it gets."""
    with socket.create_connection((urlsplit(endpoint_url).hostname, urlsplit(endpoint_url).port), timeout=30) as sock:
        sock.sendall(data)
        reader = sock.makefile("rb")
        status = int(reader.readline().split()[1])
        lines = iter(reader.readline, b"\r\n")
        headers = {k.lower(): v.strip() for k, _, v in (line.decode().partition(":") for line in lines)}
        return status, headers, json.loads(reader.read(int(headers["content-length"])))


def _post_head(path: str, *headers: str) -> bytes:
    return "\r\n".join([f"POST {path} HTTP/1.1", "Host: x", *headers, "", ""]).encode()


NESTED = b'{"messages": [{"role": "user", "content": [{"text": "hi"}]}], "additionalModelRequestFields": '
MALFORMED_REQUESTS = {
    "bad request line": (b"GARBAGE\r\n\r\n", 400, "ValidationException", "Bad request"),
    "HTTP/2.0": (b"POST /model/m/converse-stream HTTP/2.0\r\n\r\n", 505, "ValidationException", "HTTP version"),
    "HTTP/0.9": (b"GET /model/m/converse-stream\r\n\r\n", 505, "ValidationException", "HTTP version (0.9)"),
    "HTTP/2 preface": (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505, "ValidationException", "HTTP version"),
    "request line over 64 KiB": (b"POST /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 414, "ValidationException", ""),
    "a header over 64 KiB": (_post_head("/model/m/converse-stream", "X-Big: " + "a" * 70_000), 431,
                             "ValidationException", "Line too long"),
    "over 100 headers": (_post_head("/model/m/converse-stream", *(f"X-{i}: {i}" for i in range(120))), 431,
                         "ValidationException", "Too many headers"),
    "unknown method": (b"BREW /model/m/converse-stream HTTP/1.1\r\nHost: x\r\n\r\n", 405,
                       "UnknownOperationException", "BREW is not allowed"),
    "Content-Length near 1e17": (_post_head("/model/m/converse-stream", "Content-Length: 100000000000000000"), 413,
                                 "ValidationException", "larger than the limit"),
    "Content-Length not a number": (_post_head("/model/m/converse-stream", "Content-Length: 12abc"), 400,
                                    "ValidationException", MALFORMED_INPUT),
    "negative Content-Length": (_post_head("/model/m/converse-stream", "Content-Length: -5"), 400,
                                "ValidationException", MALFORMED_INPUT),
    "a junk chunk size": (_post_head("/model/m/converse-stream", "Transfer-Encoding: chunked") + b"zz\r\n", 400,
                          "ValidationException", MALFORMED_INPUT),
    "JSON nested 990 levels": (_post_head("/model/m/converse-stream", f"Content-Length: {990 * 2}") + b"[" * 990 +
                               b"]" * 990, 400, "ValidationException", MALFORMED_INPUT),
    "a document nested past the depth limit": (
        _post_head("/model/m/converse-stream", f"Content-Length: {len(NESTED) + 2 * MAX_JSON_DEPTH + 1}") + NESTED +
        b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH + b"}", 400, "ValidationException", MALFORMED_INPUT),
    "a model id outside botocore's shape": (_post_head("/model/%00/converse-stream", "Content-Length: 2") + b"{}",
                                            400, "ValidationException", INVALID_MODEL),
}


@pytest.mark.parametrize("case", MALFORMED_REQUESTS, ids=list(MALFORMED_REQUESTS))
def test_malformed_http_gets_bedrocks_error_shape_and_the_server_keeps_serving(case):
    data, status, code, message = MALFORMED_REQUESTS[case]
    with BedrockServer(Canned()) as server:
        got, headers, body = raw_bytes(server.endpoint_url, data)
        assert (got, headers["x-amzn-errortype"].split(":")[0], headers["content-type"]) == (
            status, code, "application/json")
        assert message in body["message"] and set(body) == {"message"}
        assert outcome(converse_stream(client(server))["stream"]) == (FULL_EVENTS, None)


def test_a_document_nested_to_the_depth_limit_is_served():
    inner = b"[" * (MAX_JSON_DEPTH - 1) + b"]" * (MAX_JSON_DEPTH - 1)  # the top object is one level
    with BedrockServer(Canned()) as server:
        status, _, _, terminated = raw_post(server.endpoint_url, "/model/m/converse-stream", NESTED + inner + b"}")
        assert status == 200 and terminated and server.requests[0].problems == []


def test_bodies_over_the_limit_get_413_announced_chunked_or_expected():
    body = converse_body(messages=[{"role": "user", "content": [{"text": "x" * 5000}]}])
    with BedrockServer(Canned(), max_body=4096) as server:
        status, headers, answer = raw_bytes(server.endpoint_url, _post_head(
            "/model/m/converse-stream", f"Content-Length: {len(body)}") + body)
        assert (status, headers["x-amzn-errortype"].split(":")[0]) == (413, "ValidationException")
        assert "4096 bytes" in answer["message"] and headers["connection"] == "close"
        chunked = b"".join(b"%x\r\n%b\r\n" % (len(body[i:i + 1000]), body[i:i + 1000]) for i in range(0, len(body), 1000))
        assert raw_bytes(server.endpoint_url, _post_head("/model/m/converse-stream", "Transfer-Encoding: chunked")
                         + chunked + b"0\r\n\r\n")[0] == 413
        # Expect: 100-continue: refused before the client sends the body (no "100 Continue" first)
        status, _, _ = raw_bytes(server.endpoint_url, _post_head(
            "/model/m/converse-stream", f"Content-Length: {len(body)}", "Expect: 100-continue"))
        assert status == 413
        assert server.request_count == 0 and outcome(converse_stream(client(server))["stream"]) == (FULL_EVENTS, None)


def test_bodies_are_not_kept_as_bytes_and_keep_requests_bounds_the_captures():
    with BedrockServer(Canned(), keep_requests=2) as server:
        bedrock = client(server)
        for _ in range(5):
            converse_stream(bedrock)
        assert server.request_count == 5 and [r.turn for r in server.requests] == [3, 4]
        # released once answered (the last may still be finishing its reply on the server's thread)
        assert server.requests[0].raw_body == b"" and server.requests[0].body_json == {"messages": USER}


class Forgetful(Canned):
    def respond(self, request):
        return Reply(frames=self.frames)  # keeps nothing of the request


def test_large_bodies_leave_no_memory_behind_when_nothing_keeps_them():
    body = converse_body(messages=[{"role": "user", "content": [{"text": "x" * 5_000_000}]}])
    with BedrockServer(Forgetful(), keep_requests=0) as server:
        raw_post(server.endpoint_url, "/model/m/converse-stream", body)  # warm-up: threads, caches
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(6):
                assert raw_post(server.endpoint_url, "/model/m/converse-stream", body)[0] == 200
            grown = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
    assert grown < len(body) / 2, f"{grown} bytes still allocated after six {len(body)}-byte requests"


@pytest.mark.parametrize("member, value", [("content", 7), ("toolUseId", []), ("name", []), ("maxTokens", "x"),
                                           ("resultId", {})])
def test_bodies_of_the_wrong_shape_get_a_400_never_a_500(member, value):
    use = {"toolUse": {"toolUseId": value if member == "toolUseId" else "tooluse_A",
                       "name": value if member == "name" else "read_file", "input": {}}}
    result = {"toolResult": {"toolUseId": value if member == "resultId" else "tooluse_A", "content": [{"text": "a"}]}}
    messages = [USER[0], {"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}]
    if member == "content":
        messages = [{"role": "user", "content": 7}]
    extra = {"inferenceConfig": {"maxTokens": value}} if member == "maxTokens" else {}
    with BedrockServer(Canned()) as server:
        status, headers, body, _ = raw_post(server.endpoint_url, "/model/m/converse-stream",
                                            converse_body(messages, toolConfig=TOOLS, **extra))
        assert (status, headers["x-amzn-errortype"].split(":")[0]) == (400, "ValidationException")
        assert "Invalid type for parameter" in json.loads(body)["message"]
        assert server.requests[0].problems[0].rule == "input-shape"


def test_an_emulated_scenario_refuses_another_model_id():
    scenario = load_scenario("suites/core/smoke-text.yaml")
    with BedrockServer.from_scenario(scenario) as server:
        bedrock = client(server)
        with pytest.raises(bedrock.exceptions.ValidationException, match=INVALID_MODEL):
            converse_stream(bedrock, "nonexistent-model")
        assert server.turn == 0
        converse_stream(bedrock, scenario.model_id)
        assert server.turn == 1


class Exploding(Canned):
    def respond(self, request):
        if len(self.seen) == 0:
            self.seen.append(request)
            raise KeyError("no such frame")
        return super().respond(request)


def test_a_responder_crash_is_one_log_line_and_a_bedrock_500(caplog):
    with BedrockServer(Exploding()) as server, caplog.at_level(logging.INFO, "harness.endpoint.server"):
        bedrock = client(server)
        with pytest.raises(bedrock.exceptions.InternalServerException, match="KeyError"):
            converse_stream(bedrock)
        assert outcome(converse_stream(bedrock)["stream"]) == (FULL_EVENTS, None)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "\n" not in errors[0].getMessage() and errors[0].exc_info is None
    assert "handler error: KeyError" in errors[0].getMessage()


class Refusing(Canned):
    def respond(self, request):
        if not self.seen:
            self.seen.append(request)
            raise RequestError(400, "ValidationException", "turn 0 expects ConverseStream")
        return super().respond(request)


def test_a_refused_request_does_not_consume_the_turn():
    with BedrockServer(Refusing()) as server:
        bedrock = client(server)
        with pytest.raises(bedrock.exceptions.ValidationException, match="turn 0 expects ConverseStream"):
            converse_stream(bedrock)
        assert server.turn == 0
        converse_stream(bedrock)
        assert [(r.turn, r.status) for r in server.requests] == [(0, 400), (0, 200)] and server.turn == 1


def test_two_servers_in_parallel_threads_keep_their_own_sessions():
    def run(text):
        with BedrockServer(Canned(converse_frames(text))) as server:
            bedrock = client(server)
            texts = []
            for _ in range(5):
                events, _ = outcome(converse_stream(bedrock)["stream"])
                texts.append(" ".join(e["contentBlockDelta"]["delta"]["text"] for e in events
                                      if "text" in e.get("contentBlockDelta", {}).get("delta", {})))
            return texts, [r.turn for r in server.requests]

    barrier_texts = ["alpha beta gamma", "one two three four"]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(run, barrier_texts))
    for text, (texts, turns) in zip(barrier_texts, results):
        assert texts == [text] * 5 and turns == [0, 1, 2, 3, 4]


def test_parallel_requests_to_one_session_each_get_a_distinct_turn():
    with BedrockServer(Canned()) as server:
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda _: outcome(converse_stream(client(server))["stream"]), range(8)))
        assert all(result == (FULL_EVENTS, None) for result in results)
        assert sorted(r.turn for r in server.requests) == list(range(8))


def test_keep_alive_serves_several_requests_on_one_connection():
    with BedrockServer(Canned(), faults=Faults(chunking=4)) as server:
        url = urlsplit(server.endpoint_url)
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        bodies, sockets = [], []
        for _ in range(3):
            connection.request("POST", "/model/m/converse-stream", converse_body())
            response = connection.getresponse()
            bodies.append(response.read())
            sockets.append(connection.sock)  # http.client drops the socket when the server closes
        connection.close()
    assert bodies == [b"".join(converse_frames())] * 3
    assert sockets[0] is not None and all(sock is sockets[0] for sock in sockets)


def test_fixed_delays_sleep_before_each_frame(monkeypatch):
    sleeps = []
    monkeypatch.setattr("harness.endpoint.server.time.sleep", sleeps.append)
    with BedrockServer(Canned(), faults=Faults(delay=0.5, scale=0.1)) as server:
        assert outcome(converse_stream(client(server))["stream"]) == (FULL_EVENTS, None)
    assert sleeps == [pytest.approx(0.05)] * len(converse_frames())


def test_endpoint_url_needs_a_started_server():
    server = BedrockServer(Canned())
    with pytest.raises(RuntimeError, match="not started"):
        _ = server.endpoint_url
    with server:
        assert server.endpoint_url.startswith("http://127.0.0.1:")


def test_byte_cuts_on_a_converse_json_reply():
    with BedrockServer(Canned(), faults=Faults([parse_fault("truncate:20")])) as server:
        response = client(server).converse(modelId="m:0", messages=USER)
        assert "output" not in response  # botocore parses a cut JSON body to nothing, silently
    with BedrockServer(Canned(), faults=Faults([parse_fault("drop:20")])) as server:
        # The server resets the connection after 20 body bytes. botocore 1.43 raises ConnectionClosedError;
        # botocore 1.44 parses the partial body to nothing, as for a clean cut. Either way, no output arrives.
        try:
            response = client(server).converse(modelId="m:0", messages=USER)
        except botocore.exceptions.ConnectionClosedError:
            response = {}
        assert "output" not in response
        assert server.requests[0].status == 200


# ---------------------------------------------------------------- emulator mode


SCRIPTS = [
    {"content": [{"text": "I'll read both."}, {"tool_use": {"name": "read_file", "input": {"path": "/tmp/a"}}},
                 {"tool_use": {"name": "read_file", "input": {"path": "/tmp/b"}}}],
     "stop_reason": "tool_use", "usage": {"input_tokens": 40, "output_tokens": 12}},
    {"content": [{"reasoning": "Both files read.", "signature": "c2lnbmF0dXJl"}, {"text": "a and b say hi."}],
     "stop_reason": "end_turn", "usage": {"input_tokens": 90, "output_tokens": 8, "cache_read_input_tokens": 30}},
]


def tool_ids(events):
    return [e["contentBlockStart"]["start"]["toolUse"]["toolUseId"] for e in events if "contentBlockStart" in e]


def follow_up(events):
    """Turn 1's messages: the prompt, the assistant's tool calls, one user message of results."""
    calls = [{"toolUse": {"toolUseId": i, "name": "read_file", "input": {"path": "/tmp/x"}}} for i in tool_ids(events)]
    results = [{"toolResult": {"toolUseId": i, "content": [{"text": "hi"}]}} for i in tool_ids(events)]
    return USER + [{"role": "assistant", "content": calls}, {"role": "user", "content": results}]


@pytest.mark.parametrize("style", ["claude", "nova"])
def test_emulator_serves_turn_i_with_script_i(style):
    with BedrockServer.emulate(SCRIPTS, style=style, seed="core/demo") as server:
        bedrock = client(server)
        first = outcome(converse_stream(bedrock, toolConfig=TOOLS)["stream"])
        second = outcome(converse_stream(bedrock, messages=follow_up(first[0]), toolConfig=TOOLS)["stream"])
        turns = [r.turn for r in server.requests]
    for events, turn in ((first, 0), (second, 1)):
        frames = emulator.render_stream(SCRIPTS[turn], style=style, seed=turn_seed("core/demo", turn))
        assert events == (list(decode_events(b"".join(frames))), None)
    assert len(set(tool_ids(first[0]))) == 2 and turns == [0, 1]


def test_emulator_converse_and_invoke_render_the_same_script():
    with BedrockServer.emulate(SCRIPTS, seed="s") as server:
        bedrock = client(server)
        response = bedrock.converse(modelId="m:0", messages=USER, toolConfig=TOOLS)
        invoke = bedrock.invoke_model_with_response_stream(modelId="anthropic.claude-sonnet-4-20250514-v1:0",
                                                           body=json.dumps({"messages": []}).encode())
        invoked = outcome(invoke["body"])
    expected = emulator.render_converse(SCRIPTS[0], style="claude", seed=turn_seed("s", 0))
    expected["usage"].pop("serverToolUsage")  # newer than botocore's service model, which leaves it out
    assert {k: response[k] for k in expected} == expected
    frames = emulator.render_invoke_stream(SCRIPTS[1], seed=turn_seed("s", 1),
                                           model_id="anthropic.claude-sonnet-4-20250514-v1:0")
    assert invoked == (list(decode_events(b"".join(frames), "InvokeModelWithResponseStream")), None)


def _paired_turns(calls):
    """The turn each call of ``calls`` (operation names, in order) is served as, on a paired emulator session."""
    with BedrockServer.emulate(SCRIPTS, seed="s", pairs=True) as server:
        bedrock = client(server)
        answers = []
        for operation in calls:
            messages = USER if not answers else follow_up(answers[0])
            if operation == "ConverseStream":
                events, _ = outcome(converse_stream(bedrock, messages=messages, toolConfig=TOOLS)["stream"])
            else:
                reply = bedrock.converse(modelId="us.anthropic.claude-sonnet-4-20250514-v1:0", messages=messages,
                                         toolConfig=TOOLS)
                events = [{"contentBlockStart": {"start": {"toolUse": {"toolUseId": b["toolUse"]["toolUseId"]}}}}
                          for b in reply["output"]["message"]["content"] if "toolUse" in b]
            answers.append(events)
        return [r.turn for r in server.requests], answers


def test_a_paired_session_serves_each_turn_once_streamed_and_once_whole_in_either_order():
    turns, answers = _paired_turns(["ConverseStream", "Converse", "Converse", "ConverseStream"])
    assert turns == [0, 0, 1, 1]
    assert tool_ids(answers[0]) == tool_ids(answers[1]) and len(tool_ids(answers[0])) == 2  # the same content


def test_a_paired_turn_whose_twin_never_comes_moves_on_at_the_next_call_of_the_same_operation():
    turns, _ = _paired_turns(["ConverseStream", "ConverseStream", "Converse"])
    assert turns == [0, 1, 1]


def test_an_unpaired_session_gives_every_call_its_own_turn():
    with BedrockServer.emulate(SCRIPTS, seed="s") as server:
        bedrock = client(server)
        outcome(converse_stream(bedrock, toolConfig=TOOLS)["stream"])
        bedrock.converse(modelId="us.anthropic.claude-sonnet-4-20250514-v1:0", messages=USER, toolConfig=TOOLS)
    assert [r.turn for r in server.requests] == [0, 1]


def test_a_paired_turn_rejected_by_the_rules_is_used_up_by_both_calls():
    bad = [{"role": "assistant", "content": [{"text": "I start"}]}]
    with BedrockServer.emulate(SCRIPTS, seed="s", pairs=True) as server:
        bedrock = client(server)
        for call in (lambda: converse_stream(bedrock, messages=bad), lambda: bedrock.converse(
                modelId="us.anthropic.claude-sonnet-4-20250514-v1:0", messages=bad)):
            with pytest.raises(bedrock.exceptions.ValidationException):
                call()
        outcome(converse_stream(bedrock, toolConfig=TOOLS)["stream"])
    assert [(r.turn, r.status) for r in server.requests] == [(0, 400), (0, 400), (1, 200)]


def test_emulator_past_the_last_turn_is_a_clear_error(caplog):
    with BedrockServer.emulate(SCRIPTS[:1], seed="s", name="core/one") as server, caplog.at_level(logging.WARNING):
        bedrock = client(server)
        outcome(converse_stream(bedrock)["stream"])
        with pytest.raises(bedrock.exceptions.ValidationException) as caught:
            converse_stream(bedrock)
    message = caught.value.response["Error"]["Message"]
    assert "core/one" in message and "request 2 (turn 1)" in message and "past the scenario's 1 turn" in message and "1 turns" not in message
    assert any("request 2 (turn 1)" in r.getMessage() for r in caplog.records)


def test_emulator_runs_the_rules_before_the_script():
    with BedrockServer.emulate(SCRIPTS[:1], seed="s", name="core/one") as server:
        bedrock = client(server)
        outcome(converse_stream(bedrock)["stream"])
        with pytest.raises(bedrock.exceptions.ValidationException) as caught:  # past the turns, and malformed
            converse_stream(bedrock, messages=[{"role": "assistant", "content": [{"text": "I start"}]}])
    assert caught.value.response["Error"]["Message"] == (
        "A conversation must start with a user message. Try again with a conversation that starts with a user message.")
    assert server.requests[1].problems and server.requests[1].status == 400


TWO_USERS = USER + [{"role": "user", "content": [{"text": "and /tmp/b.txt"}]}]
ASSISTANT_FIRST = [{"role": "assistant", "content": [{"text": "Hello."}]}] + USER


def test_a_rule_outside_its_evidence_is_a_warning_not_a_400_and_no_finding_where_seen_accepted():
    with BedrockServer.emulate(SCRIPTS, seed="s") as server:
        bedrock = client(server)
        for model in ("qwen.qwen3-32b-v1:0", "moonshot.kimi-k2-thinking"):
            events, error = outcome(converse_stream(bedrock, model, messages=ASSISTANT_FIRST)["stream"])
            assert error is None and events
        with pytest.raises(bedrock.exceptions.ValidationException, match="must start with a user message"):
            converse_stream(bedrock, messages=ASSISTANT_FIRST)  # Claude: the evidence covers it
    qwen, kimi, claude = server.requests
    assert (qwen.status, qwen.problems, kimi.status, kimi.problems, kimi.warnings) == (200, [], 200, [], [])
    [note] = qwen.warnings
    assert note.startswith("warning first-message-user (not enforced: its evidence rejects for anthropic, nova, "
                           "writer; seen accepted by kimi, zai; the model qwen.qwen3-32b-v1:0 is of family qwen)")


def test_the_log_line_of_a_request_is_followed_by_its_notes(tmp_path, caplog):
    odd = json.dumps({"messages": TWO_USERS}).encode()
    path = write_cassette(tmp_path, dataclasses.replace(interaction(), request_body=odd))
    with caplog.at_level(logging.INFO, "harness.endpoint.server"):
        with BedrockServer.emulate(SCRIPTS, seed="s") as server:
            outcome(converse_stream(client(server), "us.amazon.nova-pro-v1:0", messages=TWO_USERS)["stream"])
        with BedrockServer.from_cassette(path) as server:
            outcome(converse_stream(client(server), messages=TWO_USERS)["stream"])
    lines = [r.getMessage() for r in caplog.records]
    nova = next(n for n, line in enumerate(lines) if "/us.amazon.nova-pro-v1" in line and "-> 200" in line)
    assert "turn=0: warning alternating-roles (not enforced: its evidence rejects for anthropic" in lines[nova + 1]
    claude = next(n for n, line in enumerate(lines) if "/us.anthropic." in line and "-> 200" in line)
    assert "turn=0: accepted as recorded: " in lines[claude + 1] and "alternating-roles" in lines[claude + 1]


def test_emulate_refuses_a_bad_script_at_start():
    with pytest.raises(emulator.EmulatorScriptError, match=r"turns\[1\]"):
        BedrockServer.emulate([SCRIPTS[0], {"content": [{"sound": "beep"}], "stop_reason": "end_turn"}])


def test_from_scenario_applies_its_faults(no_backoff):
    scenario = load_scenario("suites/faults/http-429-then-success.yaml")
    with BedrockServer.from_scenario(scenario) as server:
        bedrock = client(server, retries=2)
        response = converse_stream(bedrock, scenario.model_id)
        events = outcome(response["stream"])
        statuses = [r.status for r in server.requests]
    frames = emulator.render_stream(scenario.turns[0].script, style=scenario.style, seed=turn_seed(scenario.id, 0))
    assert events == (list(decode_events(b"".join(frames))), None)
    assert response["ResponseMetadata"]["RetryAttempts"] == 1 and statuses == [429, 200]


# ---------------------------------------------------------------- request rules

def test_a_rule_violation_is_a_400_with_bedrocks_text_and_consumes_the_turn():
    with BedrockServer.emulate(SCRIPTS, seed="s") as server:
        bedrock = client(server)
        events, _ = outcome(converse_stream(bedrock, toolConfig=TOOLS)["stream"])
        messages = follow_up(events)
        messages[2] = {"role": "user", "content": [{"text": "go on"}]}  # the tool results are missing
        with pytest.raises(bedrock.exceptions.ValidationException) as caught:
            converse_stream(bedrock, messages=messages, toolConfig=TOOLS)
        rejected = server.requests[1]
    expected = "Expected toolResult blocks at messages.2.content for the following Ids: " + ", ".join(tool_ids(events))
    assert caught.value.response["Error"]["Message"] == expected
    assert caught.value.response["ResponseMetadata"]["HTTPHeaders"]["x-amzn-errortype"] == (
        "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/")
    assert (rejected.status, rejected.turn) == (400, 1) and rejected.problems
    assert server.turn == 2


JSON_42 = USER + [
    {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_A", "name": "read_file", "input": {}}}]},
    {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_A", "content": [{"json": 42}]}}]}]


@pytest.mark.parametrize("mode", ["emulate", "cassette"])
def test_a_tool_result_json_that_is_no_object_gets_bedrocks_400_and_text(mode, tmp_path):
    """Rule 26: Bedrock refuses a non-object ``json`` in a tool result, whatever the model; the emulator and a
    replayed cassette answer as it does (a library sending 42 as text is right, ``{"json": 42}`` is the defect)."""
    server = (BedrockServer.emulate(SCRIPTS, seed="s") if mode == "emulate"
              else BedrockServer.from_cassette(write_cassette(tmp_path, interaction(), interaction())))
    with server:
        bedrock = client(server)
        with pytest.raises(bedrock.exceptions.ValidationException) as caught:
            converse_stream(bedrock, messages=JSON_42, toolConfig=TOOLS)
        assert server.requests[0].status == 400
    assert caught.value.response["Error"]["Message"] == (
        "The format of the value at messages.2.content.0.toolResult.content.0.json is invalid. Provide a json object "
        "for the field and try again.")


def test_validate_false_serves_the_request_and_still_records_its_problems():
    bad = [{"role": "assistant", "content": [{"text": "I start"}]}]
    with BedrockServer(Canned(), validate=False) as server:
        assert outcome(converse_stream(client(server), messages=bad)["stream"]) == (FULL_EVENTS, None)
        assert server.requests[0].status == 200
        assert "must start with a user message" in server.requests[0].problems[0].message


def test_invoke_bodies_are_not_judged_by_the_converse_rules():
    with BedrockServer(Canned()) as server:
        invoke = client(server).invoke_model_with_response_stream(modelId="m:0", body=b'{"messages": []}')
        assert outcome(invoke["body"]) == (INVOKE_EVENTS, None) and server.requests[0].problems == []


# ---------------------------------------------------------------- cassette mode

MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"


def interaction(operation="converse-stream", model=MODEL, status=200, frames=None, body=b"", headers=None):
    uri = f"https://bedrock-runtime.us-east-1.amazonaws.com/model/{model.replace(':', '%3A')}/{operation}"
    if frames is None and not body:
        frames = cassette_module.frames_from_body(b"".join(converse_frames()))
    response_headers = headers or {"Content-Type": "application/vnd.amazon.eventstream" if frames else "application/json"}
    return Interaction("POST", uri, {"Content-Type": "application/json"}, converse_body(), status, "OK",
                       response_headers, frames, body)


def write_cassette(tmp_path, *interactions):
    path = tmp_path / "demo.yaml"
    metadata = cassette_module.metadata_for(interactions, source="emulator")
    cassette_module.save(path, Cassette(None, metadata, tuple(interactions)))
    return path


def test_cassette_interactions_are_served_in_recorded_order(tmp_path):
    document = json.dumps(CONVERSE_DOCUMENT, separators=(",", ":")).encode()
    recorded = [interaction(frames=cassette_module.frames_from_body(b"".join(converse_frames("first one")))),
                interaction("converse", body=document), interaction()]
    path = write_cassette(tmp_path, *recorded)
    loaded = cassette_module.load(path).interactions
    with BedrockServer.from_cassette(path, faults=Faults(chunking=2)) as server:
        bedrock = client(server)
        first = outcome(converse_stream(bedrock)["stream"])
        second = bedrock.converse(modelId=MODEL, messages=USER)
        third = outcome(converse_stream(bedrock)["stream"])
    assert first == (list(decode_events(loaded[0].response_body())), None)
    assert {k: second[k] for k in CONVERSE_DOCUMENT} == CONVERSE_DOCUMENT
    assert third == (FULL_EVENTS, None) and first != third
    assert [(r.operation, r.turn, r.status) for r in server.requests] == [
        ("ConverseStream", 0, 200), ("Converse", 1, 200), ("ConverseStream", 2, 200)]


def test_a_request_past_the_cassette_names_the_cassette_and_the_turn(tmp_path, caplog):
    path = write_cassette(tmp_path, interaction())
    with BedrockServer.from_cassette(path) as server, caplog.at_level(logging.WARNING, "harness.endpoint.server"):
        bedrock = client(server)
        outcome(converse_stream(bedrock)["stream"])
        with pytest.raises(bedrock.exceptions.ValidationException) as caught:
            converse_stream(bedrock)
    message = caught.value.response["Error"]["Message"]
    assert str(path) in message and "request 2 (turn 1)" in message and "past the end" in message
    assert [r.getMessage() for r in caplog.records if str(path) in r.getMessage()]


def test_a_different_operation_or_model_is_refused_without_consuming_the_turn(tmp_path, caplog):
    path = write_cassette(tmp_path, interaction())
    with BedrockServer.from_cassette(path, cross_operation=False) as server, caplog.at_level(logging.WARNING, "harness.endpoint.server"):
        bedrock = client(server)
        with pytest.raises(bedrock.exceptions.ValidationException, match="recorded ConverseStream, got Converse"):
            bedrock.converse(modelId=MODEL, messages=USER)
        with pytest.raises(bedrock.exceptions.ValidationException) as caught:
            converse_stream(bedrock, "us.amazon.nova-pro-v1:0")
        assert caught.value.response["Error"]["Message"] == INVALID_MODEL
        assert outcome(converse_stream(bedrock)["stream"]) == (FULL_EVENTS, None)
        assert [(r.turn, r.status) for r in server.requests] == [(0, 400), (0, 400), (0, 200)]
    assert any("recorded model" in r.getMessage() and "nova-pro" in r.getMessage() for r in caplog.records)


def test_a_recorded_error_is_replayed_as_recorded(tmp_path):
    body = json.dumps({"message": "The provided model identifier is invalid."}).encode()
    headers = {"Content-Type": "application/json", "x-amzn-ErrorType": "ValidationException:http://x/"}
    path = write_cassette(tmp_path, interaction(status=400, body=body, headers=headers))
    with BedrockServer.from_cassette(path) as server:
        bedrock = client(server)
        with pytest.raises(bedrock.exceptions.ValidationException, match="model identifier is invalid"):
            converse_stream(bedrock)
        assert server.turn == 1


def test_cassette_mode_runs_the_rules(tmp_path):
    path = write_cassette(tmp_path, interaction(), interaction())
    with BedrockServer.from_cassette(path) as server:
        bedrock = client(server)
        with pytest.raises(bedrock.exceptions.ValidationException, match="must start with a user message"):
            converse_stream(bedrock, messages=[{"role": "assistant", "content": [{"text": "hi"}]}])
        assert outcome(converse_stream(bedrock)["stream"]) == (FULL_EVENTS, None)


def test_replay_accepts_the_recorded_request_where_a_rule_objects_and_says_so(tmp_path):
    recorded = interaction()
    odd = json.dumps({"messages": TWO_USERS}).encode()
    path = write_cassette(tmp_path, dataclasses.replace(recorded, request_body=odd), recorded)
    with BedrockServer.from_cassette(path) as server:
        bedrock = client(server)
        assert outcome(converse_stream(bedrock, messages=TWO_USERS)["stream"]) == (FULL_EVENTS, None)
        with pytest.raises(bedrock.exceptions.ValidationException, match="must alternate"):
            converse_stream(bedrock, messages=TWO_USERS)  # turn 1 recorded another request: Bedrock's rule holds
    accepted, rejected = server.requests
    assert (accepted.status, accepted.problems) == (200, [])
    assert accepted.notes and accepted.notes[0].startswith("accepted as recorded: ") and \
        "alternating-roles" in accepted.notes[0]
    assert rejected.status == 400 and not rejected.notes


# ---------------------------------------------------------------- the vcrpy record path

def run_session(endpoint_url):
    """Two ConverseStream turns and a Converse call, as an adapter would make them."""
    bedrock = boto3.client("bedrock-runtime", endpoint_url=endpoint_url, region_name="us-east-1",
                           config=Config(retries={"total_max_attempts": 1}))
    first = outcome(converse_stream(bedrock, toolConfig=TOOLS)["stream"])
    second = outcome(converse_stream(bedrock, messages=follow_up(first[0]), toolConfig=TOOLS)["stream"])
    return first, second


def test_a_vcrpy_recording_of_the_emulator_replays_identically(tmp_path):
    path = tmp_path / "recorded.yaml"
    with BedrockServer.emulate(SCRIPTS, seed="core/demo") as server:
        with recording.use_cassette(path, record_mode="once", source="emulator"):
            live = run_session(server.endpoint_url)
        served = [r.body_json for r in server.requests]
    assert all(error is None for _, error in live) and len(live[0][0]) > 10
    loaded = cassette_module.load(path)
    assert [(i.operation, i.model_id, i.request_json) for i in loaded.interactions] == [
        ("ConverseStream", MODEL, body) for body in served]

    with recording.use_cassette(path, record_mode="none"):
        assert run_session("http://127.0.0.1:9") == live  # vcrpy answers; nothing listens on port 9
    with BedrockServer.from_cassette(path, faults=Faults(chunking=1)) as server:
        assert run_session(server.endpoint_url) == live
        assert [r.status for r in server.requests] == [200, 200]


# ---------------------------------------------------------------- real recordings


class Recorded:
    """Serves one real recording's frames for every turn."""

    def __init__(self, body: bytes):
        self.frames = [frame.encode() for frame in decode_frames(body)]

    def respond(self, request):
        return Reply(frames=self.frames)


@requires_realworld
@pytest.mark.parametrize("recorded", streams(), ids=ids(streams()))
def test_real_streams_through_the_server_equal_botocore_over_the_recorded_bytes(recorded):
    expected = outcome(decode_events(recorded.body, recorded.operation))
    model_id = recorded.model_id or MODEL  # some recordings do not keep the path
    with BedrockServer(Recorded(recorded.body), faults=Faults(chunking=97), validate=False) as server:
        bedrock = client(server)
        if recorded.operation == "ConverseStream":
            got = outcome(converse_stream(bedrock, model_id)["stream"])
        else:
            got = outcome(bedrock.invoke_model_with_response_stream(modelId=model_id, body=b"{}")["body"])
    assert got == expected and got[0]


def test_a_chunked_request_body_is_read():
    body = converse_body()
    chunked = b"%x\r\n%b\r\n%x\r\n%b\r\n0\r\n\r\n" % (10, body[:10], len(body) - 10, body[10:])
    with BedrockServer(Canned()) as server:
        status, _, got, terminated = raw_exchange(server.endpoint_url, "POST /model/m/converse-stream",
                                                  ["Transfer-Encoding: chunked"], chunked)
        assert (status, got, terminated) == (200, b"".join(converse_frames()), True)
        assert server.requests[0].body_json == {"messages": USER}


@pytest.mark.parametrize("length", ["abc", "-1"])
def test_an_unreadable_content_length_is_a_malformed_request(length):
    with BedrockServer(Canned()) as server:
        status, headers, got, _ = raw_exchange(server.endpoint_url, "POST /model/m/converse-stream",
                                               [f"Content-Length: {length}"], b"{}")
        assert status == 400 and json.loads(got) == {"message": MALFORMED_INPUT}
        assert headers["x-amzn-errortype"].startswith("ValidationException:")
        assert outcome(converse_stream(client(server))["stream"]) == (FULL_EVENTS, None)


# ------------------------------------------------------------------ HTTP as RFC 9112 says (tests/hostile_http.py)


@pytest.mark.parametrize("case", sorted(HOSTILE_HTTP))
def test_a_head_two_readers_could_read_two_ways_is_refused_and_nothing_after_it_is_answered(case):
    with BedrockServer(Canned()) as server:
        statuses, closed, _ = send_case(urlsplit(server.endpoint_url).port, HOSTILE_HTTP[case], wait=10)
        assert len(statuses) == 1 and statuses[0] in (400, 501) and closed, (statuses, closed)
        assert server.request_count == 0 or case.startswith("chunk")  # a bad chunk is read as a malformed body
        assert outcome(converse_stream(client(server))["stream"]) == (FULL_EVENTS, None)  # the server serves on


def test_a_sound_request_keeps_its_connection_for_the_next_one():
    with BedrockServer(Canned()) as server:
        statuses, closed, _ = send_case(urlsplit(server.endpoint_url).port, CONTROL, wait=1)
    assert statuses == [200, 404] and not closed


def _closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed ``sock`` (None: still open after ``seconds``)."""
    began = time.monotonic()
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
    except (TimeoutError, socket.timeout):
        return None
    except ConnectionResetError:
        pass
    return time.monotonic() - began


def test_an_idle_connection_is_closed_at_the_idle_timeout_and_its_thread_ends():
    with BedrockServer(Canned(), idle_timeout=0.5) as server:
        threads = threading.active_count()
        port = urlsplit(server.endpoint_url).port
        began = time.monotonic()
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
        assert all(_closed_within(sock, 5) is not None for sock in idle)
        assert 0.4 < time.monotonic() - began < 3
        time.sleep(0.3)
        assert threading.active_count() <= threads + 1  # the handlers are gone
        for sock in idle:
            sock.close()
        with socket.create_connection(("127.0.0.1", port)) as kept:  # after an answer, idle again: closed too
            kept.sendall(CONTROL)
            assert _closed_within(kept, 5) is not None


def test_a_request_trickling_in_is_closed_at_the_idle_timeout():
    with BedrockServer(Canned(), idle_timeout=0.6) as server:
        with socket.create_connection(("127.0.0.1", urlsplit(server.endpoint_url).port)) as sock:
            began = time.monotonic()
            try:
                for byte in CONTROL:  # one byte every 0.1 s: no read waits long, the whole never arrives
                    sock.sendall(bytes([byte]))
                    time.sleep(0.1)
            except (BrokenPipeError, ConnectionResetError):
                pass
            assert _closed_within(sock, 5) is not None and time.monotonic() - began < 4
        assert server.request_count == 0


def test_a_reply_streaming_longer_than_the_idle_timeout_is_not_cut():
    with BedrockServer(Canned(), idle_timeout=0.3, faults=Faults(delay=0.1)) as server:
        began = time.monotonic()
        assert outcome(converse_stream(client(server))["stream"]) == (FULL_EVENTS, None)
        assert time.monotonic() - began > 0.6  # the reply took twice the idle timeout, and arrived whole


def test_the_accepting_thread_sleeps_until_a_client_comes_and_ends_when_closed(monkeypatch):
    """No poll interval: the accept loop waits without a timeout (it does not wake, nor take the GIL, while idle),
    and close() ends it at once through its wake-up socket, leaving no thread and no socket behind."""
    timeouts = []
    select = selectors.DefaultSelector.select
    monkeypatch.setattr(selectors.DefaultSelector, "select",
                        lambda self, timeout=None: timeouts.append(timeout) or select(self, timeout))
    server = BedrockServer(Canned()).start()
    try:
        status, _, _, terminated = raw_post(server.endpoint_url, "/model/m/converse-stream", converse_body())
        assert status == 200 and terminated
    finally:
        thread, httpd = server._thread, server._httpd
        server.close()
    assert not thread.is_alive() and timeouts and set(timeouts) == {None}
    assert httpd.fileno() == -1 and httpd._wake.fileno() == -1 and httpd._waker.fileno() == -1


# ------------------------------------------------------------------ slow clients: header and body timeouts, a cap

_HALF_HEAD = b"POST /model/m/converse-stream HTTP/1.1\r\nHost: x\r\n"  # the blank line that ends a head never comes


def test_sixty_half_sent_heads_are_closed_at_the_header_timeout_and_their_threads_end(monkeypatch):
    monkeypatch.setattr(server_module, "HEADER_TIMEOUT", 0.5)
    with BedrockServer(Canned()) as server:  # the idle timeout stays at its 60 s: the head's own clock closes them
        threads = threading.active_count()
        port = urlsplit(server.endpoint_url).port
        began = time.monotonic()
        slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(60)]
        for sock in slow:
            sock.sendall(_HALF_HEAD)
        assert all(_closed_within(sock, 10) is not None for sock in slow)
        assert 0.4 < time.monotonic() - began < 5
        time.sleep(0.3)
        assert threading.active_count() <= threads + 1 and server.request_count == 0
        for sock in slow:
            sock.close()
        assert outcome(converse_stream(client(server))["stream"]) == (FULL_EVENTS, None)


def test_a_body_that_stops_arriving_is_closed_at_the_body_timeout(monkeypatch):
    monkeypatch.setattr(server_module, "BODY_TIMEOUT", 0.5)
    with BedrockServer(Canned()) as server:
        with socket.create_connection(("127.0.0.1", urlsplit(server.endpoint_url).port)) as sock:
            sock.sendall(_HALF_HEAD + b"Content-Length: 100\r\n\r\n" + b'{"messages":')
            began = time.monotonic()
            assert _closed_within(sock, 10) is not None and 0.4 < time.monotonic() - began < 5
        assert server.request_count == 0


def test_past_the_connection_cap_a_client_is_answered_503_at_once_and_threads_stay_bounded(monkeypatch):
    with BedrockServer(Canned(), max_connections=5) as server:
        threads = threading.active_count()
        port = urlsplit(server.endpoint_url).port
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]
        time.sleep(0.3)  # accepted, each with its handler
        with socket.create_connection(("127.0.0.1", port)) as extra:
            extra.sendall(CONTROL)
            statuses, closed = answers(extra, time.monotonic() + 5)
        assert statuses == [503] and closed
        assert threading.active_count() <= threads + 5
        for sock in held:
            sock.close()
        time.sleep(0.3)
        assert outcome(converse_stream(client(server))["stream"]) == (FULL_EVENTS, None)  # served again


def test_the_turned_away_answer_is_bedrock_shaped(monkeypatch):
    with BedrockServer(Canned(), max_connections=0) as server:
        with socket.create_connection(("127.0.0.1", urlsplit(server.endpoint_url).port)) as sock:
            sock.sendall(CONTROL)
            sock.settimeout(5)
            data = b""
            while piece := sock.recv(65536):
                data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503 ") and b"x-amzn-ErrorType: ServiceUnavailableException" in head
    assert json.loads(body)["message"].startswith("bedrock-harness endpoint: 0 connections are open already")
