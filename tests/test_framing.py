"""Request framing as RFC 9112 has it (harness.endpoint.framing): every head two readers could read two ways is
refused, and whatever head h11 (a strict, well-kept HTTP/1.1 parser) refuses, this refuses too."""

from __future__ import annotations

import http.client
import io

import h11
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.endpoint.framing import problem


def head(*lines: str) -> bytes:
    return "".join(f"{line}\r\n" for line in lines).encode("latin-1") + b"\r\n"


def verdict(raw: bytes, version: str = "HTTP/1.1"):
    return problem(http.client.parse_headers(io.BytesIO(raw)), version)


@pytest.mark.parametrize("lines, version, status, words", [
    (["Host: x", "Content-Length: 5", "Transfer-Encoding: chunked"], "HTTP/1.1", 400, "both Content-Length"),
    (["Host: x", "Content-Length: 5", "Content-Length: 6"], "HTTP/1.1", 400, "conflicting Content-Length"),
    (["Host: x", "X-Note: a", " folded"], "HTTP/1.1", 400, "obsolete line folding in X-Note"),
    (["Host: x", "X-Note: a\x00b"], "HTTP/1.1", 400, "control character in the value of X-Note"),
    (["Host: x", "X-Note: \x1b[31mred"], "HTTP/1.1", 400, "control character"),
    (["Host: x", "Content-Length : 5"], "HTTP/1.1", 400, "malformed header line"),
    (["Host: x", "NoColonHere"], "HTTP/1.1", 400, "malformed header line"),
    (["Host: x", "Transfer-Encoding: chunked, identity"], "HTTP/1.1", 400, "chunked must be the last coding"),
    (["Host: x", "Transfer-Encoding: chunked", "Transfer-Encoding: chunked"], "HTTP/1.1", 400, "once"),
    (["Host: x", "Transfer-Encoding: identity"], "HTTP/1.1", 400, "chunked must be the last"),
    (["Host: x", "Transfer-Encoding: gzip, chunked"], "HTTP/1.1", 501, "only chunked is implemented"),
    (["Host: x", "Transfer-Encoding: chunked"], "HTTP/1.0", 400, "HTTP/1.0"),
    (["Content-Length: 0"], "HTTP/1.1", 400, "no Host header"),
    (["Host: x", "Host: y"], "HTTP/1.1", 400, "2 Host headers"),
])
def test_each_ambiguous_head_is_refused_naming_why(lines, version, status, words):
    found = verdict(head(*lines), version)
    assert found is not None and found[0] == status and words in found[1], found


@pytest.mark.parametrize("lines, version", [
    (["Host: x", "Content-Length: 5"], "HTTP/1.1"),
    (["Host: x", "Content-Length: 5", "content-length: 5"], "HTTP/1.1"),  # the same value twice is read once
    (["Host: x", "Transfer-Encoding: Chunked"], "HTTP/1.1"),
    (["Host: x", "X-Tab: a\tb", "X-Latin: caf\xe9"], "HTTP/1.1"),
    (["Content-Length: 2"], "HTTP/1.0"),  # HTTP/1.0 needs no Host
])
def test_sound_heads_pass(lines, version):
    assert verdict(head(*lines), version) is None


PIECES = ["Host: x", "Host: y", "Content-Length: 5", "Content-Length: 6", "Transfer-Encoding: chunked",
          "Transfer-Encoding: chunked, identity", "Transfer-Encoding: gzip, chunked", "Transfer-Encoding: identity",
          "X-A: a", " folded", "\tfolded", "X-B: a\x00b", "X-C: \x1b[0m", "X-D : d", "Bad Name: v", "NoColon",
          "X-E: caf\xe9", "x-f:", "X-G: a, b"]


def h11_refuses(raw_head: bytes) -> bool:
    connection = h11.Connection(h11.SERVER)
    connection.receive_data(b"POST /model/m/converse-stream HTTP/1.1\r\n" + raw_head)
    try:
        connection.next_event()
    except h11.RemoteProtocolError:
        return True
    return False


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=6))
def test_whatever_head_h11_refuses_is_refused_here_too(lines):
    raw = head(*lines)
    if h11_refuses(raw):
        assert verdict(raw) is not None, lines
