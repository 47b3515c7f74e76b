"""Every reader gives one verdict on what it reads (issue 21): Hypothesis mutates one field of a shipped cassette,
foreign (vcrpy) fixture, scenario or golden (a value of another type, a key or item removed, a list item doubled, an
unknown key) and runs every reader of it. None prints a traceback; they refuse the same files with the same line;
what ``cassette verify`` passes ``show`` prints, ``scan`` passes, ``serve`` sends byte for byte with a status line
and headers a client parses and a stream botocore parses, and ``run`` judges without a harness error. The AWS SDK
for JavaScript parses the streams ``verify`` passes too, where Node and the node example's packages are installed.

Six examples per property by default (a few seconds), 40 with ``HARNESS_SLOW_TESTS=1`` (as CI runs them);
``HARNESS_AGREEMENT_EXAMPLES=500`` searches deeper (each run draws new ones; without HARNESS_SLOW_TESTS the draw is
the same every time).
"""

from __future__ import annotations

import copy
import http.client
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.adapters.deadline import with_deadline
from harness.cassettes import cassette as cs
from harness.cassettes import vcr
from harness.cassettes.limits import load_yaml
from harness.cli import main
from harness.cli.serve import resolve_scenario
from harness.endpoint.emulator.script import EmulatorScriptError
from harness.converse import ConverseAdapter
from harness.endpoint.responders import CassetteResponder
from harness.endpoint.server import BedrockServer
from harness.suite import golden, runner
from harness.suite.scenario import ScenarioError, discover, load_scenario
from harness.wire import eventstream

ROOT = Path(__file__).resolve().parents[1]
SLOW = bool(os.environ.get("HARNESS_SLOW_TESTS"))  # .ci/run sets it: CI runs 40 examples per property
EXAMPLES = int(os.environ.get("HARNESS_AGREEMENT_EXAMPLES") or (40 if SLOW else 6))  # more for a deep search
AGREEMENT = settings(max_examples=EXAMPLES, deadline=None, derandomize=not SLOW,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                            HealthCheck.function_scoped_fixture])
ODD = st.one_of(st.none(), st.booleans(), st.integers(-3, 70000), st.floats(-1e3, 1e3), st.text(max_size=12),
                st.lists(st.integers(0, 3), max_size=2),
                st.dictionaries(st.sampled_from(["a", "text", "toolUse", "start"]), st.integers(0, 2), max_size=2))
HARNESS_ERROR = re.compile(r"^[A-Z]\w*(Error|Exception): ")  # runner.run_scenario's last resort: a harness bug


def _shipped(pattern: str) -> dict[str, Any]:
    return {str(p.relative_to(ROOT)): load_yaml(p.read_text()) for p in sorted(ROOT.glob(pattern))}


CASSETTES = _shipped("cassettes/*/*.yaml")
SCENARIOS = {name: doc for name, doc in _shipped("suites/core/*.yaml").items() if not name.endswith(".golden.yaml")}
GOLDENS = _shipped("suites/core/*.golden.yaml")


def _foreign(doc: dict) -> dict:
    """A shipped cassette as a vcrpy cassette (bodies as bytes: ``!!binary`` once dumped)."""
    loaded = cs.from_document(doc, None)
    return {"interactions": [dict(zip(("request", "response"), vcr.to_http(it))) for it in loaded.interactions]}


FOREIGN = {name.replace("cassettes/", "foreign/"): _foreign(doc) for name, doc in list(CASSETTES.items())[::4]}


