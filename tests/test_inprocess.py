"""The in-process loopback (harness.endpoint.inprocess): botocore's calls to a server of the same process answered
without a socket, exactly as the HTTP handler answers them, and only where a socket would show nothing more."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import botocore.exceptions
import pytest
import urllib3.connection
from botocore.exceptions import ClientError
from test_server import STREAM_FAULTS, Canned, client, converse_stream, outcome

from harness.cli.common import child_options
from harness.converse import ConverseAdapter
from harness.endpoint import inprocess
from harness.endpoint.faults import Fault, Faults, HttpError
from harness.endpoint.server import BedrockServer
from harness import report
from harness.suite.runner import run
from harness.suite.scenario import discover

REPO = Path(__file__).resolve().parents[1]
ASSISTANT_FIRST = [{"role": "assistant", "content": [{"text": "Hi"}]}]
CLAUDE = "us.anthropic.claude-sonnet-4-20250514-v1:0"  # a family whose rejections the rules hold evidence of


@pytest.fixture
def connects(monkeypatch):
    """How many TCP connections urllib3 opens while the test runs (every one still works)."""
    opened, connect = [], urllib3.connection.HTTPConnection.connect

    def counted(self):
        opened.append(self.port)
        return connect(self)

    monkeypatch.setattr(urllib3.connection.HTTPConnection, "connect", counted)
    return opened


def _call(server, operation: str, retries: int = 0, **extra):
    """What a boto3 client gets for one call: its events (or document) and error, as comparable values."""
    bedrock, model = client(server, retries), extra.pop("model", "m:0")
    try:
        if operation == "Converse":
            document = bedrock.converse(modelId=model, messages=extra.pop("messages", [{"role": "user", "content": [
                {"text": "Hi"}]}]), **extra)
            return document["output"], document["stopReason"], None
        if operation == "InvokeModelWithResponseStream":
            return outcome(bedrock.invoke_model_with_response_stream(modelId=model, body=b'{"messages": []}')["body"])
        return outcome(converse_stream(bedrock, model, **extra)["stream"])
    except ClientError as error:
        return error.response["ResponseMetadata"]["HTTPStatusCode"], error.response["Error"]["Code"], \
            error.response["Error"]["Message"]


def _both(operation: str, faults: Faults | None = None, **options):
    """(in-process outcome, HTTP outcome) of the same call to a session of the same responder and faults."""
    outcomes = []
    for in_process in (True, False):
        with BedrockServer(Canned(), faults=faults, in_process=in_process, **options.get("server", {})) as server:
            outcomes.append(_call(server, operation, **options.get("call", {})))
    return outcomes


@pytest.mark.parametrize("faults", STREAM_FAULTS)
def test_a_stream_reads_the_same_in_process_as_over_http(faults):
    in_process, over_http = _both("ConverseStream", faults)
    assert in_process == over_http


@pytest.mark.parametrize("operation", ["Converse", "InvokeModelWithResponseStream"])
def test_other_operations_read_the_same(operation):
    in_process, over_http = _both(operation)
    assert in_process == over_http
    assert in_process[-1] is None  # served, not refused


@pytest.mark.parametrize("case", [
    pytest.param({"call": {"messages": ASSISTANT_FIRST, "model": CLAUDE}}, id="rule-rejection"),
    pytest.param({"call": {"messages": ASSISTANT_FIRST, "model": CLAUDE}, "op": "Converse"},
                 id="rule-rejection-converse"),
    pytest.param({"call": {"model": "not a model id"}}, id="invalid-model-id"),
    pytest.param({"server": {"max_body": 64}}, id="body-over-the-limit"),
])
def test_refusals_read_the_same(case):
    in_process, over_http = _both(case.get("op", "ConverseStream"), None, **case)
    assert in_process == over_http
    assert in_process[0] in (400, 413)


def test_an_http_error_fault_and_its_retry_read_the_same():
    faults = Faults([Fault(turn=0, http_error=HttpError(429, "ThrottlingException", "Too many requests", times=1))])
    for in_process in (True, False):
        with BedrockServer(Canned(), faults=faults, in_process=in_process) as server:
            assert _call(server, "ConverseStream", retries=0)[:2] == (429, "ThrottlingException")
            assert _call(server, "ConverseStream", retries=0)[1] is None  # the next attempt is served
            assert server.request_count == 2


def test_no_socket_is_opened_in_process_and_one_is_over_http(connects):
    with BedrockServer(Canned(), in_process=True) as server:
        assert _call(server, "ConverseStream")[1] is None
        assert server.request_count == 1 and server.requests[0].operation == "ConverseStream"
        assert server.requests[0].headers["Host"] == server.endpoint_url.removeprefix("http://")
        assert server.endpoint_url in inprocess.registered()
    assert connects == []
    with BedrockServer(Canned()) as server:
        assert _call(server, "ConverseStream")[1] is None
    assert len(connects) == 1


def test_faults_only_a_socket_shows_go_over_one(connects):
    """A dropped connection and a delivery that waits are a socket's to show: those sessions are served over TCP."""
    for faults in (Faults([Fault(drop_after_byte=97)]), Faults(delay=0.001)):
        with BedrockServer(Canned(), faults=faults, in_process=True) as server:
            _call(server, "ConverseStream")
            assert server.request_count == 1
    assert len(connects) == 2
    assert not Faults(delay=0.5, scale=0).needs_socket and not Faults([Fault(truncate_after_byte=3)]).needs_socket


