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
from realworld import cassette_files, ids, interactions, recording_files, requires_realworld

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
    with pytest.raises(cassette.CassetteError, match=r"other.json: unrecognised fixture format: found a mapping with "
                                                     r"keys hello; expected one of: vcrpy YAML/JSON"):
        importer.import_file(tmp_path / "other.json")


def test_an_unscrubbable_secret_refuses_the_import(tmp_path):
    src = vcrpy_cassette(tmp_path, "string")
    src.write_text(src.read_text().replace('"Hi"', '"AKIAFAKECANARY123456"'))
    with pytest.raises(scrub.SecretFound, match="AWS access key id"):
        importer.import_cassette(src, tmp_path / "out.yaml")
    assert not (tmp_path / "out.yaml").exists()


# ------------------------------------------------------------------ every real fixture format, through the server

def _served(server, it):
    """What boto3 gets from the loopback endpoint for one imported interaction (its own request and model)."""
    client = boto3.client("bedrock-runtime", region_name="us-east-1", endpoint_url=server.endpoint_url,
                          aws_access_key_id="x", aws_secret_access_key="x",
                          config=Config(retries={"total_max_attempts": 1}))
    original = type("Call", (), {"operation": it.operation, "model_id": it.model_id, "request": it.request_json})
    return replayed(client, original)


def _model_of(path):
    return next((o.model_id for o in originals(path) if o.model_id), None)


@requires_realworld
@pytest.mark.parametrize("path", recording_files(), ids=ids(recording_files()))
def test_every_real_recording_imports_verifies_and_replays_event_identical_through_the_server(path, tmp_path):
    from harness.endpoint.server import BedrockServer

    dest = tmp_path / "imported.yaml"
    importer.import_cassette(path, dest, model=_model_of(path))
    assert cassette.verify(dest) == []
    loaded = cassette.load(dest)
    wanted = [o for o in originals(path) if o.operation in OPERATIONS]
    assert [(i.operation, i.status) for i in loaded.interactions] == [(o.operation, o.status) for o in wanted]
    with BedrockServer.from_cassette(dest) as server:
        for it, original in zip(loaded.interactions, wanted):
            got, want = _served(server, it), expected(original)
            if original.status >= 300:  # the oracle reads the body alone; the replay keeps x-amzn-ErrorType too
                got, want = got["Error"]["Message"], want["Error"]["Message"]
            assert got == want, original.id
    assert all(r.problems == [] for r in server.requests)  # every request Bedrock answered passes the rules
    recorded = [o.request for o in wanted]
    if any(r is None for r in recorded):
        assert "request" in loaded.metadata["synthesised"]
    else:
        assert [i.request_json for i in loaded.interactions] == recorded and "synthesised" not in loaded.metadata


@requires_realworld
def test_every_real_rejection_is_still_rejected_with_bedrocks_text_on_replay(tmp_path):
    from harness.endpoint.server import BedrockServer

    files = sorted({o.file for o in interactions() if o.status == 400 and o.operation in OPERATIONS})
    assert files
    for n, path in enumerate(files):
        dest = tmp_path / f"{n}.yaml"
        importer.import_cassette(path, dest, model=_model_of(path))
        wanted = [o for o in originals(path) if o.operation in OPERATIONS]
        with BedrockServer.from_cassette(dest) as server:
            for it, original in zip(cassette.load(dest).interactions, wanted):
                got = _served(server, it)
                if original.status == 400:
                    assert got == {"Error": {"Code": "ValidationException", "Message": original.json()["message"]}}


# ------------------------------------------------------------------ more synthetic foreign formats

EVENTS = [{"messageStart": {"role": "assistant"}},
          {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"name": "glob_search",
                                                                              "toolUseId": "functions.glob_search:0"}}}},
          {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{\"pattern\":"}}}},
          {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": " \"*.py\"}"}}}},
          {"contentBlockStop": {"contentBlockIndex": 0}},
          {"messageStop": {"stopReason": "tool_use"}},
          {"metadata": {"usage": {"inputTokens": 5, "outputTokens": 7, "totalTokens": 12},
                        "metrics": {"latencyMs": 40}}}]


def test_decoded_event_json_lines_import_with_a_synthesised_request(tmp_path):
    src = tmp_path / "kimi.jsonl"
    src.write_text("\n".join(json.dumps(e) for e in EVENTS) + "\n")
    loaded = importer.import_cassette(src, tmp_path / "out.yaml", model="moonshotai.kimi-k2-thinking")
    [it] = loaded.interactions
    assert (it.operation, it.model_id) == ("ConverseStream", "moonshotai.kimi-k2-thinking")
    assert list(es.decode_events(it.response_body())) == EVENTS
    assert all(f.json()["p"] for f in it.frames)  # framed the way Bedrock writes it, padding included
    assert loaded.metadata["synthesised"] == ["request"] and it.request_json["messages"][0]["role"] == "user"
    assert cassette.verify(tmp_path / "out.yaml") == []
    again = importer.import_file(src, model="moonshotai.kimi-k2-thinking").interactions[0]
    assert again.response_body() == it.response_body()  # reproducible


