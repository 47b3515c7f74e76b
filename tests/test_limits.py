"""The reading limits: regular files within a size, aliases, nesting, duplicate keys, decompression of every member;
and ten times the largest real recording stays within every one."""

from __future__ import annotations

import base64
import bz2
import gzip
import json
import lzma
import os
import threading
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest
import yaml

from harness.cassettes import cassette as cs
from harness.cassettes import importer, limits, views
from harness.wire import eventstream as es
from hostile import CASES, cassette_text, string_bomb
from realworld import recording_files, requires_realworld, streams

ROOT = Path(__file__).resolve().parents[1]


def test_aliases_share_a_little_but_a_bomb_fails_fast_naming_the_line():
    loaded = limits.load_yaml("a: &x {k: v}\nb: *x\n")  # what PyYAML writes for a dict used twice
    assert loaded == {"a": {"k": "v"}, "b": {"k": "v"}} and loaded["a"] is loaded["b"]
    began = time.monotonic()
    with pytest.raises(limits.LimitError, match=r"^line \d+, column \d+: YAML aliases would expand this document"):
        limits.load_yaml(CASES["alias-bomb-request"][0]())
    assert time.monotonic() - began < 5
    with pytest.raises(limits.LimitError, match="^line 1, column 11: a recursive YAML alias"):
        limits.load_yaml("a: &x [1, *x]\n")


def test_the_builder_reads_what_pyyaml_safe_load_reads():
    text = "a: [1, 2.5, true, ~, 0x1F, 2026-01-01, !!binary aGk=, '7', \"x\\ty\"]\nb: {c: {d: [e]}}\n"
    assert limits.load_yaml(text) == yaml.safe_load(text)
    for path in sorted(ROOT.glob("cassettes/*/*.yaml")) + sorted(ROOT.glob("suites/*/*.yaml")):
        assert limits.load_yaml(path.read_text()) == yaml.safe_load(path.read_text()), path


@pytest.mark.parametrize("text, error", [
    ("!!python/object/apply:os.system ['echo pwned']\n", "could not determine a constructor"),
    ("a: !!set {x}\n", "could not determine a constructor"),
    ("a: 1\n---\nb: 2\n", "expected a single document"),
    ("? [a]\n: b\n", "unhashable key"),
    ("a: *nowhere\n", "undefined alias"),
])
def test_the_builder_refuses_what_safe_yaml_refuses(text, error):
    with pytest.raises(yaml.YAMLError, match=error):
        limits.load_yaml(text)


@pytest.mark.parametrize("text", ["[" * 5000 + "]" * 5000,
                                  "a:\n" + "".join(" " * (n + 1) + "a:\n" for n in range(250)),
                                  "- " * 300 + "x\n",
                                  "k: " + "{a: " * 300 + "1" + "}" * 300 + "\n"],
                         ids=["flow", "block", "compact", "mapping"])
def test_nesting_past_the_limit_is_refused_before_libyaml_recurses(text):
    with pytest.raises(limits.LimitError, match=f"nested deeper than {limits.MAX_DEPTH} levels"):
        limits.load_yaml(text)


def test_nesting_just_within_the_limit_loads():
    depth = limits.MAX_DEPTH - 1
    assert limits.load_yaml("[" * depth + "]" * depth) is not None


def test_json_text_nested_too_deep_is_refused():
    limits.check_json_text(b'{"a": [1, 2, {"b": 3}]}', "body")
    limits.check_json_text(b"[" * 300 + b"not json", "body")  # not JSON: nothing to nest
    with pytest.raises(limits.LimitError, match="^body: JSON nested deeper"):
        limits.check_json_text(b"[" * 300 + b"]" * 300, "body")


def test_gunzip_stops_at_its_limit(monkeypatch):
    monkeypatch.setattr(limits, "MAX_DECOMPRESSED_BYTES", 1000)
    assert limits.gunzip(gzip.compress(b"x" * 1000)) == b"x" * 1000
    with pytest.raises(limits.LimitError, match="expands past 1000 bytes"):
        limits.gunzip(gzip.compress(b"x" * 1001))
    with pytest.raises(limits.LimitError, match="broken gzip"):
        limits.gunzip(b"\x1f\x8bnot gzip at all")


def test_gunzip_reads_every_member_and_the_limit_counts_them_all(monkeypatch):
    monkeypatch.setattr(limits, "MAX_DECOMPRESSED_BYTES", 1000)
    assert limits.gunzip(gzip.compress(b"a" * 600) + gzip.compress(b"b" * 400)) == b"a" * 600 + b"b" * 400
    with pytest.raises(limits.LimitError, match="expands past 1000 bytes"):
        limits.gunzip(gzip.compress(b"a" * 600) + gzip.compress(b"b" * 401))


