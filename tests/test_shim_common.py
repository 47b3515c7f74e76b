"""The plumbing every shim shares (runs without any third-party library)."""

import asyncio
import json
import threading

import pytest

from harness.adapters import AdapterFailure
from harness.adapters.shims.common import (
    EndpointRefused,
    History,
    Shim,
    assert_endpoint,
    boto_endpoint,
    installed_version,
    jsonable,
    message_chunk,
    native_chunk,
    relayed,
    same_endpoint,
)


def test_a_missing_library_names_the_extra_to_install():
    with pytest.raises(ImportError, match=r"no-such-dist is not installed: pip install 'bedrock-harness\[nope\]'"):
        installed_version("no-such-dist", "nope")


class Pytest(Shim):
    distribution, extra = "pytest", "test"


def test_the_version_is_the_librarys_and_the_model_is_kept_while_its_key_holds():
    import pytest as lib

    shim, built = Pytest(), []
    assert shim.version == lib.__version__
    first = shim.kept(("m", 1), lambda: built.append("a") or object())
    assert shim.kept(("m", 1), lambda: built.append("b") or object()) is first
    assert shim.kept(("m", 2), lambda: built.append("c") or object()) is not first
    assert built == ["a", "c"]


def test_history_starts_afresh_per_conversation_and_appends_the_assembled_message_before_the_new_ones():
    history, convert = History(), lambda messages, held: [f"{len(held)}:{m}" for m in messages]
    assert history.turn({"conversation": "a", "messages": ["hi"]}, convert) == ["0:hi"]
    history.assembled("ASSISTANT")
    assert history.turn({"conversation": "a", "messages": ["results"]}, convert) == ["0:hi", "ASSISTANT", "2:results"]
    history.assembled("SECOND")
    assert history.turn({"conversation": "b", "messages": ["hello"]}, convert) == ["0:hello"]


def test_a_turn_without_conversation_carries_its_whole_history_and_a_failed_turn_adds_no_message():
    history, convert = History(), lambda messages, held: list(messages)
    history.turn({"conversation": "a", "messages": ["hi"]}, convert)
    history.assembled("ASSISTANT")
    assert history.turn({"messages": ["whole", "history"]}, convert) == ["whole", "history"]
    history.turn({"conversation": "c", "messages": ["hi"]}, convert)  # this turn failed: nothing assembled
    assert history.turn({"conversation": "c", "messages": ["more"]}, convert) == ["hi", "more"]


def test_a_stored_history_goes_through_the_librarys_dump_and_load_before_every_later_turn():
    rounds = []

    def dump(messages):
        rounds.append(list(messages))
        return json.dumps(messages)

    def load(text):  # a store that loses what it cannot keep: here, every "sig" field
        return [{k: v for k, v in m.items() if k != "sig"} for m in json.loads(text)]

    history, convert = History((dump, load)), lambda messages, held: list(messages)
    assert history.turn({"conversation": "a", "messages": [{"text": "hi"}]}, convert) == [{"text": "hi"}]
    history.assembled({"text": "call", "sig": "S1"})
    sent = history.turn({"conversation": "a", "messages": [{"text": "results"}]}, convert)
    assert sent == [{"text": "hi"}, {"text": "call"}, {"text": "results"}]  # the signature did not survive the store
    assert rounds == [[{"text": "hi"}, {"text": "call", "sig": "S1"}]]


ENDPOINT = {"endpoint_url": "http://127.0.0.1:8123"}


def test_the_endpoint_is_the_same_when_scheme_host_and_port_agree():
    assert same_endpoint("http://127.0.0.1:8123/", ENDPOINT["endpoint_url"])
    assert same_endpoint("http://127.0.0.1:8123/model/x/converse-stream", ENDPOINT["endpoint_url"])
    assert not same_endpoint("https://bedrock-runtime.us-east-1.amazonaws.com", ENDPOINT["endpoint_url"])
    assert not same_endpoint("http://127.0.0.1:8124", ENDPOINT["endpoint_url"])
    assert not same_endpoint(None, ENDPOINT["endpoint_url"])


def test_a_client_pointing_elsewhere_is_refused_as_an_adapter_failure():
    assert_endpoint("http://127.0.0.1:8123", ENDPOINT, "the client")
    with pytest.raises(EndpointRefused, match=r"the client points at 'https://bedrock-runtime\.us-east-1\.amazonaws\."
                                              r"com', not the loopback endpoint 'http://127\.0\.0\.1:8123': refused"):
        assert_endpoint("https://bedrock-runtime.us-east-1.amazonaws.com", ENDPOINT, "the client")
    assert issubclass(EndpointRefused, AdapterFailure) and EndpointRefused.status == "error"


def test_a_boto_client_endpoint_is_read_from_its_meta():
    import boto3

    client = boto3.client("bedrock-runtime", region_name="eu-west-1", endpoint_url="http://127.0.0.1:8123",
                          aws_access_key_id="AKIAFAKEFAKEFAKEFAKE", aws_secret_access_key="fake")
    assert boto_endpoint(client) == "http://127.0.0.1:8123" and boto_endpoint(object()) is None


def test_the_message_chunk_is_an_assistant_message_of_copies():
    content = [{"type": "text", "text": "hi"}]
    chunk = message_chunk(content)
    content[0]["text"] = "changed"
    assert chunk == {"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}}


def test_a_native_chunk_is_the_librarys_message_made_json_safe_and_nothing_else():
    held = {"content": [{"bytes": b"\x00\xff", "input": '{"a": 1}', "pair": ("x", 1)}], 3: None}
    chunk = native_chunk("stream", lambda: held)
    assert chunk == {"type": "native", "path": "stream", "message": {
        "content": [{"bytes": "AP8=", "input": '{"a": 1}', "pair": ["x", 1]}], "3": None}}
    assert jsonable("text") == "text" and json.loads(json.dumps(chunk)) == chunk


def test_a_native_chunk_of_a_call_that_raised_is_its_error():
    def call():
        raise ValueError("no output")

    assert native_chunk("converse", call) == {"type": "native", "path": "converse", "error": "ValueError: no output"}
    failed = KeyError("x")
    assert native_chunk("stream", lambda: {"never": "built"}, failed) == {"type": "native", "path": "stream",
                                                                        "error": "KeyError: 'x'"}


def test_a_relayed_stream_hands_each_item_over_while_the_library_still_streams():
    """The second item waits until the first has been handed over: relayed after the end, the stream never ends."""
    handed = threading.Event()

    async def library():
        yield "first"
        for _ in range(200):  # 2 s at most, then the test fails on its own
            if handed.is_set():
                break
            await asyncio.sleep(0.01)
        yield "second" if handed.is_set() else "never handed over"

    got = []
    for item in relayed(library()):
        got.append(item)
        handed.set()
    assert got == ["first", "second"]


def test_a_relayed_stream_raises_after_what_came_before_it_and_closes_when_left():
    closed = []

    async def failing():
        yield 1
        raise RuntimeError("throttled")

    async def endless():
        try:
            while True:
                yield 1
                await asyncio.sleep(0)
        finally:
            closed.append("endless")

    got = []
    with pytest.raises(RuntimeError, match="throttled"):
        for item in relayed(failing()):
            got.append(item)
    assert got == [1]
    stream = relayed(endless())
    assert next(stream) == 1
    stream.close()  # the harness stops reading (a deadline, an error chunk)
    assert closed == ["endless"]
