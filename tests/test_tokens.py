"""What a secret looks like (harness.cassettes.tokens): every planted format is found wherever it is glued, its
placeholders are not, and the masked sample and the spans never give a secret away."""

from __future__ import annotations

import base64

import pytest

from harness.cassettes import tokens
from planted import CONTROL, KINDS, TOKENS


def kinds(text: str, env=()) -> set[str]:
    return {kind for _, kind, _ in tokens.matches(text.encode(), list(env))}


@pytest.mark.parametrize("name", sorted(TOKENS))
def test_every_planted_format_is_found_alone_and_glued_after_capitals(name):
    assert KINDS[name] in kinds(f"the value is {TOKENS[name]}.")
    if name != "aws-secret-key":  # known by its bounded shape alone (tests/planted.py UNRECOGNISABLE)
        assert KINDS[name] in kinds(f"XQZW{TOKENS[name]}QWZX")


@pytest.mark.parametrize("text", [
    CONTROL, "Authorization: Bearer SCRUBBED", "Bearer test_aws_authorization", "a desk-proj-renovation plan",
    "arn:aws:bedrock:us-east-1:111111111111:inference-profile/x", "sk-ant-api03-short", "ghp_tooShort",
    "p: abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "sha256 " + "ab12" * 16,
])
def test_placeholders_scrubbed_values_and_ordinary_text_are_not_secrets(text):
    assert kinds(text) == set()


@pytest.mark.parametrize("suffix", ["=", "==", "=\n", "= more"])
def test_a_secret_key_followed_by_padding_like_equals_signs_is_found(suffix):
    assert kinds(f"key={TOKENS['aws-secret-key']}{suffix}") == {"AWS secret access key"}


def test_a_key_id_glued_on_both_sides_is_found_once():
    assert [value for _, _, value in tokens.matches(f"ABC{TOKENS['aws-access-key-id']}XYZ".encode(), [])] == [
        TOKENS["aws-access-key-id"].encode()]


def test_the_environments_credentials_count_from_twelve_characters():
    env = tokens.env_secrets({"AWS_SECRET_ACCESS_KEY": "Zx9/canary+env/secret", "AWS_SESSION_TOKEN": "testing"})
    assert env == [("AWS_SECRET_ACCESS_KEY", b"Zx9/canary+env/secret")]
    assert kinds("k=Zx9/canary+env/secret", env) == {"the value of $AWS_SECRET_ACCESS_KEY"}


def test_a_masked_sample_shows_four_and_two_characters_only():
    assert tokens.masked(TOKENS["aws-access-key-id"].encode()) == "AKIA…23" and tokens.masked(b"short") == "…"


def test_secret_spans_cover_each_secret_and_each_encoded_run_holding_one():
    key = TOKENS["github-classic"]
    hidden = base64.b64encode(f"k={key}".encode()).decode()
    text = f"a {key} b {hidden} c {key.encode().hex()} d".encode()
    spans = tokens.secret_spans(text, [])
    assert [text[s:e].decode() for s, e in spans] == [key, hidden, key.encode().hex()]
    assert tokens.secret_spans(CONTROL.encode(), []) == []


# --- the searches' prefilters find what the searches alone find --------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from planted import TOKENS as _PLANTED  # noqa: E402

# Pieces the prefilters look for (every needle, hex digits and their separators), planted tokens and filler.
_PIECES = sorted({n for _, needles, _ in tokens._COMPILED for n in needles}) + [
    b"0x", b"\\x", b", ", b",", b" ", b":", b"-", b"h", b"=", b"\n", b"41", b"4b", b"a0", b"ff", b"0", b"x",
    b"deadbeef" * 4, b"Bearer ", b"BeArEr ", b"eyJhbGciOiJIUzI1NiJ9."] + [t.encode() for t in _PLANTED.values()]
_texts = st.lists(st.one_of(st.sampled_from(_PIECES), st.binary(max_size=6),
                            st.text("ABCDEFabcdef0123456789+/xyzKQ", max_size=40).map(str.encode)),
                  max_size=40).map(b"".join)


