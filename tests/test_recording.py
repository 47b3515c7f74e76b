import base64
import gc
import json

import boto3
import botocore.awsrequest
import pytest
import yaml
from botocore.config import Config
from botocore.exceptions import HTTPClientError
from vcr.request import Request

from eventstream_server import StubBedrock, TOOL_ID, json_reply
from harness.cassettes import cassette
from harness.cassettes import vcr as recording
from harness.cassettes import scrub

pytest_plugins = ["pytester"]

MODEL = "us.anthropic.claude-3-7-sonnet-20250219-v1:0"
MESSAGES = [{"role": "user", "content": [{"text": "Weather in Paris?"}]}]
CANARY_KEY = "AKIAFAKECANARY123456"
CANARY_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKECANARY1"
CANARY_TOKEN = "FwoGZXIvYXdzEFAKECANARYtoken" + "Zm9vYmFyYmF6" * 30
CANARY_ACCOUNT = "987654321098"
PROFILE = f"arn:aws:bedrock:us-east-1:{CANARY_ACCOUNT}:inference-profile/{MODEL}"


def client(endpoint_url: str, **credentials):
    return boto3.client("bedrock-runtime", endpoint_url=endpoint_url, region_name="us-east-1",
                        config=Config(retries={"total_max_attempts": 1}), **credentials)


def session(bedrock, model_id=MODEL) -> dict:
    """One call of each operation, reduced to what the caller sees."""
    stream = list(bedrock.converse_stream(modelId=model_id, messages=MESSAGES)["stream"])
    reply = bedrock.converse(modelId=model_id, messages=MESSAGES)
    invoke = bedrock.invoke_model_with_response_stream(modelId=model_id, body=json.dumps({"messages": MESSAGES}))
    return {"stream": stream, "converse": {k: v for k, v in reply.items() if k != "ResponseMetadata"},
            "invoke": list(invoke["body"]), "content_type": invoke["contentType"]}


def record(path, model_id=MODEL, **credentials):
    with StubBedrock() as server:
        with recording.use_cassette(path, record_mode="once"):
            live = session(client(server.endpoint_url, **credentials), model_id)
        assert len(server.requests) == 3
    return live, server.endpoint_url


def test_record_then_replay_offline(tmp_path):
    path = tmp_path / "session.yaml"
    live, endpoint = record(path)
    assert live["stream"][4]["contentBlockStart"]["start"]["toolUse"]["toolUseId"] == TOOL_ID
    with recording.use_cassette(path):  # record mode none, and the server is gone: only vcrpy can answer
        replayed = session(client(endpoint))
    assert replayed == live
    loaded = cassette.load(path)
    assert [i.operation for i in loaded.interactions] == ["ConverseStream", "Converse", "InvokeModelWithResponseStream"]
    assert (loaded.metadata["source"], loaded.metadata["model_id"], loaded.metadata["region"]) == \
        ("emulator", MODEL, "us-east-1")
    assert cassette.verify(path) == []


def test_new_episodes_keep_recorded_interactions_and_metadata_as_they_were(tmp_path):
    path = tmp_path / "session.yaml"
    with StubBedrock() as server:
        with recording.use_cassette(path, record_mode="once"):
            client(server.endpoint_url).converse(modelId=MODEL, messages=MESSAGES)
        before = yaml.safe_load(path.read_text())
        with recording.use_cassette(path, record_mode="new_episodes"):
            client(server.endpoint_url).converse(modelId=MODEL, messages=MESSAGES)  # replayed, not recorded
            client(server.endpoint_url).converse_stream(modelId=MODEL, messages=MESSAGES)
        assert len(server.requests) == 2
    after = yaml.safe_load(path.read_text())
    assert after["metadata"] == before["metadata"]
    assert after["interactions"][0] == before["interactions"][0] and len(after["interactions"]) == 2


def test_the_recorded_file_is_readable(tmp_path):
    path = tmp_path / "session.yaml"
    record(path)
    text = path.read_text()
    assert "- event: contentBlockStart" in text and "toolUseId: " + TOOL_ID in text
    assert "chunk:\n" in text and "!!binary" not in text
    assert "Transfer-Encoding" not in text and "x-amzn-RequestId" not in text


