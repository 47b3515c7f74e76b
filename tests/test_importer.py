import base64
import gzip
import json

import boto3
import botocore.parsers
import botocore.session
import pytest
import yaml
from botocore.config import Config
from botocore.exceptions import ClientError

from harness.cassettes import cassette

from harness.cassettes import importer

from harness.cassettes import vcr as recording

from harness.cassettes import scrub
from harness.wire import eventstream as es
from realworld import cassette_files, ids, interactions, requires_realworld

OPERATIONS = ("ConverseStream", "Converse", "InvokeModelWithResponseStream")
_MODEL = botocore.session.get_session().get_service_model("bedrock-runtime")


def originals(path):
    return [i for i in interactions() if i.file == path]


def to_params(shape, value):
    """A recorded JSON value as boto3 parameters: blobs back to bytes, documents untouched."""
    if shape.type_name == "blob":
        return base64.b64decode(value)
    if shape.type_name == "structure" and not getattr(shape, "is_document_type", False) and isinstance(value, dict):
        return {k: to_params(shape.members[k], v) if k in shape.members else v for k, v in value.items()}
    if shape.type_name == "list":
        return [to_params(shape.member, v) for v in value]
    return value


def call(client, original):
    """Replay one original interaction's call through boto3 (what an application would have sent)."""
    if original.operation == "InvokeModelWithResponseStream":
        return client.invoke_model_with_response_stream(modelId=original.model_id, body=json.dumps(original.request))
    shape = _MODEL.operation_model(original.operation).input_shape
    method = {"ConverseStream": client.converse_stream, "Converse": client.converse}[original.operation]
    return method(modelId=original.model_id, **to_params(shape, original.request))


def botocore_reading(original) -> dict:
    """What botocore makes of the original JSON body (a result, or the error it raises)."""
    parser = botocore.parsers.create_parser("rest-json")
    output = _MODEL.operation_model(original.operation).output_shape
    parsed = parser.parse({"status_code": original.status, "headers": {}, "body": original.body}, output)
    parsed.pop("ResponseMetadata", None)
    return parsed


def replayed(client, original):
    """What boto3 hands the application when the cassette replays this call."""
    try:
        response = call(client, original)
    except ClientError as err:
        return {"Error": {k: err.response["Error"][k] for k in ("Code", "Message")}}
    if original.operation == "Converse":
        return {k: v for k, v in response.items() if k != "ResponseMetadata"}
    return list(response["stream" if original.operation == "ConverseStream" else "body"])


def expected(original):
    if original.status == 200 and original.operation != "Converse":
        return list(es.decode_events(original.body, original.operation))
    reading = botocore_reading(original)
    return {"Error": {k: reading["Error"][k] for k in ("Code", "Message")}} if "Error" in reading else reading


@requires_realworld
@pytest.mark.parametrize("path", cassette_files(), ids=ids(cassette_files()))
def test_real_cassettes_import_verify_and_replay_through_vcrpy_and_boto3(path, tmp_path):
    dest = tmp_path / "imported.yaml"
    imported = importer.import_cassette(path, dest)
    assert cassette.verify(dest) == []
    wanted = [o for o in originals(path) if o.operation in OPERATIONS]
    loaded = cassette.load(dest)
    assert [(i.operation, i.model_id, i.status, i.request_json) for i in loaded.interactions] == \
        [(o.operation, o.model_id, o.status, o.request) for o in wanted]
    assert loaded.metadata["source"] == "imported" and loaded.metadata == imported.metadata
    for it, original in zip(loaded.interactions, wanted):
        if it.frames is not None:
            assert it.response_body() == original.body  # every stream re-encodes byte for byte
    region = loaded.metadata["region"]
    client = boto3.client("bedrock-runtime", region_name=region, config=Config(retries={"total_max_attempts": 1}))
    with recording.use_cassette(dest) as replay:
        for original in wanted:
            assert replayed(client, original) == expected(original), original.id
    assert replay.all_played


@requires_realworld
def test_a_real_http_429_replays_as_the_same_throttling_exception(tmp_path):
    [path] = [p for p in cassette_files() if "streaming_error" in p.name]
    importer.import_cassette(path, tmp_path / "throttled.yaml")
    original = originals(path)[0]
    client = boto3.client("bedrock-runtime", region_name="us-east-1", config=Config(retries={"total_max_attempts": 1}))
    with recording.use_cassette(tmp_path / "throttled.yaml"):
        with pytest.raises(client.exceptions.ThrottlingException) as err:
            call(client, original)
    assert err.value.response["Error"]["Message"] == botocore_reading(original)["Error"]["Message"] == "Rate exceeded"


# ------------------------------------------------------------------ synthetic foreign formats

STREAM = b"".join([es.encode_event("messageStart", {"role": "assistant"}, 4),
                   es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hi"}}, 9),
                   es.encode_event("contentBlockStop", {"contentBlockIndex": 0}, 3),
                   es.encode_event("messageStop", {"stopReason": "end_turn"}, 2),
                   es.encode_event("metadata", {"usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
                                                "metrics": {"latencyMs": 3}}, 5)])
