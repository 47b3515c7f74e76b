"""The reading limits: aliases, nesting, gzip; and ten times the largest real recording stays within every one."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import time
import zlib
from pathlib import Path

import pytest
import yaml

from harness.cassettes import cassette as cs
from harness.cassettes import importer, limits
from harness.wire import eventstream as es
from hostile import CASES
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
    monkeypatch.setattr(limits, "MAX_GUNZIP_BYTES", 1000)
    assert limits.gunzip(gzip.compress(b"x" * 1000)) == b"x" * 1000
    with pytest.raises(limits.LimitError, match="expands past 1000 bytes"):
        limits.gunzip(gzip.compress(b"x" * 1001))
    with pytest.raises(limits.LimitError, match="broken gzip"):
        limits.gunzip(b"\x1f\x8bnot gzip at all")


def test_gunzip_reads_every_member_and_the_limit_counts_them_all(monkeypatch):
    monkeypatch.setattr(limits, "MAX_GUNZIP_BYTES", 1000)
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
