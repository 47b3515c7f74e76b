"""``matrix`` and ``bisect`` over a JavaScript shim's npm releases (harness/adapters/js/releases.py and the CLI):
offline, the npm registry faked. A shim factory of this module's (``takes_release``, ``LIBRARY``, no name known to
the harness) shows any JavaScript shim works; the ai-sdk shim itself runs on its offline fake, installed per release
by a fake ``npm`` on the PATH."""

from __future__ import annotations

import json
import shutil
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.adapters.js import ai_sdk, npm
from harness.adapters.js import releases as npm_releases
from harness.cli import main
from harness.converse import ConverseAdapter

ROOT = Path(__file__).resolve().parents[1]
FAKE = ROOT / "tests" / "js_fake" / "ai-sdk"
PICKED = ["--scenario", "core/parallel-calls", "--scenario", "core/single-call", "--root", str(ROOT)]

LIBRARY = "@fake/bedrock-js"  # what the factory below installs: read by the matrix from this module
BUGGY = ("1.1.0", "1.2.0")  # the releases that keep only the last of parallel tool calls
STARTED: list[tuple] = []


class Release(ConverseAdapter):
    """The reference adapter standing in for one release of a JavaScript library."""

    name = "fake-js"

    def __init__(self, version: str):
        super().__init__()
        self.version, self.packages = version, {LIBRARY: version, "companion": "7.0.0"}

    def stream(self, turn, endpoint):
        chunks = list(super().stream(turn, endpoint))
        last = [c["id"] for c in chunks if c.get("type") == "tool_call"][-1:]
        if self.version in BUGGY:
            chunks = [c for c in chunks if c.get("type") != "tool_call" or [c["id"]] == last]
        yield from chunks

    def close(self) -> None:
        """A subprocess adapter's close (the matrix closes each release's adapter)."""


def shim(version=None, cache_dir=None, timeout=60.0):
    """A JavaScript shim's factory: the release ``version`` (refused when it is 0.9.0: its install fails)."""
    STARTED.append((version, cache_dir, timeout))
    if version == "0.9.0":
        raise npm.NpmError(f"installing {LIBRARY}@0.9.0: npm failed: ERESOLVE could not resolve")
    return Release(version)


shim.takes_release = True


@pytest.fixture
def registry(monkeypatch):
    """The npm registry's release list of LIBRARY (and nothing else)."""
    STARTED.clear()
    listed = {LIBRARY: ["0.9.0", "1.0.0", "1.1.0", "1.2.0", "1.3.0"]}
    monkeypatch.setattr(npm, "releases", lambda package: listed[package])
    return listed


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_a_javascript_shim_is_known_by_its_factory_and_names_its_package():
    assert npm_releases.library(f"{__name__}:shim") == LIBRARY
    assert npm_releases.library("ai-sdk") == ai_sdk.LIBRARY
    assert npm_releases.library("reference") is None and npm_releases.library("no-such-adapter") is None


def test_a_factory_taking_a_release_without_a_library_is_a_usage_error(monkeypatch):
    monkeypatch.delattr(sys.modules[__name__], "LIBRARY")
    done = invoke("matrix", f"{__name__}:shim", "--last", "1")
    assert done.exit_code == 2 and "takes a release but its module names no LIBRARY" in done.output


def test_matrix_runs_the_last_releases_the_npm_registry_lists(registry, tmp_path):
    out = tmp_path / "matrix.json"
    done = invoke("matrix", f"{__name__}:shim", "--last", "4", "--jobs", "2", "--cache-dir", str(tmp_path / "npm"),
                  "--timeout", "7", *PICKED, "--output", str(out))
    assert done.exit_code == 0, done.output
    document = json.loads(out.read_text())
    assert document["adapter"] == f"{__name__}:shim ({LIBRARY})"
    rows = {r["release"]: r for r in document["releases"]}
    assert list(rows) == ["1.0.0", "1.1.0", "1.2.0", "1.3.0"]
    verdicts = [{r["scenario"]: r["status"] for r in row["results"]}["core/parallel-calls"] for row in rows.values()]
    assert verdicts == ["pass", "fail", "fail", "pass"]
    assert rows["1.1.0"]["adapter"]["packages"] == {LIBRARY: "1.1.0", "companion": "7.0.0"}
    assert sorted(STARTED) == [(v, tmp_path / "npm", 7.0) for v in ("1.0.0", "1.1.0", "1.2.0", "1.3.0")]
    assert f"[4/4] {LIBRARY}@1.3.0: 2 pass" in done.stderr


def test_a_release_that_cannot_be_installed_is_a_row_saying_why(registry, tmp_path, monkeypatch):
    monkeypatch.setenv("BEDROCK_HARNESS_NPM_CACHE", str(tmp_path / "default"))
    done = invoke("matrix", f"{__name__}:shim", "--versions", "0.9.0,1.1.0", *PICKED)
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines[2] == f"0.9.0    cannot run: installing {LIBRARY}@0.9.0: npm failed: ERESOLVE could not resolve"
    assert lines[3] == "1.1.0    1 pass, 1 fail; not passing: core/parallel-calls fail"
    assert {cache for _, cache, _ in STARTED} == {tmp_path / "default"}  # the npm cache, not the Python releases'


