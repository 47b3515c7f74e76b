"""The recording proxy (harness.endpoint.proxy, harness.endpoint.upstream) with the emulator as the upstream.

Offline throughout: both servers are on 127.0.0.1, the client holds the harness's dummy keys and the proxy signs
with test credentials that the upstream checks with botocore's own signer.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import logging
import socket
import threading
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, urlsplit

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from harness import load_adapter
from harness.adapters.subprocess import SubprocessAdapter
from harness.cassettes import cassette, scrub
from harness.endpoint.exchange import CapturedRequest, Reply, error_reply
from harness.endpoint.proxy import Conversations, RecordingProxy, Tape, describe, source_of
from harness.endpoint.server import BedrockServer
from harness.endpoint.upstream import Upstream
from harness.suite.runner import loopback_endpoint, replay
from harness.suite.scenario import load_scenario
from harness.wire.eventstream import decode_events
from hostile_http import CASES as HOSTILE_HTTP
from hostile_http import send_case
from live_upstream import CLIENT_KEY, CLIENT_SECRET, PROXY_CREDENTIALS, HistoryEmulator, sigv4_problem
from planted import EXCHANGES, TOKENS, PlantedUpstream
from test_examples import node_command

ROOT = Path(__file__).resolve().parents[1]
SINGLE = load_scenario(ROOT / "suites" / "core" / "single-call.yaml", ROOT / "suites")
ROUND_TRIP = load_scenario(ROOT / "suites" / "core" / "round-trip.yaml", ROOT / "suites")
USER = [{"role": "user", "content": [{"text": "What is in /tmp/test.txt?"}]}]
LEAKED_KEY = "AKIAIOSFODNN7EXAMPLE"


@contextmanager
def proxied(responder, recorder):
    """(upstream server, proxy server): the proxy forwards to the upstream, signing with the test credentials."""
    with BedrockServer(responder, validate=False) as upstream:
        forwarder = Upstream(upstream.endpoint_url, "us-east-1", PROXY_CREDENTIALS)
        with BedrockServer(RecordingProxy(forwarder, recorder), validate=False) as proxy:
            yield upstream, proxy


def client(url: str, attempts: int = 1):
    return boto3.client("bedrock-runtime", endpoint_url=url, region_name="us-east-1",
                        aws_access_key_id=CLIENT_KEY, aws_secret_access_key=CLIENT_SECRET,
                        config=Config(retries={"mode": "standard", "total_max_attempts": attempts}))


def events_of(frames) -> list:
    return list(decode_events(b"".join(f if isinstance(f, bytes) else f.encode() for f in frames)))


def test_the_upstream_gets_a_valid_signature_for_the_proxy_credentials_and_never_the_clients(tmp_path):
    emulator, tape = HistoryEmulator(ROUND_TRIP), Tape(tmp_path / "round-trip.yaml")
    with proxied(emulator, tape) as (upstream, proxy):
        run = replay(ROUND_TRIP, load_adapter("reference"), loopback_endpoint(proxy), proxy)
        assert tape.wait()
    assert len(run.turns) == 2 and emulator.signature_problems == ["", ""]
    for request in upstream.requests:
        seen = f"{request.headers} {request.raw_body!r}"
        assert CLIENT_KEY not in seen and CLIENT_SECRET not in seen
    tampered = dataclasses.replace(upstream.requests[0], raw_body=upstream.requests[0].raw_body + b" ")
    assert sigv4_problem(tampered).startswith("signature ")  # the check can fail
    text = tape.path.read_text()
    for secret in (CLIENT_KEY, CLIENT_SECRET, PROXY_CREDENTIALS.access_key, PROXY_CREDENTIALS.secret_key):
        assert secret not in text
    assert "Signature=SCRUBBED" in text and "Credential=SCRUBBED" in text
    assert scrub.scan_file(tape.path) == [] and cassette.verify(tape.path) == []


def test_the_cassette_replays_event_identical(tmp_path):
    emulator, tape = HistoryEmulator(SINGLE), Tape(tmp_path / "one.yaml", source="emulator")
    with proxied(emulator, tape) as (_, proxy):
        live = list(client(proxy.endpoint_url).converse_stream(modelId=SINGLE.model_id, messages=USER)["stream"])
        assert tape.wait()
    assert live == events_of(emulator.replies[0].frames)
    with BedrockServer.from_cassette(tape.path) as replaying:
        replayed = list(client(replaying.endpoint_url).converse_stream(modelId=SINGLE.model_id,
                                                                       messages=USER)["stream"])
    assert replayed == live
    loaded = cassette.load(tape.path)
    assert loaded.metadata["source"] == "emulator" and loaded.interactions[0].request_json["messages"] == USER


class Gated:
    """An upstream that sends the first frame, then holds the rest until the client says it has that event."""

    def __init__(self):
        self.client_has_first_event = threading.Event()
        self.released_by_client = None

    def respond(self, request):
        frames = HistoryEmulator(SINGLE).respond(request).frames
        return Reply(200, {"Content-Type": "application/vnd.amazon.eventstream"}, stream=self._body(frames))

    def _body(self, frames):
        yield frames[0]
        self.released_by_client = self.client_has_first_event.wait(20)
        yield from frames[1:]


def test_streaming_is_incremental_the_first_event_arrives_before_the_upstream_has_finished(tmp_path):
    gated, tape = Gated(), Tape(tmp_path / "gated.yaml")
    with proxied(gated, tape) as (_, proxy):
        stream = client(proxy.endpoint_url).converse_stream(modelId=SINGLE.model_id, messages=USER)["stream"]
        first = next(iter(stream))
        gated.client_has_first_event.set()
        rest = list(stream)
        assert tape.wait()
    assert first == {"messageStart": {"role": "assistant"}} and len(rest) == 9
    assert gated.released_by_client is True  # a buffering proxy would have let the upstream time out instead
    assert len(cassette.load(tape.path).interactions[0].frames) == 10


def test_conversations_are_grouped_by_history_and_never_clobber_a_file(tmp_path):
    (tmp_path / "conversation-0001.yaml").write_text("keep me\n")
    recorder = Conversations(tmp_path)
    adapter = load_adapter("reference")
    for scenario in (ROUND_TRIP, ROUND_TRIP, SINGLE):
        with proxied(HistoryEmulator(scenario), recorder) as (_, proxy):
            replay(scenario, adapter, loopback_endpoint(proxy), proxy)
            assert all(tape.wait() for tape in recorder.tapes)
    assert (tmp_path / "conversation-0001.yaml").read_text() == "keep me\n"
    assert [(t.path.name, len(cassette.load(t.path).interactions)) for t in recorder.tapes] == [
        ("conversation-0002.yaml", 2), ("conversation-0003.yaml", 2), ("conversation-0004.yaml", 1)]


class FailsOnce:
    """HTTP 429 for the first request, then the emulator."""

    def __init__(self):
        self.emulator, self.calls = HistoryEmulator(SINGLE), 0

    def respond(self, request):
        self.calls += 1
        return error_reply(429, "ThrottlingException", "slow down") if self.calls == 1 else \
            self.emulator.respond(request)


def test_a_retry_after_an_error_joins_its_conversation(tmp_path, monkeypatch):
    monkeypatch.setattr("botocore.retries.standard.ExponentialBackoff.delay_amount", lambda self, context: 0)
    recorder = Conversations(tmp_path)
    with proxied(FailsOnce(), recorder) as (_, proxy):
        list(client(proxy.endpoint_url, attempts=2).converse_stream(modelId=SINGLE.model_id, messages=USER)["stream"])
        client(proxy.endpoint_url).converse_stream(modelId=SINGLE.model_id, messages=USER)  # a rerun: a new one
        assert all(tape.wait() for tape in recorder.tapes)
    statuses = [[it.status for it in cassette.load(t.path).interactions] for t in recorder.tapes]
    assert statuses == [[429, 200], [200]]


def test_a_response_holding_a_secret_is_relayed_but_never_written(tmp_path):
    leaky = {"content": [{"text": f"your key is {LEAKED_KEY}"}], "stop_reason": "end_turn"}
    emulator = HistoryEmulator(dataclasses.replace(SINGLE, turns=(dataclasses.replace(SINGLE.turns[0],
                                                                                       script=leaky),)))
    tape = Tape(tmp_path / "leak.yaml")
    with proxied(emulator, tape) as (_, proxy):
        events = list(client(proxy.endpoint_url).converse_stream(modelId=SINGLE.model_id, messages=USER)["stream"])
        assert tape.wait()
    assert any(LEAKED_KEY in str(e) for e in events)
    assert not tape.path.exists() and not tape.written and "AWS access key id" in tape.refused


def test_an_existing_cassette_is_replaced_only_when_asked(tmp_path):
    path = tmp_path / "there.yaml"
    for overwrite in (False, True):
        path.write_text("mine\n")
        tape = Tape(path, overwrite=overwrite)
        with proxied(HistoryEmulator(SINGLE), tape) as (_, proxy):
            client(proxy.endpoint_url).converse_stream(modelId=SINGLE.model_id, messages=USER)
            assert tape.wait()
        assert (path.read_text() == "mine\n") is not overwrite and bool(tape.refused) is not overwrite


def test_an_unreachable_upstream_is_a_503_and_nothing_is_recorded(tmp_path):
    with BedrockServer(HistoryEmulator(SINGLE)) as gone:
        url = gone.endpoint_url
    tape = Tape(tmp_path / "none.yaml")
    with BedrockServer(RecordingProxy(Upstream(url, "us-east-1", PROXY_CREDENTIALS), tape), validate=False) as proxy:
        with pytest.raises(ClientError) as caught:
            client(proxy.endpoint_url).converse_stream(modelId=SINGLE.model_id, messages=USER)
    assert caught.value.response["Error"]["Code"] == "ServiceUnavailableException"
    assert "cannot reach upstream" in caught.value.response["Error"]["Message"] and not tape.path.exists()


def test_source_names_loopback_upstreams_emulator():
    assert source_of("http://127.0.0.1:8000") == "emulator"
    assert source_of("https://bedrock-runtime.us-west-2.amazonaws.com") == "live"


@pytest.fixture(scope="module")
def node_example() -> str:
    """npm ci only when BEDROCK_HARNESS_NPM_INSTALL=1 asks (as CI does), and then a failed install fails the test."""
    return node_command()


def test_the_node_example_records_through_the_proxy_and_the_cassette_replays_event_identical(tmp_path, node_example):
    emulator, recorder = HistoryEmulator(ROUND_TRIP), Conversations(tmp_path)
    with SubprocessAdapter(node_example) as node:
        with proxied(emulator, recorder) as (upstream, proxy):
            recorded = replay(ROUND_TRIP, node, loopback_endpoint(proxy), proxy)
            assert all(tape.wait() for tape in recorder.tapes)
        [tape] = recorder.tapes
        with BedrockServer.from_cassette(tape.path) as replaying:
            replayed = replay(ROUND_TRIP, node, loopback_endpoint(replaying), replaying)
    loaded = cassette.load(tape.path)
    assert [events_of(it.frames) for it in loaded.interactions] == [events_of(r.frames) for r in emulator.replies]
    assert [t["chunks"] for t in replayed.turns] == [t["chunks"] for t in recorded.turns]
    assert len(recorded.turns) == 2 and emulator.signature_problems == ["", ""]
    assert all(CLIENT_KEY not in str(r.headers) for r in upstream.requests)
    assert "aws-sdk-js" in str(loaded.interactions[0].request_headers)  # the SDK's own request, as it sent it


def test_a_client_hanging_up_mid_stream_still_leaves_the_whole_answer_in_the_cassette(tmp_path):
    gated, tape = Gated(), Tape(tmp_path / "hung-up.yaml")
    with proxied(gated, tape) as (_, proxy):
        stream = client(proxy.endpoint_url).converse_stream(modelId=SINGLE.model_id, messages=USER)["stream"]
        next(iter(stream))
        stream.close()  # the client walks away after the first event
        gated.client_has_first_event.set()
        assert tape.wait()
    frames = cassette.load(tape.path).interactions[0].frames
    assert len(frames) == 10 and frames[-1].type == "metadata"


def test_the_recorded_request_is_what_went_upstream_even_when_the_server_releases_its_bytes(tmp_path):
    body = json.dumps({"messages": USER}).encode()
    path = f"/model/{SINGLE.model_id.replace(':', '%3A')}/converse-stream"
    tape = Tape(tmp_path / "released.yaml")
    with BedrockServer(HistoryEmulator(SINGLE)) as upstream:
        proxy = RecordingProxy(Upstream(upstream.endpoint_url, "us-east-1", PROXY_CREDENTIALS), tape)
        request = CapturedRequest("POST", path, "ConverseStream", SINGLE.model_id,
                                  {"Content-Type": "application/json"}, json.loads(body), body)
        reply = proxy.respond(request)
        request.raw_body = b""  # a server that keeps only the JSON of answered requests
        streamed = b"".join(reply.stream)
    recorded = cassette.load(tape.path).interactions[0]
    assert recorded.request_json == {"messages": USER} and recorded.response_body() == streamed


def _post(url: str, exchange) -> int:
    connection = http.client.HTTPConnection(urlsplit(url).hostname, urlsplit(url).port, timeout=30)
    try:
        connection.request("POST", exchange.path, json.dumps(exchange.body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_no_planted_secret_reaches_disk_and_the_log_prints_none(tmp_path, caplog):
    recorder = Conversations(tmp_path)
    with caplog.at_level(logging.INFO, logger="harness.endpoint"), proxied(PlantedUpstream(), recorder) as (_, proxy):
        statuses = {_post(proxy.endpoint_url, exchange) for exchange in EXCHANGES}
        assert all(tape.wait() for tape in recorder.tapes)
    assert statuses == {200, 400} and len(recorder.tapes) == len(EXCHANGES)  # relayed, one conversation each
    assert list(tmp_path.iterdir()) == [] and all("holds a secret" in tape.refused for tape in recorder.tapes)
    assert "X-Amz-Security-Token=…" in caplog.text  # the query was logged, masked
    leaked = [name for name, token in TOKENS.items() if token in caplog.text or quote(token, safe="") in caplog.text]
    assert leaked == []


def test_finish_writes_a_stream_in_flight_as_far_as_it_got_marked_incomplete(tmp_path):
    gated, recorder = Gated(), Conversations(tmp_path)
    with proxied(gated, recorder) as (_, proxy):
        stream = client(proxy.endpoint_url).converse_stream(modelId=SINGLE.model_id, messages=USER)["stream"]
        first = next(iter(stream))
        proxy._session.responder.finish("serve --record stopped (SIGINT) while this exchange was in flight")
        [tape] = recorder.tapes
        written = cassette.load(tape.path)
        with pytest.raises(ClientError, match="ServiceUnavailableException"):  # a new request is turned away
            client(proxy.endpoint_url).converse_stream(modelId=SINGLE.model_id, messages=USER)
        gated.client_has_first_event.set()
    assert first == {"messageStart": {"role": "assistant"}}
    assert [f.type for f in written.interactions[0].frames] == ["messageStart"]
    assert written.metadata["incomplete"] == [{"interaction": 0, "why": "serve --record stopped (SIGINT) while this "
                                                                        "exchange was in flight"}]
    assert cassette.load(tape.path).metadata["incomplete"] and len(recorder.tapes) == 1  # the relay did not redo it
    assert describe([tape]) == f"{tape.path}: 1 interaction(s), 1 incomplete"


def test_a_request_target_a_cassette_cannot_hold_is_refused_with_400_and_nothing_goes_upstream(tmp_path):
    emulator, tape = HistoryEmulator(SINGLE), Tape(tmp_path / "none.yaml")
    body = json.dumps({"messages": USER}).encode()
    model = SINGLE.model_id.replace(":", "%3A")
    with proxied(emulator, tape) as (upstream, proxy):
        port = urlsplit(proxy.endpoint_url).port
        for target in (f"http://127.0.0.1:{port}/model/{model}/converse-stream", "/model/caf\xe9/converse-stream"):
            head = f"POST {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {len(body)}\r\n\r\n"
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(head.encode("latin-1") + body)
                answer = b"".join(iter(lambda: sock.recv(65536), b"")).decode("latin-1")
            assert answer.startswith("HTTP/1.1 400 ") and "cannot record the request target" in answer, answer
        assert upstream.requests == [] and not tape.path.exists()


@pytest.mark.parametrize("case", sorted(HOSTILE_HTTP))
def test_the_proxy_refuses_what_the_endpoint_refuses_and_forwards_none_of_it(tmp_path, case):
    """The recording proxy is served by the endpoint's own HTTP server: a head two readers could read two ways is
    refused there, so nothing of it, nor what a smuggler slipped behind it, goes upstream or onto a tape."""
    tape = Tape(tmp_path / "smuggled.yaml")
    with proxied(HistoryEmulator(SINGLE), tape) as (upstream, proxy):
        statuses, closed, _ = send_case(urlsplit(proxy.endpoint_url).port, HOSTILE_HTTP[case], wait=10)
        forwarded = upstream.request_count
    assert len(statuses) == 1 and statuses[0] in (400, 501) and closed, (statuses, closed)
    assert forwarded == 0 and not tape.path.exists()  # a bad chunk too: read as a malformed body, refused as one
