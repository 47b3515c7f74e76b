"""Under ``pytest -n 2`` (the README runs ``-n auto``), this suite's conftest sends every test of a module that
defines a module fixture to one worker, so the fixture is built once; the tests of other modules are still spread
over the workers. Run on a small suite of its own in a child pytest, with the project's conftest copied beside it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("xdist")

HERE = Path(__file__).resolve().parent

_SHARED = '''
import os
import pytest

@pytest.fixture(scope="module")
def built():
    with open(os.environ["BUILT_LOG"], "a") as log:
        log.write(os.environ.get("PYTEST_XDIST_WORKER", "none") + "\\n")
    return 1

@pytest.mark.parametrize("n", range(30))
def test_shared(built, n):
    pass
'''

_PLAIN = '''
import os
import time
import pytest

@pytest.mark.parametrize("n", range(30))
def test_plain(n):
    time.sleep(0.02)
    with open(os.environ["PLAIN_LOG"], "a") as log:
        log.write(os.environ.get("PYTEST_XDIST_WORKER", "none") + "\\n")
'''


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(HERE / "conftest.py", suite / "conftest.py")
    (suite / "test_shared.py").write_text(_SHARED)
    (suite / "test_plain.py").write_text(_PLAIN)
    return suite


def _run(suite: Path, tmp_path: Path, *args: str) -> tuple[list[str], list[str]]:
    built, plain = tmp_path / "built.log", tmp_path / "plain.log"
    env = {"PATH": "/usr/bin:/bin", "BUILT_LOG": str(built), "PLAIN_LOG": str(plain), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "-n", "2", *args, str(suite)], cwd=suite, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return built.read_text().split(), plain.read_text().split()


def test_a_module_fixture_is_built_once_and_other_tests_are_spread(tmp_path):
    built, plain = _run(_suite(tmp_path), tmp_path)
    assert len(built) == 1, built  # xdist's plain load scheduling builds it on each worker that runs its tests
    assert len(plain) == 30 and set(plain) == {"gw0", "gw1"}, plain


def test_another_dist_mode_given_is_kept(tmp_path):
    built, plain = _run(_suite(tmp_path), tmp_path, "--dist", "each")
    assert sorted(built) == ["gw0", "gw1"] and len(plain) == 60  # each: every test on every worker, as xdist does