URI = "https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-sonnet-4-6%3A0/"
REQUEST = {"messages": [{"role": "user", "content": [{"text": "Hello"}]}]}
CONVERSE = {"output": {"message": {"role": "assistant", "content": [{"text": "Hi"}]}}, "stopReason": "end_turn",
            "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}, "metrics": {"latencyMs": 3}}


def vcrpy_cassette(tmp_path, style: str):
    """A foreign vcrpy cassette as pydantic-ai ("parsed"), crewAI ("string") or opentelemetry ("binary") write them."""
    stream_request = {"method": "POST", "uri": URI + "converse-stream", "body": json.dumps(REQUEST),
                      "headers": {"Content-Type": [b"application/json"], "authorization": [f"Bearer {'x' * 48}"],
                                  "X-Amz-Security-Token": ["test_aws_security_token"]}}
    stream_response = {"status": {"code": 200, "message": "OK"}, "body": {"string": STREAM},
                       "headers": {"Content-Type": ["application/vnd.amazon.eventstream"],
                                   "Transfer-Encoding": ["chunked"], "x-amzn-RequestId": ["1-2-3"]}}
    json_response = {"status": {"code": 200, "message": "OK"}, "headers": {"Content-Type": ["application/json"]},
                     **({"parsed_body": CONVERSE} if style == "parsed" else
                        {"body": {"string": json.dumps(CONVERSE) if style == "string"
                                  else json.dumps(CONVERSE).encode()}})}
    converse_request = {**stream_request, "uri": URI + "converse"}
    doc = {"interactions": [{"request": stream_request, "response": stream_response},
                            {"request": converse_request, "response": json_response}], "version": 1}
    path = tmp_path / f"{style}.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def langchain_cassette(tmp_path):
    requests = [{"method": "POST", "uri": URI + "converse-stream", "body": json.dumps(REQUEST).encode(),
                 "headers": {"authorization": ["**REDACTED**"], "Content-Type": ["**REDACTED**"]}}]
    responses = [{"status": {"code": 200, "message": "OK"}, "body": {"string": STREAM},
                  "headers": {"Content-Type": "**REDACTED**", "Transfer-Encoding": "**REDACTED**"}}]
    path = tmp_path / "lc.yaml.gz"
    path.write_bytes(gzip.compress(yaml.safe_dump({"requests": requests, "responses": responses}).encode()))
    return path


@pytest.mark.parametrize("style", ["parsed", "string", "binary"])
def test_vcrpy_cassettes_import(style, tmp_path):
    loaded = importer.import_cassette(vcrpy_cassette(tmp_path, style), tmp_path / "out.yaml")
    stream, reply = loaded.interactions
    assert (stream.operation, stream.model_id, stream.request_json) == \
        ("ConverseStream", "us.anthropic.claude-sonnet-4-6:0", REQUEST)
    assert stream.response_body() == STREAM and reply.response_json == CONVERSE
    assert (loaded.metadata["source"], loaded.metadata["region"], loaded.metadata["imported_from"]) == \
        ("imported", "us-west-2", f"{style}.yaml")
    assert cassette.verify(tmp_path / "out.yaml") == []


def test_import_scrubs_like_a_recording(tmp_path):
    text = (tmp_path / "out.yaml").read_text() if importer.import_cassette(
        vcrpy_cassette(tmp_path, "binary"), tmp_path / "out.yaml") else ""
    assert "x" * 48 not in text and "test_aws_security_token" not in text and "1-2-3" not in text
    assert "authorization: Bearer SCRUBBED" in text and scrub.scan_file(tmp_path / "out.yaml") == []


def test_langchain_gzip_with_redacted_headers_detects_the_stream_by_uri(tmp_path):
    loaded = importer.import_cassette(langchain_cassette(tmp_path), tmp_path / "out.yaml")
    [it] = loaded.interactions
    assert it.frames is not None and it.response_body() == STREAM
    assert it.response_headers == {"Content-Type": "application/vnd.amazon.eventstream"}
    assert it.request_headers == {}


def test_import_refuses_to_overwrite_and_foreign_input_errors_name_the_file(tmp_path):
    src = vcrpy_cassette(tmp_path, "parsed")
    dest = tmp_path / "out.yaml"
    dest.write_text("mine")
    with pytest.raises(FileExistsError):
        importer.import_cassette(src, dest)
    assert dest.read_text() == "mine"
    importer.import_cassette(src, dest, overwrite=True)
    with pytest.raises(cassette.CassetteError, match=r"out.yaml: already a bedrock-harness cassette"):
        importer.import_file(dest)
    (tmp_path / "other.json").write_text('{"hello": 1}')
    with pytest.raises(cassette.CassetteError, match=r"other.json: not a vcrpy .* or langchain-aws"):
        importer.import_file(tmp_path / "other.json")


def test_an_unscrubbable_secret_refuses_the_import(tmp_path):
    src = vcrpy_cassette(tmp_path, "string")
    src.write_text(src.read_text().replace('"Hi"', '"AKIAFAKECANARY123456"'))
    with pytest.raises(scrub.SecretFound, match="AWS access key id"):
        importer.import_cassette(src, tmp_path / "out.yaml")
    assert not (tmp_path / "out.yaml").exists()
