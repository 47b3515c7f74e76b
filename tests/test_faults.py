"""Fault descriptions and delivery plans (pure; the HTTP side is in test_server.py)."""

from pathlib import Path

import pytest

from harness.wire.eventstream import decode_frames, encode_event
from harness.endpoint.faults import (
    Delivery,
    Fault,
    FaultError,
    Faults,
    HttpError,
    StreamException,
    as_option,
    parse_chunking,
    parse_fault,
)

FRAMES = [encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": f"w{i}"}}, 3 + i) for i in range(6)]
BODY = b"".join(FRAMES)


@pytest.mark.parametrize("item", [
    {"turn": 0, "truncate_after_byte": 1860},
    {"drop_after_byte": 10},
    {"turn": 1, "exception": {"type": "throttlingException", "after_event": 9, "original_status_code": 500}},
    {"exception": {"type": "validationException", "message": "Bad input, try again."}},
    {"turn": 0, "http_error": {"status": 429, "type": "ThrottlingException", "message": "Rate exceeded", "times": 1}},
    {"http_error": {"status": 503, "times": 2}},
])
def test_a_scenario_fault_as_a_serve_option_reads_back_as_the_same_fault(item):
    assert parse_fault(as_option(item)) == Faults.from_scenario([item]).faults[0]


def test_every_shipped_scenarios_fault_has_a_serve_option():
    from harness.suite.scenario import discover

    suites = Path(__file__).resolve().parents[1] / "suites"
    faults = [item for scenario in discover(suites) for item in scenario.faults]
    assert faults and all(parse_fault(as_option(item)) == Faults.from_scenario([item]).faults[0] for item in faults)


def test_a_fault_the_option_cannot_carry_is_refused_by_name():
    with pytest.raises(FaultError, match="holds ':'"):
        as_option({"exception": {"type": "throttlingException", "message": "a: b"}})


def test_parse_fault_forms():
    assert parse_fault("exception:throttlingException:after=5") == Fault(
        exception=StreamException("throttlingException", after_event=5)
    )
    assert parse_fault("truncate:700") == Fault(truncate_after_byte=700)
    assert parse_fault("drop:700:turn=1") == Fault(turn=1, drop_after_byte=700)
    assert parse_fault("http:429:times=2") == Fault(http_error=HttpError(429, "ThrottlingException", times=2))
    error = parse_fault("exception:modelStreamErrorException:after=1:original_status_code=500:original_message=boom")
    assert error.exception.original_status_code == 500 and error.exception.original_message == "boom"


def test_http_error_defaults_follow_the_status():
    assert HttpError(500).type == "InternalServerException"
    assert HttpError(503).type == "ServiceUnavailableException"
    assert HttpError(429, message="Rate exceeded").message == "Rate exceeded"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("explode:1", "expected exception:TYPE"),
        ("truncate:abc", "expected an integer"),
        ("truncate:5:after=1", "takes only turn=T"),
        ("exception:bogusException", "is not one of"),
        ("http:429:times", "is not NAME=VALUE"),
        ("http:200", "status must be 4xx/5xx"),
        ("drop:-3", "non-negative"),
        ("exception:throttlingException:colour=red", "unknown key 'colour'"),
    ],
)
def test_parse_fault_refuses_bad_text(text, fragment):
    with pytest.raises(FaultError, match=fragment) as caught:
        parse_fault(text)
    assert text in str(caught.value) or fragment in str(caught.value)


def test_from_scenario_reads_the_format_doc_list():
    faults = Faults.from_scenario(
        [
            {"turn": 0, "http_error": {"status": 429, "type": "ThrottlingException", "message": "Rate exceeded", "times": 1}},
            {"turn": 1, "exception": {"type": "modelStreamErrorException", "message": "m", "after_event": 5,
                                      "original_status_code": 500, "original_message": "o"}},
            {"turn": 2, "truncate_after_byte": 700},
            {"turn": 3, "drop_after_byte": 70},
        ],
        chunking=1,
    )
    assert [f.turn for f in faults.faults] == [0, 1, 2, 3]
    assert faults.faults[1].exception == StreamException("modelStreamErrorException", "m", 5, 500, "o")
    assert faults.chunking == 1


@pytest.mark.parametrize(
    "items, fragment",
    [
        ([{"turn": 0, "truncate": 5}], "faults[0]: unknown key 'truncate'"),
        ([{"turn": 0}], "faults[0]: give exactly one"),
        ([{"turn": 0, "http_error": {"status": 429, "retries": 2}}], "faults[0].http_error: unknown key 'retries'"),
        (["drop"], "faults[0]: expected a mapping"),
    ],
)
def test_from_scenario_names_the_bad_entry(items, fragment):
    with pytest.raises(FaultError) as caught:
        Faults.from_scenario(items)
    assert fragment in str(caught.value)


