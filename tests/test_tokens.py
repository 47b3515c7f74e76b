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