def test_a_closed_server_is_not_answered_in_process():
    server = BedrockServer(Canned(), in_process=True).start()
    bedrock, url = client(server), server.endpoint_url
    server.close()
    assert url not in inprocess.registered()
    with pytest.raises(botocore.exceptions.EndpointConnectionError):
        converse_stream(bedrock, "m:0")


def test_another_endpoint_passes_through_untouched(connects):
    with BedrockServer(Canned(), in_process=True), BedrockServer(Canned()) as other:
        assert _call(other, "ConverseStream")[1] is None
        assert other.request_count == 1
    assert len(connects) == 1


def _verdicts(results) -> dict:
    document = json.loads(report.render(results, ConverseAdapter(), "json"))
    for result in document["results"]:
        result.pop("duration_s", None)
    return {k: v for k, v in document.items() if k not in ("date", "duration_s")}


def test_the_shipped_suite_judges_the_same_either_way():
    scenarios = discover(REPO / "suites")
    in_process = run(scenarios, ConverseAdapter(), REPO)
    over_http = run(scenarios, ConverseAdapter(), REPO, in_process=False)
    assert [r.status for r in in_process].count("pass") == len(scenarios)
    assert _verdicts(in_process) == _verdicts(over_http)


def test_jobs_children_keep_the_loopback_choice():
    assert child_options(("--adapter", "reference"), (), (), None, 5.0, (), "http")[2:6] == \
        ["--timeout", "5.0", "--loopback", "http"]


def test_the_cli_takes_the_choice_from_the_option_or_the_environment(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
           "BEDROCK_HARNESS_PARSED_CACHE": "off"}
    base = [sys.executable, "-m", "harness.cli", "run", "--root", str(REPO), "--scenario", "core/round-trip"]
    for extra, loopback in (([], None), (["--loopback", "http"], None), ([], "http")):
        done = subprocess.run(base + extra, capture_output=True, text=True, cwd=tmp_path,
                              env={**env, **({"BEDROCK_HARNESS_LOOPBACK": loopback} if loopback else {})})
        assert done.returncode == 0, done.stderr
        assert "1 pass" in done.stdout
    done = subprocess.run(base, capture_output=True, text=True, cwd=tmp_path,
                          env={**env, "BEDROCK_HARNESS_LOOPBACK": "tcp"})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "Error: Invalid value for '--loopback' (env var: 'BEDROCK_HARNESS_LOOPBACK'): 'tcp' is not one of "
        "'in-process', 'http'."]
