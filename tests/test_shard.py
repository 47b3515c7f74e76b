"""``--shard K/N``: a split by scenario id that every machine computes alike, covering every scenario once."""

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.studies.shard import Shard, ShardError, parse_shard

IDS = [f"{suite}/scenario-{n}" for suite in ("core", "edge", "faults", "mine") for n in range(40)]


@pytest.mark.parametrize("count", [1, 2, 3, 5, 8])
def test_the_shards_of_a_split_hold_every_scenario_exactly_once(count):
    owners = {sid: [k for k in range(1, count + 1) if Shard(k, count).owns(sid)] for sid in IDS}
    assert all(len(found) == 1 for found in owners.values())
    sizes = [sum(1 for found in owners.values() if found == [k]) for k in range(1, count + 1)]
    assert min(sizes) > 0 and max(sizes) < 2.5 * len(IDS) / count  # a hash split, roughly even


def test_a_scenario_keeps_its_shard_when_others_come_and_go():
    before = {sid: Shard(2, 4).owns(sid) for sid in IDS}
    fewer = [sid for sid in IDS if not sid.startswith("edge/")]
    assert [sid for sid in fewer if Shard(2, 4).owns(sid)] == [sid for sid in fewer if before[sid]]


def test_the_split_depends_on_the_id_alone():
    """Pinned: a split that changed between harness versions (or with Python's per-process ``hash``) would send a
    scenario to two shards, or none, on machines that differ."""
    assert [sid for sid in IDS if Shard(1, 3).owns(sid)][:3] == ["core/scenario-0", "core/scenario-1", "core/scenario-8"]


@pytest.mark.parametrize("text, shard", [("1/1", Shard(1, 1)), ("2/4", Shard(2, 4)), (" 3 / 3 ", Shard(3, 3))])
def test_k_of_n_parses(text, shard):
    assert parse_shard(text) == shard and str(shard) == f"{shard.index}/{shard.count}"


@pytest.mark.parametrize("text, says", [("0/3", "K must be from 1 to N"), ("4/3", "K must be from 1 to N"),
                                        ("3", "is not K/N"), ("a/b", "is not K/N"), ("1/0", "K must be from 1 to N"),
                                        ("-1/3", "is not K/N")])
def test_anything_else_is_refused_naming_it(text, says):
    with pytest.raises(ShardError, match=says):
        parse_shard(text)


def _root_with_a_broken_file(tmp_path):
    """A root of four runnable copies of core/smoke-text and one scenario file that does not parse."""
    repo = Path(__file__).resolve().parents[1]
    for name in ("a", "b", "c", "d"):
        for kind, suffix in (("suites", ".yaml"), ("suites", ".golden.yaml"), ("cassettes", ".yaml")):
            target = tmp_path / kind / "mine" / f"{name}{suffix}"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(repo / kind / "core" / f"smoke-text{suffix}", target)
    (tmp_path / "suites" / "mine" / "broken.yaml").write_text("title: [unclosed\n")
    return tmp_path


def test_a_shard_reads_only_its_own_scenario_files(tmp_path):
    """Another shard's file is never read (a run of 10,000 scenarios over N machines parses 10,000 / N each); the
    count on stderr is of every selected scenario."""
    root = _root_with_a_broken_file(tmp_path)
    owner = next(k for k in (1, 2) if Shard(k, 2).owns("mine/broken"))
    other = 3 - owner
    mine = sum(Shard(other, 2).owns(f"mine/{n}") for n in "abcd")
    done = CliRunner().invoke(main, ["run", "--root", str(root), "--shard", f"{other}/2", "--no-progress"])
    assert done.exit_code == 0, done.output
    assert f"shard {other}/2: {mine} of 5 scenarios" in done.stderr
    failed = CliRunner().invoke(main, ["run", "--root", str(root), "--shard", f"{owner}/2", "--no-progress"])
    assert failed.exit_code == 2 and "broken.yaml" in failed.stderr
    jobs = CliRunner().invoke(main, ["run", "--root", str(root), "--jobs", "2", "--no-progress"])
    assert jobs.exit_code == 2 and "broken.yaml" in jobs.stderr and len(jobs.stderr.strip().splitlines()) == 1
