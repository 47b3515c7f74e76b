"""Canaries in every place a secret can hide: none reaches disk through the recorder or a save, none is missed by
the scan; and the scan stays quiet on the shipped cassettes and on real recordings."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from vcr.request import Request

from harness.cassettes import cassette as cs
from harness.cassettes import secrets
from harness.cli import main
import planted
from realworld import ROOT as REALWORLD, requires_realworld

ROOT = Path(__file__).resolve().parents[1]
KEY_ID = "AKIA" + "CANARYKEY0123456"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYCANARYKEYZ"  # 40 characters, never in the environment here
ENV_SECRET = "Zx9/canary+env/secret"  # a value of $AWS_SECRET_ACCESS_KEY with characters that get escaped
TOKENS = {"FQoG": "FQoGZXIvYXdzE" + "CanaryLegacy" * 8, "AQoD": "AQoDYXdzE" + "CanaryOlder" * 8,
          "IQoJ": "IQoJb3JpZ2luX2Vj" + "Canary" * 12}
ENV = {"AWS_SECRET_ACCESS_KEY": ENV_SECRET}


def _wrapped(text: str, width: int) -> str:
    encoded = base64.b64encode(text.encode()).decode()
    return "\n".join(encoded[i:i + width] for i in range(0, len(encoded), width))


def _block(text: str, indent: str = "    ") -> str:
    return "|\n" + "\n".join(indent + line for line in text.splitlines())


# position -> YAML text holding a canary there (each one alone in an otherwise clean document)
POSITIONS = {
    "comment": f"a: 1\n# leaked {KEY_ID}\nb: 2\n",
    "mapping key": f"headers:\n  {KEY_ID}: x\n",
    "base64 wrapped at 16": f"blob: {_block(_wrapped('key=' + KEY_ID, 16))}\n",
    "base64 wrapped at 76": f"blob: {_block(_wrapped('padding ' * 9 + 'secret=' + SECRET_KEY, 76))}\n",
    "binary wrapped at 76": f"blob: !!binary {_block(_wrapped('padding ' * 9 + KEY_ID, 76))}\n",
    "percent-encoded arn": "uri: /model/arn%3Aaws%3Abedrock%3Aus-east-1%3A987654321098%3Aapplication/converse\n",
    "percent-escaped env secret": "q: 'k=" + ENV_SECRET.replace("/", "%2F").replace("+", "%2B") + "'\n",
    "json-escaped env secret": "payload: '{\"k\": \"" + ENV_SECRET.replace("/", "\\/") + "\"}'\n",
    "unicode escapes": "payload: '{\"k\": \"\\u0041\\u004bIA" + KEY_ID[4:] + "\"}'\n",
    "split plain scalar": f"text: my key is {KEY_ID[:10]}\n  {KEY_ID[10:]} ok\n",
    "split quoted scalar": f"text: 'my key is {SECRET_KEY[:20]}\n  {SECRET_KEY[20:]}'\n",
    "legacy token FQoG": f"token: {TOKENS['FQoG']}\n",
    "legacy token AQoD": f"token: {TOKENS['AQoD']}\n",
    "bare secret key": f"body: 'the key {SECRET_KEY} here'\n",
    "hex key id": f"id: {KEY_ID.encode().hex()}\n",
    "hex secret key": f"id: {SECRET_KEY.encode().hex()}\n",
}


@pytest.mark.parametrize("position", sorted(POSITIONS))
def test_the_scan_misses_no_canary(tmp_path, position):
    path = tmp_path / "leak.yaml"
    path.write_text(POSITIONS[position])
    findings = secrets.scan_file(path, environ=ENV)
    assert findings, position
    assert all("\n" not in str(f) for f in findings)


def test_the_scan_names_the_line_of_a_raw_find(tmp_path):
    path = tmp_path / "leak.yaml"
    path.write_text(POSITIONS["comment"])
    assert [str(f) for f in secrets.scan_file(path, environ=ENV)] == ["line 2: AWS access key id AKIA…56"]


# request body -> what the recorder must refuse (a JSON body as an SDK sends it)
BODIES = {
    "bare secret key": json.dumps({"messages": [{"content": [{"text": f"key {SECRET_KEY}"}]}]}),
    "escaped secret key": json.dumps({"k": SECRET_KEY}).replace("/", "\\/"),
    "legacy FQoG token": json.dumps({"k": TOKENS["FQoG"]}),
    "legacy AQoD token": json.dumps({"k": TOKENS["AQoD"]}),
    "hex key id": json.dumps({"k": KEY_ID.encode().hex()}),
    "unicode-escaped key id": json.dumps({"k": KEY_ID}).replace("AKIA", "\\u0041KIA"),
    "wrapped base64": json.dumps({"k": _wrapped("x " * 30 + SECRET_KEY, 16)}),
    "percent-escaped env secret": json.dumps({"k": ENV_SECRET.replace("/", "%2F")}),
}


def _interaction(body: str) -> cs.Interaction:
    return cs.Interaction("POST", "http://127.0.0.1/model/m/converse", {"Content-Type": "application/json"},
                          body.encode(), 200, "OK", {"Content-Type": "application/json"}, None, b"{}")


@pytest.mark.parametrize("name", sorted(BODIES))
def test_no_canary_reaches_disk(tmp_path, monkeypatch, name):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", ENV_SECRET)
    request = Request("POST", "http://127.0.0.1/model/m/converse", BODIES[name].encode(), {})
    with pytest.raises(secrets.SecretFound) as refused:
        secrets.refuse_request_secrets(request)
    assert "\n" not in str(refused.value) and "--allow-secret" in str(refused.value)
    path = tmp_path / "c.yaml"
    with pytest.raises(secrets.SecretFound):
        cs.save(path, cs.Cassette(None, cs.metadata_for([_interaction(BODIES[name])]), (_interaction(BODIES[name]),)))
    assert list(tmp_path.iterdir()) == []


def test_an_allowed_value_is_recorded_and_only_that_one():
    request = Request("POST", "http://127.0.0.1/model/m/converse", BODIES["bare secret key"].encode(), {})
    assert secrets.refuse_request_secrets(request, allowed=(SECRET_KEY,)) is request
    both = Request("POST", request.uri, json.dumps({"a": SECRET_KEY, "b": TOKENS["FQoG"]}).encode(), {})
    with pytest.raises(secrets.SecretFound, match="session token"):
        secrets.refuse_request_secrets(both, allowed=(SECRET_KEY,))


def test_the_shipped_cassettes_scan_clean():
    result = CliRunner().invoke(main, ["cassette", "scan", str(ROOT / "cassettes"), str(ROOT / "suites")])
    assert result.exit_code == 0 and result.output.startswith("ok: no secrets in "), result.output


@requires_realworld
def test_real_recordings_give_no_secret_key_or_token_findings():
    found = [f for path in sorted(p for p in REALWORLD.rglob("*") if p.is_file() and p.suffix in (".yaml", ".gz",
                                                                                                  ".json"))
             for f in secrets.scan_file(path, environ={})]
    # the one find is a test key id a recorder left in an Authorization header (AKIATEST...)
    assert [f.kind for f in found] == ["AWS access key id"], found


# ---------------------------------------------------------------- the planted corpus (tests/planted.py)


def _recorded(exchange) -> cs.Interaction:
    """What the recording proxy makes of a planted exchange (harness.endpoint.proxy: from_http, scrubbed)."""
    from harness.cassettes.vcr import from_http

    reply = exchange.reply
    body = b"".join(reply.frames) if reply.frames is not None else reply.body
    return from_http({"method": "POST", "uri": "https://bedrock-runtime.us-east-1.amazonaws.com" + exchange.path,
                      "body": json.dumps(exchange.body).encode(), "headers": {"Content-Type": "application/json"}},
                     {"status": {"code": reply.status, "message": ""}, "headers": {k: [v] for k, v in
                                                                                   reply.headers.items()},
                      "body": {"string": body}})


def _refusal(exchange) -> set[str] | None:
    """The kinds found when the exchange's cassette is written (None: it was written)."""
    it = _recorded(exchange)
    try:
        cs.dumps(cs.Cassette(None, cs.metadata_for([it]), (it,)))
    except secrets.SecretFound as refused:
        return {f.kind for f in refused.findings}
    return None


