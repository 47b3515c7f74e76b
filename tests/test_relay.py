"""The relay (harness/adapters/relay.py): one stable loopback port forwarding to the current scenario's server."""

from __future__ import annotations

import http.client
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from harness.adapters.relay import Relay


class _Named(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like the loopback Bedrock server

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"] or 0))
        reply = f"{self.server.label}:{body.decode()}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


@pytest.fixture
def servers():
    """Two keep-alive HTTP servers, answering "a:<body>" and "b:<body>"."""
    started = []
    for label in "ab":
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Named)
        server.daemon_threads, server.label = True, label
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        started.append(server)
    yield [f"http://127.0.0.1:{s.server_address[1]}" for s in started]
    for server in started:
        server.shutdown()
        server.server_close()


def post(conn: http.client.HTTPConnection, body: str) -> str:
    conn.request("POST", "/", body=body)
    return conn.getresponse().read().decode()


def test_requests_reach_the_current_target_through_one_stable_url(servers):
    with Relay() as relay:
        url = relay.url
        relay.retarget(servers[0])
        conn = http.client.HTTPConnection(url.removeprefix("http://"), timeout=10)
        assert [post(conn, "1"), post(conn, "2")] == ["a:1", "a:2"]  # one kept-alive connection
        relay.retarget(servers[1])
        fresh = http.client.HTTPConnection(url.removeprefix("http://"), timeout=10)
        assert post(fresh, "3") == "b:3" and relay.url == url


def test_retarget_cuts_kept_alive_connections_so_none_reaches_the_old_server(servers):
    with Relay() as relay:
        relay.retarget(servers[0])
        conn = http.client.HTTPConnection(relay.url.removeprefix("http://"), timeout=10)
        assert post(conn, "1") == "a:1"
        relay.retarget(servers[1])
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            post(conn, "2")  # the old connection was closed by the relay, never answered by server a
        conn.close()
        assert post(conn, "3") == "b:3"  # reconnecting reaches the new target


def test_a_reset_from_the_server_reaches_the_client_as_a_reset():
    with socket.create_server(("127.0.0.1", 0)) as listener, Relay() as relay:
        relay.retarget(f"http://127.0.0.1:{listener.getsockname()[1]}")
        host, port = relay.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as client:
            upstream, _ = listener.accept()
            upstream.sendall(b"partial")
            assert client.recv(7) == b"partial"
            upstream.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            upstream.close()  # linger 0: a reset, no FIN
            with pytest.raises(ConnectionResetError):
                while client.recv(1024):
                    pass


def test_a_connection_before_any_target_is_closed(servers):
    with Relay() as relay:
        host, port = relay.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            assert sock.recv(1) == b""


def test_only_http_host_port_targets_are_accepted():
    with Relay() as relay:
        for bad in ("https://bedrock-runtime.us-east-1.amazonaws.example", "127.0.0.1:80", "http://127.0.0.1"):
            with pytest.raises(ValueError, match="http://host:port"):
                relay.retarget(bad)


def test_close_stops_listening(servers):
    relay = Relay()
    host, port = relay.url.removeprefix("http://").split(":")
    relay.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((host, int(port)), timeout=10)
