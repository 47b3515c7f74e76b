import base64
import gzip
import json

import pytest
import yaml
from vcr.request import Request

from harness.wire import eventstream as es
from harness.cassettes import scrub

KEY_ID = "AKIAFAKECANARY123456"
TOKEN = "FwoGZXIvYXdzEFAKECANARY" + "Q" * 120
ACCOUNT_ARN = "arn:aws:bedrock:us-east-1:987654321098:inference-profile/us.anthropic.claude-3-haiku-v1:0"
SIGV4 = (f"AWS4-HMAC-SHA256 Credential={KEY_ID}/20261122/us-east-1/bedrock/aws4_request, "
         "SignedHeaders=content-type;host;x-amz-date, Signature=" + "ab12" * 16)


def signed_request(body: bytes = b'{"messages": []}') -> Request:
    uri = "https://bedrock-runtime.us-east-1.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A987654321098" \
          "%3Ainference-profile%2Fus.anthropic.claude-3-haiku-v1%3A0/converse-stream"
    headers = {"Authorization": SIGV4.encode(), "X-Amz-Security-Token": TOKEN.encode(),
               "X-Amz-Date": b"20261122T045639Z", "amz-sdk-invocation-id": b"2c9c4fd7-2cee-4c96-b0ec-f317cdd10bc9",
               "User-Agent": b"Boto3/1.43.11", "amz-sdk-request": b"attempt=2; max=3",
               "Content-Type": b"application/json"}
    return Request("POST", uri, body, headers)


def test_every_scrubber_names_what_it_removes():
    for scrubber in scrub.REQUEST_SCRUBBERS + scrub.RESPONSE_SCRUBBERS:
        assert scrubber.__doc__ and "\n" not in scrubber.__doc__.strip()


def test_request_scrubbing_removes_credentials_and_noise():
    scrubbed = scrub.scrub_request(signed_request(json.dumps({"note": ACCOUNT_ARN}).encode()))
    text = repr(dict(scrubbed.headers)) + scrubbed.uri + scrubbed.body.decode()
    for secret in (KEY_ID, TOKEN, "987654321098", "ab12ab12", "20261122", "2c9c4fd7", "Boto3", "attempt="):
        assert secret not in text
    assert scrubbed.headers["Authorization"] == ("AWS4-HMAC-SHA256 Credential=SCRUBBED/SCRUBBED/us-east-1/bedrock/"
                                                 "aws4_request, SignedHeaders=content-type;host;x-amz-date, "
                                                 "Signature=SCRUBBED")
    assert "%3A111111111111%3Ainference-profile" in scrubbed.uri
    assert json.loads(scrubbed.body) == {"note": ACCOUNT_ARN.replace("987654321098", "111111111111")}
    assert scrubbed.headers["Content-Type"] == b"application/json"


def test_scrubbing_is_pure_and_idempotent():
    original = signed_request()
    once = scrub.scrub_request(original)
    twice = scrub.scrub_request(once)
    assert original.headers["Authorization"] == SIGV4.encode()  # the input is untouched
    assert (twice.uri, dict(twice.headers), twice.body) == (once.uri, dict(once.headers), once.body)


def test_a_request_scrubbed_already_comes_back_as_it_is():
    """vcrpy runs the scrubbers on every match of a replayed request: one with nothing left to scrub is not copied."""
    once = scrub.scrub_request(signed_request())
    assert scrub.scrub_request(once) is once


@pytest.mark.parametrize("value, expected", [("Bearer ABSKQmVkcm9ja0FQSUtleS1leGFtcGxl", "Bearer SCRUBBED"),
                                             ("something-else", "SCRUBBED")])
def test_non_sigv4_authorization_is_replaced(value, expected):
    request = Request("POST", "http://127.0.0.1/model/m/converse", b"", {"Authorization": value})
    assert scrub.scrub_request(request).headers["Authorization"] == expected


@pytest.mark.parametrize("uri, expected", [
    ("http://127.0.0.1:43815/model/m/converse", "http://127.0.0.1/model/m/converse"),
    ("http://localhost:8080/model/m/converse", "http://localhost/model/m/converse"),
    ("https://bedrock-runtime.us-east-1.amazonaws.com:443/m", "https://bedrock-runtime.us-east-1.amazonaws.com:443/m"),
])
def test_the_random_loopback_port_is_dropped(uri, expected):
    assert scrub.scrub_request(Request("POST", uri, b"", {})).uri == expected


def test_bare_account_id_path_segment_in_uri():
    request = Request("GET", "https://example.com/accounts/123456789012/x", b"", {})
    assert scrub.scrub_request(request).uri == "https://example.com/accounts/111111111111/x"


def response(body: bytes, content_type="application/json") -> dict:
    return {"status": {"code": 200, "message": "OK"}, "body": {"string": body},
            "headers": {"Content-Type": [content_type], "x-amzn-RequestId": ["6b7e1c2a-uuid"]}}


def test_response_scrubbing_drops_request_id_date_and_account_ids_in_json():
    dated = response(json.dumps({"message": f"not authorized on {ACCOUNT_ARN}"}).encode())
    dated["headers"]["Date"] = ["Sun, 22 Nov 2026 13:13:00 GMT"]
    scrubbed = scrub.scrub_response(dated)
    assert list(scrubbed["headers"]) == ["Content-Type"]
    assert b"987654321098" not in scrubbed["body"]["string"] and b"111111111111" in scrubbed["body"]["string"]
    assert scrub.scrub_response(scrubbed) == scrubbed


