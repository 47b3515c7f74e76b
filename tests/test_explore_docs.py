"""docs/adapters/explore.md's worked example, run as written: the buggy adapter of the page, explored with the ci
profile, found (exit 1) and written to found/; `run --root found` fails for it and passes for the reference; the
pytest option fails its bedrock-explore item with the same summary."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")

PAGE = Path(__file__).resolve().parents[1] / "docs" / "adapters" / "explore.md"
BIN = Path(sys.executable).parent


def snippets(lang: str) -> list[str]:
    return re.findall(rf"<!-- snippet: tested by tests/test_explore_docs.py -->\n```{lang}\n(.*?)```", PAGE.read_text(),
                      flags=re.DOTALL)


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "PYTHONPATH": str(cwd), "HOME": str(cwd), "XDG_CACHE_HOME": str(cwd / "c")}
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def test_the_worked_example_finds_the_planted_bug_and_its_scenario_replays(tmp_path):
    (python,), (explore, replay, plugin) = snippets("python"), snippets("bash")
    assert python.startswith("# buggy.py\n")
    (tmp_path / "buggy.py").write_text(python)
    found = shell(explore, tmp_path)
    assert found.returncode == 1, found.stdout + found.stderr
    assert "conservation/reasoning\n  fail [reasoning.signature]" in found.stdout
    assert re.search(r"wrote found/suites/explore/conservation-reasoning-reasoning-signature-\w+\.yaml \(run: fail\)",
                     found.stdout)
    done = shell(replay, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "fails, as explore said" in done.stdout and "1 fail" in done.stdout and "1 pass" in done.stdout
    assert list((tmp_path / "found" / "cassettes" / "explore").glob("*.yaml"))
    (tmp_path / "found" / "suites").rename(tmp_path / "suites")  # the project's own suite: the found scenario
    (tmp_path / "found" / "cassettes").rename(tmp_path / "cassettes")
    tested = shell(plugin.replace("pytest ", "pytest -p no:cacheprovider ", 1), tmp_path)
    assert tested.returncode == 1, tested.stdout + tested.stderr
    assert "bedrock-explore" in tested.stdout and "fail [reasoning.signature]" in tested.stdout
