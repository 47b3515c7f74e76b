"""What installs a release: uv when present, else pip (bootstrapped when the harness's environment has none), and
``matrix --jobs`` running releases side by side. Every release comes from a temporary find-links folder
(``--no-index``): nothing reaches a package index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.adapters import installer, releases
from harness.cli import main
from test_matrix import PICKED, ROOT, build_wheel, wheel

UV = installer.find_uv()
needs_uv = pytest.mark.skipif(UV is None, reason="uv is not installed (the test extra installs it)")


@pytest.fixture(scope="module")
def links(tmp_path_factory):
    """1.0 good, 1.1 buggy, 1.2 good but needing ``hypothesis<1`` (the harness's environment has 6.x)."""
    folder = tmp_path_factory.mktemp("links")
    build_wheel(folder, "1.0", "", False)
    build_wheel(folder, "1.1", "", True)
    build_wheel(folder, "1.2", "", False, requires=("hypothesis<1",))
    wheel(folder, "hypothesis", "0.1", "VERSION = '0.1'\n")
    return folder


def matrix(links: Path, cache: Path, *args: str):
    options = ["--package", "fakebedrock", "--no-index", "--find-links", str(links), "--cache-dir", str(cache),
               "--root", str(ROOT), "--timeout", "30", *PICKED, "--format", "json", "--output", "-"]
    done = CliRunner().invoke(main, ["matrix", "fakebedrock:Adapter", *args, *options])
    assert done.exit_code == 0, done.output
    return done, {r["release"]: {x["scenario"]: x["status"] for x in r["results"]} or r["why"]
                  for r in json.loads(done.stdout)["releases"]}


def installed_by(cache: Path, version: str, name: str = "fakebedrock") -> str:
    """What the release environment's INSTALLER file says installed ``name`` (uv and pip both write one)."""
    [found] = cache.glob(f"fakebedrock-{version}-*/lib/*/site-packages/{name}-*.dist-info/INSTALLER")
    return found.read_text().strip()


EXPECTED = {"1.0": {"core/parallel-calls": "pass", "core/single-call": "pass"},
            "1.1": {"core/parallel-calls": "fail", "core/single-call": "pass"},
            "1.2": {"core/parallel-calls": "pass", "core/single-call": "pass"}}


@needs_uv
def test_auto_installs_with_uv_when_it_is_present(links, tmp_path):
    _, rows = matrix(links, tmp_path, "--versions", "1.0,1.1,1.2")
    assert rows == EXPECTED
    assert installed_by(tmp_path, "1.0") == "uv"


@needs_uv
def test_uv_takes_the_harness_versions_and_its_own_where_a_release_needs_others(links, tmp_path):
    """1.2 needs hypothesis<1: with the harness's versions as constraints there is no solution, so it gets its own
    resolution (as pip would install it), and still runs."""
    _, rows = matrix(links, tmp_path, "--versions", "1.2", "--installer", "uv")
    assert rows == {"1.2": EXPECTED["1.2"]}
    assert installed_by(tmp_path, "1.2", "hypothesis") == "uv"


def test_pip_gives_the_same_rows(links, tmp_path):
    _, rows = matrix(links, tmp_path, "--versions", "1.1,1.2", "--installer", "pip")
    assert rows == {v: EXPECTED[v] for v in ("1.1", "1.2")}
    assert installed_by(tmp_path, "1.1") == "pip" and installed_by(tmp_path, "1.2", "hypothesis") == "pip"


def test_without_pip_in_the_harness_environment_pip_is_bootstrapped_once(links, tmp_path, monkeypatch):
    """A venv made --without-pip: ensurepip puts a pip into the release cache (no network), and every release runs."""
    monkeypatch.setattr(installer, "_has_pip", lambda: False)
    done, rows = matrix(links, tmp_path, "--versions", "1.1", "--installer", "pip")
    assert rows == {"1.1": EXPECTED["1.1"]}
    assert (tmp_path / ".bootstrap-pip" / ".ready").is_file() and installed_by(tmp_path, "1.1") == "pip"
    listed = releases.available("fakebedrock", installer.PipOptions(None, (str(links),), True), tmp_path)
    assert listed[-3:] == ["1.0", "1.1", "1.2"]


@needs_uv
def test_jobs_run_releases_side_by_side_and_keep_their_order(links, tmp_path):
    done, rows = matrix(links, tmp_path, "--versions", "1.1,1.0,1.2", "--jobs", "3")
    assert list(rows) == ["1.1", "1.0", "1.2"] and rows == {v: EXPECTED[v] for v in ("1.1", "1.0", "1.2")}
    assert sorted(line.split(" ", 1)[0] for line in done.stderr.splitlines()) == ["[1/3]"] * 2 + ["[2/3]"] * 2 + \
        ["[3/3]"] * 2


def test_choose_names_what_it_cannot_have(tmp_path, monkeypatch):
    monkeypatch.setattr(installer, "find_uv", lambda: None)
    assert installer.choose("auto", tmp_path).kind == "pip"
    with pytest.raises(installer.InstallError, match="--installer uv: uv is not installed"):
        installer.choose("uv", tmp_path)
    monkeypatch.setattr(installer, "find_uv", lambda: "/opt/uv")
    assert installer.choose("auto", tmp_path) == installer.Installer("uv", ("/opt/uv",))
    assert installer.choose("pip", tmp_path).kind == "pip"
    done = CliRunner().invoke(main, ["matrix", "strands", "--versions", "1.0", "--installer", "conda"])
    assert done.exit_code == 2 and done.output.startswith("Error: Invalid value for '--installer'")