@pytest.mark.parametrize("codec, compress", [("gzip", gzip.compress), ("bz2", bz2.compress), ("xz", lzma.compress),
                                             ("zlib", zlib.compress)])
def test_decompress_is_bounded_while_it_runs_for_every_codec(codec, compress):
    bomb = compress(b"\0" * 50_000_000)
    began = time.monotonic()
    with pytest.raises(limits.LimitError, match=f"^{codec} data that expands past 4096 bytes$"):
        limits.decompress(bomb, codec, 4096)
    assert time.monotonic() - began < 2  # it stopped at the limit, not after inflating 50 MB
    assert limits.decompress(compress(b"ok"), codec, 4096) == b"ok"


def test_decompress_keeps_what_good_members_held_before_a_broken_one():
    assert limits.decompress(gzip.compress(b"kept") + b"\x1f\x8b junk", "gzip", 100) == b"kept"
    assert limits.decompress(gzip.compress(b"kept") + b"\0" * 8, "gzip", 100) == b"kept"  # gzip's NUL padding
    with pytest.raises(limits.LimitError, match="^broken bz2 data"):
        limits.decompress(b"BZh9 junk", "bz2", 100)


def _depth(value, level=1) -> int:
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
    return max((_depth(c, level + 1) for c in children), default=level) if children is not None else level - 1


@requires_realworld
def test_ten_times_the_largest_real_recording_is_within_every_limit(tmp_path):
    recorded = streams()
    frames = [es.decode_frames(s.body) for s in recorded]
    payloads = [json.loads(f.payload) for fs in frames for f in fs if f.payload[:1] == b"{"]
    pads = [len(p["p"]) for p in payloads if isinstance(p.get("p"), str)]
    bodies = [json.dumps(s.request).encode() for s in recorded if s.request is not None]
    assert 10 * max(map(len, frames)) <= limits.MAX_FRAMES
    assert 10 * max(pads) <= limits.MAX_PADDING
    assert 10 * max(len(f.payload) for fs in frames for f in fs) <= limits.MAX_PAYLOAD_BYTES
    assert 10 * max(map(len, bodies)) <= limits.MAX_BODY_BYTES
    assert 10 * max(_depth(s.request) for s in recorded if s.request is not None) <= limits.MAX_DEPTH
    assert 10 * max(map(_depth, payloads)) <= limits.MAX_DEPTH
    zipped = [views.plain(path.read_bytes()) for path in recording_files() if path.suffix in (".gz", ".bz2")]
    assert zipped and 10 * max(map(len, zipped)) <= limits.MAX_DECOMPRESSED_BYTES
    assert 10 * max(path.stat().st_size for path in recording_files()) <= limits.MAX_FILE_BYTES
    # and the largest one goes through the project's own reader: imported, loaded, verified
    largest = max(recorded, key=lambda s: len(s.body)).file
    dest = importer.import_cassette(largest, tmp_path / "largest.yaml") and tmp_path / "largest.yaml"
    assert cs.verify(dest) == []
    assert _depth(yaml.safe_load(dest.read_text())) * 10 <= limits.MAX_DEPTH * 2  # cassette nesting adds ~10


@requires_realworld
def test_every_real_recording_imports_within_the_limits(tmp_path):
    for n, path in enumerate(recording_files()):
        importer.import_cassette(path, tmp_path / f"{n}.yaml")
        cs.load_checked(tmp_path / f"{n}.yaml")