def test_http_errors_count_attempts_per_turn_and_chain():
    faults = Faults([Fault(turn=0, http_error=HttpError(429, times=2)), Fault(turn=0, http_error=HttpError(503)),
                     Fault(http_error=HttpError(500, times=1))])
    assert [getattr(faults.http_error(0, a), "status", None) for a in range(5)] == [429, 429, 503, 500, None]
    assert [getattr(faults.http_error(4, a), "status", None) for a in range(2)] == [500, None]


@pytest.mark.parametrize("chunking", ["whole", "frame", 1, 7, 1000])
def test_chunking_splits_without_changing_the_body(chunking):
    delivery = Faults(chunking=chunking).deliver(FRAMES, 0)
    sizes = [len(chunk) for _, chunk in delivery.chunks]
    assert delivery.body == BODY and not delivery.drop
    if chunking == "whole":
        assert sizes == [len(BODY)]
    elif chunking == "frame":
        assert sizes == [len(f) for f in FRAMES]
    else:
        assert all(size == chunking for size in sizes[:-1]) and 0 < sizes[-1] <= chunking


@pytest.mark.parametrize("after", [0, 2, 6, 9])
def test_exception_fault_replaces_the_rest_after_n_events(after):
    fault = Fault(turn=0, exception=StreamException("validationException", "bad", after_event=after))
    frames = decode_frames(Faults([fault]).deliver(FRAMES, 0).body)
    assert [f.payload for f in frames[:-1]] == [f.payload for f in decode_frames(BODY)[:after]]
    assert frames[-1].type == "validationException" and frames[-1].message_type == "exception"
    assert frames[-1].json() == {"message": "bad"}


def test_faults_for_another_turn_leave_the_reply_alone():
    faults = Faults([Fault(turn=1, truncate_after_byte=5), Fault(turn=1, exception=StreamException("throttlingException"))])
    assert faults.deliver(FRAMES, 0).body == BODY
    assert len(faults.deliver(FRAMES, 1).body) == 5


@pytest.mark.parametrize("kind", ["truncate_after_byte", "drop_after_byte"])
def test_byte_cuts(kind):
    delivery = Faults([Fault(**{kind: 50})], chunking="frame").deliver(FRAMES, 0)
    assert delivery.body == BODY[:50]
    assert delivery.drop == (kind == "drop_after_byte")
    shortest = Faults([Fault(truncate_after_byte=90), Fault(drop_after_byte=40)]).deliver(FRAMES, 0)
    assert list(shortest.chunks) == [(0.0, BODY[:40])] and shortest.drop


def test_fixed_delay_is_per_frame_and_scaled():
    delivery = Faults(delay=0.5, scale=2.0).deliver(FRAMES, 0)
    assert [delay for delay, _ in delivery.chunks] == [1.0] * len(FRAMES)
    whole = Faults(chunking="whole", delay=0.25).deliver(FRAMES, 0)
    assert [delay for delay, _ in whole.chunks] == [0.25 * len(FRAMES)]


def test_recorded_offsets_become_gaps_and_fall_back_to_the_fixed_delay():
    offsets = [0.1, 0.1, 0.4, 0.5]
    delivery = Faults(recorded_timing=True, scale=0.5, delay=0.2).deliver(FRAMES, 0, offsets)
    assert [delay for delay, _ in delivery.chunks] == pytest.approx([0.05, 0.0, 0.15, 0.05, 0.1, 0.1])
    assert [d for d, _ in Faults(delay=0.2).deliver(FRAMES, 0, offsets).chunks] == [0.2] * 6


def test_byte_chunking_waits_for_the_frames_starting_in_a_chunk():
    delivery = Faults(chunking=len(FRAMES[0]) + 1, delay=1.0).deliver(FRAMES, 0)
    starts = {sum(len(f) for f in FRAMES[:i]) for i in range(len(FRAMES))}
    position = 0
    for delay, chunk in delivery.chunks:
        assert delay == sum(1.0 for s in starts if position <= s < position + len(chunk))
        position += len(chunk)


def test_json_delivery_honours_byte_cuts_only():
    body = b'{"output": {}}'
    assert Faults().deliver_json(body, 0).body == body
    assert Faults([Fault(drop_after_byte=4)]).deliver_json(body, 0) == Delivery(body[:4], drop=True)


@pytest.mark.parametrize("value", ["", "0", 0, "bytes", -1, None])
def test_parse_chunking_refuses(value):
    with pytest.raises(FaultError):
        parse_chunking(value)


def test_negative_timing_is_refused():
    with pytest.raises(FaultError, match="must not be negative"):
        Faults(delay=-1)
