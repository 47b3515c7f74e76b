"""What differs between amazon-bedrock-haystack releases, with fake objects shaped like each release's API (runs
without Haystack, so CI catches a break of a release's branch)."""

import base64
import os

import pytest

from harness.adapters.shims import haystack_releases as releases

ENDPOINT = "http://127.0.0.1:9"


class ClientInInit:
    """Before 8.0.0: __init__ builds the client (from the environment); no warm_up, no close."""

    def __init__(self):
        self.client = Client(os.environ.get(releases.ENDPOINT_VARIABLE))


class ClientInWarmUp:
    """8.0.0 on: warm_up builds the client, close closes it."""

    def __init__(self):
        self.client, self.closed = None, False

    def warm_up(self):
        self.client = Client(os.environ.get(releases.ENDPOINT_VARIABLE))

    def close(self):
        self.closed = True


class Client:
    def __init__(self, endpoint):
        self.endpoint, self.closed = endpoint, False

    def close(self):
        self.closed = True


@pytest.mark.parametrize("kind", [ClientInInit, ClientInWarmUp])
@pytest.mark.parametrize("before", [None, "http://127.0.0.1:1"])
def test_the_client_is_built_with_the_endpoint_variable_set_then_it_is_restored(monkeypatch, kind, before):
    if before is None:
        monkeypatch.delenv(releases.ENDPOINT_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(releases.ENDPOINT_VARIABLE, before)
    assert releases.warmed(kind, ENDPOINT).client.endpoint == ENDPOINT
    assert os.environ.get(releases.ENDPOINT_VARIABLE) == before


def test_a_generator_without_close_has_its_client_closed():
    old, new = releases.warmed(ClientInInit, ENDPOINT), releases.warmed(ClientInWarmUp, ENDPOINT)
    releases.close_generator(old)
    releases.close_generator(new)
    assert old.client.closed and new.closed and not new.client.closed
    old.client = None
    releases.close_generator(old)  # a client never built: nothing to close


def test_reasoning_deltas_in_meta_map_to_harness_chunks():
    meta = {"model": "m", "reasoning_contents": [
        {"index": 0, "reasoning_content": {"text": "hm"}},
        {"index": 0, "reasoning_content": {"signature": "S"}},
        {"index": 1, "reasoning_content": {"redacted_content": b"\x00secret"}}]}
    assert list(releases.meta_reasoning_chunks(meta)) == [
        {"type": "reasoning", "index": 0, "text": "hm"},
        {"type": "reasoning", "index": 0, "signature": "S"},
        {"type": "redacted_reasoning", "index": 1, "data": base64.b64encode(b"\x00secret").decode()}]
    assert list(releases.meta_reasoning_chunks({"usage": {}})) == []


BLOCKS = [{"type": "thinking", "thinking": "one", "signature": "S1"},
          {"type": "redacted_thinking", "data": base64.b64encode(b"opaque").decode()},
          {"type": "thinking", "thinking": "two"}]


def test_reasoning_blocks_fold_into_one_reasoning_content_as_releases_up_to_6_5_assemble_it():
    folded = releases.folded_reasoning([{"type": "text", "text": "x"}, *BLOCKS])
    assert folded == {"reasoning": {"reasoning_text": "one[REDACTED]two", "extra": {"reasoning_contents": [
        {"reasoning_content": {"reasoning_text": {"text": "one", "signature": "S1"}}},
        {"reasoning_content": {"redacted_content": b"opaque"}},
        {"reasoning_content": {"reasoning_text": {"text": "two", "signature": None}}}]}}}
    assert releases.folded_reasoning([{"type": "text", "text": "x"}]) is None


def test_a_serialized_reasoning_content_maps_to_anthropic_blocks_in_either_shape():
    assert releases.anthropic_reasoning(releases.folded_reasoning(BLOCKS)["reasoning"]) == BLOCKS
    assert releases.anthropic_reasoning({"reasoning_text": "hm", "extra": {"signature": "S"}}) == [
        {"type": "thinking", "thinking": "hm", "signature": "S"}]
    assert releases.anthropic_reasoning({"reasoning_text": "hm", "extra": {}}) == [
        {"type": "thinking", "thinking": "hm"}]


def test_tool_result_parts_become_one_string_for_haystack_before_2_23():
    assert releases.result_text([{"type": "text", "text": "a"}, {"json": [1, "b"]}]) == 'a\n[1, "b"]'
    with pytest.raises(ValueError, match="string only: an image result part cannot be sent"):
        releases.result_text([{"type": "image", "source": {"type": "base64", "data": "AA=="}}])


def test_an_output_format_is_the_documented_response_format_key():
    schema = {"type": "object", "properties": {}}
    wanted = {"type": "json_schema", "name": "answer", "schema": schema}
    assert releases.response_format({"output_format": wanted}) == {"response_format": {"schema": schema,
                                                                                       "name": "answer"}}
    assert releases.response_format({}) == {}
    with pytest.raises(Exception, match="output_format"):
        releases.response_format({"output_format": {"type": "json_object"}})


def test_a_guardrail_keeps_its_stream_mode_only_for_a_streaming_generator():
    guard = {"identifier": "g", "version": "2", "trace": "enabled", "stream_processing_mode": "async"}
    wire = {"guardrailIdentifier": "g", "guardrailVersion": "2", "trace": "enabled"}
    assert releases.guardrail_config({"guardrail": guard}, streaming=True) == {
        "guardrail_config": {**wire, "streamProcessingMode": "async"}}
    assert releases.guardrail_config({"guardrail": guard}, streaming=False) == {"guardrail_config": wire}
    assert releases.guardrail_config({}, streaming=True) == {}
