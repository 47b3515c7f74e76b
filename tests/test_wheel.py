"""The wheel carries the suite (setup.py's build hook): built offline, installed into a fresh virtual environment,
it runs ``run``, ``list``, ``certify``, ``serve --emulate`` and the pytest plugin from a folder with no suites/.

Fast and offline: the wheel is built without build isolation from a copy of the checkout, installed with
``--no-deps --no-index``, and the fresh environment reaches its dependencies through a ``.pth`` line naming this
environment's site-packages (only the installed wheel provides ``harness``).
"""

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "harness", "suites", "cassettes")
DEPENDENCIES = ("boto3", "botocore", "vcr", "deepdiff", "click", "yaml", "pytest", "pytest_recording", "_pytest",
                "jsonschema")
SCENARIOS = len([p for p in (REPO / "suites").glob("*/*.yaml") if not p.name.endswith(".golden.yaml")])


def _bin(venv: Path, name: str) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin") / name


def _build_wheel(tmp: Path) -> Path:
    pytest.importorskip("setuptools", minversion="77", reason="building the wheel offline needs setuptools>=77 (pyproject.toml build-system)")
    source = tmp / "src"
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    "-w", str(tmp / "dist"), str(source)], check=True, capture_output=True, text=True)
    return next((tmp / "dist").glob("bedrock_harness-*.whl"))


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv with only the wheel installed; its dependencies come from this environment."""
    tmp = tmp_path_factory.mktemp("wheel")
    wheel = _build_wheel(tmp)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = _bin(venv, "python")
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    deps = dict.fromkeys(str(Path(importlib.import_module(name).__file__).parents[1]) for name in DEPENDENCIES)
    Path(purelib, "dependencies.pth").write_text("".join(f"{d}\n" for d in deps))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True, capture_output=True, text=True)
    return venv


def _run(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(_bin(venv, "bedrock-harness")), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_installed_package_imports_from_the_wheel(installed, tmp_path):
    where = subprocess.run([str(_bin(installed, "python")), "-c", "import harness; print(harness.__file__)"],
                           cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    assert Path(where).is_relative_to(installed) and "shipped" not in where


def test_run_from_any_folder_passes_every_shipped_scenario(installed, tmp_path):
    result = _run(installed, "run", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f'"pass": {SCENARIOS}' in result.stdout and not list(tmp_path.iterdir())


def test_list_and_certify_from_any_folder(installed, tmp_path):
    listed = _run(installed, "list", cwd=tmp_path)
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == SCENARIOS
    certified = _run(installed, "certify", "--adapter", "reference", "--suite", "core", cwd=tmp_path)
    assert certified.returncode == 0, certified.stderr
    assert "cassettes/core/single-call.yaml" in certified.stdout or "core/single-call" in certified.stdout


def test_the_schemas_ship_in_the_wheel(installed, tmp_path):
    for name in ("chunk", "turn", "hello"):
        printed = _run(installed, "schema", name, cwd=tmp_path)
        shipped = REPO / "harness" / "suite" / "schemas" / f"{name}.json"
        assert printed.returncode == 0 and printed.stdout == shipped.read_text()


def test_the_javascript_shims_ship_in_the_wheel(installed, tmp_path):
    """ai-sdk, ai-sdk-agent, langchain-js, langchain-js-events, langchain-js-blocks, langchain-js-agent,
    langchain-js-agent-events, strands-ts and cline resolve from the installed wheel, their Node programs, the modules
    the AI SDK's two, LangChain.js's five, its two createAgent paths and the agent loops share, the AI SDK probes'
    event-stream encoder and the entry modules beside them (package data)."""
    names = ["ai-sdk", "ai-sdk-agent", "langchain-js", "langchain-js-events", "langchain-js-blocks",
             "langchain-js-agent", "langchain-js-agent-events", "strands-ts", "cline"]
    code = ("from importlib.metadata import entry_points; from harness.adapters.js import ai_sdk; "
            "from pathlib import Path; eps = entry_points(group='bedrock_harness.adapters'); "
            f"print(*(eps[name].value for name in {names!r})); "
            "print(*sorted(p.name for p in Path(ai_sdk.__file__).parent.glob('*.mjs')))")
    out = subprocess.run([str(_bin(installed, "python")), "-c", code], cwd=tmp_path, check=True, capture_output=True,
                         text=True).stdout.splitlines()
    assert out == ["harness.adapters.js.ai_sdk:ai_sdk harness.adapters.js.ai_sdk:ai_sdk_agent "
                   "harness.adapters.js.langchain_js:langchain_js harness.adapters.js.langchain_js:langchain_js_events "
                   "harness.adapters.js.langchain_js_blocks:langchain_js_blocks "
                   "harness.adapters.js.langchain_js_agent:langchain_js_agent "
                   "harness.adapters.js.langchain_js_agent:langchain_js_agent_events "
                   "harness.adapters.js.strands_ts:strands_ts "
                   "harness.adapters.js.cline:cline",
                   "agent_loop.mjs ai_sdk.mjs ai_sdk_agent.mjs ai_sdk_common.mjs bedrock-harness-ai-sdk.mjs "
                   "bedrock-harness-cline.mjs bedrock-harness-langchain-js-agent.mjs bedrock-harness-langchain-js.mjs "
                   "bedrock-harness-strands-ts.mjs cline.mjs eventstream.mjs langchain_js.mjs langchain_js_agent.mjs "
                   "langchain_js_agent_events.mjs langchain_js_blocks.mjs langchain_js_common.mjs "
                   "langchain_js_events.mjs langchain_js_loop.mjs protocol.mjs strands_ts.mjs"]


def test_serve_emulate_from_any_folder(installed, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    server = subprocess.Popen([str(_bin(installed, "bedrock-harness")), "serve", "--emulate", "core/single-call"],
                              cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().startswith("http://127.0.0.1:")
    finally:
        server.terminate()
        server.communicate(timeout=30)


def test_the_pytest_plugin_from_any_folder(installed, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    result = subprocess.run([str(_bin(installed, "python")), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "--bedrock-adapter", "reference", "--bedrock-suite", "core"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "6 passed" in result.stdout


def test_root_adds_a_users_own_suite_to_the_shipped_one(installed, tmp_path):
    """--root names a folder with the user's suites/ and cassettes/; --root shipped adds the package's suite."""
    for kind in ("suites", "cassettes"):
        shutil.copytree(REPO / kind / "core", tmp_path / "mine" / kind / "mine",
                        ignore=lambda d, names: [n for n in names if not n.startswith("smoke-text")])
    alone = _run(installed, "run", "--root", "mine", cwd=tmp_path)
    assert alone.returncode == 0, alone.stdout + alone.stderr
    assert "mine/smoke-text" in alone.stdout and "1 scenario: 1 pass" in alone.stdout
    both = _run(installed, "run", "--root", "shipped", "--root", "mine", cwd=tmp_path)
    assert both.returncode == 0 and f"{SCENARIOS + 1} scenarios: {SCENARIOS + 1} pass" in both.stdout


def test_record_and_golden_update_leave_the_installed_suite_alone(installed, tmp_path):
    """From a folder with no suites/, the default root is the package's copy: re-recording or updating it would
    rewrite files inside site-packages, so both say to use a suite of one's own instead."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = subprocess.run([str(_bin(installed, "python")), "-c", "import harness; print(harness.__file__)"],
                           cwd=tmp_path, env=env, check=True, capture_output=True, text=True).stdout.strip()
    shipped = Path(where).parent / "shipped" / "cassettes" / "core" / "smoke-text.yaml"
    before = shipped.read_bytes()
    recorded = _run(installed, "record", "--emulate", "--record-mode", "all", "core/smoke-text", cwd=tmp_path)
    assert recorded.returncode == 1 and "refused  core/smoke-text" in recorded.stdout
    assert "read-only" in recorded.stdout and "--root DIR" in recorded.stdout
    assert recorded.stdout.count("smoke-text.yaml") == 1  # the line names the cassette once
    updated = _run(installed, "golden", "update", "core/smoke-text", cwd=tmp_path)
    assert updated.returncode == 2 and updated.stderr.count("\n") == 1 and "read-only" in updated.stderr
    rewritten = subprocess.run([str(_bin(installed, "python")), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                "--bedrock-adapter", "reference", "--bedrock-scenario", "core/smoke-text",
                                "--record-mode=rewrite"], cwd=tmp_path, env=env, capture_output=True, text=True,
                               timeout=300)
    assert rewritten.returncode == 1 and "read-only" in rewritten.stdout
    assert shipped.read_bytes() == before and not list(tmp_path.iterdir())
