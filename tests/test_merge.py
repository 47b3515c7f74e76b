"""``report merge``: the shards of a split run, merged, are the unsplit run, verdict for verdict, in every format."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from harness.cli import main
from harness.studies import merge
from harness.suite.scenario import scenario_ids

REPO = Path(__file__).resolve().parents[1]
FORMATS = ("text", "json", "junit", "markdown", "html")
# A broken adapter fails the parallel scenarios (chunks) and every round trip (request rules and golden request);
# the baseline makes one failure known (xfail) and one passing scenario a stale entry (xpass).
BROKEN = ("--adapter", "broken_adapters:HistoryDropsFunctionToolCallId")
BASELINE = "core/round-trip: known\ncore/smoke-text: stale\n"


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def timeless(text: str) -> str:
    """A report without what differs between two runs of the same verdicts: durations and dates."""
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "DATE", text)
    return re.sub(r"\d+\.\d+", "N", text)


def verdicts(document: dict) -> list[dict]:
    return [{k: v for k, v in entry.items() if k != "duration_s"} for entry in document["results"]]


@pytest.fixture(scope="module")
def split(tmp_path_factory):
    """A run of the shipped suite whole and in three shards (JSON), for run and for certify."""
    folder = tmp_path_factory.mktemp("split")
    (folder / "baseline.yaml").write_text(BASELINE)
    common = (*BROKEN, "--root", REPO, "--baseline", folder / "baseline.yaml", "--no-progress")
    codes = {}
    for command in ("run", "certify"):
        whole = cli(command, *common, "--format", "json", "--output", folder / f"{command}.json")
        codes[command] = whole.exit_code
        for k in (1, 2, 3):
            shard = cli(command, *common, "--shard", f"{k}/3", "--output", folder / f"{command}-{k}.json")
            assert shard.exit_code in (0, 1) and f"shard {k}/3: " in shard.output, shard.output
    return folder, codes


def shards(folder: Path, command: str) -> list[Path]:
    return [folder / f"{command}-{k}.json" for k in (1, 2, 3)]


@pytest.mark.parametrize("command", ["run", "certify"])
def test_merged_shards_equal_the_unsharded_run_verdict_for_verdict(split, command):
    folder, codes = split
    whole = json.loads((folder / f"{command}.json").read_text())
    assert {r["status"] for r in whole["results"]} >= {"pass", "fail", "xfail", "xpass"}
    parts = [json.loads(p.read_text()) for p in shards(folder, command)]
    assert [p["shard"] for p in parts] == [{"index": k, "count": 3} for k in (1, 2, 3)] and "shard" not in whole
    assert sorted(len(p["results"]) for p in parts)[0] > 0
    done = cli("report", "merge", *shards(folder, command), "--output", folder / f"{command}-merged.json")
    assert done.exit_code == codes[command] == 1, done.output
    merged = json.loads((folder / f"{command}-merged.json").read_text())
    assert verdicts(merged) == verdicts(whole)
    assert merged["summary"] == whole["summary"] and merged["adapter"] == whole["adapter"]
    assert set(merged) == set(whole)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("command", ["run", "certify"])
def test_the_merged_report_renders_as_the_unsharded_run_does(split, command, fmt, tmp_path):
    folder, _ = split
    merged = cli("report", "merge", *shards(folder, command), "--format", fmt, "--output", tmp_path / "merged")
    whole = cli("report", "merge", folder / f"{command}.json", "--format", fmt, "--output", tmp_path / "whole")
    assert merged.exit_code == whole.exit_code == 1
    assert timeless((tmp_path / "merged").read_text()) == timeless((tmp_path / "whole").read_text())


def test_a_run_report_reads_back_into_the_report_the_run_wrote(split, tmp_path):
    """Rendered from its JSON, the unsharded run's text report is the one ``run`` printed (durations aside)."""
    folder, _ = split
    printed = cli("run", *BROKEN, "--root", REPO, "--baseline", folder / "baseline.yaml", "--no-progress",
                  "--format", "html")
    read_back = cli("report", "merge", folder / "run.json", "--format", "html")
    assert timeless(read_back.output) == timeless(printed.output)


def test_the_default_format_follows_the_reports_origin(split):
    folder, _ = split
    assert cli("report", "merge", *shards(folder, "certify")).output.startswith("# Certification: ")
    assert cli("report", "merge", *shards(folder, "run")).output.startswith("adapter ")


