"""A tiny loopback Bedrock stand-in for the record-path tests: real HTTP/1.1 on 127.0.0.1, chunked frames.

Not the harness's loopback endpoint (harness.endpoint.server): just enough Bedrock for vcrpy to record from.
``POST /model/{id}/converse-stream`` and ``/invoke-with-response-stream`` answer chunked event-stream
frames (each frame split across two HTTP chunks); ``/converse`` answers JSON. A reply function can be
swapped per operation, e.g. for a 429 or for a response that leaks a secret.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

from harness.wire import eventstream as es

TOOL_ID = "tooluse_Kq3pWm0Zr8TbVx1YcLd2Ae"


def converse_stream_frames(model_id: str) -> list[bytes]:
    """Text, then a Claude-style tool call (leading empty delta, fragmented JSON), then stop and usage."""
    return [
        es.encode_event("messageStart", {"role": "assistant"}, 7),
        es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": f"Asked {model_id}. "}}, 20),
        es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Checking 30°C."}}, 3),
        es.encode_event("contentBlockStop", {"contentBlockIndex": 0}, 11),
        es.encode_event("contentBlockStart", {"contentBlockIndex": 1,
                                              "start": {"toolUse": {"name": "get_weather", "toolUseId": TOOL_ID}}}, 5),
        es.encode_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": ""}}}, 9),
        es.encode_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"ci'}}}, 2),
        es.encode_event("contentBlockDelta",
                        {"contentBlockIndex": 1, "delta": {"toolUse": {"input": 'ty": "Paris"}'}}}, 4),
        es.encode_event("contentBlockStop", {"contentBlockIndex": 1}, 30),
        es.encode_event("messageStop", {"stopReason": "tool_use"}, 12),
        es.encode_event("metadata", {"metrics": {"latencyMs": 42},
                                     "usage": {"inputTokens": 31, "outputTokens": 17, "totalTokens": 48}}, 6),
    ]


def invoke_stream_frames(model_id: str) -> list[bytes]:
    """An Anthropic-native stream in chunk frames: text, then message_delta and message_stop."""
    events = [
        {"type": "message_start", "message": {"id": "msg_bdrk_01", "type": "message", "role": "assistant",
                                              "model": model_id, "content": [], "usage": {"input_tokens": 9}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
        {"type": "message_stop"},
    ]
    return [es.encode_chunk(event, 4 + n) for n, event in enumerate(events)]


def converse_body(model_id: str) -> dict:
    """A Converse answer with a tool call."""
    content = [{"text": f"Asked {model_id}."}, {"toolUse": {"input": {"city": "Paris"}, "name": "get_weather",
                                                           "toolUseId": TOOL_ID}}]
    return {"metrics": {"latencyMs": 40}, "output": {"message": {"content": content, "role": "assistant"}},
            "stopReason": "tool_use", "usage": {"inputTokens": 20, "outputTokens": 8, "totalTokens": 28}}


def stream_reply(frames_of, **headers):
    headers = {"Content-Type": "application/vnd.amazon.eventstream", **headers}
    return lambda model_id, request: (200, headers, frames_of(model_id))


def json_reply(status: int, body, headers=None):
    return lambda model_id, request: (status, {"Content-Type": "application/json", **(headers or {})},
                                      json.dumps(body if not callable(body) else body(model_id)).encode())


DEFAULT_REPLIES = {
    "converse-stream": stream_reply(converse_stream_frames),
    "invoke-with-response-stream": stream_reply(invoke_stream_frames,
                                                **{"X-Amzn-Bedrock-Content-Type": "application/json"}),
    "converse": json_reply(200, converse_body),
}


class StubBedrock:
    """``with StubBedrock() as server:`` serves on ``server.endpoint_url`` and records ``server.requests``."""

    def __init__(self, **replies):
        self.replies = {**DEFAULT_REPLIES, **{k.replace("_", "-"): v for k, v in replies.items()}}
        self.requests: list[dict] = []

    def __enter__(self) -> "StubBedrock":
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.01,), daemon=True)
        self.thread.start()
        self.endpoint_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def _handler(server: StubBedrock):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # many small writes: no 40 ms delayed-ACK stalls

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            model, _, op = self.path.split("/model/", 1)[1].rpartition("/")
            server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            status, headers, payload = server.replies[op](unquote(model), json.loads(body or b"null"))
            self.send_response(status)
            for name, value in {**headers, "x-amzn-RequestId": "6b7e1c2a-0000-4000-8000-00000000beef"}.items():
                self.send_header(name, value)
            self._send_chunked(payload) if isinstance(payload, list) else self._send_whole(payload)

        def _send_whole(self, payload: bytes) -> None:
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _send_chunked(self, frames: list[bytes]) -> None:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for frame in frames:
                for piece in (frame[: len(frame) // 2], frame[len(frame) // 2 :]):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")

        def log_message(self, *args) -> None:
            pass

    return Handler
