"""Benchmark: ``bedrock-harness run`` and the project's vcrpy integration against plain vcrpy + boto3 replaying the
same recordings.

    python benchmarks/bench_run.py                  # 7 in-process rounds, 5 whole-process rounds
    python benchmarks/bench_run.py --big-mb 50      # also a 50 MB cassette's load: time and memory
    python benchmarks/bench_run.py --profile        # also: where the harness's time goes

Three sides replay the shipped suite's cassettes (or ``--root``'s):

- **plain**: vcrpy as it ships (its YAML serializer, its default matchers, no hooks) and one boto3 client, on
  copies of the cassettes converted to plain vcrpy cassettes (bodies as ``!!binary``; made once, untimed): each
  recorded request is sent again with ``converse_stream`` (``converse``, ``invoke_model_with_response_stream``)
  and every event is iterated. Nothing is scrubbed, scanned, served or judged: the honest baseline.
- **integration**: the same calls through the project's vcrpy integration (``make_vcr(record_mode="none")``: its
  serializer, persister, matchers and record hooks) on the cassettes themselves, what users put in their tests.
- **harness**: ``harness.suite.runner.run`` with the reference adapter as ``run`` loads it (each turn in a worker
  thread under the per-turn timeout), in-process: per scenario the loopback server replays the cassette with its
  faults, the adapter streams every turn through boto3 (also each turn's Converse twin: two calls per recorded
  one), and the runner normalizes, diffs against the golden and checks Bedrock's request rules. In-process, also
  **harness, no twin**: the same without the twin calls, so the report can say what streaming parity costs.

In-process, the sides alternate in one process after an untimed warm-up of each (imports and botocore's service
model loaded on all of them), CPU (the process's, every thread) and wall per round. As whole processes, each round
starts a fresh interpreter per side (``bedrock-harness run`` for the harness; this file's ``--child`` for the
vcrpy sides), the order rotating, CPU from the operating system's accounting of the reaped child. ``--big-mb``
loads one large cassette (text deltas, tests/hostile.py's generator) in a fresh child per side and round: the
seconds of ``use_cassette``'s load and the child's peak resident memory. The targets (issue 32) and whether each is
met close the report. Run on demand only, never in CI.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence
from urllib.parse import unquote, urlsplit, urlunsplit

from _common import PROJECT, compiled, fake_aws_env, machine, memory_mb, summary, table, timed

__all__ = ["harness_run", "integration_replay", "main", "measure", "params_of", "plain_copies", "plain_replay",
           "processes", "profile", "stage_costs", "wire_to_params"]

BARE_ENDPOINT = "https://bedrock-runtime.us-east-1.amazonaws.com"  # never reached: vcrpy answers in-process
CALLS = {  # URI suffix -> (boto3 method, streaming member or None)
    "converse-stream": ("converse_stream", "stream"),
    "converse": ("converse", None),
    "invoke-with-response-stream": ("invoke_model_with_response_stream", "body"),
}
# Issue 32's targets: ratio -> the most it may be.
TARGETS = {"integration / plain, per replay (in-process CPU)": 1.1,
           "harness run / plain, whole processes (CPU)": 1.0,
           "big cassette load time, integration / plain": 1.5,
           "big cassette load peak memory, integration / plain": 1.2}
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


def harness_run(scenarios: Sequence[Any], root: Path, in_process: bool = True, bounded: bool = True,
                twin: bool = True) -> list:
    """``bedrock-harness run`` in-process: the reference adapter loaded as the command loads it (each turn in a
    worker thread under the default per-turn timeout; ``bounded=False``: on this thread, for cProfile, which
    sees only the thread it runs on), every scenario judged. ``twin=False``: the reference without its
    ``non_streaming`` declaration, so no turn makes its Converse twin call (what the twin costs, by difference)."""
    from harness.adapters.deadline import with_deadline
    from harness.cli.common import load
    from harness.converse import ConverseAdapter
    from harness.judge.protocol import NON_STREAMING, TURN_TIMEOUT
    from harness.suite.runner import run

    timeout = TURN_TIMEOUT if bounded else None
    if twin:
        return run(scenarios, load("reference", timeout), root, in_process=in_process)
    adapter = ConverseAdapter()
    adapter.capabilities = adapter.capabilities - {NON_STREAMING}
    return run(scenarios, with_deadline(adapter, timeout), root, in_process=in_process)


def _client(session: Any) -> Any:
    return session.client("bedrock-runtime", region_name="us-east-1", endpoint_url=BARE_ENDPOINT,
                          aws_access_key_id="AKIAFAKEBENCHMARK000", aws_secret_access_key="fake-benchmark-secret")


def plain_copies(cassettes: Sequence[Path], folder: Path) -> list[Path]:
    """Each cassette as a plain vcrpy cassette in ``folder`` (vcrpy's own YAML; the URI on ``BARE_ENDPOINT``, which
    vcrpy's default matchers compare whole), in the same order."""
    from vcr.request import Request
    from vcr.serialize import serialize
    from vcr.serializers import yamlserializer

    from harness.cassettes import cassette
    from harness.cassettes.vcr import to_http

    base, copies = urlsplit(BARE_ENDPOINT), []
    for n, path in enumerate(cassettes):
        requests, responses = [], []
        for interaction in cassette.load(path).interactions:
            request, response = to_http(interaction)
            uri = urlsplit(request["uri"])
            request["uri"] = urlunsplit((base.scheme, base.netloc, uri.path, uri.query, ""))
            requests.append(Request(**request))
            responses.append(response)
        copy = folder / f"{n:04d}-{path.stem}.yaml"
        copy.write_text(serialize({"requests": requests, "responses": responses}, yamlserializer), encoding="utf-8")
        copies.append(copy)
    return copies


def _replay(recorder: Any, cassettes: Sequence[Path], client: Any) -> int:
    """Every interaction of ``cassettes`` sent again through ``client`` under ``recorder``; the events read."""
    events = 0
    for path in cassettes:
        with recorder.use_cassette(str(path)) as cassette:
            events += sum(_call(client, request) for request in list(cassette.requests))
    return events


def plain_replay(copies: Sequence[Path], session: Any) -> int:
    """The plain copies replayed with vcrpy as it ships and one boto3 client; the number of events read."""
    import vcr

    return _replay(vcr.VCR(record_mode="none"), copies, _client(session))


def integration_replay(cassettes: Sequence[Path], session: Any) -> int:
    """The cassettes replayed through the project's vcrpy integration and one boto3 client; the events read."""
    from harness.cassettes.vcr import make_vcr

    return _replay(make_vcr(record_mode="none"), cassettes, _client(session))


@contextlib.contextmanager
def _counted_calls():
    """{"served": requests the loopback endpoint answered, "played": requests vcrpy replayed} while inside."""
    from harness.endpoint import server
    from vcr.cassette import Cassette

    counts, answer, play = {"served": 0, "played": 0}, server._Session.answer, Cassette.play_response

    def counted_answer(self, request):
        counts["served"] += 1
        return answer(self, request)

    def counted_play(self, request):
        counts["played"] += 1
        return play(self, request)

    server._Session.answer, Cassette.play_response = counted_answer, counted_play
    try:
        yield counts
    finally:
        server._Session.answer, Cassette.play_response = answer, play


def _rotated(names: Sequence[str], n: int) -> list[str]:
    """The sides in round ``n``'s order: each starts a round in turn, so drift in the machine's speed hits all."""
    k = n % len(names)
    return [*names[k:], *names[:k]]


def measure(scenarios: Sequence[Any], root: Path, copies: Sequence[Path], rounds: int, in_process: bool = True) -> dict:
    """In-process CPU and wall seconds of each side per round, after an untimed warm-up of each; the Bedrock calls
    each side made; what did not pass or did not read the same events."""
    import boto3
    from harness.suite.runner import cassette_path

    session, cassettes = boto3.session.Session(), [cassette_path(root, s) for s in scenarios]
    sides: dict[str, Callable[[], Any]] = {
        "harness": lambda: harness_run(scenarios, root, in_process),
        "harness, no twin": lambda: harness_run(scenarios, root, in_process, twin=False),
        "integration": lambda: integration_replay(cassettes, session),
        "plain": lambda: plain_replay(copies, session),
    }
    warm, calls, first = {}, {}, {}
    for name, run in sides.items():
        with _counted_calls() as counted:
            start = time.process_time()
            warm[name] = run()
            first[name] = time.process_time() - start  # the integration's: every cassette's first load and scan
        calls[name] = counted["served"] + counted["played"]
    samples = {name: {"cpu": [], "wall": []} for name in sides}
    for n in range(rounds):
        for name in _rotated(list(sides), n):
            cpu, wall = time.process_time(), time.perf_counter()
            sides[name]()
            samples[name]["cpu"].append(time.process_time() - cpu)
            samples[name]["wall"].append(time.perf_counter() - wall)
    problems = [f"{r.scenario}: {r.status}" for r in warm["harness"] if r.status != "pass"]
    problems += [f"{r.scenario} (no twin): {r.status}" for r in warm["harness, no twin"] if r.status != "pass"]
    if warm["plain"] != warm["integration"]:
        problems.append(f"plain read {warm['plain']} events, the integration {warm['integration']}")
    return {"samples": samples, "calls": calls, "events": warm["plain"], "first": first, "problems": problems}


def _reaped(argv: Sequence[str], log: Path) -> tuple[float, float, int]:
    """(CPU seconds as the operating system counted them, wall seconds, exit status) of one child run to its end."""
    with open(log, "ab") as stderr:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr, cwd=PROJECT)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, wall, child.returncode


