"""The JavaScript shims' installs (harness/adapters/js/npm.py) and how ``--adapter ai-sdk`` resolves: Node and npm
found or refused in one line, a cache folder per release built atomically, the ai release paired by the
provider specification's major, the companions of a release's era and ``--companion`` over them; offline
(a fake npm and fake node on the PATH, or a fake registry behind ``npm._view``)."""

from __future__ import annotations

import json
import os
import shutil
import stat
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.adapters import AdapterLoadError, load_adapter
from harness.adapters.js import ai_sdk, launch, npm
from harness.cli import main
from harness.cli.common import release_args

FAKE = Path(__file__).resolve().parent / "js_fake" / "ai-sdk"


def executable(folder: Path, name: str, script: str) -> Path:
    path = folder / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@pytest.fixture
def bare_path(tmp_path, monkeypatch) -> Path:
    """A PATH of one empty folder (add fake executables to it), and an empty npm cache."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.setenv("BEDROCK_HARNESS_NPM_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(ai_sdk.MODULES_ENV, raising=False)
    return folder


def test_the_cache_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("BEDROCK_HARNESS_NPM_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert npm.default_cache() == tmp_path / "bedrock-harness" / "npm"
    monkeypatch.setenv("BEDROCK_HARNESS_NPM_CACHE", str(tmp_path / "mine"))
    assert npm.default_cache() == tmp_path / "mine"


def test_without_npm_certify_says_so_in_one_error_line(bare_path):
    result = CliRunner().invoke(main, ["certify", "--adapter", "ai-sdk", "--suite", "core"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: npm is not installed (or not on the PATH)")


def test_a_node_too_old_without_npm_says_what_is_needed(bare_path):
    executable(bare_path, "node", "echo v20.1.0\n")
    with pytest.raises(npm.NpmError, match=r"needs Node.js >= 22 \(found Node 20 at .*node\) and npm"):
        npm.find_node(22, bare_path.parent / "cache")


def test_the_systems_node_is_used_when_it_is_new_enough(bare_path):
    node = executable(bare_path, "node", "echo v22.3.0\n")
    assert npm.find_node(22, bare_path.parent / "cache") == str(node)


def test_an_older_node_gets_one_from_npm_into_the_cache_and_says_so_in_one_line(bare_path, capsys):
    executable(bare_path, "node", "echo v20.1.0\n")
    executable(bare_path, "npm", '/bin/mkdir -p node_modules/.bin && printf "#!/bin/sh\\necho v22.9.0\\n" > '
                                 'node_modules/.bin/node && /bin/chmod +x node_modules/.bin/node && echo "$@" > args\n')
    cache = bare_path.parent / "cache"
    node = Path(npm.find_node(22, cache))
    assert capsys.readouterr().err == (f"bedrock-harness: fetching Node 22 into {cache / 'node@22'} (npm install "
                                       f"node@22): the shim needs Node.js >= 22, found Node 20 at {bare_path / 'node'}\n")
    assert node == cache / "node@22" / "node_modules" / ".bin" / "node"
    assert "install" in (cache / "node@22" / "args").read_text() and "node@22" in (cache / "node@22" / "args").read_text()
    assert npm.find_node(22, cache) == str(node)  # cached: npm is not asked again
    assert not [p for p in cache.iterdir() if p.name.endswith(".tmp")]


def test_a_failed_install_leaves_no_folder_and_names_npms_last_lines(bare_path):
    executable(bare_path, "npm", "echo 'npm error 404 Not Found - @ai-sdk/amazon-bedrock@0.0.1' >&2; exit 1\n")
    cache = bare_path.parent / "cache"
    with pytest.raises(npm.NpmError, match=r"installing @ai-sdk/amazon-bedrock@0.0.1: npm failed: .*404"):
        npm.install(cache, "@ai-sdk+amazon-bedrock@0.0.1", ["@ai-sdk/amazon-bedrock@0.0.1"])
    assert list(cache.iterdir()) == []


def test_the_companion_is_the_newest_release_on_the_same_specification_major(monkeypatch):
    deps = {"@ai-sdk/amazon-bedrock@3.0.9": "2.0.0", "@ai-sdk/amazon-bedrock@4.0.0": "3.0.0",
            "@ai-sdk/amazon-bedrock@0.1.0": None, "ai@5.2.1": "2.0.1", "ai@6.0.4": "3.0.2", "ai@7.0.0": "4.0.0"}
    monkeypatch.setattr(npm, "_view", lambda spec, field: deps[spec])
    monkeypatch.setattr(npm, "releases", lambda name: ["5.0.0", "5.2.1", "6.0.0", "6.0.4", "7.0.0"])
    assert npm.paired("@ai-sdk/amazon-bedrock", "4.0.0", "ai", "@ai-sdk/provider") == "6.0.4"
    assert npm.paired("@ai-sdk/amazon-bedrock", "3.0.9", "ai", "@ai-sdk/provider") == "5.2.1"
    with pytest.raises(npm.NpmError, match="does not depend on @ai-sdk/provider"):
        npm.paired("@ai-sdk/amazon-bedrock", "0.1.0", "ai", "@ai-sdk/provider")


def test_version_cache_dir_and_companions_are_refused_for_a_python_adapter():
    result = CliRunner().invoke(main, ["run", "--adapter", "reference", "--version", "1.0", "--suite", "core"])
    assert result.exit_code == 2 and "takes no --version, --cache-dir or --companion" in result.stderr
    result = CliRunner().invoke(main, ["run", "--adapter", "reference", "--companion", "zod=3.25.76", "--suite", "core"])
    assert result.exit_code == 2 and "takes no --version, --cache-dir or --companion" in result.stderr
    with pytest.raises(AdapterLoadError, match="takes no --version"):
        load_adapter("reference", version="1.0")
    with pytest.raises(AdapterLoadError, match="--companion"):
        load_adapter("reference", pins={"zod": "3.25.76"})


@pytest.mark.parametrize("command", ["certify", "explore", "repro"])
def test_companions_go_with_a_javascript_shim_not_a_command(command, tmp_path):
    args = [command, *(["core/single-call", "--out", str(tmp_path)] if command == "repro" else []), "--command", "node x.mjs",
            "--companion", "zod=3.25.76"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "--companion go with --adapter (a JavaScript shim), not --command" in result.stderr


@pytest.mark.parametrize("given", ["zod", "zod=", "=3.25.76"])
def test_a_companion_that_is_not_name_equals_version_is_a_usage_error(given):
    result = CliRunner().invoke(main, ["certify", "--adapter", "ai-sdk", "--companion", given])
    assert result.exit_code == 2 and "is not NAME=VERSION" in result.stderr


def test_jobs_children_get_the_release_options(tmp_path):
    assert release_args("5.0.1", tmp_path) == ["--version", "5.0.1", "--cache-dir", str(tmp_path.absolute())]
    assert release_args(None, None) == []
    assert release_args(None, None, {"zod": "3.25.76", "@langchain/core": "1.1.0"}) == [
        "--companion", "zod=3.25.76", "--companion", "@langchain/core=1.1.0"]


# A registry with an era: @ai-sdk/amazon-bedrock 4.0.99 was republished long after 4.0.100 came out, so its era
# ends when 4.0.100 came out; zod 4.4.0 came out after that (and 4.3.7 is out of the range asked).
REGISTRY = {
    ("@ai-sdk/amazon-bedrock", "time"): {"created": "2025-01-01T00:00:00Z", "modified": "2026-09-01T00:00:00Z",
                                         "4.0.98": "2026-04-01T00:00:00Z", "4.0.99": "2026-08-23T00:00:00Z",
                                         "4.0.100": "2026-05-05T00:00:00Z", "4.0.101-beta.1": "2026-05-06T00:00:00Z",
                                         "4.0.101": "2026-05-07T00:00:00.000Z"},
    ("zod", "time"): {"4.3.5": "2026-01-04T00:00:00Z", "4.3.6": "2026-01-22T00:00:00Z",
                      "4.4.0": "2026-05-14T00:00:00Z", "4.3.7": "2026-02-01T00:00:00Z"},
    ("zod@^3.25.76 || ^4.1.8", "version"): ["4.3.5", "4.3.6", "4.4.0"],
    ("zod@^4.4", "version"): "4.4.0",
    ("@ai-sdk/amazon-bedrock@4.0.99", "peerDependencies.zod"): "^3.25.76 || ^4.1.8",
    ("@ai-sdk/amazon-bedrock@4.0.99", "peerDependencies.left-pad"): None,
    ("@ai-sdk/amazon-bedrock@4.0.99", "dependencies.left-pad"): None,
}


@pytest.fixture
def registry(monkeypatch):
    monkeypatch.setattr(npm, "_view", lambda spec, field: REGISTRY.get((spec, field)))


def test_a_releases_era_ends_when_a_later_release_first_came_out(registry):
    assert str(npm.era_end("@ai-sdk/amazon-bedrock", "4.0.98")) == "2026-05-05 00:00:00+00:00"
    assert str(npm.era_end("@ai-sdk/amazon-bedrock", "4.0.99")) == "2026-05-05 00:00:00+00:00"  # not its own date
    assert str(npm.era_end("@ai-sdk/amazon-bedrock", "4.0.100")) == "2026-05-07 00:00:00+00:00"  # not the beta's
    assert npm.era_end("@ai-sdk/amazon-bedrock", "4.0.101") is None  # the newest: its era is now


def test_a_companion_of_the_era_is_the_newest_within_the_range_out_before_its_end(registry):
    end = npm.era_end("@ai-sdk/amazon-bedrock", "4.0.99")
    assert npm.in_era("zod", "^3.25.76 || ^4.1.8", end) == "4.3.6"
    assert npm.in_era("zod", "^3.25.76 || ^4.1.8", None) == "4.4.0"
    assert npm.in_era("zod", "^4.4", end) == "4.4.0"  # none within the range was out: the newest within it
    with pytest.raises(npm.NpmError, match="no release of zod matches '\\^9'"):
        npm.in_era("zod", "^9", end)
    assert npm.era_pins("@ai-sdk/amazon-bedrock", "4.0.99", ["zod", "left-pad"], end) == ["zod@4.3.6"]


def test_the_paired_companion_is_the_newest_of_the_era(monkeypatch):
    deps = {("@ai-sdk/amazon-bedrock@4.0.0", "dependencies.@ai-sdk/provider"): "3.0.0",
            ("ai@6.0.4", "dependencies.@ai-sdk/provider"): "3.0.2", ("ai@6.0.2", "dependencies.@ai-sdk/provider"): "3.0.1",
            ("ai", "time"): {"6.0.2": "2026-01-01T00:00:00Z", "6.0.4": "2026-03-01T00:00:00Z"}}
    monkeypatch.setattr(npm, "_view", lambda spec, field: deps.get((spec, field)))
    monkeypatch.setattr(npm, "releases", lambda name: ["6.0.2", "6.0.4"])
    end = datetime(2026, 2, 1, tzinfo=timezone.utc)
    assert npm.paired("@ai-sdk/amazon-bedrock", "4.0.0", "ai", "@ai-sdk/provider", end) == "6.0.2"
    assert npm.paired("@ai-sdk/amazon-bedrock", "4.0.0", "ai", "@ai-sdk/provider") == "6.0.4"


def test_companions_given_replace_the_eras_in_their_own_cache_folder_and_the_install_says_so(tmp_path, monkeypatch,
                                                                                                capsys):
    installs = []
    monkeypatch.setattr(npm, "find_node", lambda minimum, cache: "node")
    monkeypatch.setattr(npm, "install", lambda cache, name, specs: installs.append((name, specs)))
    era = lambda version: ["ai@6.0.158", "zod@4.3.6"]  # noqa: E731
    folder, _ = launch.release_folder("@ai-sdk/amazon-bedrock", "4.0.85", tmp_path, era)
    assert folder == tmp_path / "@ai-sdk+amazon-bedrock@4.0.85"
    folder, _ = launch.release_folder("@ai-sdk/amazon-bedrock", "4.0.85", tmp_path, era,
                                      {"zod": "4.6.7", "@langchain/core": "1.1.0"})
    assert folder == tmp_path / "@ai-sdk+amazon-bedrock@4.0.85+@langchain+core@1.1.0+zod@4.6.7"
    assert installs == [("@ai-sdk+amazon-bedrock@4.0.85", ["@ai-sdk/amazon-bedrock@4.0.85", "ai@6.0.158", "zod@4.3.6"]),
                        (folder.name, ["@ai-sdk/amazon-bedrock@4.0.85", "ai@6.0.158", "@langchain/core@1.1.0",
                                       "zod@4.6.7"])]
    said = capsys.readouterr().err.splitlines()
    assert said == [f"bedrock-harness: installing @ai-sdk/amazon-bedrock@4.0.85 with ai@6.0.158, zod@4.3.6 into "
                    f"{tmp_path / '@ai-sdk+amazon-bedrock@4.0.85'}",
                    f"bedrock-harness: installing @ai-sdk/amazon-bedrock@4.0.85 with ai@6.0.158, @langchain/core@1.1.0, "
                    f"zod@4.6.7 (given: @langchain/core, zod) into {folder}"]


def test_a_release_installed_before_is_not_installed_again_and_asks_the_registry_nothing(tmp_path, monkeypatch):
    folder = tmp_path / "@ai-sdk+amazon-bedrock@4.0.85"
    package(folder, "@ai-sdk/amazon-bedrock", "4.0.85")
    (folder / ".bedrock-harness-ready").write_text("@ai-sdk/amazon-bedrock@4.0.85\n")
    monkeypatch.setattr(npm, "find_node", lambda minimum, cache: "node")
    monkeypatch.setattr(npm, "_view", lambda spec, field: pytest.fail(f"asked the registry for {spec} {field}"))
    assert launch.release_folder("@ai-sdk/amazon-bedrock", "4.0.85", tmp_path,
                                 lambda version: pytest.fail("companions asked for"))[0] == folder


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the ai-sdk shim runs on Node.js")
def test_ai_sdk_resolves_to_the_shim_on_the_folder_the_environment_names(tmp_path, monkeypatch):
    folder = tmp_path / "modules"
    shutil.copytree(FAKE, folder)
    shutil.copyfile(Path(ai_sdk.__file__).with_name("bedrock-harness-ai-sdk.mjs"), folder / "bedrock-harness-ai-sdk.mjs")
    monkeypatch.setenv(ai_sdk.MODULES_ENV, str(folder))
    adapter = load_adapter("ai-sdk", timeout=12.0)
    try:
        assert (adapter.name, adapter.version, adapter.timeout) == ("ai-sdk", "9.9.9-fake", 12.0)
        assert adapter.packages == {"@ai-sdk/amazon-bedrock": "9.9.9-fake", "ai": "0.0.0-fake"}
        assert adapter.argv[1].endswith(os.path.join("adapters", "js", "ai_sdk.mjs"))
    finally:
        adapter.close()


def package(folder: Path, name: str, version: str, **fields) -> None:
    (folder / "node_modules" / name).mkdir(parents=True)
    (folder / "node_modules" / name / "package.json").write_text(json.dumps({"name": name, "version": version, **fields}))


def test_installed_names_the_packages_asked_for_and_their_peers_as_installed(tmp_path):
    """What a report says ran: the versions npm resolved (not the ranges asked), peers included, once each."""
    (tmp_path / "package.json").write_text(json.dumps({"dependencies": {"lib": "^4.0.1", "ai": "^6.0.0"}}))
    package(tmp_path, "lib", "4.0.1", peerDependencies={"zod": "^3.25 || ^4"})
    package(tmp_path, "ai", "6.0.326", peerDependencies={"zod": "^4", "missing-peer": "1"})
    package(tmp_path, "zod", "4.6.7")
    assert npm.installed(tmp_path) == {"lib": "4.0.1", "ai": "6.0.326", "zod": "4.6.7"}
    (tmp_path / "node_modules" / "ai" / "package.json").write_text("{not json")
    assert npm.installed(tmp_path) == {"lib": "4.0.1", "zod": "4.6.7"}
    assert npm.installed(tmp_path / "nothing") == {}


def test_an_install_finished_first_elsewhere_is_kept_not_replaced(tmp_path, monkeypatch):
    """Two matrix jobs needing one folder (node@22): the second to finish keeps the first's, which may be running."""
    def other_finishes_first(args, what, cwd=None):
        (tmp_path / "node@22").mkdir()
        (tmp_path / "node@22" / ".bedrock-harness-ready").write_text("node@22\n")
        (tmp_path / "node@22" / "in-use").write_text("")
        return ""
    monkeypatch.setattr(npm, "run_npm", other_finishes_first)
    assert npm.install(tmp_path, "node@22", ["node@22"]) == tmp_path / "node@22"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["node@22"]
    assert (tmp_path / "node@22" / "in-use").is_file()
