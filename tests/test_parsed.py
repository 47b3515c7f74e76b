"""YAML read once: the parsed document comes back from the cache for the same bytes, and only for them."""

import marshal

import pytest
import yaml

from harness.cassettes import parsed
from harness.cassettes.limits import LimitError

DOC = b"metadata:\n  format_version: 1\ninteractions:\n- request: {method: POST}\n  blob: !!binary aGk=\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BEDROCK_HARNESS_PARSED_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def entries(cache):
    return sorted(cache.rglob("*.marshal")) if cache.exists() else []


def test_the_same_bytes_come_back_from_the_cache(cache, monkeypatch):
    first = parsed.load_yaml_bytes(DOC)
    assert first == {"metadata": {"format_version": 1}, "interactions": [{"request": {"method": "POST"}, "blob": b"hi"}]}
    [entry] = entries(cache)
    assert marshal.loads(entry.read_bytes()) == first
    monkeypatch.setattr(parsed, "load_yaml", lambda text: pytest.fail("parsed again"))
    again = parsed.load_yaml_bytes(DOC)
    assert again == first and again is not first  # a fresh copy: callers may change what they get


def test_other_bytes_parse_afresh(cache):
    parsed.load_yaml_bytes(DOC)
    assert parsed.load_yaml_bytes(DOC.replace(b"POST", b"GET"))["interactions"][0]["request"] == {"method": "GET"}
    assert len(entries(cache)) == 2


def test_what_the_reader_refuses_is_never_kept(cache):
    bomb = b"a: &a [x, x, x, x, x, x, x, x, x]\n" + b"".join(
        b"%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n" % ((chr(98 + i).encode(), chr(98 + i).encode())
                                                                      + (chr(97 + i).encode(),) * 9) for i in range(8))
    for text in (bomb, b"a: [unclosed\n"):
        for _ in range(2):
            with pytest.raises((LimitError, yaml.YAMLError)):
                parsed.load_yaml_bytes(text)
    assert entries(cache) == []


def test_a_broken_entry_is_parsed_again_and_replaced(cache):
    parsed.load_yaml_bytes(DOC)
    [entry] = entries(cache)
    entry.write_bytes(b"\x00garbage")
    assert parsed.load_yaml_bytes(DOC)["metadata"] == {"format_version": 1}
    assert marshal.loads(entry.read_bytes())["metadata"] == {"format_version": 1}


def test_a_document_marshal_cannot_hold_is_parsed_each_time(cache):
    assert parsed.load_yaml_bytes(b"when: 2026-01-02 03:04:05\n")["when"].year == 2026
    assert entries(cache) == []


def test_off_and_an_unwritable_folder_still_parse(tmp_path, monkeypatch):
    monkeypatch.setenv("BEDROCK_HARNESS_PARSED_CACHE", "off")
    assert parsed.cache_folder() is None and parsed.load_yaml_bytes(DOC)["metadata"]["format_version"] == 1
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("BEDROCK_HARNESS_PARSED_CACHE", str(tmp_path / "file" / "cache"))
    assert parsed.load_yaml_bytes(DOC)["metadata"]["format_version"] == 1


def test_the_default_folder_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.delenv("BEDROCK_HARNESS_PARSED_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert parsed.cache_folder() == tmp_path / "bedrock-harness" / "parsed"


def test_a_clean_mark_holds_for_the_same_bytes_and_checking_code_only(cache, monkeypatch):
    assert not parsed.checked_clean(DOC)
    parsed.mark_clean(DOC)
    assert parsed.checked_clean(DOC) and not parsed.checked_clean(DOC + b"\n")
    monkeypatch.setattr(parsed, "_checker", lambda: b"other checking code")
    assert not parsed.checked_clean(DOC)


def test_the_checking_code_is_what_the_mark_names(tmp_path, monkeypatch):
    parsed._checker.cache_clear()
    first = parsed._checker()
    import botocore

    monkeypatch.setattr(botocore, "__version__", "0.0.0-other")
    parsed._checker.cache_clear()
    try:
        assert parsed._checker() != first
    finally:
        parsed._checker.cache_clear()


def test_marks_are_off_with_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BEDROCK_HARNESS_PARSED_CACHE", "off")
    parsed.mark_clean(DOC)
    assert not parsed.checked_clean(DOC)
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("BEDROCK_HARNESS_PARSED_CACHE", str(tmp_path / "file" / "cache"))
    parsed.mark_clean(DOC)  # an unwritable cache: nothing kept, nothing raised
    assert not parsed.checked_clean(DOC)