@pytest.mark.parametrize("place", sorted(planted.EXCHANGE_PLACES))
def test_no_planted_exchange_can_be_written_and_each_is_found_as_its_kind(place):
    missed = {e.name: _refusal(e) for e in planted.EXCHANGES if e.name.startswith(f"{place}/")}
    assert {name: kinds for name, kinds in missed.items()
            if kinds is None or planted.KINDS[name.split("/")[1]] not in kinds} == {}


@pytest.mark.parametrize("control", planted.controls(), ids=lambda e: e.name)
def test_every_place_without_a_secret_is_written(control):
    assert _refusal(control) is None


@pytest.fixture(scope="module")
def planted_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("planted")
    return planted.write_files(folder / "secrets"), planted.write_files(folder / "controls", control=True)


def test_the_scan_finds_every_planted_file_as_its_kind_and_no_control(planted_files):
    files, controls = planted_files
    found = {name: {f.kind for f in secrets.scan_file(path, environ={})} for name, (path, _) in files.items()}
    assert {name: kinds for name, kinds in found.items() if planted.KINDS[name.split("/")[1]] not in kinds} == {}
    assert {name: found for name, (path, _) in controls.items() if (found := secrets.scan_file(path, environ={}))} == {}


def test_cassette_scan_exits_1_naming_each_planted_file_in_a_folder(planted_files):
    files, _ = planted_files
    folder = next(iter(files.values()))[0].parent
    result = CliRunner().invoke(main, ["cassette", "scan", str(folder)])
    named = {line.split(": ", 1)[0] for line in result.output.splitlines()}
    assert result.exit_code == 1 and {str(p) for p, _ in files.values()} <= named  # every one is named *.yaml
    assert not any(token in result.output for _, token in files.values())  # findings show masked samples only


