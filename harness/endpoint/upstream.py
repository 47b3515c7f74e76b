"""Forward one captured request to real Bedrock (or any upstream URL), re-signed, and stream its answer back.

The client's own signature and credentials stop here: ``Authorization``, ``X-Amz-Security-Token``,
``X-Amz-Date`` and hop-by-hop headers are dropped, and the request is signed afresh with SigV4 (botocore's
signer, service ``bedrock``) from the credentials the proxy was given (the default chain, see the CLI). The
path is forwarded as the client encoded it (``%3A`` in model ids), which is what botocore signs too.
"""

from __future__ import annotations

import http.client
import socket
import ssl
from dataclasses import dataclass, field
from typing import Iterator
from urllib.parse import urlsplit

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.httpsession import get_cert_path

from harness.endpoint.exchange import CapturedRequest

__all__ = ["SIGNING_NAME", "Forwarded", "Upstream", "UpstreamError", "checked_url", "live_url"]

SIGNING_NAME = "bedrock"  # bedrock-runtime signs as "bedrock"
# Never forwarded: the client's credentials and signature, and what belongs to one hop of HTTP.
_DROPPED = frozenset({"authorization", "x-amz-security-token", "x-amz-date", "x-amz-content-sha256", "host",
                      "content-length", "transfer-encoding", "connection", "keep-alive", "expect", "te", "trailer",
                      "upgrade", "proxy-authorization", "proxy-connection"})
_READ = 65536


def live_url(region: str) -> str:
    """Real Bedrock's runtime endpoint in ``region``."""
    return f"https://bedrock-runtime.{region}.amazonaws.com"


def checked_url(url: str):
    """``url`` split, when it is an http:// or https:// URL with a host; ValueError otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"upstream must be an http:// or https:// URL, got {url!r}")
    return parts


class UpstreamError(Exception):
    """The upstream could not be reached or broke off; the message is one line."""


@dataclass
class Forwarded:
    """What went upstream (URL, signed headers) and the upstream's answer head; ``pieces()`` reads the body."""

    uri: str
    request_headers: dict[str, str]
    request_body: bytes = field(repr=False)  # as sent: the server may release the captured request's bytes
    status: int
    reason: str
    headers: list[tuple[str, str]]
    _response: http.client.HTTPResponse = field(repr=False)
    _connection: http.client.HTTPConnection = field(repr=False)

    def pieces(self) -> Iterator[bytes]:
        """The body as it arrives (one read per available piece); closes the connection at the end."""
        try:
            while piece := self._response.read1(_READ):
                yield piece
        except (OSError, http.client.HTTPException) as error:
            raise UpstreamError(f"upstream broke off mid-body: {type(error).__name__}: {error}") from None
        finally:
            self._connection.close()

    def read(self) -> bytes:
        return b"".join(self.pieces())

    def close(self) -> None:
        """Stop the answer from any thread: a read blocked in ``pieces()`` ends (a shut socket wakes it)."""
        sock = self._connection.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed


class Upstream:
    """Where the proxy forwards to, and the credentials it signs with (never the client's)."""

    def __init__(self, url: str, region: str, credentials, timeout: float = 300.0):
        parts = checked_url(url)
        self.url, self.region, self.timeout = url.rstrip("/"), region, timeout
        self._credentials = credentials
        self._parts = parts

    def __repr__(self) -> str:
        return f"<Upstream {self.url} {self.region}>"

    def sign(self, method: str, uri: str, headers: dict[str, str], body: bytes) -> dict[str, str]:
        """``headers`` plus a fresh SigV4 signature (X-Amz-Date, Authorization, a session token if any)."""
        request = AWSRequest(method=method, url=uri, data=body, headers=headers)
        credentials = getattr(self._credentials, "get_frozen_credentials", lambda: self._credentials)()
        SigV4Auth(credentials, SIGNING_NAME, self.region).add_auth(request)
        return dict(request.headers.items())

    def forward(self, request: CapturedRequest) -> Forwarded:
        """Send ``request`` upstream, re-signed; returns once the answer's head has arrived."""
        uri = self.url + request.path
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _DROPPED}
        headers.update({"Host": self._host(), "Content-Length": str(len(request.raw_body))})
        signed = self.sign(request.method, uri, headers, request.raw_body)
        connection = self._connect()
        try:
            connection.putrequest(request.method, urlsplit(uri).path + _query(uri), skip_host=True,
                                  skip_accept_encoding=True)
            for name, value in signed.items():
                connection.putheader(name, value)
            connection.endheaders(request.raw_body)
            response = connection.getresponse()
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            raise UpstreamError(f"cannot reach upstream {self.url}: {type(error).__name__}: {error}") from None
        return Forwarded(uri, signed, request.raw_body, response.status, response.reason, response.getheaders(),
                         response, connection)

    def _host(self) -> str:
        default = {"http": 80, "https": 443}[self._parts.scheme]
        port = self._parts.port
        return self._parts.hostname if port in (None, default) else f"{self._parts.hostname}:{port}"

    def _connect(self) -> http.client.HTTPConnection:
        host, port = self._parts.hostname, self._parts.port
        if self._parts.scheme == "http":
            return http.client.HTTPConnection(host, port, timeout=self.timeout)
        context = ssl.create_default_context(cafile=get_cert_path(True))
        return http.client.HTTPSConnection(host, port, timeout=self.timeout, context=context)


def _query(uri: str) -> str:
    query = urlsplit(uri).query
    return f"?{query}" if query else ""
