"""The recording proxy's cost: the live-able scenarios run against the emulator directly and through the proxy.

    python benchmarks/bench_proxy.py                  # 5 interleaved repetitions, 0.05 s between frames for latency
    python benchmarks/bench_proxy.py --repetitions 9 --frame-delay 0.1

Per repetition, every scenario not tagged emulator_only is streamed by the reference adapter (boto3) once against
its emulator directly and once through ``RecordingProxy`` (re-signing, forwarding, recording a scrubbed, scanned,
verified cassette per scenario), alternating. Then one stream with a paced upstream (``--frame-delay`` seconds
before each frame) measures when the first event reaches the client, directly and through the proxy, against the
time the whole stream takes: a buffering proxy would deliver the first event only after the last.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

import boto3
from botocore.config import Config

from _common import PROJECT, fake_aws_env, machine, summary, table, timed

fake_aws_env()

from harness import load_adapter  # noqa: E402
from harness.endpoint.faults import Faults  # noqa: E402
from harness.endpoint.proxy import RecordingProxy, Tape  # noqa: E402
from harness.endpoint.server import BedrockServer  # noqa: E402
from harness.endpoint.upstream import Upstream  # noqa: E402
from harness.suite.runner import loopback_endpoint, replay  # noqa: E402
from harness.suite.scenario import discover  # noqa: E402

__all__ = ["main"]


def _proxied(upstream: BedrockServer, tape: Path) -> BedrockServer:
    credentials = boto3.session.Session().get_credentials()
    return BedrockServer(RecordingProxy(Upstream(upstream.endpoint_url, "us-east-1", credentials), Tape(tape)),
                         validate=False)


def suite_pass(scenarios, adapter, folder: Path | None) -> None:
    """Every scenario once: against its emulator, or (``folder`` given) through the proxy recording into it."""
    for scenario in scenarios:
        with BedrockServer.from_scenario(scenario) as upstream:
            if folder is None:
                replay(scenario, adapter, loopback_endpoint(upstream), upstream)
                continue
            with _proxied(upstream, folder / f"{scenario.id.replace('/', '-')}.yaml") as proxy:
                replay(scenario, adapter, loopback_endpoint(proxy), proxy)


def first_event(scenario, delay: float, proxied: bool) -> tuple[float, float]:
    """(seconds to the first event, seconds to the last) of one paced stream."""
    with BedrockServer.from_scenario(scenario, faults=Faults(delay=delay)) as upstream, \
            tempfile.TemporaryDirectory() as folder:
        server = _proxied(upstream, Path(folder) / "t.yaml") if proxied else upstream
        with server if proxied else nullcontext():
            client = boto3.client("bedrock-runtime", endpoint_url=server.endpoint_url, region_name="us-east-1",
                                  config=Config(retries={"total_max_attempts": 1}))
            start = time.perf_counter()
            stream = client.converse_stream(modelId=scenario.model_id,
                                            messages=[{"role": "user", "content": [{"text": "hi"}]}])["stream"]
            seen = [time.perf_counter() - start for _ in stream]
    return seen[0], seen[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--frame-delay", type=float, default=0.05)
    parser.add_argument("--limit", type=int, default=0, help="only the first N live-able scenarios")
    args = parser.parse_args(argv)
    scenarios = [s for s in discover(PROJECT / "suites") if "emulator_only" not in s.tags]
    scenarios = scenarios[: args.limit] if args.limit else scenarios
    adapter = load_adapter("reference")
    print(machine())
    direct, proxied = [], []
    with tempfile.TemporaryDirectory() as folder:
        suite_pass(scenarios, adapter, None), suite_pass(scenarios, adapter, Path(folder))  # warm-up
        for n in range(args.repetitions):
            direct.append(timed(suite_pass, scenarios, adapter, None)[0])
            proxied.append(timed(suite_pass, scenarios, adapter, Path(folder) / str(n))[0])
    d, p = summary(direct), summary(proxied)
    rows = [["direct (emulator)", f"{d['median']:.3f}", f"{d['min']:.3f}", f"{d['max']:.3f}"],
            ["through the recording proxy", f"{p['median']:.3f}", f"{p['min']:.3f}", f"{p['max']:.3f}"],
            ["ratio proxy / direct", f"{p['median'] / d['median']:.2f}", "", ""]]
    print(f"suite: {len(scenarios)} scenarios, {args.repetitions} interleaved repetitions (seconds)")
    print(table(["", "median", "min", "max"], rows))
    paced = [[how, *(f"{t:.3f}" for t in first_event(scenarios[0], args.frame_delay, how == "proxied"))]
             for how in ("direct", "proxied")]
    print(f"\n{scenarios[0].id}, {args.frame_delay} s before each frame (seconds from the call)")
    print(table(["", "first event", "last event"], paced))
    return 0


if __name__ == "__main__":
    sys.exit(main())