def test_account_ids_scrubbed_inside_frames_and_chunk_payloads_keep_valid_crcs():
    body = es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": ACCOUNT_ARN}}, 5) + \
        es.encode_chunk({"type": "message_start", "message": {"model": ACCOUNT_ARN}}, 7)
    scrubbed = scrub.scrub_response(response(body, es.CONTENT_TYPE))["body"]["string"]
    frames = es.decode_frames(scrubbed)
    inner = base64.b64decode(frames[1].json()["bytes"])
    assert b"987654321098" not in scrubbed + inner
    assert frames[0].json()["delta"]["text"] == ACCOUNT_ARN.replace("987654321098", "111111111111")
    assert frames[0].json()["p"] == es.padding(5) and frames[1].json()["p"] == es.padding(7)
    untouched = es.encode_event("messageStart", {"role": "assistant"}, 3)
    assert scrub.scrub_response(response(untouched))["body"]["string"] == untouched


@pytest.mark.parametrize("arn", [ACCOUNT_ARN.upper(), ACCOUNT_ARN.replace(":", "%3A")])
def test_account_ids_in_any_case_or_percent_encoded_are_scrubbed_in_a_stream(arn):
    body = es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": f"see {arn}"}}, 5)
    scrubbed = scrub.scrub_response(response(body, es.CONTENT_TYPE))["body"]["string"]
    assert b"987654321098" not in scrubbed and b"111111111111" in scrubbed


# ---------------------------------------------------------------------------------------- scan


def kinds(findings) -> set[str]:
    return {f.kind for f in findings}


def test_scan_finds_raw_key_ids_tokens_and_account_ids():
    doc = {"a": f"key {KEY_ID}", "b": [TOKEN], "c": {"uri": ACCOUNT_ARN}, "d": "Signature=" + "0f" * 32}
    found = scrub.scan(doc, environ={})
    assert kinds(found) == {"AWS access key id", "AWS session token", "AWS account id", "SigV4 signature"}
    assert {f.location for f in found} == {"a", "b[0]", "c.uri", "d"}
    assert all(KEY_ID not in str(f) and TOKEN not in str(f) for f in found)  # findings never echo the secret


def test_scan_decodes_base64_binary_and_base64_inside_json_strings():
    hidden = "glued" + base64.b64encode(f"xy{KEY_ID}".encode()).decode()  # ends in "=": padding pins alignment
    json_body = json.dumps({"image": {"bytes": base64.b64encode(base64.b64encode(KEY_ID.encode())).decode()}})
    for doc in ({"note": hidden}, {"body": json_body}, {"string": f"k={KEY_ID}".encode()},
                yaml.safe_load(yaml.safe_dump({"string": KEY_ID.encode()}))):
        assert kinds(scrub.scan(doc, environ={})) == {"AWS access key id"}, doc


def test_scan_decodes_base64_inside_event_stream_chunks():
    body = es.encode_chunk({"type": "content_block_delta", "delta": {"text": f"the key is {KEY_ID}"}}, 3)
    assert "base64-decoded" in scrub.scan({"body": body}, environ={})[0].location


def test_scan_matches_environment_credentials_but_not_short_dummies():
    secret = "wJalrXUtnFEMIK7MDENGbPxRfiCYFAKEFAKEKEY"
    doc = {"a": base64.b64encode(secret.encode()).decode(), "b": "testing"}
    env = {"AWS_SECRET_ACCESS_KEY": secret, "AWS_ACCESS_KEY_ID": "testing"}
    found = scrub.scan(doc, environ=env)
    assert [(f.location, f.kind) for f in found] == [("a (base64-decoded)", "the value of $AWS_SECRET_ACCESS_KEY")]


def test_scan_flags_long_values_in_token_headers_only():
    doc = {"headers": {"X-Amz-Security-Token": ["Zm9vYmFy" * 8], "X-Other": ["Zm9vYmFy" * 8],
                       "authorization": "Bearer " + "A1b2C3d4" * 6}}
    found = scrub.scan(doc, environ={})
    assert {(f.location, f.kind) for f in found} == {
        ("headers.X-Amz-Security-Token[0]", "token in X-Amz-Security-Token"),
        ("headers.authorization", "bearer token")}  # once: the bearer pattern names it, the header rule stays quiet


def test_clean_documents_have_no_findings():
    doc = {"Authorization": "AWS4-HMAC-SHA256 Credential=SCRUBBED/20261122/us-east-1/bedrock/aws4_request",
           "uri": ACCOUNT_ARN.replace("987654321098", "111111111111"), "p": "abcdefghijklmnopqrstuvwxyzABCDEF",
           "token": "X-AMZ-SECURITY-TOKEN-XXX"}
    assert scrub.scan(doc, environ={"AWS_ACCESS_KEY_ID": "testing"}) == []


def test_scan_file_reads_gzip_and_falls_back_to_raw_bytes(tmp_path):
    gz, broken = tmp_path / "c.yaml.gz", tmp_path / "broken.yaml"
    gz.write_bytes(gzip.compress(yaml.safe_dump({"body": f"{KEY_ID}".encode()}).encode()))
    broken.write_text(f"a: [unclosed\nkey: {KEY_ID}\n")
    assert kinds(scrub.scan_file(gz, environ={})) == {"AWS access key id"}
    assert [f.location for f in scrub.scan_file(broken, environ={})] == ["line 2"]  # the raw text names the line


def test_secret_found_is_one_line():
    err = scrub.SecretFound([scrub.Finding("a.b", "AWS access key id", "AKIA…56")] * 2, "x.yaml")
    assert str(err) == ("x.yaml: refusing to write, it holds a secret at a.b: AWS access key id AKIA…56 (and 1 more); "
                        "if that value is no secret, allow it (`--allow-secret VALUE`)")