@pytest.mark.parametrize("good, bad, first", [("1.0.0", "1.2.0", "1.1.0"), ("1.2.0", "1.3.0", "1.3.0")])
def test_bisect_answers_which_npm_release_broke_or_fixed_a_scenario(registry, good, bad, first):
    done = invoke("bisect", f"{__name__}:shim", "core/parallel-calls", "--good", good, "--bad", bad, "--root", str(ROOT))
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines()[0].startswith(
        f"core/parallel-calls: {'pass' if good == '1.0.0' else 'fail'} at ") and \
        f"the first release from {good} towards {bad} with another verdict is {first} (probed " in done.stdout
    assert f"probing {LIBRARY}@{good} ..." in done.stderr


@pytest.mark.parametrize("option", [["--with", "zod@3"], ["--package", "x"], ["--index-url", "http://127.0.0.1/"],
                                    ["--find-links", "."], ["--no-index"], ["--installer", "pip"]])
def test_the_python_install_options_are_refused_for_a_javascript_shim(registry, option):
    done = invoke("matrix", f"{__name__}:shim", "--last", "1", *option)
    assert done.exit_code == 2 and f"{option[0]} applies to a Python library's releases; " in done.output
    assert "comes from the npm registry" in done.output or "come from the npm registry" in done.output
    assert STARTED == []


def test_npm_missing_is_one_usage_line(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    done = invoke("matrix", "ai-sdk", "--last", "3")
    assert done.exit_code == 2 and "npm is not installed (or not on the PATH)" in done.output


FAKE_NPM = '''#!{python}
"""A fake npm: `view` answers from a small registry, `install` copies the offline AI SDK fake at each version."""
import json, os, shutil, sys
from pathlib import Path

args = sys.argv[1:]
with open(os.environ["FAKE_NPM_LOG"], "a") as log:
    log.write(" ".join(args) + "\\n")
if args[0] == "view":
    spec, field = args[1], args[2]
    answers = {{"versions": {{"@ai-sdk/amazon-bedrock": ["4.0.0", "5.0.1", "5.0.2", "6.0.0-beta.1"],
                             "ai": ["7.0.2", "7.0.3"]}}.get(spec),
               "time": {{"@ai-sdk/amazon-bedrock": {{"5.0.1": "2026-09-01T00:00:00Z", "5.0.2": "2026-09-10T00:00:00Z"}},
                        "ai": {{"7.0.2": "2026-09-05T00:00:00Z", "7.0.3": "2026-09-20T00:00:00Z"}}}}.get(spec),
               "engines": {{}}, "dependencies.@ai-sdk/provider": "3.0.0"}}
    print(json.dumps(answers.get(field)))  # a field the registry lacks: null, as npm prints nothing
elif args[0] == "install":
    specs = [a for a in args[1:] if not a.startswith("-")]
    shutil.copytree({fake!r} + "/node_modules", "node_modules")
    for spec in specs:
        name, _, version = spec.rpartition("@")
        manifest = Path("node_modules", name, "package.json")
        manifest.write_text(json.dumps({{**json.loads(manifest.read_text()), "version": version}}))
    Path("package.json").write_text(json.dumps({{"dependencies": {{s.rpartition("@")[0]: "^" + s.rpartition("@")[2]
                                                                  for s in specs}}}}))
'''


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the ai-sdk shim runs on Node.js")
def test_matrix_ai_sdk_installs_each_npm_release_once_into_the_cache(tmp_path, monkeypatch):
    """The ai-sdk shim itself, each release installed (by the fake npm) on the first run and reused on the next."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    fake = bin_ / "npm"
    fake.write_text(FAKE_NPM.format(python=sys.executable, fake=str(FAKE)))
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    (bin_ / "node").symlink_to(shutil.which("node"))
    monkeypatch.setenv("PATH", str(bin_))
    monkeypatch.setenv("FAKE_NPM_LOG", str(tmp_path / "npm.log"))
    monkeypatch.delenv(ai_sdk.MODULES_ENV, raising=False)
    args = ["matrix", "ai-sdk", "--last", "2", "--jobs", "2", "--cache-dir", str(tmp_path / "cache"),
            "--scenario", "core/smoke-text", "--root", str(ROOT), "--format", "json"]
    first = invoke(*args)
    assert first.exit_code == 0, first.output
    rows = json.loads(first.stdout)["releases"]
    assert [(r["release"], r["ran"], r["adapter"]["version"]) for r in rows] == [("5.0.1", True, "5.0.1"),
                                                                               ("5.0.2", True, "5.0.2")]
    assert rows[1]["adapter"]["packages"] == {"@ai-sdk/amazon-bedrock": "5.0.2", "ai": "7.0.3"}
    installs = [line for line in (tmp_path / "npm.log").read_text().splitlines() if line.startswith("install")]
    # 5.0.1's era ended when 5.0.2 came out, before ai 7.0.3; 5.0.2 is the newest, its era is now
    assert sorted(line.split()[-2:] for line in installs) == [["@ai-sdk/amazon-bedrock@5.0.1", "ai@7.0.2"],
                                                              ["@ai-sdk/amazon-bedrock@5.0.2", "ai@7.0.3"]]
    (tmp_path / "npm.log").unlink()
    again = invoke(*args)
    assert again.exit_code == 0, again.output
    assert [(r["release"], r["ran"], r["adapter"]) for r in json.loads(again.stdout)["releases"]] == \
        [(r["release"], r["ran"], r["adapter"]) for r in rows]
    assert (tmp_path / "npm.log").read_text().splitlines() == ["view @ai-sdk/amazon-bedrock versions --json"]