def test_decoded_events_with_a_supplied_request_and_no_model(tmp_path):
    src, body = tmp_path / "events.jsonl", tmp_path / "request.json"
    src.write_text("\n".join(json.dumps(e) for e in EVENTS))
    body.write_text(json.dumps(REQUEST))
    loaded = importer.import_cassette(src, tmp_path / "out.yaml", request=body.read_bytes())
    [it] = loaded.interactions
    assert it.request_json == REQUEST and it.model_id == "imported.unknown-model"
    assert loaded.metadata["synthesised"] == ["model_id", "request supplied"]


def test_json_lines_that_are_not_events_name_the_line(tmp_path):
    src = tmp_path / "log.jsonl"
    src.write_text(json.dumps(EVENTS[0]) + "\n" + json.dumps({"level": "info"}) + "\n")
    with pytest.raises(cassette.CassetteError, match=r"log.jsonl: unrecognised fixture format: found JSON lines "
                                                     r"whose line 2 is not a decoded stream event"):
        importer.import_file(src)


def test_raw_stream_bytes_and_anthropic_chunks_are_recognised(tmp_path):
    (tmp_path / "s.bin").write_bytes(STREAM)
    [it] = importer.import_file(tmp_path / "s.bin", model="anthropic.claude-3-haiku-20240307-v1:0").interactions
    assert it.operation == "ConverseStream" and it.response_body() == STREAM
    chunk = es.encode_chunk({"type": "message_start", "message": {"role": "assistant"}}, 3)
    (tmp_path / "i.bin").write_bytes(chunk)
    [invoke] = importer.import_file(tmp_path / "i.bin").interactions
    assert invoke.operation == "InvokeModelWithResponseStream" and invoke.response_body() == chunk


def test_nock_capture_and_response_tables_import(tmp_path):
    nock = [{"scope": "https://bedrock-runtime.us-east-1.amazonaws.com:443", "method": "POST",
             "path": "/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream", "body": REQUEST,
             "status": 200, "response": STREAM.hex(), "responseIsBinary": True,
             "rawHeaders": ["Date", "Tue, 19 Aug 2025 14:22:34 GMT", "Content-Type", "application/vnd.amazon.eventstream"]}]
    (tmp_path / "nock.json").write_text(json.dumps(nock))
    loaded = importer.import_file(tmp_path / "nock.json")
    assert loaded.interactions[0].request_json == REQUEST and loaded.interactions[0].response_body() == STREAM
    assert loaded.metadata["recorded"] == "2025-08-19T14:22:34Z" and "synthesised" not in loaded.metadata
    capture = {"capturedAt": "2026-08-18T21:17:05Z", "modelId": "eu.anthropic.claude-sonnet-4-6",
               "region": "eu-central-1", "prompt": "Reply OK.",
               "response": {"status": 200, "bodyBase64": base64.b64encode(STREAM).decode()}}
    (tmp_path / "capture.json").write_text(json.dumps(capture))
    captured = importer.import_file(tmp_path / "capture.json")
    assert (captured.metadata["recorded"], captured.metadata["region"], captured.interactions[0].model_id) == \
        ("2026-08-18T21:17:05Z", "eu-central-1", "eu.anthropic.claude-sonnet-4-6")
    assert captured.interactions[0].request_json["messages"][0]["content"] == [{"text": "Reply OK."}]
    tables = {"STREAMED_RESPONSES": {"Hi?": [{"Content-Type": "application/vnd.amazon.eventstream"}, 200,
                                             [STREAM[:7].hex(), STREAM[7:].hex()]]},
              "RESPONSES": {"Hi?": [{"Content-Type": "application/json"}, 200, CONVERSE]}}
    (tmp_path / "tables.json").write_text(json.dumps(tables))
    stream, reply = importer.import_file(tmp_path / "tables.json", model="m.x-v1:0").interactions
    assert (stream.operation, reply.operation) == ("ConverseStream", "Converse") and stream.response_body() == STREAM
    assert reply.response_json == CONVERSE and stream.model_id == "m.x-v1:0"