def _paths(value: Any, here: tuple = ()) -> list[tuple]:
    """The path to every node below ``value`` (mapping keys, list indexes)."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    return [path for key, child in items for path in [(*here, key), *_paths(child, (*here, key))]]


@st.composite
def mutated(draw, documents: dict[str, Any]) -> tuple[str, Any]:
    """(name, document) with one node changed: another type, removed, doubled, or a key beside it."""
    name = draw(st.sampled_from(sorted(documents)))
    doc = copy.deepcopy(documents[name])
    path = draw(st.sampled_from(_paths(doc)))
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    key, how = path[-1], draw(st.sampled_from(["replace", "replace", "remove", "double", "add"]))
    if how == "replace":
        parent[key] = draw(ODD)
    elif how == "remove":
        del parent[key]
    elif how == "double" and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(parent[key]))
    else:
        parent[f"{key}_extra" if isinstance(parent, dict) else key] = draw(ODD)
    return name, doc


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("agreement")
    for top in ("suites", "cassettes"):
        shutil.copytree(ROOT / top, root / top)
    return root


@pytest.fixture(scope="module")
def served() -> BedrockServer:
    with BedrockServer(runner._Idle()) as server:
        yield server


def _written(project: Path, name: str, doc: Any) -> Path:
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    return path


def _cli(*args: Any):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.output, result.exc_info)
    assert "Traceback (most recent call last)" not in result.output, result.output
    return result


def _restore(project: Path, name: str) -> None:
    shutil.copy(ROOT / name, project / name)


# ---------------------------------------------------------------------------------------------------- cassettes


@AGREEMENT
@given(case=mutated(CASSETTES))
def test_every_reader_of_a_cassette_gives_the_verdict_verify_gives(project, served, case):
    name, doc = case
    path = _written(project, name, doc)
    try:
        found = cs.verify(path)
        shown, scanned = _cli("cassette", "show", path), _cli("cassette", "scan", path)
        if found:
            _refused_alike(path, found, shown, scanned)
        else:
            _handled(path, shown, scanned)
        _judged(project, served, name, found)
    finally:
        _restore(project, name)


def _refused_alike(path: Path, found: list[str], shown, scanned) -> None:
    assert shown.exit_code == 1 and (shown.output.startswith(f"Error: {found[0]}\n")
                                     or f"problem: {found[0]}\n" in shown.output), shown.output
    if "not a bedrock-harness cassette" in found[0]:  # YAML that parses: scan reads any
        assert scanned.exit_code == 0, scanned.output
    else:
        assert scanned.exit_code == 1 and scanned.output == "".join(f"{p}\n" for p in found), scanned.output
    with pytest.raises(cs.CassetteError) as caught:
        cs.load_checked(path)
    assert str(caught.value).startswith(found[0])


def _handled(path: Path, shown, scanned) -> None:
    assert shown.exit_code == 0 and "cannot show the rest of the" not in shown.output, shown.output
    assert scanned.exit_code == 0, scanned.output
    _serves_as_recorded(cs.load_checked(path))


def _serves_as_recorded(loaded: cs.Cassette) -> None:
    """Each interaction over HTTP from `serve`'s server: its status line, headers and bytes as recorded, and a
    stream botocore parses up to where a client stops (a modelled exception, an error, a corrupt frame)."""
    if not all(it.operation for it in loaded.interactions):
        return  # a request no client can make: served with a clear 400, nothing to compare
    with BedrockServer(CassetteResponder(loaded), validate=False) as server:
        host, port = urlsplit(server.endpoint_url).netloc.split(":")
        for it in loaded.interactions:
            connection = http.client.HTTPConnection(host, int(port), timeout=30)
            connection.request("POST", urlsplit(it.uri).path, body=b"{}", headers={"Content-Type": "application/json"})
            answer = connection.getresponse()
            body = answer.read()
            connection.close()
            assert answer.status == it.status and body == it.response_body(), (answer.status, it.status)
            for header, value in it.response_headers.items():
                if header.lower() not in ("content-length", "transfer-encoding", "connection", "date", "server"):
                    assert answer.getheader(header) == (", ".join(map(str, value)) if isinstance(value, list)
                                                        else str(value)), header
            if it.frames is not None and it.operation in cs.STREAM_OPERATIONS and it.status < 300:
                _botocore_parses(it)


def _botocore_parses(it: cs.Interaction) -> None:
    try:
        list(eventstream.decode_events(it.response_body(), it.operation))
    except Exception as err:  # noqa: BLE001 -- only where the client stops on purpose
        ended = next((k for k, f in enumerate(it.frames) if f.message_type in ("exception", "error") or not f.headers
                      or getattr(f, "note", "")), None)
        assert ended is not None, f"botocore cannot parse a stream verify passes: {type(err).__name__}: {err}"


def _judged(project: Path, served: BedrockServer, name: str, found: list[str]) -> None:
    """`run`'s verdict: the broken cassette named as verify names it, or a judgement without a harness error."""
    sid = name.removeprefix("cassettes/").removesuffix(".yaml")
    [scenario] = discover(project / "suites", ids=[sid])
    result = runner.run_scenario(scenario, with_deadline(ConverseAdapter(), 30), project, served)
    if found:
        assert result.status == "error" and result.reason.startswith(f"broken cassette: {found[0]}"), result.reason
    else:
        assert not result.reason.startswith("broken cassette") and not HARNESS_ERROR.match(result.reason), result


