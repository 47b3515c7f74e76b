"""The JavaScript shims' installs (harness/adapters/js/npm.py) and how ``--adapter ai-sdk`` resolves: Node and npm
found or refused in one line, a cache folder per release built atomically, the ai release paired by the
provider specification's major; offline
(a fake npm and fake node on the PATH)."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.adapters import AdapterLoadError, load_adapter
from harness.adapters.js import ai_sdk, npm
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


def test_an_older_node_gets_one_from_npm_into_the_cache(bare_path):
    executable(bare_path, "node", "echo v20.1.0\n")
    executable(bare_path, "npm", '/bin/mkdir -p node_modules/.bin && printf "#!/bin/sh\\necho v22.9.0\\n" > '
                                 'node_modules/.bin/node && /bin/chmod +x node_modules/.bin/node && echo "$@" > args\n')
    cache = bare_path.parent / "cache"
    node = Path(npm.find_node(22, cache))
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


def test_version_and_cache_dir_are_refused_for_a_python_adapter():
    result = CliRunner().invoke(main, ["run", "--adapter", "reference", "--version", "1.0", "--suite", "core"])
    assert result.exit_code == 2 and "takes no --version or --cache-dir" in result.stderr
    with pytest.raises(AdapterLoadError, match="takes no --version"):
        load_adapter("reference", version="1.0")


def test_jobs_children_get_the_release_options(tmp_path):
    assert release_args("5.0.1", tmp_path) == ["--version", "5.0.1", "--cache-dir", str(tmp_path.absolute())]
    assert release_args(None, None) == []


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