def test_a_compressed_body_past_the_scans_budget_is_reported_not_passed(monkeypatch):
    monkeypatch.setattr(secrets.views.limits, "MAX_BODY_BYTES", 10_000)
    body = gzip.compress(b"x" * 20_000)
    found = secrets.scan({"response": {"headers": {"Content-Encoding": "gzip"}, "body": {"string": body}}}, environ={})
    assert [f.kind for f in found] == ["cannot be scanned: gzip data that expands past 10000 bytes"]


@pytest.mark.parametrize("run", [base64.b64encode(b"ASIA" + b"Q" * 16 + b"." * 60).decode(),
                                 ("AKIA" + "Q" * 16).encode().hex()], ids=["base64", "hex"])
def test_a_run_longer_than_any_body_is_read_as_it_is_but_not_decoded(monkeypatch, run):
    """A base64 or hex run longer than any body a reader accepts (a file verify refuses) is not decoded: a 40 MB one
    cost the scan minutes; one within the limit is decoded and read, in the parsed values and the raw text alike."""
    document = {"request": {"body": run}}
    raw = f"body: {run}\n".encode()
    assert [f.kind for f in secrets.scan_both(document, raw, environ={})] == ["AWS access key id"]
    monkeypatch.setattr(secrets.tokens, "MAX_RUN_BYTES", len(run) - 1)
    assert secrets.scan_both(document, raw, environ={}) == []
    assert secrets.scan_both({"request": {"body": f"{run} ASIA{'Q' * 16}"}}, raw, environ={})[0].kind == \
        "AWS access key id"  # what the run's text itself holds is still read


def test_scanning_a_big_text_holds_a_few_times_its_size_not_a_list_of_its_lines():
    """The raw-text scan of a first load (harness.cassettes.vcr) keeps the lines' starts as an array and grows the
    joined text in one buffer: a 2 MB cassette's scan peaks near 3x its size (a list of lines took 6.7x)."""
    import tracemalloc

    from hostile import cassette_text, frame_lines

    data = cassette_text(frame_lines(["'" + "x" * 180 + "'"] * 8000)).encode()
    tracemalloc.start()
    try:
        assert secrets.scan_text(data) == []
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 4 * len(data), f"{peak / len(data):.1f}x the text's size"
    planted = data.replace(b"x" * 40, b"AKIA" + b"Q" * 16, 1)  # an access key id where a delta's text was
    found = secrets.scan_text(planted)
    line = planted[: planted.index(b"AKIA")].count(b"\n") + 1
    assert any(f.location == f"line {line}" for f in found), [f.location for f in found]


_LINE_BREAK_REGEX = re.compile(rb"[ \t]*\r?\n[ \t]*(?:#[ \t]*)?")  # what secrets._line_breaks finds, by the regex


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([b" ", b"\t", b"\r", b"\n", b"#", b"a", b"  \n", b"\r\n", b"\n# "]), max_size=30)
       .map(b"".join))
def test_the_line_breaks_found_from_each_newline_are_the_regexs(data):
    assert list(secrets._line_breaks(data)) == [m.span() for m in _LINE_BREAK_REGEX.finditer(data)]