@pytest.mark.parametrize("name, doc, message", [
    ("vcr.json", {"interactions": [{"request": 1, "response": {}}]}, "interaction 0: request is an int, not a mapping"),
    ("vcr.json", {"interactions": [{"request": {"uri": URI + "converse"}, "response": {"body": {"string": ""}}}]},
     "interaction 0: missing field 'status'"),
    ("vcr.json", {"interactions": [{"request": {"uri": URI + "converse"},
                                    "response": {"status": {"code": "abc"}, "body": {"string": ""}}}]},
     "interaction 0: the status code 'abc' is not a whole number"),
    ("nock.json", [{"scope": "https://h", "path": "/model/m.a-v1:0/converse-stream", "status": 200,
                    "response": "zz", "responseIsBinary": True}], "interaction 0: response is not a hex string"),
    ("tables.json", {"STREAMED_RESPONSES": {"Hi?": [{}, 200]}},
     "STREAMED_RESPONSES entry 'Hi?': expected [headers, status, body], found a list of 2"),
    ("lc.json", {"requests": [{"uri": URI + "converse"}], "responses": []}, "1 request(s) but 0 response(s)"),
])
def test_a_malformed_recording_of_a_known_format_names_the_interaction_and_the_field(tmp_path, name, doc, message):
    (tmp_path / name).write_text(json.dumps(doc))
    with pytest.raises(cassette.CassetteError) as err:
        importer.import_file(tmp_path / name)
    assert str(err.value) == f"{tmp_path / name}: {message}"


def _stream(flip: int | None = None) -> bytes:
    """messageStart, a delta, the close; with ``flip``, one byte of the second frame flipped (8: its prelude CRC)."""
    frames = [es.encode_event("messageStart", {"role": "assistant"}, 4),
              es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "hi"}}, 4),
              es.encode_event("contentBlockStop", {"contentBlockIndex": 0}, 4),
              es.encode_event("messageStop", {"stopReason": "end_turn"}, 4),
              es.encode_event("metadata", {"usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
                                           "metrics": {"latencyMs": 1}}, 4)]
    second = bytearray(frames[1])
    if flip is not None:
        second[flip if flip >= 0 else len(second) + flip] ^= 0x01
    frames[1] = bytes(second)
    return b"".join(frames)


def _vcrpy_fixture(body: bytes) -> str:
    return yaml.safe_dump({"interactions": [{
        "request": {"method": "POST", "uri": "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream",
                    "body": '{"messages": []}', "headers": {"Content-Type": ["application/json"]}},
        "response": {"status": {"code": 200, "message": "OK"},
                     "headers": {"Content-Type": ["application/vnd.amazon.eventstream"]}, "body": {"string": body}}}]})


@pytest.mark.parametrize("flip, which", [(-6, "message"), (8, "prelude")])
def test_a_foreign_fixture_frame_with_a_bad_checksum_is_reported_naming_the_checksum(tmp_path, flip, which):
    from click.testing import CliRunner
    from harness.cli import main

    (tmp_path / "fixture.yaml").write_text(_vcrpy_fixture(_stream(flip)))
    result = CliRunner().invoke(main, ["cassette", "import", str(tmp_path / "fixture.yaml"), str(tmp_path / "c.yaml")])
    assert result.exit_code == 1, result.output
    first = result.output.splitlines()[0]
    assert first.startswith(f"{tmp_path / 'c.yaml'}: interaction 0 (ConverseStream), frame 1: corrupt frame bytes "
                            f"(ChecksumMismatch: frame 0: {which} checksum mismatch"), result.output
    verified = CliRunner().invoke(main, ["cassette", "verify", str(tmp_path / "c.yaml")])
    assert verified.exit_code == 1 and verified.output.splitlines()[0] == first  # and verify says the same
    (tmp_path / "clean.yaml").write_text(_vcrpy_fixture(_stream()))
    clean = CliRunner().invoke(main, ["cassette", "import", str(tmp_path / "clean.yaml"), str(tmp_path / "d.yaml")])
    assert clean.exit_code == 0, clean.output


@pytest.mark.parametrize("flip, which", [(-6, "message"), (-1, "message"), (8, "prelude"), (0, "prelude")])
def test_a_raw_stream_with_a_bad_checksum_is_refused_as_a_checksum_error(tmp_path, flip, which):
    (tmp_path / "raw.bin").write_bytes(_stream(flip) if flip else _stream())
    if flip == 0:  # the first frame's own prelude: the stream is still told by its bytes, which are no text
        data = bytearray(_stream())
        data[9] ^= 0x01
        (tmp_path / "raw.bin").write_bytes(bytes(data))
    with pytest.raises(cassette.CassetteError, match=rf"raw event-stream bytes that do not decode \(ChecksumMismatch: "
                                                     rf"frame \d: {which} checksum mismatch"):
        importer.import_file(tmp_path / "raw.bin")
