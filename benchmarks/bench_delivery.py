"""Big replies and big recordings: how long a 20,000-frame reply waits for its first byte, and what recording
turns of long text costs per turn and per frame (at two sizes, so the ratio shows whether it is linear).

    python benchmarks/bench_delivery.py
    python benchmarks/bench_delivery.py --frames 5000 --turns 2 --text-kb 50
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import yaml
from _common import fake_aws_env, machine, table

__all__ = ["big_reply", "first_and_last_byte", "main", "record_turns", "text_scenario"]

MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"


def big_reply(frames: int) -> list[bytes]:
    """A ConverseStream reply of ``frames`` text deltas of 150 characters (about 200 bytes each on the wire)."""
    from harness.wire.eventstream import encode_event

    start = [encode_event("messageStart", {"role": "assistant"}, 7)]
    return start + [encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "x" * 150}}, 11)
                    for _ in range(frames)]


class _Canned:
    def __init__(self, frames: list[bytes]):
        self.frames = frames

    def respond(self, request):
        from harness.endpoint.exchange import Reply

        return Reply(frames=self.frames)


def _from_cassette(frames: list[bytes]):
    """A cassette responder replaying ``frames`` as one recorded ConverseStream interaction."""
    from harness.cassettes.cassette import EVENTSTREAM, Cassette, Interaction, frames_from_body
    from harness.endpoint.responders import CassetteResponder

    uri = f"https://bedrock-runtime.us-east-1.amazonaws.com/model/{quote(MODEL, safe='')}/converse-stream"
    interaction = Interaction("POST", uri, {}, b"{}", 200, "OK", {"Content-Type": EVENTSTREAM},
                              frames_from_body(b"".join(frames)))
    return CassetteResponder(Cassette(None, {}, (interaction,)))


def first_and_last_byte(responder, chunking) -> tuple[float, float]:
    """Seconds from sending one request to the reply's first byte and to its end, over a raw socket."""
    from harness.endpoint.faults import Faults
    from harness.endpoint.server import BedrockServer

    body = json.dumps({"messages": [{"role": "user", "content": [{"text": "hi"}]}]}).encode()
    path = f"/model/{quote(MODEL, safe='')}/converse-stream".encode()
    with BedrockServer(responder, faults=Faults(chunking=chunking)) as server:
        port = int(server.endpoint_url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=600) as sock:
            began = time.perf_counter()
            sock.sendall(b"POST %b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                         b"Content-Length: %d\r\n\r\n%b" % (path, len(body), body))
            sock.recv(1)
            first = time.perf_counter() - began
            while sock.recv(1 << 16):
                pass
            return first, time.perf_counter() - began


def text_scenario(turns: int, text_kb: int) -> dict:
    """A scenario whose every turn streams ``text_kb`` KB of text; all but the last end with a tool call."""
    words = " ".join(f"w{i % 1000}" for i in range(text_kb * 200))[: text_kb * 1000]
    body = []
    for t in range(turns):
        last = t == turns - 1
        content = [{"text": words}] + ([] if last else [{"tool_use": {"name": "read_file", "input": {"path": f"/{t}"}}}])
        turn = {"messages": [], "script": {"content": content, "stop_reason": "end_turn" if last else "tool_use",
                                           "usage": {"input_tokens": 10, "output_tokens": 10}}}
        if not last:
            turn["tool_results"] = {"read_file": {"content": "ok", "is_error": False}}
        body.append(turn)
    body[0]["messages"] = [{"role": "user", "content": "Go."}]
    tools = [{"name": "read_file", "description": "Read a file.",
              "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]
    return {"title": "Long text", "tags": ["bench"], "requires": ["tool_use", "round_trip"], "model_id": MODEL,
            "tools": tools, "options": {"max_tokens": 1024, "tool_choice": "auto"}, "turns": body,
            "checks": {"hard": [], "soft": []}}


def record_turns(turns: int, text_kb: int) -> tuple[float, int]:
    """(seconds, frames recorded) of recording the text scenario through the emulator."""
    from harness.cassettes.cassette import load
    from harness.converse import ConverseAdapter
    from harness.suite.record import Target, record_scenario
    from harness.suite.scenario import discover

    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        (root / "suites" / "bench").mkdir(parents=True)
        (root / "suites" / "bench" / "long-text.yaml").write_text(yaml.safe_dump(text_scenario(turns, text_kb)))
        (scenario,) = discover(root / "suites")
        began = time.perf_counter()
        outcome = record_scenario(scenario, ConverseAdapter(), root, Target("emulator"))
        seconds = time.perf_counter() - began
        if outcome.status != "recorded":
            raise SystemExit(f"recording failed: {outcome.messages}")
        return seconds, sum(len(it.frames or ()) for it in load(outcome.path).interactions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20_000)
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--text-kb", type=int, default=200)
    options = parser.parse_args(argv)
    fake_aws_env()
    print(machine())
    frames = big_reply(options.frames)
    first_and_last_byte(_Canned(frames[:10]), "frame")  # warm-up: imports, botocore's service model
    rows = []
    for chunking in ("frame", "whole", 4096):
        first, last = first_and_last_byte(_Canned(frames), chunking)
        rows.append([f"{options.frames} frames, chunking {chunking}", f"{first:.3f}", f"{last:.3f}"])
    first, last = first_and_last_byte(_from_cassette(frames), "frame")
    rows.append([f"{options.frames} frames from a cassette, chunking frame", f"{first:.3f}", f"{last:.3f}"])
    print(f"reply of {sum(map(len, frames)) / 1e6:.1f} MB")
    print(table(["reply", "first byte s", "last byte s"], rows))
    rows, per_frame = [], []
    for kb in (max(options.text_kb // 4, 1), options.text_kb):
        seconds, count = record_turns(options.turns, kb)
        per_frame.append(seconds / count)
        rows.append([f"{options.turns} turns x {kb} KB", count, f"{seconds:.1f}", f"{seconds / options.turns:.2f}",
                     f"{seconds / count * 1000:.3f}"])
    print(table(["recording", "frames", "seconds", "s per turn", "ms per frame"], rows))
    print(f"per-frame cost, large over small: {per_frame[1] / per_frame[0]:.2f}x (1.00x is linear)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