# ---------------------------------------------------------------- what the scan reads once (a big stream's cost)


def test_no_pattern_matches_fewer_bytes_than_the_shortest_match_the_scan_searches():
    """Data shorter than tokens.SHORTEST_MATCH is not searched (a stream's short deltas): no pattern is shorter."""
    from re import _parser

    from harness.cassettes import tokens

    widths = {kind: _parser.parse(pattern.pattern).getwidth()[0] for kind, _, pattern in tokens._COMPILED}
    assert min(widths.values()) >= tokens.SHORTEST_MATCH, widths
    assert _parser.parse(tokens._SECRET_KEY.pattern).getwidth()[0] >= tokens.SHORTEST_MATCH
    assert min(_parser.parse(p.pattern).getwidth()[0] for p in (tokens._BASE64_RUN, tokens._HEX_RUN,
                                                               tokens._HEX_SPACED)) >= tokens._SHORTEST_RUN
    short = "Zx9/canary+e"  # an environment secret of the shortest length that counts, alone and in base64
    assert len(short) == tokens.SHORTEST_MATCH
    for value in (short, base64.b64encode(short.encode()).decode(), KEY_ID):
        assert secrets.scan({"k": value}, environ={"AWS_SECRET_ACCESS_KEY": short}), value


def test_a_short_value_that_repeats_is_found_at_every_place_it_is():
    """The memo keeps a short value's findings from its second sighting on: each place is still named."""
    found = secrets.scan({"a": KEY_ID, "b": [KEY_ID, {"c": KEY_ID}], "d": KEY_ID}, environ={})
    assert sorted(f.location for f in found) == ["a", "b[0]", "b[1].c", "d"]


def _frame_item_cassette(texts: list[str], comment: str = "") -> tuple[bytes, list[bytes]]:
    from harness.wire.eventstream import encode_event

    frames = [encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": t}}) for t in texts]
    items = "".join(f"    - frame_base64: {base64.b64encode(f).decode()}\n" for f in frames)
    text = ("metadata: {format_version: 1}\ninteractions:\n- request: {method: POST, uri: 'http://h/model/m/"
            f"converse-stream'}}\n  response:\n    frames:\n{items}" + (f"# {comment}\n" if comment else ""))
    return text.encode(), frames


def test_a_frame_items_base64_is_decoded_and_read_once_and_a_run_beside_it_still_is(monkeypatch):
    """The raw text's run of a frame item's base64 decodes to the bytes the document's scan read already (at the
    same depth): it is not read again; a base64 run that is no value (in a comment) is read by the raw text."""
    read: list[bytes] = []
    data_of = secrets._Scanner._data
    monkeypatch.setattr(secrets._Scanner, "_data", lambda self, data, *a: read.append(data) or data_of(self, data, *a))
    text, frames = _frame_item_cassette([f"delta {n} " * 4 for n in range(50)],
                                        base64.b64encode(f"the key {KEY_ID} ok".encode()).decode())
    found = secrets.scan_data(text, environ={})
    assert [(f.location, f.kind) for f in found] == [("raw text (base64-decoded)", "AWS access key id")]
    assert [read.count(f) for f in frames] == [1] * 50  # each frame's bytes once, however many readings
    assert len(read) <= 3 * len(frames) + 40  # per frame: its base64, its bytes, its delta's text


def test_a_secret_joined_from_a_frame_item_and_its_aliases_is_found():
    """An aliased frame item is read once (views._events) but assembled as often as the stream holds it."""
    from harness.wire.eventstream import encode_event

    key = "AKIA" + "QQQQ" + "RSTUVW" * 2  # its tail is one piece twice: whole only with both aliases read
    f1, f2, f3 = (base64.b64encode(encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": t}}))
                  .decode() for t in (f"key {key[:8]}", key[8:14], " ok"))
    text = ("metadata: {format_version: 1}\ninteractions:\n- request: {method: POST, uri: 'http://h/model/m/"
            f"converse-stream'}}\n  response:\n    frames:\n    - frame_base64: {f1}\n    - &d {{frame_base64: {f2}}}\n"
            f"    - *d\n    - frame_base64: {f3}\n")
    found = secrets.scan_data(text.encode(), environ={})
    assert [(f.location, f.kind) for f in found] == [
        ("interactions[0].response.frames (stream assembled)", "AWS access key id")], found