def test_canary_credentials_never_reach_the_cassette(tmp_path, monkeypatch):
    for name, value in (("AWS_ACCESS_KEY_ID", CANARY_KEY), ("AWS_SECRET_ACCESS_KEY", CANARY_SECRET),
                        ("AWS_SESSION_TOKEN", CANARY_TOKEN)):
        monkeypatch.setenv(name, value)
    path = tmp_path / "canary.yaml"
    live, endpoint = record(path, PROFILE)
    text = path.read_text()
    for canary in (CANARY_KEY, CANARY_SECRET, CANARY_TOKEN, CANARY_ACCOUNT):
        assert canary not in text
        assert not any(variant in text for variant in base64_variants(canary))
    assert scrub.scan_file(path) == []
    with recording.use_cassette(path):  # the real account id in the request still matches the scrubbed one
        assert session(client(endpoint), PROFILE)["converse"]["stopReason"] == "tool_use"


def base64_variants(secret: str) -> list[str]:
    """The stable middle of the secret's base64 at each of the three byte alignments."""
    out = []
    for shift in range(3):
        encoded = base64.b64encode(b"x" * shift + secret.encode()).decode()
        out.append(encoded[4:-4])
    return out


def test_a_response_that_leaks_a_secret_is_refused_and_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", CANARY_SECRET)
    path = tmp_path / "leak.yaml"
    leak = json_reply(200, {"output": {"message": {"content": [{"text": f"key: {CANARY_SECRET}"}]}}})
    with StubBedrock(converse=leak) as server:
        with pytest.raises(HTTPClientError, match=r"refusing to write.*AWS_SECRET_ACCESS_KEY"):
            with recording.use_cassette(path, record_mode="once"):
                client(server.endpoint_url).converse_stream(modelId=MODEL, messages=MESSAGES)
                client(server.endpoint_url).converse(modelId=MODEL, messages=MESSAGES)
    assert list(tmp_path.iterdir()) == []
    assert botocore.awsrequest.AWSHTTPConnectionPool.ConnectionCls is botocore.awsrequest.AWSHTTPConnection
    gc.collect()  # vcrpy unpatches a cassette whose save raised only when its context is collected
    assert botocore.awsrequest.AWSHTTPConnectionPool.ConnectionCls is botocore.awsrequest.AWSHTTPConnection


