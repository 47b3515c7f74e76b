"""What a request's head may say about its framing, as RFC 9112 has it: anything two readers could read two ways
is refused, so no request can be smuggled past another on a kept-alive connection.

``problem(headers, version)`` names the first violation as ``(status, reason)``, or None:

- a header line the parser could not read (``Content-Length : 5``, a name with a space, a line without a colon):
  the standard library's parser ends the head there, silently, and the lines after it would be read as the body;
- obsolete line folding (a continuation line, RFC 9112 §5.2) or a control character (NUL, CR, ESC...) in a value,
  a field name that is not a token;
- Content-Length and Transfer-Encoding both (§6.3: the request "ought to be handled as an error"), or two
  different Content-Length values (§6.3 again; the same value twice is read once);
- Transfer-Encoding on HTTP/1.0, ``chunked`` not once and last (``chunked, identity``: 400), another transfer
  coding before it (``gzip, chunked``: 501 Not Implemented, §6.1);
- an HTTP/1.1 request without a Host, or with more than one (§3.2).

The server answers each in Bedrock's error shape and closes the connection. A well-kept strict parser was weighed
and not taken: h11 accepts both Content-Length and Transfer-Encoding (Transfer-Encoding wins) and unfolds obsolete
line folding, so two of the checks above stay ours either way, and its state machine would replace the server's
request loop while refusing to write the broken framing the fault injection sends on purpose. It is the tests'
oracle instead: whatever head h11 refuses, this refuses too (tests/test_framing.py).
"""

from __future__ import annotations

import re
from email.message import Message

__all__ = ["problem"]

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # HTAB is the only control a field value may hold


def _lines(headers: Message) -> tuple[int, str] | None:
    if headers.defects:
        return 400, f"a malformed header line ({type(headers.defects[0]).__name__})"
    for name, value in headers.items():
        if not _TOKEN.fullmatch(name):
            return 400, f"the header name {name[:40]!r} is not a token"
        if "\n" in value or "\r" in value:
            return 400, f"obsolete line folding in {name} (a header value continued on the next line)"
        if _CONTROL.search(value):
            return 400, f"a control character in the value of {name}"
    return None


def _transfer_codings(codings: list[str], version: str) -> tuple[int, str] | None:
    if version == "HTTP/1.0":
        return 400, "Transfer-Encoding in an HTTP/1.0 request"
    if codings.count("chunked") != 1 or codings[-1] != "chunked":
        return 400, f"Transfer-Encoding {', '.join(codings)!r}: chunked must be the last coding, once"
    if len(codings) > 1:
        return 501, f"Transfer-Encoding {', '.join(codings)!r}: only chunked is implemented"
    return None


def problem(headers: Message, version: str) -> tuple[int, str] | None:
    """(status, reason) of the first framing violation in a request head (see the module), None when it is sound."""
    found = _lines(headers)
    if found:
        return found
    lengths = {value.strip() for value in headers.get_all("Content-Length") or ()}
    codings = [c.strip().lower() for value in headers.get_all("Transfer-Encoding") or () for c in value.split(",")]
    if lengths and codings:
        return 400, "both Content-Length and Transfer-Encoding (a request read two ways)"
    if len(lengths) > 1:
        return 400, f"conflicting Content-Length values ({', '.join(sorted(lengths))})"
    found = _transfer_codings(codings, version) if codings else None
    if found:
        return found
    hosts = headers.get_all("Host") or ()
    if version == "HTTP/1.1" and len(hosts) != 1:
        return 400, "no Host header" if not hosts else f"{len(hosts)} Host headers"
    return None
