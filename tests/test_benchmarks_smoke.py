"""The benchmarks still run end to end on a minimal size (they are never timed here; see benchmarks/README.md)."""

import re
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def benchmarks(monkeypatch):
    """The benchmark modules, importable the way ``python benchmarks/bench_run.py`` imports them."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_run
    import bench_scale

    return bench_run, bench_scale


def test_bench_run_compares_the_harness_and_the_integration_with_plain_vcrpy(benchmarks, capsys):
    bench_run, _ = benchmarks
    assert bench_run.main(["--limit", "2", "--rounds", "1", "--process-rounds", "1", "--big-mb", "1",
                           "--big-rounds", "1", "--profile"]) == 0
    out = capsys.readouterr().out
    assert "suite: 2 scenarios" in out and "in-process, 1 rounds" in out and "whole processes, 1 rounds" in out
    for row in ("harness ", "integration ", "plain ", "integration / plain", "what each part costs",
                "a 1 MB cassette loaded by use_cassette", "BedrockServer start + close", "runner.run (total)",
                "harness, no twin ", "the Converse twin (streaming parity: "):
        assert row in out, row
    verdicts = [line for line in out.splitlines() if line.startswith("target ")]
    assert len(verdicts) == len(bench_run.TARGETS) and all(line.endswith("x)") for line in verdicts), verdicts
    assert "WARNING" not in out  # both scenarios passed, both vcrpy sides read the same events, every child ran
    answered = next(line for line in out.splitlines() if "loopback answers without a socket" in line)
    assert int(answered.split()[-3]) > 0  # calls: the reference's requests were answered in-process
    assert bench_run.main(["--limit", "1", "--rounds", "1", "--process-rounds", "0", "--loopback", "http"]) == 0
    assert "loopback http" in capsys.readouterr().out


def test_plain_vcrpy_and_the_integration_read_every_recorded_event(benchmarks, tmp_path):
    import boto3
    from harness.cassettes.cassette import load
    from harness.suite.runner import cassette_path
    from harness.suite.scenario import discover

    bench_run, _ = benchmarks
    root = BENCHMARKS.parent
    scenarios = [s for s in discover(root / "suites") if s.id == "edge/redacted-reasoning-tool"]  # a blob
    paths = [cassette_path(root, s) for s in scenarios]
    frames = sum(len(it.frames) for p in paths for it in load(p).interactions)
    copies = bench_run.plain_copies(paths, tmp_path)
    assert "!!binary" in copies[0].read_text() and "bedrock-harness cassette" not in copies[0].read_text()
    session = boto3.session.Session()
    assert bench_run.plain_replay(copies, session) == bench_run.integration_replay(paths, session) == frames


def test_bench_scale_generates_records_and_runs(benchmarks, tmp_path, capsys):
    _, bench_scale = benchmarks
    assert bench_scale.main(["--n", "2", "--sizes", "2", "--workdir", str(tmp_path), "--jobs", "1,2", "--floor"]) == 0
    out = capsys.readouterr().out
    assert "prepared 2 scenarios" in out and "NOT PASSING" not in out
    assert len(list((tmp_path / "cassettes" / "gen").glob("*.yaml"))) == 2
    assert len(list((tmp_path / "suites" / "gen").glob("*.golden.yaml"))) == 2
    rows = [line.split() for line in out.splitlines() if line.startswith("this ")]
    assert [row[1] for row in rows] == ["1", "2"] and all("2/2" in row for row in rows)  # in-process and --jobs 2
    floor = [line.split() for line in out.splitlines() if line.startswith("floor ")]
    assert len(floor) == 1 and "2/2" in floor[0] and "size 2: floor jobs 1 / this jobs 1 = " in out
    assert "size 2: this jobs 2 / this jobs 1 = " in out and out.rstrip().endswith("parsed-YAML cache: warm")


def test_bench_startup_times_the_cli_and_serve_against_a_mock_server(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_startup

    assert bench_startup.main(["--repetitions", "1"]) == 0
    out = capsys.readouterr().out
    for row in ("python -m http.server (to listening)", 'python -c "import boto3"', "this --version", "this --help",
                "this list", "this serve (to listening)", "this serve (to first answer)", "this run core/smoke-text",
                "target serve listening within 0.4 s: ", "target list <= 0.5x import boto3: "):
        assert row in out, out
    assert "target serve answers no later than aimock" in out or "serve vs aimock: skipped" in out


def test_bench_proxy_measures_the_proxy_and_its_first_event(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_proxy

    assert bench_proxy.main(["--limit", "1", "--repetitions", "1", "--frame-delay", "0.01"]) == 0
    out = capsys.readouterr().out
    for row in ("direct (emulator)", "through the recording proxy", "ratio proxy / direct", "first event"):
        assert row in out


def test_bench_load_drives_serve_and_prints_each_round(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_load

    assert bench_load.main(["--connections", "4", "--requests", "2", "--rounds", "2", "--big-posts", "1",
                            "--big-mb", "1"]) == 0
    out = capsys.readouterr().out
    rounds = [line for line in out.splitlines() if line.startswith("round ") and "answers" not in line]
    assert len(rounds) == 2 and all(" {200: 8} " in line for line in rounds) and "BROKEN" not in out
    assert any(line.startswith("1 x 1 MB") and " {200: 1} " in line for line in out.splitlines())


def test_bench_delivery_times_a_reply_and_two_recordings(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_delivery

    assert bench_delivery.main(["--frames", "200", "--turns", "2", "--text-kb", "4"]) == 0
    out = capsys.readouterr().out
    assert "200 frames, chunking frame" in out and "2 turns x 1 KB" in out and "2 turns x 4 KB" in out
    assert "per-frame cost, large over small" in out


def test_bench_xdist_compares_serial_with_workers(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_xdist

    assert bench_xdist.main(["--repetitions", "1", "--workers", "2", "--extra", "--bedrock-scenario core/smoke-text"]) == 0
    out = capsys.readouterr().out
    assert "serial" in out and "-n 2" in out and "ratio -n 2 / serial" in out


def test_bench_hostile_measures_a_case(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_hostile

    assert bench_hostile.main(["--case", "huge-padding", "--command", "verify"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[:3] == ["case", "command", "seconds"]
    assert out[2].startswith("huge-padding") and "FILE: interaction 0, frame 1" in out[2] and "padding" in out[2]
    assert bench_hostile.main(["--case", "fifo", "--command", "verify"]) == 0
    row = capsys.readouterr().out.splitlines()[2].split()
    assert row[:2] == ["fifo", "verify"] and row[4:6] == ["2", "no"] and "not a regular file but a FIFO" in " ".join(row)


def test_bench_secrets_plants_through_serve_record_and_scan(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_secrets

    assert bench_secrets.main(["--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert "serve --record: 3 planted exchanges" in out and "cassette scan: 3 planted files" in out
    assert "reached disk:" in out and "caught:" in out and "tracebacks:    0" in out


def test_bench_http_sends_a_case_and_the_idle_ones(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_http

    assert bench_http.main(["--idle-timeout", "1", "--idle", "5", "--cap", "4",
                            "--case", "Content-Length and Transfer-Encoding"]) == 0
    out = capsys.readouterr().out
    assert any(line.startswith("Content-Length and Transfer-Encoding") and line.split()[-4:-1] == ["400", "no", "yes"]
               for line in out.splitlines()), out
    assert "idle connection closed after (s): 1." in out and "5 idle connections: serve threads" in out
    before, held, after = map(int, re.search(r"serve threads (\d+) before, (\d+) while open, (\d+) ", out).groups())
    assert held >= before + 5 and after == before  # a thread per idle connection, each released at the timeout


def test_bench_discovery_measures_the_lean_and_the_built_form(monkeypatch, tmp_path, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_discovery

    assert bench_discovery.main(["--n", "4", "--workdir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "lean " in out and "built " in out and "generated 4 scenario files" in out
    assert re.search(r"target lean <= 2048 bytes per discovered scenario .*: \d+ held, -?\d+ resident \((met|NOT met)", out)