# --------------------------------------------------------------------------------------------- foreign fixtures


@AGREEMENT
@given(case=mutated(FOREIGN))
def test_an_import_refuses_in_one_line_or_writes_what_verify_then_reports(tmp_path, case):
    name, doc = case
    source, dest = _written(tmp_path, name, doc), tmp_path / "imported.yaml"
    dest.unlink(missing_ok=True)
    imported = _cli("cassette", "import", source, dest)
    if not dest.exists():
        assert imported.exit_code == 1 and imported.output.startswith(f"Error: {source}: "), imported.output
        assert imported.output.count("\n") == 1, imported.output
        return
    found = cs.verify(dest)
    assert imported.exit_code == (1 if found else 0), imported.output
    assert imported.output.splitlines()[:len(found)] == found


# -------------------------------------------------------------------------------------------- scenarios, goldens


@AGREEMENT
@given(case=mutated(SCENARIOS))
def test_every_reader_of_a_scenario_refuses_it_alike_or_runs_it(project, case):
    name, doc = case
    path = _written(project, name, doc)
    sid = name.removeprefix("suites/").removesuffix(".yaml")
    try:
        try:
            scenario = load_scenario(path, project / "suites")
            refused = None
        except ScenarioError as err:
            refused = str(err)
        for args in (["list"], ["run", "--format", "json", "--timeout", "30", "--scenario", sid], ["golden", "check", sid]):
            result = _cli(*args, "--root", project)
            if refused:
                assert (result.exit_code, result.output) == (2, f"Error: {refused}\n"), (args, result.output)
            elif args[0] == "run":
                _no_harness_error(result)
        _emulated(project, sid, refused, None if refused else scenario)
    finally:
        _restore(project, name)


def _emulated(project: Path, sid: str, refused: str | None, scenario) -> None:
    """`serve --emulate`'s reading: the same refusal, or a server that answers each turn without a harness error."""
    try:
        found = resolve_scenario(sid, project / "suites")
    except ScenarioError as err:
        assert str(err) == refused
        return
    assert refused is None
    try:
        server = BedrockServer.from_scenario(found, validate=False)
    except EmulatorScriptError as err:  # a scenario without a script is run from its cassette, never emulated
        assert any(turn.script is None for turn in scenario.turns) and ".script: expected a mapping" in str(err)
        return
    with server:
        host, port = urlsplit(server.endpoint_url).netloc.split(":")
        path = f"/model/{quote(scenario.model_id, safe='')}/{scenario.operation}"
        for _ in scenario.turns:
            connection = http.client.HTTPConnection(host, int(port), timeout=30)
            connection.request("POST", path, body=b"{}", headers={"Content-Type": "application/json"})
            answer = connection.getresponse()
            answer.read()
            connection.close()
            assert answer.status != 500, answer.status


def _no_harness_error(result) -> None:
    assert result.exit_code in (0, 1), result.output
    for row in json.loads(result.output)["results"]:
        assert not HARNESS_ERROR.match(row["reason"]), row


