"""``serve --record`` stopped while 50 clients stream through it, by Ctrl-C (SIGINT) and by ``kill -9``: every
exchange a client finished is in a cassette, every cassette in the folder parses (none torn), and no temp file is
left: Ctrl-C leaves none, and one ``kill -9`` cut mid-write is removed by the next recorder started on the folder
(nothing can remove it at SIGKILL itself). The upstream is ``serve --emulate`` on 127.0.0.1; the clients hold dummy keys (nothing leaves the machine)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import boto3
import pytest
from botocore.config import Config

from harness.cassettes import cassette

ROOT = Path(__file__).resolve().parents[1]
CLIENTS = 50
_ENV = {**os.environ, "AWS_ACCESS_KEY_ID": "AKIAFAKEFAKEFAKEFAKE", "AWS_SECRET_ACCESS_KEY": "fake-secret-for-tests",
        "AWS_REGION": "us-east-1", "BEDROCK_HARNESS_PARSED_CACHE": "off"}
_MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"


def _started(args: list[str]) -> tuple[subprocess.Popen, str]:
    """A bedrock-harness child and the URL it prints first."""
    child = subprocess.Popen([sys.executable, "-m", "harness.cli", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, env=_ENV, cwd=ROOT)
    url = child.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), url
    return child, url


def _client(url: str):
    return boto3.client("bedrock-runtime", endpoint_url=url, region_name="us-east-1",
                        aws_access_key_id="AKIAFAKEFAKEFAKEFAKE", aws_secret_access_key="fake",
                        config=Config(retries={"total_max_attempts": 1}, read_timeout=30,
                                      max_pool_connections=2))


def _talk(url: str, number: int, done: list[str], stop: threading.Event) -> None:
    """Conversations one after another, each with a message of its own; a finished one is named in ``done``."""
    client, turn = _client(url), 0
    while not stop.is_set():
        text = f"client {number} conversation {turn}"
        try:
            reply = client.converse_stream(modelId=_MODEL, messages=[{"role": "user", "content": [{"text": text}]}])
            events = list(reply["stream"])
        except Exception:  # noqa: BLE001 -- the recorder went away mid-call: that one is not finished
            return
        if events and "metadata" in events[-1]:
            done.append(text)
        turn += 1


def _recorded(folder: Path) -> set[str]:
    """The user texts of every complete interaction in the folder's cassettes (each cassette must parse)."""
    texts = set()
    for path in sorted(folder.glob("*.yaml")):
        loaded = cassette.load(path)  # a torn file fails here
        cut = {entry["interaction"] for entry in loaded.metadata.get("incomplete") or ()}
        for n, it in enumerate(loaded.interactions):
            if n not in cut:
                texts.add(it.request_json["messages"][-1]["content"][0]["text"])
    return texts


@pytest.mark.parametrize("how", ["sigint", "kill-9"])
def test_stopping_a_recording_under_50_clients_loses_no_finished_exchange(tmp_path, how):
    upstream, upstream_url = _started(["serve", "--emulate", "core/smoke-text", "--loop"])
    recorder, url = _started(["serve", "--record", str(tmp_path), "--upstream", upstream_url])
    done: list[str] = []
    stop = threading.Event()
    try:
        clients = [threading.Thread(target=_talk, args=(url, n, done, stop), daemon=True) for n in range(CLIENTS)]
        for thread in clients:
            thread.start()
        deadline = time.monotonic() + 60
        while len(done) < 3 * CLIENTS and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(done) >= CLIENTS, len(done)  # many exchanges finished, many more in flight
        finished = list(done)  # what had finished before the signal (a client may finish one more meanwhile)
        recorder.send_signal(signal.SIGINT if how == "sigint" else signal.SIGKILL)
        assert recorder.wait(30) in (0, -signal.SIGKILL)
        stop.set()
        for thread in clients:
            thread.join(30)
    finally:
        stop.set()
        for child in (recorder, upstream):
            if child.poll() is None:
                child.kill()
                child.wait()
    recorded = _recorded(tmp_path)
    assert set(finished) <= recorded, sorted(set(finished) - recorded)[:5]
    assert set(done) <= recorded  # and those finished while it stopped too
    if how == "kill-9":  # a write the signal cut leaves its temp file; the next recorder on the folder removes it
        again, _ = _started(["serve", "--record", str(tmp_path), "--upstream", upstream_url])
        again.send_signal(signal.SIGINT)
        assert again.wait(30) == 0
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    assert _recorded(tmp_path) == recorded  # and it removed nothing else
