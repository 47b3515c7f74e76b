"""Benchmark: ``bedrock-harness run`` over the shipped suite against a bare replay of the same cassettes.

    python benchmarks/bench_run.py                  # 7 interleaved repetitions + 3 end-to-end CLI runs
    python benchmarks/bench_run.py --profile        # also: where the harness's time goes

The harness side is ``harness.suite.runner.run`` with the reference adapter as ``run`` loads it (under the per-turn
timeout), in-process: per scenario the run's loopback server replays the cassette (with the scenario's faults),
the adapter streams every turn through boto3 (whose calls reach the server without a socket, as ``run`` does by
default; ``--loopback http`` measures them over TCP), and the runner normalizes, diffs against the golden and
checks the request rules. The bare side replays the same cassettes with plain vcrpy (the project's serializer)
and one boto3 client: each recorded request is sent again with ``converse_stream`` and every event is iterated;
no server, no normalizing, no judging. The two alternate (harness, bare, harness, bare, ...) in one process after
one untimed warm-up of each, so imports and botocore's service model are loaded before timing on both sides. The
CLI rows are the end-to-end cost a user sees (interpreter start and imports included). Run on demand only, never
in CI.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import cProfile
import json
import pstats
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import unquote, urlsplit

from _common import PROJECT, fake_aws_env, machine, summary, table, timed

__all__ = ["bare_replay", "harness_run", "main", "measure", "params_of", "profile", "stage_costs", "wire_to_params"]

BARE_ENDPOINT = "https://bedrock-runtime.us-east-1.amazonaws.com"  # never reached: vcrpy answers in-process
CALLS = {  # URI suffix -> (boto3 method, streaming member or None)
    "converse-stream": ("converse_stream", "stream"),
    "converse": ("converse", None),
    "invoke-with-response-stream": ("invoke_model_with_response_stream", "body"),
}
TARGET_SECONDS = 3.0  # issue 5: the whole suite under 3 s
TARGET_RATIO = 0.5  # issue 20: at most half the bare replay, the SDK's own retry sleeps left out of both
# Profiled stages: (label, file suffix, function name); cumulative main-thread time of each.
STAGES = (
    ("runner.run (total)", "harness/suite/runner.py", "run"),
    ("  replay: adapter streams every turn", "harness/suite/runner.py", "replay"),
    ("    botocore client creation", "botocore/session.py", "create_client"),
    ("    HTTP round trips (urllib3 send; --loopback http)", "botocore/httpsession.py", "send"),
    ("    loopback answers without a socket (in-process)", "harness/endpoint/server.py", "answer_in_process"),
    ("      request rules", "harness/endpoint/server.py", "_check_rules"),
    ("    retry backoff sleep (429)", "~", "<built-in method time.sleep>"),
    ("    event-stream parsing (botocore)", "botocore/eventstream.py", "__iter__"),
    ("    chunk schema check (contract)", "harness/suite/contract.py", "chunk_problem"),
    ("  judge: goldens, laws, request checks", "harness/suite/runner.py", "judge"),
    ("    golden YAML load (yaml.safe_load)", "harness/suite/golden.py", "load_golden"),
    ("    deepdiff calls", "deepdiff/diff.py", "__init__"),
    ("  cassette YAML load", "harness/cassettes/cassette.py", "load"),
    ("  server shutdown (serve_forever poll)", "socketserver.py", "shutdown"),
)


def wire_to_params(value: Any, shape: Any) -> Any:
    """A recorded JSON body as boto3 parameters: blobs (e.g. ``redactedContent``) back to bytes."""
    if shape is None or getattr(shape, "is_document_type", False):
        return value
    if shape.type_name == "blob" and isinstance(value, str):
        return base64.b64decode(value)
    if shape.type_name == "structure" and isinstance(value, dict):
        return {k: wire_to_params(v, shape.members.get(k)) for k, v in value.items()}
    if shape.type_name == "list" and isinstance(value, list):
        return [wire_to_params(v, shape.member) for v in value]
    if shape.type_name == "map" and isinstance(value, dict):
        return {k: wire_to_params(v, shape.value) for k, v in value.items()}
    return value


def params_of(client: Any, method: str, body: bytes) -> dict:
    """The boto3 parameters (besides modelId) that send ``body`` again."""
    if method == "invoke_model_with_response_stream":
        return {"body": body}
    operation = client.meta.service_model.operation_model(client.meta.method_to_api_mapping[method])
    return wire_to_params(json.loads(body), operation.input_shape)


def _call(client: Any, request: Any) -> int:
    """Send one recorded request again through boto3 and iterate its whole response; the event count."""
    from botocore.exceptions import EventStreamError

    model, _, suffix = unquote(urlsplit(request.uri).path).removeprefix("/model/").rpartition("/")
    method, member = CALLS[suffix]
    response = getattr(client, method)(modelId=model, **params_of(client, method, request.body))
    if member is None:
        return 1
    events = 0
    try:
        for _ in response[member]:
            events += 1
    except EventStreamError:  # a recorded mid-stream exception ends the stream, as boto3 raises it
        events += 1
    return events


def bare_replay(cassettes: Sequence[Path], session: Any, seconds: dict | None = None) -> int:
    """Replay every interaction of ``cassettes`` with plain vcrpy + boto3; the number of events read.

    ``seconds``, when given, receives each cassette's own replay time.
    """
    from harness.cassettes.vcr import make_vcr

    client = session.client("bedrock-runtime", region_name="us-east-1", endpoint_url=BARE_ENDPOINT,
                            aws_access_key_id="AKIAFAKEBENCHMARK000", aws_secret_access_key="fake-benchmark-secret")
    recorder, events = make_vcr(record_mode="none"), 0
    for path in cassettes:
        start = time.perf_counter()
        with recorder.use_cassette(str(path)) as cassette:
            events += sum(_call(client, request) for request in list(cassette.requests))
        if seconds is not None:
            seconds[path] = time.perf_counter() - start
    return events


def harness_run(scenarios: Sequence[Any], root: Path, in_process: bool = True, bounded: bool = True) -> list:
    """``bedrock-harness run`` in-process: the reference adapter loaded as the command loads it (each turn in a
    worker thread under the default per-turn timeout; ``bounded=False``: on this thread, for cProfile, which
    sees only the thread it runs on), every scenario judged."""
    from harness.cli.common import load
    from harness.judge.protocol import TURN_TIMEOUT
    from harness.suite.runner import run

    return run(scenarios, load("reference", TURN_TIMEOUT if bounded else None), root, in_process=in_process)


def measure(scenarios: Sequence[Any], root: Path, repetitions: int, in_process: bool = True) -> dict:
    """Interleaved wall times of both sides, per-scenario harness durations, and what each side did."""
    import boto3
    from harness.suite.runner import cassette_path

    session, cassettes = boto3.session.Session(), [cassette_path(root, s) for s in scenarios]
    backoff = [s for s in scenarios if any("http_error" in fault for fault in s.faults)]
    with _counted_calls() as calls:
        warm = harness_run(scenarios, root, in_process), bare_replay(cassettes, session)
    samples: dict[str, list] = {"harness": [], "bare": [], "per_scenario": [], "harness_rest": [], "bare_rest": []}
    for _ in range(repetitions):
        seconds, results = timed(harness_run, scenarios, root, in_process)
        durations = {r.scenario: r.duration_s for r in results}
        per_cassette: dict = {}
        bare_s = timed(bare_replay, cassettes, session, per_cassette)[0]
        samples["harness"].append(seconds)
        samples["per_scenario"].append(durations)
        samples["bare"].append(bare_s)
        samples["harness_rest"].append(seconds - sum(durations[s.id] for s in backoff))
        samples["bare_rest"].append(bare_s - sum(per_cassette[cassette_path(root, s)] for s in backoff))
    bad = [f"{r.scenario}: {r.status}" for r in warm[0] if r.status != "pass"]
    return {**samples, "events": warm[1], "not_passing": bad, "backoff": [s.id for s in backoff], "calls": calls}


@contextlib.contextmanager
def _counted_calls():
    """{"harness": requests the loopback endpoint answered, "bare": requests vcrpy replayed} while inside."""
    from harness.endpoint import server
    from vcr.cassette import Cassette

    counts, answer, play = {"harness": 0, "bare": 0}, server._Session.answer, Cassette.play_response

    def counted_answer(self, request):
        counts["harness"] += 1
        return answer(self, request)

    def counted_play(self, request):
        counts["bare"] += 1
        return play(self, request)

    server._Session.answer, Cassette.play_response = counted_answer, counted_play
    try:
        yield counts
    finally:
        server._Session.answer, Cassette.play_response = answer, play


def cli_times(scenarios: Sequence[Any], root: Path, runs: int, loopback: str = "in-process") -> list[float]:
    """Wall time of ``bedrock-harness run`` over ``scenarios`` as a user types it (a fresh interpreter each)."""
    exe = shutil.which("bedrock-harness")
    command = [exe] if exe else [sys.executable, "-m", "harness.cli"]
    chosen = [arg for s in scenarios for arg in ("--scenario", s.id)]
    argv = [*command, "run", "--no-progress", "--loopback", loopback, "--root", str(root), *chosen]
    return [timed(lambda: subprocess.run(argv, capture_output=True))[0] for _ in range(runs)]


def stage_costs(scenarios: Sequence[Any], root: Path) -> list[tuple[str, float]]:
    """What each harness stage costs alone over the whole suite, timed directly (no profiler)."""
    from harness.cassettes import cassette
    from harness.suite import golden
    from harness.converse import make_client
    from harness.suite.runner import cassette_path
    from harness.endpoint.responders import CassetteResponder
    from harness.endpoint.server import BedrockServer

    paths = [cassette_path(root, s) for s in scenarios]
    loaded = [cassette.load(p) for p in paths]
    goldens = [golden.load_golden(s) for s in scenarios]

    def servers():
        for item in loaded:
            with BedrockServer(CassetteResponder(item)):
                pass
    return [
        ("cassette.load (libyaml)", timed(lambda: [cassette.load(p) for p in paths])[0]),
        ("golden.load_golden (pure-Python yaml)", timed(lambda: [golden.load_golden(s) for s in scenarios])[0]),
        ("golden.check, equal run (load + diff)",
         timed(lambda: [golden.check(s, g) for s, g in zip(scenarios, goldens)])[0]),
        ("BedrockServer start + close", timed(servers)[0]),
        ("make_client, one per endpoint", timed(lambda: [make_client({"endpoint_url": f"http://127.0.0.1:{9 + i}",
                                                                     "region": "us-east-1"})
                                                         for i in range(len(scenarios))])[0]),
    ]


def profile(scenarios: Sequence[Any], root: Path, top: int = 25, in_process: bool = True) -> str:
    """cProfile of one harness run, its turns on the main thread (no per-turn timeout: cProfile sees one thread):
    the named stages, then the top functions by own time."""
    profiler = cProfile.Profile()
    profiler.runcall(harness_run, scenarios, root, in_process, False)
    stats = pstats.Stats(profiler)
    rows = []
    for label, suffix, name in STAGES:
        found = [(cc, ct) for (file, _, func), (cc, _, _, ct, _) in stats.stats.items()
                 if func == name and file.endswith(suffix)]
        rows.append((label, sum(c for c, _ in found), f"{sum(t for _, t in found):.3f} s"))
    lines = [table(("stage (cProfile, main thread; inflates pure Python)", "calls", "cumulative"), rows), ""]
    return "\n".join(lines) + _top(stats, top)


def _top(stats: pstats.Stats, top: int) -> str:
    rows = sorted(stats.stats.items(), key=lambda item: item[1][2], reverse=True)[:top]
    body = [(f"{Path(file).name}:{line}({func})"[-70:], calls, f"{own:.3f} s", f"{cum:.3f} s")
            for (file, line, func), (_, calls, own, cum, _) in rows]
    return table(("function", "calls", "own", "cumulative"), body)


def _report(result: dict, scenarios: Sequence[Any], cli: list[float], repetitions: int, loopback: str) -> str:
    harness, bare = summary(result["harness"]), summary(result["bare"])
    turns = sum(len(s.turns) for s in scenarios)
    rows = [("harness run (in-process)", *(f"{harness[k]:.3f} s" for k in ("median", "min", "max"))),
            ("bare vcrpy + boto3 replay", *(f"{bare[k]:.3f} s" for k in ("median", "min", "max"))),
            ("ratio harness / bare", f"{harness['median'] / bare['median']:.2f}x", f"{harness['min'] / bare['min']:.2f}x", ""),
            ("harness per scenario", f"{1000 * harness['median'] / len(scenarios):.1f} ms",
             f"{1000 * harness['min'] / len(scenarios):.1f} ms", "")]
    if result["backoff"]:
        rest, bare_rest = summary(result["harness_rest"]), summary(result["bare_rest"])
        rows += [("without SDK-backoff scenarios: harness", *(f"{rest[k]:.3f} s" for k in ("median", "min", "max"))),
                 ("without SDK-backoff scenarios: bare", *(f"{bare_rest[k]:.3f} s" for k in ("median", "min", "max"))),
                 ("without SDK-backoff scenarios: ratio", f"{rest['median'] / bare_rest['median']:.2f}x",
                  f"{rest['min'] / bare_rest['min']:.2f}x", "")]
    calls = result["calls"]
    if calls["harness"] and calls["bare"]:
        per_call = (harness["median"] / calls["harness"]) / (bare["median"] / calls["bare"])
        rows.append((f"ratio per Bedrock call ({calls['harness']} harness, {calls['bare']} bare)",
                     f"{per_call:.2f}x", "", ""))
    if cli:
        rows.append(("bedrock-harness run (CLI, end to end)", *(f"{summary(cli)[k]:.3f} s" for k in ("median", "min", "max"))))
    lines = [f"machine: {machine()}",
             f"suite: {len(scenarios)} scenarios, {turns} turns, {result['events']} events per bare replay; "
             f"{repetitions} interleaved repetitions" + (f", {len(cli)} CLI runs" if cli else "") +
             f"; loopback {loopback}",
             "", table(("", "median", "min", "max"), rows),
             *([f"(SDK-backoff scenarios: {', '.join(result['backoff'])}: an HTTP-error fault makes boto3 sleep a "
                "random 0-1 s before its retry; the bare replay's cassette holds only the success)"]
               if result["backoff"] else []), "", _slowest(result["per_scenario"]), "",
             _verdict(harness["median"], _without_sleeps(result, harness, bare), cli)]
    if result["not_passing"]:
        lines.append("WARNING: not every scenario passed: " + "; ".join(result["not_passing"]))
    return "\n".join(lines)


def _slowest(per_scenario: list[dict], count: int = 5) -> str:
    medians = {key: summary([s[key] for s in per_scenario])["median"] for key in per_scenario[0]}
    rows = sorted(medians.items(), key=lambda item: item[1], reverse=True)[:count]
    return table(("slowest scenarios (harness)", "median"), [(sid, f"{1000 * s:.0f} ms") for sid, s in rows])


def _without_sleeps(result: dict, harness: dict, bare: dict) -> float:
    """The median ratio harness / bare, without the scenarios whose fault makes boto3 sleep (when there are any)."""
    if not result["backoff"]:
        return harness["median"] / bare["median"]
    return summary(result["harness_rest"])["median"] / summary(result["bare_rest"])["median"]


def _verdict(seconds: float, ratio: float, cli: list[float]) -> str:
    ok = lambda good: "ok" if good else "MISSED"  # noqa: E731
    cli_part = f"; CLI end to end {summary(cli)['median']:.2f} s" if cli else ""
    return (f"target whole suite < {TARGET_SECONDS:.0f} s: {ok(seconds < TARGET_SECONDS)} "
            f"(in-process median {seconds:.2f} s{cli_part}); "
            f"target <= {TARGET_RATIO}x bare, SDK retry sleeps aside: {ok(ratio <= TARGET_RATIO)} ({ratio:.2f}x)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=PROJECT, help="folder with suites/ and cassettes/")
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--limit", type=int, default=0, help="only the first N scenarios (0: all)")
    parser.add_argument("--cli-runs", type=int, default=3, help="end-to-end `bedrock-harness run` timings")
    parser.add_argument("--profile", action="store_true", help="also profile one harness run")
    parser.add_argument("--loopback", choices=("in-process", "http"), default="in-process",
                        help="how the reference's calls reach the loopback server (run's --loopback)")
    args = parser.parse_args(argv)
    fake_aws_env()
    from harness.suite.scenario import discover

    scenarios = discover(args.root / "suites")[: args.limit or None]
    print(_report(measure(scenarios, args.root, args.repetitions, args.loopback == "in-process"), scenarios,
                  cli_times(scenarios, args.root, args.cli_runs, args.loopback), args.repetitions, args.loopback))
    if args.profile:
        print("\n" + table(("stage alone, whole suite (no profiler)", "wall"),
                           [(label, f"{s:.3f} s") for label, s in stage_costs(scenarios, args.root)]))
        print("\n" + profile(scenarios, args.root, in_process=args.loopback == "in-process"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