def test_a_missing_or_repeated_shard_is_refused(split):
    folder, _ = split
    first, second, third = shards(folder, "run")
    done = cli("report", "merge", first, third)
    assert (done.exit_code, done.output) == (2, "Error: shard 2/3 missing: a merged report holds every shard of the "
                                                "split\n")
    done = cli("report", "merge", first, second, third, second)
    assert (done.exit_code, done.output) == (2, "Error: shard 2/3 is given 2 times\n")
    done = cli("report", "merge", first, folder / "run.json")
    assert done.exit_code == 2 and "names no shard while" in done.output


def test_reports_of_other_adapters_or_formats_are_refused(split, tmp_path):
    folder, _ = split
    other = json.loads(shards(folder, "run")[1].read_text())
    other["adapter"]["version"] = "9.9"
    (tmp_path / "other.json").write_text(json.dumps(other))
    done = cli("report", "merge", shards(folder, "run")[0], tmp_path / "other.json", shards(folder, "run")[2])
    assert done.exit_code == 2 and "its adapter" in done.output and done.output.count("\n") == 1
    (tmp_path / "junk.json").write_text("[1, 2]")
    (tmp_path / "broken.json").write_text("{")
    for bad in ("junk.json", "broken.json"):
        done = cli("report", "merge", tmp_path / bad)
        assert done.exit_code == 2 and done.output.startswith(f"Error: {tmp_path / bad}: ") and \
            done.output.count("\n") == 1


def test_a_fifo_given_as_a_report_is_one_line_not_a_wait_for_a_writer(tmp_path):
    """Reports are read like every other input (limits.read_file): a FIFO is refused before a byte is read."""
    os.mkfifo(tmp_path / "pipe.json")
    done = cli("report", "merge", tmp_path / "pipe.json")
    assert done.exit_code == 2 and done.output.startswith(f"Error: {tmp_path / 'pipe.json'}: ") and \
        "not a regular file" in done.output and done.output.count("\n") == 1


def test_every_field_of_a_result_and_of_the_summary_is_carried_through():
    """A newer harness may add fields (a ``warn`` grade, findings): the merge carries them unchanged."""
    def report(k, entries, warn):
        return {"harness_version": "9", "adapter": {"name": "a"}, "shard": {"index": k, "count": 2},
                "results": entries, "summary": {"pass": len(entries), "warn": warn}}
    first = [{"scenario": "s/b", "status": "pass", "grade": "warn", "findings": [{"grade": "warn", "text": "x"}]}]
    second = [{"scenario": "s/a", "status": "pass", "extra": {"nested": [1, 2]}}]
    merged = merge.merge([report(2, first, 1), report(1, second, 0)], ["b.json", "a.json"])
    assert merged["results"] == second + first
    assert merged["summary"] == {"pass": 2, "warn": 1} and "shard" not in merged


def documented_workflow() -> dict:
    """The sharded GitHub Actions workflow the CI page shows."""
    text = (REPO / "docs" / "ci.md").read_text()
    section = text[text.index("## Split a certification over machines"):]
    return yaml.safe_load(section[section.index("```yaml\n") + 8: section.index("\n```", section.index("```yaml"))])


def test_the_documented_sharded_workflow_runs_as_written(tmp_path):
    """Its commands, run here for every shard of its matrix (the adapter is the reference behind the subprocess
    bridge), then its merge step: one report of every scenario."""
    jobs = documented_workflow()["jobs"]
    [certify] = [s["run"] for s in jobs["certify"]["steps"] if "bedrock-harness certify" in s.get("run", "")]
    [merging] = [s["run"] for s in jobs["report"]["steps"] if "report merge" in s.get("run", "")]
    bridge = f'--command "{sys.executable} -m harness.adapters.bridge reference"'
    assert '--command "python adapter.py"' in certify
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for shard in jobs["certify"]["strategy"]["matrix"]["shard"]:
        line = certify.replace("${{ matrix.shard }}", str(shard)).replace('--command "python adapter.py"', bridge)
        done = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == 0, done.stderr
    done = subprocess.run(["bash", "-e", "-c", merging], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "certification.md").read_text().count("| pass |") == len(scenario_ids(REPO / "suites"))
    assert "<testsuites" in (tmp_path / "certification.xml").read_text()
