"""Any YAML/JSON file read as every reader reads it (harness/cassettes/documents.py): what `cassette scan` says of
a file before it looks for secrets is what `cassette verify` says of it."""

import bz2
import gzip
import os
from pathlib import Path

import pytest

from harness.cassettes import cassette as cs
from harness.cassettes import documents, limits

ROOT = Path(__file__).resolve().parents[1]
CASSETTE = ROOT / "cassettes" / "core" / "smoke-text.yaml"


@pytest.mark.parametrize("name, data", [
    ("foreign.yaml", b"interactions:\n- request: {uri: x}\n"),
    ("any.json", b'{"a": [1, 2]}'),
    ("events.jsonl", b'{"messageStart": {"role": "assistant"}}\n{"messageStop": {"stopReason": "end_turn"}}\n'),
    ("scalar.yaml", b"42\n"),
    ("zipped.yaml.gz", gzip.compress(b"a: 1\n", mtime=0)),
    ("zipped.yaml.bz2", bz2.compress(b"a: 1\n")),
], ids=["foreign", "json", "json-lines", "scalar", "gzip", "bz2"])
def test_a_file_that_parses_has_no_problem(tmp_path, name, data):
    (tmp_path / name).write_bytes(data)
    assert documents.document_problems(tmp_path / name) == []


def test_a_shipped_cassette_has_no_problem():
    assert documents.document_problems(CASSETTE) == [] == cs.verify(CASSETTE)


@pytest.mark.parametrize("data, problem", [
    (b"a: [\n", "line 2, column 1: broken YAML"),
    (b"a: 1\na: 2\n", "broken YAML: found duplicate key 'a'"),
    (b"a: \xff\xfd not utf-8", "cannot read (UnicodeDecodeError"),
    (b"a: [" + b"[" * 300 + b"]" * 300 + b"]\n", "nested deeper than 200 levels"),
], ids=["broken", "duplicate-key", "not-utf-8", "too-deep"])
def test_a_file_that_does_not_parse_is_the_line_verify_gives(tmp_path, data, problem):
    path = tmp_path / "c.yaml"
    path.write_bytes(data)
    assert documents.document_problems(path) == cs.verify(path)
    assert len(cs.verify(path)) == 1 and cs.verify(path)[0].startswith(f"{path}: ") and problem in cs.verify(path)[0]


@pytest.mark.parametrize("encode", [lambda text: gzip.compress(text.encode(), mtime=0),
                                    lambda text: text.encode("utf-16")], ids=["gzip", "utf-16"])
def test_a_cassette_compressed_or_in_utf16_reads_alike_in_verify_and_scan(tmp_path, encode):
    path = tmp_path / "c.yaml"
    path.write_bytes(encode(CASSETTE.read_text().replace("code: 200", "code: 600")))
    assert documents.document_problems(path) == cs.verify(path) and "code 600" in cs.verify(path)[0]


def test_a_broken_cassette_has_every_problem_verify_reports(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(CASSETTE.read_text().replace("code: 200", "code: 600").replace("p: 15", "p: -1"))
    assert len(cs.verify(path)) == 1 and documents.document_problems(path) == cs.verify(path)
    path.write_text(CASSETTE.read_text().replace("code: 200", "code: 600"))
    assert documents.document_problems(path) == cs.verify(path) and "code 600" in cs.verify(path)[0]


def test_files_past_a_limit_or_not_regular_are_named(tmp_path, monkeypatch):
    os.mkfifo(tmp_path / "fifo.yaml")
    assert documents.document_problems(tmp_path / "fifo.yaml") == [f"{tmp_path}/fifo.yaml: not a regular file but "
                                                                  "a FIFO"]
    monkeypatch.setattr(limits, "MAX_DECOMPRESSED_BYTES", 100)
    (tmp_path / "bomb.gz").write_bytes(gzip.compress(b"a: 1\n") + gzip.compress(b"x" * 200))
    assert documents.document_problems(tmp_path / "bomb.gz") == [f"{tmp_path}/bomb.gz: gzip data that expands past "
                                                                "100 bytes"]
    with pytest.raises(cs.CassetteError, match="expands past 100 bytes"):
        documents.read_bytes(tmp_path / "bomb.gz")


def test_json_lines_are_two_or_more_json_values():
    assert documents.json_lines(b'{"a": 1}\n\n[2]\n') == [{"a": 1}, [2]]
    assert documents.json_lines(b'{"a": 1}\n') is None and documents.json_lines(b"{\n}\n") is None
    assert documents.json_lines(b"[" * 100000 + b"\n1\n") is None
