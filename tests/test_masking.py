"""Logs mask what they print (harness.cassettes.masking): no planted token, credential query value or account id
survives a log line, and an ordinary line is left as it is."""

from __future__ import annotations

import logging
from urllib.parse import quote

import pytest

from harness.cassettes.masking import MaskingFilter, mask
from planted import TOKENS

PATH = "/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream"


@pytest.mark.parametrize("name", sorted(TOKENS))
def test_no_planted_token_survives_as_written_or_percent_encoded(name):
    token = TOKENS[name]
    line = f"POST {PATH}?note={quote(token, safe='')} turn=0: breaks a rule: {token!r}"
    masked = mask(line, environ={})
    assert token not in masked and quote(token, safe="") not in masked
    assert masked.startswith("POST /model/us.anthropic.claude-sonnet-4-20250514-v1") and " turn=0: " in masked


def test_credential_query_values_are_masked_whatever_they_hold():
    line = "GET /model/x/converse?X-Amz-Credential=AKIDEXAMPLE%2F20260101&X-Amz-Security-Token=abc&x-api-key=k&n=1"
    assert mask(line, environ={}) == "GET /model/x/converse?X-Amz-Credential=…&X-Amz-Security-Token=…&x-api-key=…&n=1"


@pytest.mark.parametrize("arn", ["arn:aws:bedrock:us-east-1:987654321098:inference-profile/us.x",
                                 "arn%3Aaws%3Abedrock%3Aus-east-1%3A987654321098%3Ainference-profile%2Fus.x"])
def test_account_ids_in_model_arns_get_the_cassettes_placeholder(arn):
    masked = mask(f"POST /model/{arn}/converse-stream turn=0 -> 200", environ={})
    assert "987654321098" not in masked and "111111111111" in masked


def test_the_environments_credentials_are_masked_and_ordinary_lines_kept():
    assert "Zx9/canary" not in mask("got Zx9/canary+env/secret", {"AWS_SECRET_ACCESS_KEY": "Zx9/canary+env/secret"})
    line = f"POST {PATH} turn=0 -> 200 12 frames"
    assert mask(line, environ={}) == line


def test_the_filter_masks_a_records_message_before_any_handler(caplog):
    log = logging.getLogger("harness.test.masking")
    log.addFilter(MaskingFilter())
    with caplog.at_level(logging.INFO, logger="harness.test.masking"):
        log.info("%s %s", "POST", f"{PATH}?X-Amz-Security-Token={TOKENS['aws-session-token']}")
        log.info("plain %d", 3)
    assert [r.getMessage() for r in caplog.records] == [f"POST {PATH}?X-Amz-Security-Token=…", "plain 3"]