def _harness_command() -> list[str]:
    """``bedrock-harness`` as a user types it (this environment's console script), else ``python -m``."""
    script = Path(sys.executable).with_name("bedrock-harness")
    return [str(script)] if script.exists() else [sys.executable, "-m", "harness.cli"]


def processes(scenarios: Sequence[Any], root: Path, copies: Sequence[Path], rounds: int, log: Path,
              every: bool) -> dict:
    """CPU and wall seconds of each side as a fresh process per round (``every``: the whole suite, no ids given)."""
    from harness.suite.runner import cassette_path

    chosen = [] if every else [arg for s in scenarios for arg in ("--scenario", s.id)]
    cassettes = [str(cassette_path(root, s)) for s in scenarios]
    commands = {
        "harness": [*_harness_command(), "run", "--no-progress", "--root", str(root), *chosen],
        "integration": [sys.executable, __file__, "--child", "integration", *cassettes],
        "plain": [sys.executable, __file__, "--child", "plain", *map(str, copies)],
    }
    for argv in commands.values():
        _reaped(argv, log)  # warm the file cache and the parsed-YAML cache once, untimed
    samples = {name: {"cpu": [], "wall": []} for name in commands}
    failed = []
    for n in range(rounds):
        for name in _rotated(list(commands), n):
            cpu, wall, code = _reaped(commands[name], log)
            samples[name]["cpu"].append(cpu)
            samples[name]["wall"].append(wall)
            if code not in ((0, 1) if name == "harness" else (0,)):
                failed.append(f"{name} exited {code} (see {log})")
    return {"samples": samples, "problems": sorted(set(failed))}


