"""Every shell and Python snippet of the documentation (README.md and docs/) runs as written and exits 0, in a
project folder holding what the snippets name (a copy of the suite, ``my_pkg``, ``adapter.py``, ``my-suite``).

A snippet may be marked by an HTML comment on the line before its fence: ``<!-- snippet: skip REASON -->`` (a
live AWS account, a long install), ``<!-- snippet: tested by tests/FILE.py -->`` (a test that reads it from its
page and runs it in a setting of its own), ``<!-- snippet: emulate SCENARIO at URL -->`` (URL replaced by an
emulator of SCENARIO) or ``<!-- snippet: needs ../shared/realworld -->``."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
BLOCK = re.compile(r"(?:<!-- snippet: (?P<mark>.*?) -->\n)?^```(?P<lang>bash|console|python|sh)\n(?P<body>.*?)^```",
                   flags=re.MULTILINE | re.DOTALL)
BIN = Path(sys.executable).parent
REALWORLD = REPO.parent / "shared" / "realworld"


def snippets():
    for source in SOURCES:
        text = source.read_text()
        for match in BLOCK.finditer(text):
            line = text[:match.start("lang")].count("\n") + 1
            yield pytest.param(match["lang"], match["body"], match["mark"] or "",
                               id=f"{source.relative_to(REPO)}:{line}")


SNIPPETS = list(snippets())
ADAPTER = "from harness.converse import ConverseAdapter as MyAdapter\n\nAdapter = MyAdapter\n"


@pytest.fixture
def project(tmp_path):
    """A project folder with everything the snippets name; ``../shared/realworld`` beside it when the repo has one."""
    root = tmp_path / "project"
    for folder in ("suites", "cassettes", "certification"):
        shutil.copytree(REPO / folder, root / folder)
    shutil.copy(REPO / "cassettes" / "core" / "smoke-text.yaml", root / "cassettes" / "chat.yaml")
    for package in ("my_pkg", "mypkg"):
        (root / package).mkdir()
        (root / package / "__init__.py").write_text(ADAPTER)
    (root / "my_pkg" / "module.py").write_text(ADAPTER)
    (root / "mypkg" / "bedrock.py").write_text(ADAPTER)
    shutil.copy(REPO / "examples" / "python_adapter" / "adapter.py", root / "adapter.py")
    (root / "my-adapter").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$(dirname "$0")/adapter.py"\n')
    (root / "my-adapter").chmod(0o755)
    mine = (("suites", "smoke-text.yaml"), ("suites", "smoke-text.golden.yaml"), ("cassettes", "smoke-text.yaml"))
    for kind, name in mine:
        (root / "my-suite" / kind / "mine").mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / kind / "core" / name, root / "my-suite" / kind / "mine" / name)
    if REALWORLD.is_dir():
        (tmp_path / "shared").mkdir()
        (tmp_path / "shared" / "realworld").symlink_to(REALWORLD)
    return root


def environment(root: Path) -> dict[str, str]:
    """The user's shell: the harness's environment on PATH, their own packages importable, no AWS, no pytest state."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PYTEST_", "COV_"))}
    return {**kept, "PATH": f"{BIN}{os.pathsep}{kept.get('PATH', '')}", "PYTHONPATH": str(root),
            "HOME": str(root.parent)}


def run(lang: str, body: str, root: Path) -> subprocess.CompletedProcess:
    if lang == "python":
        (root / "snippet.py").write_text(body)
        command = [sys.executable, "snippet.py"]
    else:
        command = ["bash", "-e", "-o", "pipefail", "-c", re.sub(r"^\$ ", "", body, flags=re.MULTILINE)]
    return subprocess.run(command, cwd=root, env=environment(root), capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("lang, body, mark", SNIPPETS)
def test_the_snippet_runs_as_written(lang, body, mark, project):
    if mark.startswith("skip "):
        pytest.skip(mark.removeprefix("skip "))
    if mark.startswith("tested by "):
        test = REPO / mark.removeprefix("tested by ")
        assert test.is_file() and "docs" in test.read_text(), f"{test} does not read the snippet from its page"
        return
    if mark == "needs ../shared/realworld" and not REALWORLD.is_dir():
        pytest.skip("../shared/realworld is absent")
    if mark.startswith("emulate "):
        scenario, url = re.fullmatch(r"emulate (\S+) at (\S+)", mark).groups()
        with emulator(scenario, project) as endpoint:
            done = run(lang, body.replace(url, endpoint), project)
    else:
        assert mark in ("", "needs ../shared/realworld"), f"unknown snippet mark {mark!r}"
        done = run(lang, body, project)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


class emulator:
    """``bedrock-harness serve --emulate SCENARIO --port 0`` for the snippet's lifetime; enters as its URL."""

    def __init__(self, scenario: str, root: Path):
        self.command = [str(BIN / "bedrock-harness"), "serve", "--emulate", scenario, "--port", "0"]
        self.root = root

    def __enter__(self) -> str:
        self.process = subprocess.Popen(self.command, cwd=self.root, env=environment(self.root),
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return self.process.stdout.readline().strip()

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.process.stdout.close()


def test_every_mark_is_known_and_skips_are_few():
    marks = [param.values[2] for param in SNIPPETS]
    assert all(re.match(r"(|skip .+|tested by tests/\S+\.py|emulate \S+ at \S+|needs \.\./shared/realworld)$", m)
               for m in marks), marks
    # 18: three need a live AWS account, three a long matrix/bisect install, the Node example, the ai-sdk,
    # ai-sdk-agent, langchain-js, strands-ts and cline shims' npm installs (tests/test_js_*_real.py with
    # HARNESS_JS_REAL=1), serve's placeholder, the Quick start twice (.ci/run), matrix/bisect over ai-sdk's npm
    # releases twice (the releases page and the third-party page; tests/test_js_releases.py runs them on a fake npm),
    # and old ai-sdk releases with their era's companions (tests/test_js_npm.py and test_js_releases.py on a fake
    # registry)
    assert len(SNIPPETS) >= 20 and sum(m.startswith("skip ") for m in marks) <= 18