@AGREEMENT
@given(case=mutated(GOLDENS))
def test_run_and_golden_check_refuse_a_broken_golden_alike(project, served, case):
    name, doc = case
    path = _written(project, name, doc)
    sid = name.removeprefix("suites/").removesuffix(".golden.yaml")
    try:
        [scenario] = discover(project / "suites", ids=[sid])
        try:
            golden.load_golden(scenario)
            refused = None
        except golden.GoldenError as err:
            refused = str(err)
        result = runner.run_scenario(scenario, with_deadline(ConverseAdapter(), 30), project, served)
        checked = _cli("golden", "check", sid, "--root", project)
        if refused:
            assert (result.status, result.reason) == ("error", f"broken golden: {refused}"), result
            assert checked.exit_code == 1 and f"error {sid}: {refused}\n" in checked.output, checked.output
        else:
            assert not HARNESS_ERROR.match(result.reason) and not result.reason.startswith("broken"), result
            assert path.exists() and checked.exit_code in (0, 1), checked.output
    finally:
        _restore(project, name)


# ------------------------------------------------------------------------------------------ the JavaScript SDK

NODE_PARSE = r"""
import { BedrockRuntimeClient, ConverseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
const targets = JSON.parse(process.argv[2]);
for (const { url, model } of targets) {
  const client = new BedrockRuntimeClient({ endpoint: url, region: "us-east-1", requestHandler: new NodeHttpHandler(),
    credentials: { accessKeyId: "AKIAFAKEJSPARSE00000", secretAccessKey: "fake" }, maxAttempts: 1 });
  try {
    const answer = await client.send(new ConverseStreamCommand({ modelId: model,
      messages: [{ role: "user", content: [{ text: "hi" }] }] }));
    let events = 0;
    for await (const event of answer.stream) events += 1;
    console.log(JSON.stringify({ url, ok: true, events }));
  } catch (error) {
    console.log(JSON.stringify({ url, ok: false, error: `${error.name}: ${error.message}` }));
  }
}
"""


def _verified_streams(count: int, tmp_path: Path) -> list[cs.Cassette]:
    """Mutated ConverseStream cassettes that verify passes, one frame payload changed in each, found by a seeded
    walk over the shipped ones (deterministic)."""
    import random
    rng, found = random.Random(21), []
    streams = {n: d for n, d in CASSETTES.items() if "converse-stream" in str(d["interactions"][0]["request"]["uri"])}
    while len(found) < count:
        name = rng.choice(sorted(streams))
        doc = copy.deepcopy(streams[name])
        frames = doc["interactions"][0]["response"]["frames"]
        paths = [p for p in _paths(frames) if p[1:2] == ("json",)]
        *parent_path, key = rng.choice(paths)
        parent = frames
        for step in parent_path:
            parent = parent[step]
        parent[key] = rng.choice([None, True, 7, 2.5, "x", "", [], {}, [1], {"a": 1}])
        path = _written(tmp_path, f"{len(found)}-{Path(name).name}", doc)
        if not cs.verify(path):
            found.append(cs.load(path))
    return found


def test_the_javascript_sdk_parses_every_stream_verify_passes(tmp_path):
    from test_examples import NODE_EXAMPLE, node_command

    node_command()  # skips unless node and the node example's packages are installed
    loaded = _verified_streams(20 if SLOW else 8, tmp_path)
    servers = [BedrockServer(CassetteResponder(c), validate=False).start() for c in loaded]
    try:
        targets = [{"url": s.endpoint_url, "model": c.interactions[0].model_id} for s, c in zip(servers, loaded)]
        script = NODE_EXAMPLE / "parse_check.mjs"  # beside node_modules, so the packages resolve
        script.write_text(NODE_PARSE)
        try:
            done = subprocess.run(["node", str(script), json.dumps(targets)], capture_output=True, text=True,
                                  timeout=300, check=False)
        finally:
            script.unlink()
    finally:
        for server in servers:
            server.close()
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(answers) == len(targets), done.stderr[-2000:]
    failed = [(a, c.path) for a, c in zip(answers, loaded) if not a["ok"] and not _ends_on_purpose(c)]
    assert failed == [], failed


def _ends_on_purpose(loaded: cs.Cassette) -> bool:
    """A stream that ends in a modelled exception, an error or a corrupt frame: the SDK raises there too."""
    return any(f.message_type in ("exception", "error") or not f.headers for f in loaded.interactions[0].frames)