def big_load(megabytes: int, rounds: int, folder: Path, log: Path) -> dict:
    """Seconds and peak memory of loading one ``megabytes`` cassette with each vcrpy side, a fresh child each (the
    integration's first load, with its secret scan, once apart)."""
    sys.path.insert(0, str(PROJECT / "tests"))
    from hostile import big_cassette

    frames = max(1000, megabytes * 1000 * 1000 // 250)  # about 250 bytes of YAML per text-delta frame
    if frames >= 100_000:  # the generator's interactions hold 100,000 frames each
        path = big_cassette(folder / "big.yaml", interactions=frames // 100_000, text_size=180)
    else:
        path = _short_big(folder / "big.yaml", frames)
    copy = plain_copies([path], folder)[0]
    size = path.stat().st_size / 2**20
    commands = {"integration": [sys.executable, __file__, "--child", "load-integration", str(path)],
                "plain": [sys.executable, __file__, "--child", "load-plain", str(copy)]}
    cold = os.environ.get("BEDROCK_HARNESS_PARSED_CACHE")
    os.environ["BEDROCK_HARNESS_PARSED_CACHE"] = str(folder / "first-load-cache")
    try:
        first = _loaded(commands["integration"], log)
    finally:
        os.environ["BEDROCK_HARNESS_PARSED_CACHE"] = cold or ""
        if cold is None:
            del os.environ["BEDROCK_HARNESS_PARSED_CACHE"]
    _loaded(commands["integration"], log)  # the replay's case: this file seen clean, its document cached
    samples: dict[str, list[dict]] = {name: [] for name in commands}
    for n in range(rounds):
        for name in _rotated(list(commands), n):
            samples[name].append(_loaded(commands[name], log))
    return {"megabytes": size, "first": first, "samples": samples}


def _short_big(path: Path, frames: int) -> Path:
    """A one-interaction cassette of ``frames`` text deltas (a small ``--big-mb``, as the smoke test runs it)."""
    from hostile import cassette_text, frame_lines

    path.write_text(cassette_text(frame_lines(["'" + "x" * 180 + "'"] * frames)), encoding="utf-8")
    return path


def _loaded(argv: Sequence[str], log: Path) -> dict:
    """What a ``--child load-*`` run printed (its load's seconds, peak and starting memory)."""
    with open(log, "ab") as stderr:
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=stderr, cwd=PROJECT, check=True)
    return json.loads(done.stdout.decode().splitlines()[-1])


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


def _median(values: Sequence[float]) -> float:
    return summary(values)["median"]


def _rows(samples: dict, unit: Callable[[float], str]) -> list[tuple]:
    return [(name, *(unit(summary(s[key])[stat]) for key in ("cpu", "wall") for stat in ("median", "min")))
            for name, s in samples.items()]


def _seconds(value: float) -> str:
    return f"{value:.3f} s"


def _verdict(name: str, ratio: float | None) -> str:
    if ratio is None:
        return f"target {name} <= {TARGETS[name]}x: not measured"
    return f"target {name} <= {TARGETS[name]}x: {'ok' if ratio <= TARGETS[name] else 'MISSED'} ({ratio:.2f}x)"


def _report(inproc: dict, whole: dict | None, big: dict | None, scenarios: Sequence[Any], rounds: int,
            loopback: str) -> str:
    cpu = {name: _median(s["cpu"]) for name, s in inproc["samples"].items()}
    calls = inproc["calls"]
    lines = [f"machine: {machine()}",
             f"suite: {len(scenarios)} scenarios, {sum(len(s.turns) for s in scenarios)} turns, {inproc['events']} "
             f"events per vcrpy replay; loopback {loopback}; Bedrock calls: harness {calls['harness']} (each turn's "
             f"Converse twin too), integration {calls['integration']}, plain {calls['plain']}", "",
             f"in-process, {rounds} rounds (CPU: the whole process's, every thread)",
             table(("", "CPU median", "CPU min", "wall median", "wall min"), _rows(inproc["samples"], _seconds)),
             f"integration, first load of every cassette (read, parse, secret scan): {_seconds(inproc['first']['integration'])} CPU",
             f"ratios of CPU medians: integration / plain {cpu['integration'] / cpu['plain']:.2f}x, harness / plain "
             f"{cpu['harness'] / cpu['plain']:.2f}x, harness / plain per Bedrock call "
             f"{(cpu['harness'] / calls['harness']) / (cpu['plain'] / calls['plain']):.2f}x",
             f"the Converse twin (streaming parity: {calls['harness'] - calls['harness, no twin']} more calls, rendered, "
             f"judged): {cpu['harness'] - cpu['harness, no twin']:.3f} s CPU; the harness without it / plain "
             f"{cpu['harness, no twin'] / cpu['plain']:.2f}x"]
    ratios = {"integration / plain, per replay (in-process CPU)": cpu["integration"] / cpu["plain"]}
    if whole:
        wcpu = {name: _median(s["cpu"]) for name, s in whole["samples"].items()}
        wall = {name: _median(s["wall"]) for name, s in whole["samples"].items()}
        ratios["harness run / plain, whole processes (CPU)"] = wcpu["harness"] / wcpu["plain"]
        lines += ["", f"whole processes, {len(next(iter(whole['samples'].values()))['cpu'])} rounds (bedrock-harness "
                      "run; this file's --child for the vcrpy sides)",
                  table(("", "CPU median", "CPU min", "wall median", "wall min"), _rows(whole["samples"], _seconds)),
                  f"ratios of medians: harness / plain CPU {wcpu['harness'] / wcpu['plain']:.2f}x, wall "
                  f"{wall['harness'] / wall['plain']:.2f}x; integration / plain CPU "
                  f"{wcpu['integration'] / wcpu['plain']:.2f}x",
                  "what each part costs (CPU medians): " + "; ".join(
                      f"{name} start-up and imports {wcpu[name] - cpu[name]:.3f} s + the replay {cpu[name]:.3f} s"
                      for name in wcpu)]
        inproc["problems"] += whole["problems"]
    if big:
        load = {name: _median([r["seconds"] for r in rows]) for name, rows in big["samples"].items()}
        peak = {name: _median([r["peak_mb"] for r in rows]) for name, rows in big["samples"].items()}
        grown = {name: _median([r["peak_mb"] - r["before_mb"] for r in rows]) for name, rows in big["samples"].items()}
        ratios["big cassette load time, integration / plain"] = load["integration"] / load["plain"]
        ratios["big cassette load peak memory, integration / plain"] = peak["integration"] / peak["plain"]
        rows = [(name, _seconds(load[name]), f"{peak[name]:.0f} MiB", f"{grown[name]:.0f} MiB") for name in load]
        first = big["first"]
        lines += ["", f"a {big['megabytes']:.0f} MB cassette loaded by use_cassette, a fresh child each, "
                      f"{len(big['samples']['plain'])} rounds (medians)",
                  table(("", "load", "peak RSS", "peak - RSS before the load"), rows),
                  f"integration's first load of it (secret scan, YAML parsed, nothing cached): "
                  f"{_seconds(first['seconds'])}, peak {first['peak_mb']:.0f} MiB"]
    lines += ["", *(_verdict(name, ratios.get(name)) for name in TARGETS)]
    if inproc["problems"]:
        lines.append("WARNING: " + "; ".join(inproc["problems"]))
    return "\n".join(lines)


def _child(kind: str, paths: Sequence[str]) -> int:
    """One side as a process of its own (``--child``): a replay of ``paths``, or a load of one big cassette."""
    if kind.startswith("load-"):
        if kind == "load-plain":
            import vcr

            recorder = vcr.VCR(record_mode="none")
        else:
            from harness.cassettes.vcr import make_vcr

            recorder = make_vcr(record_mode="none")
        before = memory_mb()
        start = time.perf_counter()
        with recorder.use_cassette(paths[0]) as cassette:
            seconds, held = time.perf_counter() - start, len(cassette.requests)
        print(json.dumps({"seconds": seconds, "peak_mb": memory_mb()["peak"], "before_mb": before["rss"],
                          "interactions": held}))
        return 0
    import boto3

    replay = plain_replay if kind == "plain" else integration_replay
    print(replay([Path(p) for p in paths], boto3.session.Session()))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=PROJECT, help="folder with suites/ and cassettes/")
    parser.add_argument("--rounds", type=int, default=7, help="in-process rounds")
    parser.add_argument("--process-rounds", type=int, default=5, help="whole-process rounds (0: none)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N scenarios (0: all)")
    parser.add_argument("--big-mb", type=int, default=0, help="also load a cassette of about this size (0: none)")
    parser.add_argument("--big-rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="also profile one harness run")
    parser.add_argument("--loopback", choices=("in-process", "http"), default="in-process",
                        help="how the reference's calls reach the loopback server (run's --loopback)")
    parser.add_argument("--child", choices=("plain", "integration", "load-plain", "load-integration"),
                        help=argparse.SUPPRESS)  # internal: one side in a process of its own
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    fake_aws_env()
    if args.child:
        return _child(args.child, args.paths)
    compiled()
    from harness.suite.scenario import discover

    scenarios = discover(args.root / "suites")[: args.limit or None]
    with tempfile.TemporaryDirectory(prefix="bench-run-") as folder:
        work = Path(folder)
        # The parsed-YAML cache (and the integration's secret-free marks) of this run alone: the first loads are
        # the warm-ups, every child shares what they left.
        os.environ["BEDROCK_HARNESS_PARSED_CACHE"] = str(work / "parsed")
        log = work / "children.log"
        from harness.suite.runner import cassette_path

        copies = plain_copies([cassette_path(args.root, s) for s in scenarios], work)
        inproc = measure(scenarios, args.root, copies, args.rounds, args.loopback == "in-process")
        whole = processes(scenarios, args.root, copies, args.process_rounds, log, not args.limit) \
            if args.process_rounds else None
        big = big_load(args.big_mb, args.big_rounds, work, log) if args.big_mb else None
        print(_report(inproc, whole, big, scenarios, args.rounds, args.loopback))
    if args.profile:
        print("\n" + table(("stage alone, whole suite (no profiler)", "wall"),
                           [(label, f"{s:.3f} s") for label, s in stage_costs(scenarios, args.root)]))
        print("\n" + profile(scenarios, args.root, in_process=args.loopback == "in-process"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
