"""Benchmark: ``run`` over N generated scenarios; time per scenario and peak memory at several sizes.

    python benchmarks/bench_scale.py                       # 1000 scenarios, sizes 100,250,500,1000
    python benchmarks/bench_scale.py --n 300 --sizes 100,300 --tracemalloc --workdir /tmp/scale
    python benchmarks/bench_scale.py --n 10000 --sizes 1000,10000 --jobs 1,2 --other-python /old/venv/bin/python
    python benchmarks/bench_scale.py --n 2000 --sizes 2000 --floor   # and the Bedrock calls alone, nothing judged

Preparation (reported apart, never counted as run time): scenario files are generated into a temporary
root (half are the shipped scenarios with a varied prompt, half are built from a small grammar: 1-4 turns,
1-4 parallel calls of two tools with varied inputs, optional signed reasoning), their cassettes are
recorded with ``record_scenario`` against the emulator (``record --emulate``'s path) and their goldens are
written from the reference (``golden update``'s path: ``iter_runs`` + ``write_golden``). Each size is then
run over the first k scenarios in a fresh child process, so its high-water RSS belongs to that run alone;
the child times ``run`` after an untimed one-scenario warm-up. Run on demand only, never in CI.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Sequence

import yaml

from _common import PROJECT, fake_aws_env, machine, memory_mb, table, timed

__all__ = ["generate", "grammar_scenario", "main", "measure_floor", "measure_size", "prepare", "variant"]

SUITE = "gen"
MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
TOOLS = [
    {"name": "read_file", "description": "Read the contents of a file at the specified path.",
     "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    {"name": "search", "description": "Search the files for a query.",
     "input_schema": {"type": "object", "properties": {"query": {"type": "string"},
                                                       "filters": {"type": "object"}}, "required": ["query"]}},
]
RESULTS = {"read_file": {"content": "Contents of {input[path]}: line one."},
           "search": {"content": "2 matches for {input[query]}."}}


def _shipped(include_http_faults: bool) -> list[tuple[str, dict]]:
    """The shipped scenarios as raw data; HTTP-error faults (a random 0-1 s SDK backoff each) only if asked."""
    items = []
    for path in sorted((PROJECT / "suites").glob("*/*.yaml")):
        if not path.name.endswith(".golden.yaml"):
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            if include_http_faults or not any("http_error" in f for f in data.get("faults", [])):
                items.append((path.stem, data))
    return items


def variant(data: dict, i: int) -> dict:
    """A shipped scenario with a different prompt (its script, checks and faults unchanged)."""
    data = json.loads(json.dumps(data))  # a deep copy of plain YAML data
    first = data["turns"][0]["messages"][0]
    if isinstance(first["content"], str):
        first["content"] = f"{first['content']} (variant {i})"
    data["title"] = f"{data['title']} (variant {i})"
    return data


def _call(rng: random.Random, i: int, t: int, k: int) -> dict:
    if rng.random() < 0.6:
        return {"tool_use": {"name": "read_file", "input": {"path": f"/tmp/gen{i}/t{t}/file{k}.txt"}}}
    filters = {"ext": rng.sample([".py", ".md", ".txt", ".json"], rng.randint(1, 3)), "max": rng.randint(1, 50)}
    return {"tool_use": {"name": "search", "input": {"query": f"needle {i}-{t}-{k} ünïcode ✓", "filters": filters}}}


def _tool_turn(rng: random.Random, i: int, t: int, calls: int, thinking: bool) -> dict:
    content = []
    if thinking:
        signature = base64.b64encode(rng.randbytes(48)).decode()
        content.append({"reasoning": f"Turn {t}: I need {calls} tool call(s) first.", "signature": signature})
    if rng.random() < 0.5:
        content.append({"text": f"Let me look that up ({calls} call(s))."})
    content += [_call(rng, i, t, k) for k in range(calls)]
    usage = {"input_tokens": 400 + 60 * t, "output_tokens": 20 + 35 * calls}
    return {"messages": [], "script": {"content": content, "stop_reason": "tool_use", "usage": usage},
            "tool_results": RESULTS}


def grammar_scenario(i: int, rng: random.Random) -> dict:
    """A fresh scenario: 1-4 turns, 1-4 parallel calls per tool turn, a text answer last, maybe reasoning."""
    turns, thinking = rng.randint(1, 4), rng.random() < 0.3
    counts = [rng.randint(1, 4) for _ in range(max(turns - 1, 1))]
    body = [_tool_turn(rng, i, t, n, thinking) for t, n in enumerate(counts)]
    if turns > 1:
        body.append({"messages": [], "script": {"content": [{"text": f"Done with scenario {i}."}],
                                                "stop_reason": "end_turn", "usage": {"input_tokens": 900,
                                                                                      "output_tokens": 12}}})
    body[0]["messages"] = [{"role": "user", "content": f"Scenario {i}: read and search what you need."}]
    hard = [c for t, n in enumerate(counts) for c in ({"turn": t, "tool_calls_exactly": n}, {"turn": t, "no_error": True})]
    requires = {"tool_use", *(["parallel_tool_use"] if max(counts) > 1 else []), *(["round_trip"] if turns > 1 else []),
                *(["reasoning", "reasoning_signature"] if thinking else [])}
    options = {"max_tokens": 2048, "thinking_budget": 1024} if thinking else {"max_tokens": 1024, "temperature": 0}
    return {"title": f"Generated scenario {i}", "tags": ["generated"], "requires": sorted(requires),
            "model_id": MODEL, "tools": TOOLS, "options": {**options, "tool_choice": "auto"}, "turns": body,
            "checks": {"hard": hard, "soft": []}}


def generate(root: Path, n: int, seed: int = 0, include_http_faults: bool = False) -> list[Path]:
    """Write ``n`` scenario files to ``root/suites/gen/``, alternating shipped variants and grammar ones."""
    rng, shipped, folder = random.Random(seed), _shipped(include_http_faults), root / "suites" / SUITE
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        name, data = shipped[(i // 2) % len(shipped)] if i % 2 == 0 else ("grammar", grammar_scenario(i, rng))
        path = folder / f"s{i:05d}-{name}.yaml"
        path.write_text(yaml.safe_dump(variant(data, i) if i % 2 == 0 else data, sort_keys=False,
                                       allow_unicode=True), encoding="utf-8")
        paths.append(path)
    return paths


def prepare(root: Path) -> dict[str, float]:
    """Record every scenario under ``root`` with the emulator, then write its golden; seconds of each step."""
    from harness.suite import golden
    from harness.converse import ConverseAdapter
    from harness.suite.record import Target, record_scenario
    from harness.suite.runner import iter_runs
    from harness.suite.scenario import discover

    scenarios = discover(root / "suites")
    adapter, start = ConverseAdapter(), time.perf_counter()
    failed = [o for o in (record_scenario(s, adapter, root, Target("emulator")) for s in scenarios)
              if o.status not in ("recorded", "exists")]
    if failed:
        raise SystemExit(f"recording failed: {failed[0].scenario}: {'; '.join(failed[0].messages)}")
    recorded = time.perf_counter()
    for scenario, run in iter_runs(scenarios, ConverseAdapter(), root):
        golden.write_golden(scenario, run.golden_turns())
    return {"record": recorded - start, "golden": time.perf_counter() - recorded}


def measure_size(root: Path, size: int, trace: bool = False, jobs: int = 1) -> dict:
    """``run`` over the first ``size`` scenarios in this process (``jobs`` > 1: ``bedrock-harness run --jobs``, its
    children included): seconds, verdicts, memory."""
    from harness.cli.common import load
    from harness.judge.protocol import TURN_TIMEOUT
    from harness.suite.runner import run
    from harness.suite.scenario import discover

    load_s, scenarios = timed(discover, root / "suites")
    scenarios = scenarios[:size]
    run(scenarios[:1], load("reference", TURN_TIMEOUT), root)  # warm-up: imports, botocore's model, first server
    before = memory_mb()
    if trace:
        tracemalloc.start()
    adapter = load("reference", TURN_TIMEOUT)  # as `bedrock-harness run` loads it, kept alive until measured
    seconds, results = timed(run, scenarios, adapter, root) if jobs == 1 else timed(_in_children, scenarios, root, jobs)
    traced = tracemalloc.get_traced_memory()[1] / 2**20 if trace else None
    statuses = [r.status for r in results]
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 if jobs > 1 else None
    return {"size": len(scenarios), "seconds": seconds, "discover_s": load_s, "passed": statuses.count("pass"),
            "not_passing": [f"{r.scenario}: {r.status} {r.reason}" for r in results if r.status != "pass"][:5],
            "rss_before": before["rss"], **memory_mb(), "threads": threading.active_count(), "traced_peak": traced,
            "jobs": jobs, "child_peak": children}


def measure_floor(root: Path, size: int) -> dict:
    """The floor under ``run``'s time: the same Bedrock calls the reference makes for the first ``size``
    scenarios, and nothing else. Each recorded request is sent again through one boto3 client and its stream read
    to the end, then once more through ``converse`` (the reference's streaming-parity twin), answered in-process
    by one loopback server from the cassette as ``run``'s server answers them (its request rules included): no
    adapter, no faults, no retries, nothing normalized or judged. Same shape of result as ``measure_size``."""
    import boto3
    from botocore.config import Config
    from harness.cassettes.cassette import load_checked
    from harness.endpoint.responders import CassetteResponder
    from harness.endpoint.server import BedrockServer
    from harness.suite.runner import cassette_path
    from harness.suite.scenario import discover

    scenarios = discover(root / "suites")[:size]
    with BedrockServer(CassetteResponder(load_checked(cassette_path(root, scenarios[0]))), in_process=True) as server:
        client = boto3.session.Session().client(  # one attempt: a recorded error is read once, never slept on
            "bedrock-runtime", region_name="us-east-1", endpoint_url=server.endpoint_url,
            aws_access_key_id="AKIAFAKEBENCHMARK000", aws_secret_access_key="fake-benchmark-secret",
            config=Config(retries={"mode": "standard", "total_max_attempts": 1}))
        replay = lambda s: _floor_scenario(client, server, load_checked(cassette_path(root, s)))  # noqa: E731
        replay(scenarios[0])  # warm-up, as measure_size's
        before = memory_mb()
        seconds, failures = timed(lambda: [f for s in scenarios for f in replay(s)])
    return {"size": len(scenarios), "seconds": seconds, "passed": len(scenarios) - len(failures),
            "not_passing": failures[:5], "rss_before": before["rss"], **memory_mb(),
            "threads": threading.active_count(), "traced_peak": None, "jobs": 1, "child_peak": None}


def _floor_scenario(client, server, loaded) -> list[str]:
    """Send a cassette's requests again (each ConverseStream also as Converse); what failed, as lines."""
    from bench_run import params_of
    from harness.endpoint.responders import CassetteResponder

    server.reset(CassetteResponder(loaded), pairs=True)
    failures = []
    for it in loaded.interactions:
        if it.operation != "ConverseStream":
            continue
        params = params_of(client, "converse_stream", it.request_body)
        try:
            for _ in client.converse_stream(modelId=it.model_id, **params)["stream"]:
                pass
        except Exception as error:  # noqa: BLE001 -- a recorded failure is what the stream holds: read, not judged
            failures += [] if it.status >= 300 or "EventStreamError" in type(error).__name__ else [repr(error)]
        try:
            client.converse(modelId=it.model_id, **params)
        except Exception:  # noqa: BLE001,S110 -- the twin of a failed stream fails too, as it does under run
            pass
    return failures


def _in_children(scenarios: Sequence, root: Path, jobs: int) -> list:
    """``bedrock-harness run --jobs`` over ``scenarios``: its children discover, run and report; this joins them."""
    from harness.cli.jobs import run_in_children
    from harness.studies import merge

    chosen = [arg for s in scenarios for arg in ("--scenario", s.id)]
    merged = run_in_children("run", ["--adapter", "reference", "--root", str(root), *chosen], jobs, len(scenarios),
                             False)
    return merge.results_of(merged)


def _measure_in_child(root: Path, size: int, trace: bool, python: str = sys.executable, jobs: int = 1,
                      floor: bool = False) -> dict:
    argv = [python, __file__, "--child", str(root), "--sizes", str(size), "--jobs", str(jobs),
            *(["--tracemalloc"] if trace else []), *(["--floor"] if floor else [])]
    with tempfile.TemporaryDirectory(prefix="bench-scale-cold-") as cold:
        env = dict(os.environ)
        if env.get("BEDROCK_HARNESS_PARSED_CACHE") == "cold":
            env["BEDROCK_HARNESS_PARSED_CACHE"] = cold
        done = subprocess.run(argv, capture_output=True, text=True, env=env)
    if done.returncode:
        raise SystemExit(f"size {size} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _report(rows: list[dict], n: int, prep: dict, trace: bool) -> str:
    body = [(r.get("label", "this"), r.get("jobs", 1), r["size"], f"{r['seconds']:.2f} s",
             f"{1000 * r['seconds'] / r['size']:.1f} ms", f"{r['passed']}/{r['size']}", f"{r['rss_before']:.0f}",
             f"{r['rss']:.0f}", f"{r['peak']:.0f}", f"{1024 * (r['peak'] - r['rss_before']) / r['size']:.0f}",
             f"{r['child_peak']:.0f}" if r.get("child_peak") else "-", r["threads"],
             f"{r['traced_peak']:.1f}" if trace else "-") for r in rows]
    mine = [r for r in rows if r.get("label", "this") == "this" and r.get("jobs", 1) == rows[0].get("jobs", 1)]
    per = [r["seconds"] / r["size"] for r in mine]
    headers = ("harness", "jobs", "scenarios", "run", "per scenario", "passed", "RSS before", "RSS after", "peak RSS",
               "KiB/scenario", "worker peak RSS", "threads after", "tracemalloc peak")
    lines = [f"machine: {machine()}",
             f"prepared {n} scenarios: generate {prep['generate']:.1f} s, record (emulator, record_scenario) "
             f"{prep['record']:.1f} s ({1000 * prep['record'] / n:.0f} ms each), goldens {prep['golden']:.1f} s "
             f"({1000 * prep['golden'] / n:.0f} ms each); preparing process peak RSS {prep['peak_mib']:.0f} MiB",
             "", table(headers, body), "(memory in MiB; KiB/scenario = (peak - before) / scenarios)", "",
             f"per-scenario time, largest / smallest size: {per[-1] / per[0]:.2f}x (1.00x is perfectly linear)",
             *_ratios(rows)]
    if trace:
        lines.append("(tracemalloc on: run times include its overhead)")
    lines += [f"NOT PASSING at size {r['size']}: " + "; ".join(r["not_passing"]) for r in rows if r["not_passing"]]
    return "\n".join(lines)


def _ratios(rows: list[dict]) -> list[str]:
    """Per size, every other row's time over the first row's (measured in the same run, interleaved)."""
    lines = []
    for size in sorted({r["size"] for r in rows}):
        same = [r for r in rows if r["size"] == size]
        lines += [f"size {size}: {r.get('label', 'this')} jobs {r.get('jobs', 1)} / {same[0].get('label', 'this')} "
                  f"jobs {same[0].get('jobs', 1)} = {r['seconds'] / same[0]['seconds']:.2f}x" for r in same[1:]]
    return lines


def _sizes(text: str, n: int) -> list[int]:
    return sorted({min(int(s), n) for s in text.split(",") if s.strip()}) or [n]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="scenarios to generate")
    parser.add_argument("--sizes", default="100,250,500,1000", help="run sizes (capped at --n)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tracemalloc", action="store_true", help="also trace Python allocations (slower runs)")
    parser.add_argument("--with-http-faults", action="store_true",
                        help="include the HTTP 429 scenario's variants (each sleeps a random 0-1 s SDK backoff)")
    parser.add_argument("--workdir", type=Path, help="generate here and keep it (reused when already prepared)")
    parser.add_argument("--jobs", default="1", help="also measure `run --jobs N` for each N given (e.g. 1,2)")
    parser.add_argument("--other-python", metavar="PYTHON",
                        help="also measure with this interpreter's bedrock-harness (e.g. an older checkout's venv), "
                             "interleaved with this one's")
    parser.add_argument("--parsed-cache", choices=("warm", "cold", "off"), default="warm",
                        help="the parsed-YAML cache (harness.cassettes.parsed) when each size runs: filled beforehand "
                             "(untimed), empty for each run, or off")
    parser.add_argument("--floor", action="store_true",
                        help="also measure the floor: the reference's Bedrock calls alone, answered in-process, "
                             "nothing judged (measure_floor)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)  # internal: measure one size, print JSON
    args = parser.parse_args(argv)
    fake_aws_env()
    if args.child:
        measured = measure_floor(args.child, int(args.sizes)) if args.floor else \
            measure_size(args.child, int(args.sizes), args.tracemalloc, int(args.jobs))
        print(json.dumps(measured))
        return 0
    root = args.workdir or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    try:
        prep = _prepare_root(root, args)
        plan = [("this", sys.executable, int(j)) for j in args.jobs.split(",")]
        plan += [("other", args.other_python, 1)] if args.other_python else []
        plan += [("floor", sys.executable, 1)] if args.floor else []
        with _parsed_cache(args.parsed_cache, root):
            rows = [{**_measure_in_child(root, size, args.tracemalloc, python, jobs, label == "floor"), "label": label}
                    for size in _sizes(args.sizes, args.n) for label, python, jobs in plan]
        print(_report(rows, args.n, prep, args.tracemalloc) + f"\nparsed-YAML cache: {args.parsed_cache}")
    finally:
        if args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


@contextlib.contextmanager
def _parsed_cache(state: str, root: Path):
    """The parsed-YAML cache the children see, set in ``BEDROCK_HARNESS_PARSED_CACHE``: ``warm`` (every file of
    ``root`` parsed once beforehand, and every cassette checked, untimed, into a folder of this benchmark's), ``cold`` (a fresh empty folder for
    each child: ``_measure_in_child`` makes it) or ``off``."""
    with tempfile.TemporaryDirectory(prefix="bench-scale-parsed-") as folder:
        os.environ["BEDROCK_HARNESS_PARSED_CACHE"] = {"off": "off", "cold": "cold"}.get(state, folder)
        if state == "warm":
            from harness.cassettes.cassette import load_checked
            from harness.cassettes.parsed import load_yaml_bytes

            for path in sorted(root.rglob("*.yaml")):
                load_yaml_bytes(path.read_bytes())
            for path in sorted((root / "cassettes").rglob("*.yaml")):
                load_checked(path)  # and each cassette's clean mark, as a second run of the same suite finds it
        try:
            yield
        finally:
            os.environ.pop("BEDROCK_HARNESS_PARSED_CACHE", None)


def _prepare_root(root: Path, args: argparse.Namespace) -> dict[str, float]:
    """Generate, record and write goldens, unless ``root`` already holds a prepared set of this size."""
    marker = root / "prepared.json"
    if marker.is_file() and json.loads(marker.read_text())["n"] == args.n:
        return json.loads(marker.read_text())["times"]
    for folder in (root / "suites" / SUITE, root / "cassettes" / SUITE):
        shutil.rmtree(folder, ignore_errors=True)
    generate_s = timed(generate, root, args.n, args.seed, args.with_http_faults)[0]
    times = {"generate": generate_s, **prepare(root), "peak_mib": memory_mb()["peak"]}
    marker.write_text(json.dumps({"n": args.n, "times": times}))
    return times


if __name__ == "__main__":
    sys.exit(main())
