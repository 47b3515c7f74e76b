"""``--jobs N``: the run split over N child processes gives the one report a single process gives."""

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main

REPO = Path(__file__).resolve().parents[1]
BROKEN = ("--adapter", "broken_adapters:HistoryDropsFunctionToolCallId")


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def verdicts(text: str) -> list:
    return [{k: v for k, v in r.items() if k != "duration_s"} for r in json.loads(text)["results"]]


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    path = tmp_path_factory.mktemp("jobs") / "baseline.yaml"
    path.write_text("core/round-trip: known\n")
    return path


def test_run_with_jobs_gives_the_single_process_report(baseline):
    common = (*BROKEN, "--root", REPO, "--baseline", baseline, "--format", "json", "--no-progress")
    single, split = cli("run", *common), cli("run", *common, "--jobs", "3")
    assert single.exit_code == split.exit_code == 1
    assert verdicts(split.stdout) == verdicts(single.stdout)
    assert "xfail" in {r["status"] for r in json.loads(split.stdout)["results"]}


def test_certify_with_jobs_writes_the_certification(tmp_path):
    done = cli("certify", "--adapter", "reference", "--root", REPO, "--jobs", "2", "--output-dir", tmp_path,
               "--progress", "--suite", "core")
    assert done.exit_code == 0, done.output
    report = json.loads((tmp_path / "certification.json").read_text())
    assert [r["status"] for r in report["results"]] == ["pass"] * 6 and report["adapter"]["spec"] == "reference"
    counted = re.findall(r"^\[(\d+)/6\] core/\S+ pass$", done.stderr, flags=re.M)
    assert sorted(map(int, counted)) == [1, 2, 3, 4, 5, 6]  # the children's progress, counted as one run's
    assert "wrote" not in done.stderr.replace(f"wrote {tmp_path}", "")


def test_a_childs_usage_error_is_the_commands_one_line():
    done = cli("run", "--adapter", "nosuchmodule:Adapter", "--root", REPO, "--jobs", "2", "--suite", "core")
    assert (done.exit_code, done.output) == (2, "Error: module 'nosuchmodule' not found\n")


@pytest.mark.parametrize("command", [("run",), ("certify", "--adapter", "reference")])
def test_jobs_and_shard_are_one_or_the_other(command):
    done = cli(*command, "--jobs", "2", "--shard", "1/2")
    assert (done.exit_code, done.output) == (2, "Error: --jobs splits the run into shards itself: give --jobs or "
                                                "--shard, not both\n")
