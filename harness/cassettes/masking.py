"""Logs mask what they print: a line naming a path, a query, a model ARN or a request's text shows no secret.

``mask(text)`` replaces the value of every credential-like query parameter (``X-Amz-Security-Token=``,
``X-Amz-Credential=``, ``...key=``, ``...token=``, ``...signature=``, ``...secret=``, ``...password=``), every secret
the scan knows (harness.cassettes.tokens: as written, percent-encoded, or inside a base64 or hex run) and the
values of the AWS credential variables by a masked sample, and account ids in ARNs by the placeholder cassettes
get. ``MaskingFilter`` applies it to every record of a logger before any handler formats it.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from urllib.parse import unquote

__all__ = ["MaskingFilter", "mask"]

_QUERY_SECRET = re.compile(r"([?&;][^=&#\s]*(?:token|credential|signature|secret|password|key|auth)[^=&#\s]*=)"
                           r"([^&#\s]+)", re.IGNORECASE)


def _masked(text: str, env) -> str:
    from harness.cassettes import tokens

    data = text.encode("utf-8", "surrogateescape")
    for start, end in reversed(tokens.secret_spans(data, env)):
        data = data[:start] + tokens.masked(data[start:end]).encode() + data[end:]
    return data.decode("utf-8", "surrogateescape")


def mask(text: str, environ=None) -> str:
    """``text`` with every secret, credential query value and account id masked (see the module)."""
    # The scan's patterns are imported at the first line masked, not with the module: a server that logs
    # nothing (``run``'s loopback endpoint, quiet) never compiles them.
    from harness.cassettes import tokens

    env = tokens.env_secrets(os.environ if environ is None else environ)
    return _mask(text, tuple(env))


@functools.lru_cache(maxsize=512)  # a server logs the same few lines over and over (path, turn, status)
def _mask(text: str, env: tuple) -> str:
    from harness.cassettes import tokens
    from harness.cassettes.scrub import scrub_account_ids

    text = _QUERY_SECRET.sub(lambda m: m.group(1) + "…", text)
    text = scrub_account_ids(text)  # raw or percent-encoded
    decoded = unquote(text)
    if not tokens.secret_spans(decoded.encode("utf-8", "surrogateescape"), env) and not any(
            value.decode("utf-8", "replace") in text for _, value in env):
        return text  # the common case, one look: nothing as written or percent-decoded
    masked = _masked(text, env)
    if unquote(masked) != masked and tokens.secret_spans(unquote(masked).encode("utf-8", "surrogateescape"), env):
        return _masked(unquote(masked), env)  # a secret percent-encoded: shown decoded, so it can be masked
    return masked


class MaskingFilter(logging.Filter):
    """Masks a record's message (arguments merged in) before any handler sees it; add it to a logger once."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask(message)
        if masked != message:
            record.msg, record.args = masked, ()
        return True