def test_the_serializer_refuses_a_secret_even_without_the_hooks(tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", CANARY_SECRET)
    leak = json_reply(200, {"output": {"message": {"content": [{"text": f"key: {CANARY_SECRET}"}]}}})
    vcr = recording.make_vcr("once", before_record_request=None, before_record_response=None)
    with StubBedrock(converse=leak) as server, pytest.raises(scrub.SecretFound, match=r"leak.yaml: refusing") as refused:
        with vcr.use_cassette(str(tmp_path / "leak.yaml")):
            client(server.endpoint_url).converse(modelId=MODEL, messages=MESSAGES)
    assert list(tmp_path.iterdir()) == []
    # Unpatched at once, though the refusal's traceback (as pytest's sys.last_traceback would) keeps the context
    # alive: vcrpy alone saves before it unpatches, and left every later call in the process going to this cassette.
    assert refused.tb is not None
    assert botocore.awsrequest.AWSHTTPConnectionPool.ConnectionCls is botocore.awsrequest.AWSHTTPConnection


def counted(monkeypatch, module, name) -> list:
    """Each call of ``module.name`` from now on, appended to the list returned (the function still runs)."""
    calls, original = [], getattr(module, name)
    monkeypatch.setattr(module, name, lambda *args, **kwargs: calls.append(args) or original(*args, **kwargs))
    return calls


def test_a_cassette_is_scanned_once_per_content_and_replays_without_a_scan(tmp_path, monkeypatch):
    path = tmp_path / "session.yaml"
    live, endpoint = record(path)
    path.write_text(path.read_text() + f"# {tmp_path.name}\n")  # bytes no other test has had scanned this session
    whole = counted(monkeypatch, recording.secrets, "scan_data")
    requests = counted(monkeypatch, recording.scrub, "refuse_request_secrets")
    responses = counted(monkeypatch, recording.scrub, "refuse_response_secrets")
    for _ in range(2):
        with recording.use_cassette(path):
            assert session(client(endpoint)) == live
    assert (len(whole), requests, responses) == (1, [], [])  # the file once, as a whole; no interaction, no match
    path.write_text(path.read_text() + "# changed\n")
    with recording.use_cassette(path):
        session(client(endpoint))
    assert len(whole) == 2  # other bytes: scanned afresh


def test_a_cassette_holding_a_secret_is_refused_on_every_load_naming_the_file(tmp_path, monkeypatch):
    path = tmp_path / "session.yaml"
    _, endpoint = record(path)
    with recording.use_cassette(path):  # seen clean under these credentials
        client(endpoint).converse(modelId=MODEL, messages=MESSAGES)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", CANARY_SECRET)  # the scan's verdict depends on them too
    path.write_text(path.read_text().replace("role: assistant", f"role: assistant  # {CANARY_SECRET}", 1))
    for _ in range(2):
        with pytest.raises(scrub.SecretFound, match=rf"{path}: refusing to write.*AWS_SECRET_ACCESS_KEY"):
            with recording.use_cassette(path):
                pass


def test_a_clean_file_is_scanned_again_when_the_credentials_in_the_environment_change(tmp_path, monkeypatch):
    path = tmp_path / "session.yaml"
    record(path)
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEEXAMPLE9"  # no key shape the scan knows without the environment
    path.write_text(path.read_text().replace("role: assistant", f"role: assistant  # {secret}", 1))
    with recording.use_cassette(path):
        pass
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    with pytest.raises(scrub.SecretFound, match="AWS_SECRET_ACCESS_KEY"), recording.use_cassette(path):
        pass


def test_an_http_error_replays_as_the_same_botocore_exception(tmp_path):
    path = tmp_path / "throttled.yaml"
    throttled = json_reply(429, {"message": "Rate exceeded"}, {"x-amzn-ErrorType": "ThrottlingException:http://x/"})
    with StubBedrock(converse=throttled) as server, recording.use_cassette(path, record_mode="once"):
        with pytest.raises(client(server.endpoint_url).exceptions.ThrottlingException) as live:
            client(server.endpoint_url).converse(modelId=MODEL, messages=MESSAGES)
    replaying = client(server.endpoint_url)
    with recording.use_cassette(path), pytest.raises(replaying.exceptions.ThrottlingException) as again:
        replaying.converse(modelId=MODEL, messages=MESSAGES)
    assert again.value.response["Error"] == live.value.response["Error"]


def test_replay_refuses_a_request_the_cassette_does_not_hold(tmp_path):
    path = tmp_path / "session.yaml"
    _, endpoint = record(path)
    other = [{"role": "user", "content": [{"text": "Something else"}]}]
    with recording.use_cassette(path), pytest.raises(HTTPClientError, match="no recorded interaction matches"):
        client(endpoint).converse(modelId=MODEL, messages=other)


@pytest.mark.parametrize("mode", ["nonee", "onse", "rewrite"])
def test_a_misspelled_record_mode_fails_loudly(mode, tmp_path):
    with pytest.raises(ValueError, match="not a valid record_mode"):
        recording.make_vcr(mode)
    with pytest.raises(ValueError, match="not a valid record_mode"):
        with recording.use_cassette(tmp_path / "x.yaml", record_mode=mode):
            pass


@pytest.mark.parametrize("mode", ["none", "once", "new_episodes", "all"])
def test_a_corrupt_cassette_stops_replay_and_recording_without_being_overwritten(tmp_path, mode):
    path = tmp_path / "broken.yaml"
    path.write_text("metadata: {format_version: 1}\ninteractions: [\n")
    with pytest.raises(cassette.CassetteError) as err:
        with recording.use_cassette(path, record_mode=mode):
            pass
    assert str(err.value).startswith(f"{path}: line 3, column 1: broken YAML") and "\n" not in str(err.value)
    assert path.read_text() == "metadata: {format_version: 1}\ninteractions: [\n"


def request(uri: str, body) -> Request:
    return Request("POST", uri, body if isinstance(body, bytes) else json.dumps(body).encode(), {})


def test_headers_are_kept_in_one_order_whatever_order_they_came_in():
    names = ["x-amzn-bedrock-x", "Content-Type", "amz-Extra", "Connection"]
    orders = [names, names[::-1], names[1:] + names[:1]]
    made = [recording.from_http({"method": "POST", "uri": "http://127.0.0.1:9/model/m/converse", "body": b"{}",
                                 "headers": {n: ["1"] for n in order}},
                                {"status": {"code": 200, "message": "OK"}, "body": {"string": b"{}"},
                                 "headers": {n: ["1"] for n in order}}) for order in orders]
    assert {tuple(it.response_headers) for it in made} == {("amz-Extra", "Connection", "Content-Type",
                                                             "x-amzn-bedrock-x")}
    assert {tuple(it.request_headers) for it in made} == {("amz-Extra", "Connection", "Content-Type",
                                                            "x-amzn-bedrock-x")}
    assert {it.uri for it in made} == {"http://127.0.0.1/model/m/converse"}


def test_path_matcher_ignores_percent_encoding_and_account_ids():
    base = "http://127.0.0.1:1/model/"
    recording.path_matcher(request(base + "a.b-v1%3A0/converse", {}), request(base + "a.b-v1:0/converse", {}))
    recording.path_matcher(request(base + f"arn%3Aaws%3Abedrock%3Aus-east-1%3A{CANARY_ACCOUNT}%3Ax/converse", {}),
                           request(base + "arn:aws:bedrock:us-east-1:111111111111:x/converse", {}))
    with pytest.raises(AssertionError, match="converse-stream"):
        recording.path_matcher(request(base + "m/converse", {}), request(base + "m/converse-stream", {}))


def test_body_matcher_is_semantic():
    uri = "http://127.0.0.1:1/model/m/converse"
    recorded = {"messages": MESSAGES, "inferenceConfig": {"maxTokens": 5, "temperature": 0.5}}
    reordered = {"inferenceConfig": {"temperature": 0.5, "maxTokens": 5}, "messages": MESSAGES,
                 "requestMetadata": {"trace": "volatile"}}
    recording.body_matcher(request(uri, json.dumps(recorded, indent=2).encode()), request(uri, reordered))
    changed = {**recorded, "messages": [{"role": "user", "content": [{"text": "Other"}]}]}
    difference = r"body.messages\[0\].content\[0\].text: \"Weather in Paris\?\" != \"Other\""
    with pytest.raises(AssertionError, match=difference):
        recording.body_matcher(request(uri, recorded), request(uri, changed))
    with pytest.raises(AssertionError):
        recording.body_matcher(request(uri, b"raw-a"), request(uri, b"raw-b"))


def test_register_is_idempotent_and_keeps_the_inner_persister():
    vcr = recording.make_vcr()
    persister = vcr.persister
    assert recording.register(vcr).persister is persister and vcr.serializers["bedrock"].source is None


# -------------------------------------------------------------------------- pytest integration

USER_TEST = """
import os

import boto3
import botocore.awsrequest
import pytest

MESSAGES = [{"role": "user", "content": [{"text": "hi"}]}]


def call():
    client = boto3.client("bedrock-runtime", endpoint_url=os.environ["STUB_URL"], region_name="us-east-1")
    return list(client.converse_stream(modelId="m.x-v1:0", messages=MESSAGES)["stream"])


@pytest.mark.vcr
def test_with_pytest_recording():
    assert call()[0] == {"messageStart": {"role": "assistant"}}


def test_with_the_fixture(bedrock_cassette):
    assert call()[-1]["metadata"]["usage"]["totalTokens"] == 48
"""

CONFTEST = """
import pytest

import harness.cassettes.vcr


@pytest.fixture(scope="module")
def vcr_config():
    return harness.cassettes.vcr.vcr_config()
"""


def test_pytest_recording_and_fixture_users_record_then_replay(pytester, monkeypatch):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_user=USER_TEST)
    with StubBedrock() as server:
        monkeypatch.setenv("STUB_URL", server.endpoint_url)
        pytester.runpytest("--record-mode=once").assert_outcomes(passed=2)
    for name in ("test_with_pytest_recording", "test_with_the_fixture"):
        loaded = cassette.load(pytester.path / "cassettes" / "test_user" / f"{name}.yaml")
        assert loaded.interactions[0].operation == "ConverseStream"
    pytester.runpytest().assert_outcomes(passed=2)  # offline: record mode none, the server is gone