def _in_time(call, seconds: float = 10):
    """``call()``'s result, or a failure when it has not returned within ``seconds`` (a read that would block)."""
    outcome: list = []
    worker = threading.Thread(target=lambda: outcome.append(_outcome(call)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"still running after {seconds} s"
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _outcome(call):
    try:
        return call()
    except BaseException as err:  # noqa: BLE001 -- handed back to the test thread
        return err


def test_read_file_reads_a_regular_file_and_refuses_anything_else_before_reading(tmp_path):
    (tmp_path / "ok.yaml").write_bytes(b"a: 1\n")
    assert limits.read_file(tmp_path / "ok.yaml") == b"a: 1\n"
    os.mkfifo(tmp_path / "fifo.yaml")  # no writer: a plain read would wait forever
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    for name, kind in (("fifo.yaml", "a FIFO"), ("zero.yaml", "a character device"), (".", "a directory")):
        with pytest.raises(limits.LimitError, match=f"^not a regular file but {kind}$"):
            _in_time(lambda name=name: limits.read_file(tmp_path / name))
    with pytest.raises(FileNotFoundError):
        limits.read_file(tmp_path / "missing.yaml")


def test_read_file_refuses_a_file_past_the_limit_by_its_size(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 1000)
    (tmp_path / "edge.yaml").write_bytes(b"x" * 1000)
    assert len(limits.read_file(tmp_path / "edge.yaml")) == 1000
    with open(tmp_path / "sparse.yaml", "wb") as handle:
        handle.truncate(10 << 30)  # ten gibibytes of nothing: refused by its size, not read
    with pytest.raises(limits.LimitError, match=r"^a file of 10737418240 bytes, over the limit of 1000$"):
        _in_time(lambda: limits.read_file(tmp_path / "sparse.yaml"))


def test_read_file_reads_what_a_file_grew_by_after_its_size_was_taken(tmp_path, monkeypatch):
    """The size fstat gave sizes the first read; bytes written since are read on, and past the limit refused."""
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 1000)
    real = os.fstat

    def earlier(fd):  # the file as it was when its size was taken: 10 bytes
        found = real(fd)
        return os.stat_result((*found[:6], min(found.st_size, 10), *found[7:]))

    monkeypatch.setattr(limits.os, "fstat", earlier)
    (tmp_path / "grown.yaml").write_bytes(b"y" * 900)
    assert limits.read_file(tmp_path / "grown.yaml") == b"y" * 900
    (tmp_path / "past.yaml").write_bytes(b"y" * 1500)
    with pytest.raises(limits.LimitError, match=r"^a file of more than 1000 bytes, over the limit$"):
        limits.read_file(tmp_path / "past.yaml")


def test_a_file_is_decompressed_by_its_magic_every_member_within_one_limit(monkeypatch):
    assert views.plain(gzip.compress(b"one ") + gzip.compress(b"two") + b"\0" * 8) == b"one two"
    assert views.plain(bz2.compress(b"one ") + bz2.compress(b"two")) == b"one two"
    assert views.plain(lzma.compress(b"xz")) == b"xz"
    monkeypatch.setattr(limits, "MAX_DECOMPRESSED_BYTES", 1000)
    with pytest.raises(limits.LimitError, match="^gzip data that expands past 1000 bytes$"):
        views.plain(gzip.compress(b"x" * 600) + gzip.compress(b"x" * 600))  # each member is within it
    with pytest.raises(limits.LimitError, match="^bz2 data that expands past 1000 bytes$"):
        views.plain(bz2.compress(b"x" * 1001))


def test_a_bomb_costs_what_the_limit_does_not_what_it_expands_to():
    bomb = zlib.compressobj(9, zlib.DEFLATED, 31)
    data = b"".join(bomb.compress(b"x" * (1 << 20)) for _ in range(512)) + bomb.flush()  # 512 MiB in ~500 KB
    tracemalloc.start()
    try:
        with pytest.raises(limits.LimitError, match="expands past"):
            limits.gunzip(gzip.compress(b"first member ") + data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * limits.MAX_DECOMPRESSED_BYTES


def test_only_compressed_data_is_decompressed():
    assert views.plain(b"a: 1\n") == b"a: 1\n"
    assert views.plain(b"BZh9: a YAML key\n") == b"BZh9: a YAML key\n"  # bz2's magic, not a bz2 stream


def test_a_key_twice_in_one_mapping_is_refused_naming_its_line():
    with pytest.raises(yaml.YAMLError, match="found duplicate key 'interactions'") as caught:
        limits.load_yaml("metadata: {}\ninteractions: []\ninteractions: [1]\n")
    assert caught.value.problem_mark.line == 2
    with pytest.raises(yaml.YAMLError, match="found duplicate key 'a'"):
        limits.load_yaml("x: [{a: 1, a: 2}]\n")
    assert limits.load_yaml("a: {k: 1}\nb: {k: 2}\n") == {"a": {"k": 1}, "b": {"k": 2}}


def test_clip_keeps_the_start_and_says_how_much_was_cut():
    assert limits.clip("short", 10) == "short"
    assert limits.clip("x" * 25, 10) == "x" * 10 + "… (15 more characters cut)"


@pytest.mark.parametrize("where", ["messages", "system", "frames", "mapping"])
def test_an_alias_string_bomb_is_refused_by_the_bytes_it_adds_fast_and_small(where):
    """One 4 MiB string aliased 1,000 times is 1,000 nodes but 4 GiB: refused within the alias byte limit."""
    text = string_bomb(where)
    tracemalloc.start()
    began = time.monotonic()
    try:
        with pytest.raises(limits.LimitError, match=r"^line \d+, column \d+: YAML aliases would expand this "
                                                    rf"document by more than {limits.MAX_ALIAS_BYTES} bytes"):
            limits.load_yaml(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - began < 5 and peak < 8 * len(text), peak


def test_a_few_aliases_of_a_big_string_stay_within_the_byte_limit():
    loaded = limits.load_yaml(string_bomb("messages", times=2))
    texts = [block["text"] for block in loaded["interactions"][0]["request"]["json"]["messages"][0]["content"]]
    assert len(texts) == 3 and texts[0] is texts[1] is texts[2] and len(texts[0]) == 4 * 1024 * 1024


def test_aliased_collections_count_the_text_inside_them():
    big = "y" * (limits.MAX_ALIAS_BYTES // 4 + 1)
    with pytest.raises(limits.LimitError, match="bytes"):
        limits.load_yaml(f"a: &m {{k: [{big}]}}\nb: [*m, *m, *m, *m]\n")
    assert len(limits.load_yaml(f"a: &m {{k: [{big}]}}\nb: [*m, *m, *m]\n")["b"]) == 3


@pytest.mark.parametrize("value", [{"a": ["x", 1, 2.5, None, True, {"b": "é\n"}]}, ["\u2028" * 10, 10**30],
                                   {"k": "\ud800"}, []])
def test_json_size_counts_what_json_dumps_writes(value):
    for ensure_ascii, style in ((True, {}), (False, {"separators": (",", ":"), "ensure_ascii": False})):
        written = len(json.dumps(value, **style).encode("utf-8", "surrogatepass"))
        counted = limits.json_size(value, 10**9, ensure_ascii=ensure_ascii)
        assert written <= counted + 2 and counted <= written * 3 + 24, (value, written, counted)


def test_json_size_gives_up_past_its_limit_without_walking_the_rest():
    shared = ["x" * 1000]
    value = [shared] * 1_000_000  # a billion bytes once serialized, a few megabytes in memory
    began = time.monotonic()
    assert limits.json_size(value, 100_000) > 100_000
    assert time.monotonic() - began < 1


def test_a_body_is_refused_by_its_serialized_size_before_it_is_serialized(monkeypatch):
    monkeypatch.setattr(limits, "MAX_BODY_BYTES", 10_000)
    text = cassette_text(body="    json:\n      messages:\n      - {role: user, content: [{text: &t " + "z" * 3000
                         + "}, {text: *t}, {text: *t}, {text: *t}]}\n")
    dumped = []
    real = cs.json.dumps
    monkeypatch.setattr(cs.json, "dumps", lambda *a, **k: dumped.append(a) or real(*a, **k))
    with pytest.raises(cs.CassetteError, match="interaction 0: request body of more than 10000 bytes once "
                                               "serialized, over the limit of 10000"):
        cs.loads(text, "big.yaml")
    assert not [args for args in dumped if isinstance(args[0], dict) and "messages" in args[0]]  # never serialized


def test_a_file_of_250_mb_is_refused_by_its_size_at_once(tmp_path):
    path = tmp_path / "big.yaml"
    with open(path, "wb") as handle:
        handle.truncate(250 * 1000 * 1000)
    began = time.monotonic()
    assert cs.verify(path) == [f"{path}: a file of 250000000 bytes, over the limit of {limits.MAX_FILE_BYTES}"]
    assert time.monotonic() - began < 1


def test_a_frame_item_aliased_60000_times_is_read_once(tmp_path):
    """Like the probe's 1.3 MB cassette: one frame_base64 item and tens of thousands of aliases of it (a few bytes
    each, within the alias byte limit)."""
    frame = es.encode_frame(((":event-type", "contentBlockDelta"), (":content-type", "application/json"),
                             (":message-type", "event")), b'{"contentBlockIndex":0,"delta":{"text":"hi"}}')
    item = f"    - &f {{frame_base64: {base64.b64encode(frame).decode()}}}\n" + "    - *f\n" * 60_000
    path = tmp_path / "aliased.yaml"
    path.write_text(cassette_text(item))
    began = time.monotonic()
    assert cs.verify(path) == []
    assert time.monotonic() - began < 10