def _matches_one_needle_at_a_time(data: bytes, env) -> list:
    """``tokens.matches`` as it was before its one search for every needle: each format's needles by ``in``."""
    out = []
    for kind, needles, pattern in tokens._COMPILED:
        if any(needle in data for needle in needles):
            out += [(m.start(), kind, m.group(0)) for m in pattern.finditer(data)
                    if kind != "bearer token" or tokens._random(m.group(0)[7:])]
    out += [(m.start(), "AWS secret access key", m.group(0)) for m in tokens._SECRET_KEY.finditer(data)
            if m.end() - m.start() == 40 and all(c.search(m.group(0)) for c in tokens._CLASSES)
            and not tokens._wrapped_tail(data, m)]
    return out + [(data.find(value), f"the value of ${name}", b"") for name, value in env if value in data]


def _runs_without_prefilters(data: bytes) -> list:
    out = [(how, tokens._decoded(run)) for pattern, how in ((tokens._BASE64_RUN, "base64"), (tokens._HEX_RUN, "hex"))
           for run in pattern.finditer(data)]
    out = [(how, decoded) for how, decoded in out if decoded]
    return out + [("hex", bytes.fromhex(b"".join(tokens._HEX_DIGITS.findall(run.group(0))).decode()))
                  for run in tokens._HEX_SPACED.finditer(data) if len(data) >= 47]


@settings(max_examples=400, deadline=None)
@given(_texts)
def test_one_search_for_every_needle_finds_what_the_needles_one_at_a_time_find(data):
    env = [("AWS_SECRET_ACCESS_KEY", b"0123456789abcdef")]
    assert list(tokens.matches(data, env)) == _matches_one_needle_at_a_time(data, env)


@settings(max_examples=200, deadline=None)
@given(_texts, st.integers(0, 2000))
def test_a_long_text_is_searched_for_what_the_needles_one_at_a_time_find(data, at):
    """Past ``_NEEDLE_SEARCH`` bytes the needles are found by one `in` test each: the same matches."""
    filler = b"." * (tokens._NEEDLE_SEARCH + 1)
    data = filler[:at] + data + filler[at:]
    env = [("AWS_SECRET_ACCESS_KEY", b"0123456789abcdef")]
    assert list(tokens.matches(data, env)) == _matches_one_needle_at_a_time(data, env)


@settings(max_examples=400, deadline=None)
@given(_texts)
def test_the_hex_prefilters_pass_every_text_a_hex_pattern_matches(data):
    assert list(tokens.decoded_runs(data)) == _runs_without_prefilters(data)


@pytest.mark.parametrize("text", [
    b"41 4b 49 41 " * 5, b"0x41,0x4b," * 9, b"\\x41\\x4b" * 9, b"0x410x4b" * 9, b"41:4b:" * 9, b"41-4b-" * 9,
    b"41, 4b, " * 9, b"id " + b"ab12" * 8, b"xoxeyJskeyJ-ant-ghp_" * 3, b"AKIAIOSFODNN7EXAMPLEAIzaSy" * 2,
    # a needle that begins inside another one found first: AIza in AKIA's last A, sk-proj- in arn:aws's s, hf_ in gh
    b"AKIAIza" + b"SyB7" * 9, b"arn:awsk-proj-" + b"Ab3" * 14, b"ghf_" + b"Ab3" * 11,
])
def test_hex_pairs_with_every_separator_and_overlapping_needles_are_found_as_before(text):
    assert list(tokens.decoded_runs(text)) == _runs_without_prefilters(text)
    assert list(tokens.matches(text, [])) == _matches_one_needle_at_a_time(text, [])


def test_a_run_too_long_to_decode_is_not_copied_out(monkeypatch):
    """A base64 run past MAX_RUN_BYTES is read as it is, not decoded: scanning it neither decodes it nor copies it
    out of the text to look it up among the runs already read (a 40 MB body's scan held 80 MB more for that)."""
    import tracemalloc

    monkeypatch.setattr(tokens, "MAX_RUN_BYTES", 1024 * 1024)
    run = b"a" * (4 * 1024 * 1024)
    data, known = b"body: " + run + b"\n", {run.decode()}
    tracemalloc.start()
    try:
        found = list(tokens.decoded_runs(data, known))
        found += list(tokens.decoded_runs(data))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == []
    assert peak < 2 * len(run), peak  # the hex marks' translation of the text, and no copy of the run
