"""`bedrock-harness repro` (harness/studies/repro.py, harness/cli/repro.py, harness/adapters/apps/): a reproduction
folder that reproduces its finding when run, stops reproducing it on a fixed release, and says when the library fails
otherwise; written from a run of a planted broken adapter, of a fake library's releases, or from a committed report."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import boto3
import pytest
import yaml
from click.testing import CliRunner

from harness.cli import main
from test_cli_serve import Serving
from test_matrix import build_wheel

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
FAILING = "edge/parallel-results-round-trip"  # broken_adapters.SeparateToolResultMessages fails it
FIXED = '''from harness.converse import ConverseAdapter


class SeparateToolResultMessages(ConverseAdapter):
    """The same adapter, released with the fix: parallel results in one user message."""

    name = "broken-separate-tool-results"
'''


def repro(*args: str):
    return CliRunner().invoke(main, ["repro", *args, "--root", str(ROOT)], catch_exceptions=False)


def run_folder(folder: Path, pythonpath: Path) -> subprocess.CompletedProcess:
    """``python repro.py`` as a maintainer runs it, from another directory, the library on ``pythonpath``."""
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run([sys.executable, str(folder / "repro.py")], capture_output=True, text=True, cwd=folder.parent,
                          env=env, timeout=300)


def test_a_broken_adapters_reproduction_reproduces_then_stops_on_the_fixed_release(tmp_path):
    out = tmp_path / "made"
    done = repro(FAILING, "--adapter", "broken_adapters:SeparateToolResultMessages", "--out", str(out))
    assert done.exit_code == 0, done.output
    assert "edge/parallel-results-round-trip fail: A conversation must alternate" in done.output
    moved = shutil.move(str(out), tmp_path / "elsewhere" / "repro")  # self-contained: nothing points back
    folder = Path(moved)
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        "README.md", f"cassettes/{FAILING}.yaml", "expected.json", "repro.py", f"suites/{FAILING}.golden.yaml",
        f"suites/{FAILING}.yaml"]

    broken = run_folder(folder, TESTS)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "REPRODUCED: A conversation must alternate between user and assistant roles." in broken.stdout

    fixed_release = tmp_path / "fixed"
    fixed_release.mkdir()
    (fixed_release / "broken_adapters.py").write_text(FIXED)
    fixed = run_folder(folder, fixed_release)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "NOT REPRODUCED" in fixed.stdout and f"{FAILING} on broken-separate-tool-results 0.1.0" in fixed.stdout


def test_the_readme_says_expected_against_actual_in_bedrocks_terms_with_the_evidence(tmp_path):
    repro(FAILING, "--adapter", "broken_adapters:SeparateToolResultMessages", "--out", str(tmp_path))
    readme = (tmp_path / "README.md").read_text()
    assert readme.startswith(f"# broken-separate-tool-results 0.1.0: {FAILING}\n")
    assert "At turn 1, broken-separate-tool-results 0.1.0 fails:" in readme
    assert "each rule Bedrock answers with HTTP 400 `ValidationException`" in readme
    assert "Expected toolResult blocks at messages.2.content for the following Ids:" in readme
    assert "expected chunks" in readme and "actual chunks" in readme
    assert "- **results-in-one-message**:" in readme and "https://github.com/agno-agi/agno/issues/6698" in readme
    assert f"bedrock-harness serve --cassette cassettes/{FAILING}.yaml --port 0" in readme
    expected = json.loads((tmp_path / "expected.json").read_text())
    assert expected["run_as"] == ["--adapter", "broken_adapters:SeparateToolResultMessages"]
    assert expected["turn"] == 1 and expected["headline"].startswith("A conversation must alternate")


def test_a_passing_scenario_has_nothing_to_reproduce(tmp_path):
    done = CliRunner().invoke(main, ["repro", "core/smoke-text", "--adapter", "reference", "--out", str(tmp_path / "x"),
                                     "--root", str(ROOT)])
    assert done.exit_code == 1 and "core/smoke-text is pass on reference" in done.stderr
    assert not (tmp_path / "x" / "repro.py").exists()


def test_bad_usage_is_one_line():
    done = CliRunner().invoke(main, ["repro", "core/nope", "--adapter", "reference", "--out", "x", "--root", str(ROOT)])
    assert done.exit_code == 2 and "core/nope" in done.output
    done = CliRunner().invoke(main, ["repro", FAILING, "--out", "x", "--root", str(ROOT)])
    assert done.exit_code == 2 and "give --adapter SPEC or --command CMD" in done.output


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """fakebedrock 1.1 (drops all but the last parallel call), 1.2 (keeps the first instead: another finding) and
    1.3 (fixed), each installed in its own folder the way pip installs a release."""
    links = tmp_path_factory.mktemp("links")
    installed = {}
    for version, buggy in (("1.1", True), ("1.2", True), ("1.3", False)):
        build_wheel(links, version, "", buggy)
        target = tmp_path_factory.mktemp(f"fakebedrock-{version}")
        done = subprocess.run([sys.executable, "-m", "uv", "pip", "install", "--quiet", "--no-index", "--find-links",
                               str(links), "--target", str(target), f"fakebedrock=={version}"], capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        installed[version] = target
    return installed


def test_a_libraries_reproduction_follows_its_releases(tmp_path, releases, monkeypatch):
    monkeypatch.syspath_prepend(str(releases["1.1"]))
    out = tmp_path / "repro"
    done = repro("core/parallel-calls", "--adapter", "fakebedrock:Adapter", "--out", str(out))
    assert done.exit_code == 0, done.output
    assert json.loads((out / "expected.json").read_text())["version"] == "1.1"
    results = {version: run_folder(out, folder) for version, folder in releases.items()}
    assert results["1.1"].returncode == 1 and "REPRODUCED: core/parallel-calls turn 0" in results["1.1"].stdout
    assert "core/parallel-calls on fakebedrock 1.1 (found on 1.1): fail" in results["1.1"].stdout
    assert results["1.2"].returncode == 2 and "FAILS OTHERWISE" in results["1.2"].stdout  # the same verdict, another finding
    assert results["1.3"].returncode == 0 and "NOT REPRODUCED" in results["1.3"].stdout


def test_a_reproduction_from_a_committed_report_runs_the_library_as_the_report_did(tmp_path):
    out = tmp_path / "litellm"
    done = repro("edge/server-tool-then-client-tool", "--report", str(ROOT / "certification" / "litellm.json"),
                 "--out", str(out))
    assert done.exit_code == 0, done.output
    expected = json.loads((out / "expected.json").read_text())
    assert expected["run_as"] == ["--adapter", "litellm"] and expected["version"] == "1.110.2"
    assert expected["status"] == "xfail" and '"name": "nova_code_interpreter"' in expected["headline"]
    readme = (out / "README.md").read_text()
    assert "pip install 'bedrock-harness[litellm]' 'litellm==1.110.2'" in readme
    assert "(a known failure: its certification baseline lists it)" in readme
    assert "- the certification's write-up: `" in readme and "litellm.md#findings-failures" in readme
    app = (out / "app.py").read_text()
    compile(app, "app.py", "exec")
    assert "litellm.completion(**REQUEST, **AWS, stream=True" in app and "'model': 'bedrock/converse/us.amazon.nova-2" in app
    assert "bedrock-harness serve --paired --cassette cassettes/edge/server-tool-then-client-tool.yaml" in readme

    js = tmp_path / "ai-sdk"
    repro("edge/server-tool-then-client-tool", "--report", str(ROOT / "certification" / "ai-sdk.json"), "--out", str(js))
    assert json.loads((js / "expected.json").read_text())["run_as"] == ["--adapter", "ai-sdk", "--version", "5.0.101"]
    assert not (js / "app.py").exists()


def test_serve_paired_answers_each_turn_streamed_and_not(tmp_path):
    cassette = ROOT / "cassettes" / "core" / "single-call.yaml"
    scenario = yaml.safe_load((ROOT / "suites" / "core" / "single-call.yaml").read_text())
    model = scenario["model_id"]
    for paired in (True, False):
        serving = Serving("--cassette", str(cassette), *(["--paired"] if paired else []))
        try:
            client = boto3.client("bedrock-runtime", endpoint_url=serving.url, region_name="us-east-1")
            messages = [{"role": "user", "content": [{"text": scenario["turns"][0]["messages"][0]["content"]}]}]
            tools = {"tools": [{"toolSpec": {"name": t["name"], "description": t["description"],
                                             "inputSchema": {"json": t["input_schema"]}}} for t in scenario["tools"]]}
            list(client.converse_stream(modelId=model, messages=messages, toolConfig=tools)["stream"])
            if paired:
                answer = client.converse(modelId=model, messages=messages, toolConfig=tools)
                assert answer["stopReason"] == "tool_use"
            else:
                with pytest.raises(client.exceptions.ValidationException, match="past the end of the cassette"):
                    client.converse(modelId=model, messages=messages, toolConfig=tools)
        finally:
            serving.stop()


def readme_serve(out: Path) -> list[str]:
    """The arguments of the README's ``bedrock-harness serve --paired ...`` line, the cassette's path made absolute."""
    line = next(line for line in (out / "README.md").read_text().splitlines()
                if line.startswith("bedrock-harness serve --paired"))
    words = shlex.split(line.split("   #", 1)[0])
    assert words[:2] == ["bedrock-harness", "serve"]
    return [str(out / word) if word.startswith("cassettes/") else word for word in words[2:]]


def run_app(out: Path, scenario_id: str) -> subprocess.CompletedProcess:
    """The reproduction's app.py run against the README's ``serve --paired`` line on its own cassette (exit 0)."""
    serving = Serving(*readme_serve(out))
    assert f"cassettes/{scenario_id}.yaml" in " ".join(readme_serve(out))
    try:
        ran = subprocess.run([sys.executable, str(out / "app.py"), serving.url], capture_output=True, text=True,
                             timeout=120)
    finally:
        serving.stop()
    assert ran.returncode == 0, ran.stderr
    return ran


def test_a_langchain_aws_reproduction_holds_the_librarys_own_calls_and_shows_the_finding(tmp_path):
    """The app.py of a langchain-aws cell: ChatBedrockConverse streamed and invoked on turn 0, written from the
    committed report without langchain installed; where langchain-aws is installed, run against the recorded stream,
    it shows the finding (a call cut off by max_tokens assembled as complete)."""
    out = tmp_path / "langchain-aws"
    done = repro("edge/max-tokens-mid-tool", "--report", str(ROOT / "certification" / "langchain-aws.json"),
                 "--out", str(out))
    assert done.exit_code == 0, done.output
    app = (out / "app.py").read_text()
    compile(app, "app.py", "exec")
    assert "from langchain_aws import ChatBedrockConverse" in app and "bound.stream(MESSAGES)" in app
    assert "'model': 'us.anthropic.claude-sonnet-4-20250514-v1:0', 'max_tokens': 64" in app
    assert "{'role': 'user',\n  'content': 'Summarize the Q3 revenue report" in app
    assert "python app.py URL" in (out / "README.md").read_text()
    pytest.importorskip("langchain_aws")
    ran = run_app(out, "edge/max-tokens-mid-tool")
    streamed = ran.stdout.split("streamed message:", 1)[1].split("invoked message:", 1)[0]
    assert '"stopReason": "max_tokens"' in streamed and '"path": "/home/analyst/reports/2024/q3/rev"' in streamed


def test_a_strands_reproduction_holds_the_models_own_stream_and_shows_the_finding(tmp_path):
    """The app.py of a strands cell: BedrockModel.stream's events and the message process_stream assembles, written
    without strands installed; where strands is installed, run against the recorded stream, it shows the call cut off
    by max_tokens kept with input {}."""
    out = tmp_path / "strands"
    done = repro("edge/max-tokens-mid-tool", "--report", str(ROOT / "certification" / "strands.json"), "--out", str(out))
    assert done.exit_code == 0, done.output
    app = (out / "app.py").read_text()
    compile(app, "app.py", "exec")
    assert "model.stream(MESSAGES, TOOL_SPECS or None, SYSTEM_PROMPT)" in app and "process_stream(streamed())" in app
    assert "{'role': 'user',\n  'content': [{'text': 'Summarize the Q3 revenue report" in app
    pytest.importorskip("strands")
    ran = run_app(out, "edge/max-tokens-mid-tool")
    assert "stop reason: max_tokens" in ran.stdout
    assembled = ran.stdout.split("assembled message:", 1)[1]
    assert '"name": "read_file",\n        "input": {}' in assembled


def written_app(tmp_path: Path, report: str, scenario_id: str) -> tuple[Path, str]:
    """The reproduction folder of ``scenario_id``'s cell in ``certification/REPORT.json`` and its app script's text,
    checked to parse (Python's compile, ``node --check`` where node is installed)."""
    out = tmp_path / report
    done = repro(scenario_id, "--report", str(ROOT / "certification" / f"{report}.json"), "--out", str(out))
    assert done.exit_code == 0, done.output
    script = next(path for path in (out / "app.py", out / "app.mjs") if path.exists())
    app = script.read_text()
    if script.suffix == ".py":
        compile(app, "app.py", "exec")
    elif shutil.which("node"):
        checked = subprocess.run(["node", "--check", str(script)], capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0, checked.stderr
    return out, app


def test_the_serve_line_carries_the_scenarios_faults_which_the_cassette_does_not_hold(tmp_path):
    """A cut stream is a fault the server applies on replay: the README's serve line gives it as --fault (and the
    line without an app says so too), or the library would be watched on the whole stream."""
    out = tmp_path / "cut"
    done = repro("faults/truncated-stream", "--report", str(ROOT / "certification" / "pydantic-ai.json"),
                 "--out", str(out))
    assert done.exit_code == 0, done.output
    assert readme_serve(out) == ["--paired", "--cassette", str(out / "cassettes/faults/truncated-stream.yaml"),
                                 "--fault", "truncate:1860:turn=0", "--port", "0"]
    assert "--fault truncate:1860:turn=0 --port 0    # prints URL" in (out / "app.py").read_text()


def test_a_pydantic_ai_reproduction_holds_the_direct_apis_calls_and_shows_the_finding(tmp_path):
    """The app.py of a pydantic-ai cell: BedrockConverseModel through model_request_stream_sync and
    model_request_sync, written without pydantic-ai installed; where it is installed, run against the cut stream the
    README serves, it shows the truncated response handed over as complete (finish_reason None, a partial call)."""
    out, app = written_app(tmp_path, "pydantic-ai", "faults/truncated-stream")
    assert "model_request_stream_sync(model, history, model_settings=SETTINGS" in app
    assert "SETTINGS = {'max_tokens': 1024, 'temperature': 0, 'tool_choice': 'auto'}" in app
    pytest.importorskip("pydantic_ai")
    ran = run_app(out, "faults/truncated-stream")
    assert "streamed finish reason: None" in ran.stdout
    streamed = ran.stdout.split("streamed response:", 1)[1].split("non-streamed", 1)[0]
    assert '"args": "{\\"path\\": \\"/var/lo"' in streamed


def test_a_llama_index_reproduction_holds_the_llms_own_calls_and_shows_the_finding(tmp_path):
    """The app.py of a LlamaIndex cell: BedrockConverse.stream_chat_with_tools and chat_with_tools, written without
    LlamaIndex installed; where it is installed, run against the recorded stream, it shows the tool call whose id is
    "" (the start had no toolUseId) and the non-streamed call's KeyError."""
    out, app = written_app(tmp_path, "llama-index", "faults/missing-tool-use-id")
    assert "llm.stream_chat_with_tools(tools, chat_history=history" in app
    assert "'model': 'us.anthropic.claude-sonnet-4-20250514-v1:0'" in app
    pytest.importorskip("llama_index.llms.bedrock_converse")
    ran = run_app(out, "faults/missing-tool-use-id")
    assert 'streamed tool call: {"tool_id": "", "tool_name": "read_file"' in ran.stdout
    assert "non-streamed call raised: KeyError('toolUseId')" in ran.stdout


def test_a_haystack_reproduction_holds_the_generators_own_runs_and_shows_the_finding(tmp_path):
    """The app.py of a Haystack cell: AmazonBedrockChatGenerator.run with a streaming callback, then without, written
    without Haystack installed; where it is installed, run against the recorded stream, its reply holds the server
    tool's call as a client tool call a ToolInvoker would run."""
    out, app = written_app(tmp_path, "haystack", "edge/server-tool-then-client-tool")
    assert "generator.run(messages, tools=tools, streaming_callback=chunk_shown)" in app
    assert "os.environ[\"AWS_ENDPOINT_URL_BEDROCK_RUNTIME\"] = sys.argv[1]" in app
    pytest.importorskip("haystack_integrations.components.generators.amazon_bedrock")
    ran = run_app(out, "edge/server-tool-then-client-tool")
    streamed = ran.stdout.split("streamed reply:", 1)[1].split("non-streamed reply:", 1)[0]
    assert '"tool_name": "nova_code_interpreter"' in streamed and '"tool_name": "read_file"' in streamed


def test_a_haystack_turn_with_a_guardrail_or_an_output_format_gets_no_app_script():
    """The generator's guardrail_config and response_format are the shim's (a guardrail's stream mode is validated
    against the constructor's callback): the template, which runs one generator both ways, writes none of them."""
    from harness.adapters.apps import app_for
    from harness.suite.scenario import load_scenario

    for sid in ("edge/guardrail-async", "edge/structured-output"):
        scenario = load_scenario(ROOT / "suites" / f"{sid}.yaml", ROOT / "suites")
        assert app_for("haystack", scenario, None) is None, sid
    scenario = load_scenario(ROOT / "suites" / "edge" / "guardrail-intervened.yaml", ROOT / "suites")
    assert app_for("haystack", scenario, None).file == "app.py"


def test_an_ai_sdk_reproduction_holds_stream_text_and_generate_text_for_the_reports_releases(tmp_path):
    """The app.mjs of an AI SDK cell, written from the committed report without npm: streamText then generateText on
    turn 0, for the npm releases the report ran, which the README installs; node parses it (the real run is
    tests/test_js_ai_sdk_real.py)."""
    out, app = written_app(tmp_path, "ai-sdk", "edge/max-tokens-mid-tool")
    packages = json.loads((ROOT / "certification" / "ai-sdk.json").read_text())["adapter"]["packages"]
    install = "npm install " + " ".join(f"{name}@{version}" for name, version in sorted(packages.items()))
    readme = (out / "README.md").read_text()
    assert not (out / "app.py").exists()
    assert f"//   {install}\n" in app and f"{install}\nbedrock-harness serve --paired" in readme
    assert "node app.mjs URL" in readme and "const result = streamText({ ...call" in app
    assert '"maxOutputTokens": 64' in app and '"toolChoice": "auto"' in app


def test_an_ai_sdk_report_of_ai_4_gets_no_app_script(tmp_path):
    """ai 4 takes tools' parameters and maxTokens: the template is for ai 5 on, so an older release's cell has
    repro.py only."""
    from harness.adapters.apps import app_for
    from harness.suite.scenario import load_scenario

    scenario = load_scenario(ROOT / "suites" / "edge" / "max-tokens-mid-tool.yaml", ROOT / "suites")
    assert app_for("ai-sdk", scenario, {"@ai-sdk/amazon-bedrock": "2.2.12", "ai": "4.3.19"}) is None
    assert app_for("ai-sdk", scenario, None) is None
    assert app_for("ai-sdk", scenario, {"@ai-sdk/amazon-bedrock": "4.0.159", "ai": "6.0.253"}).file == "app.mjs"


def test_a_langchain_js_reproduction_holds_the_models_stream_and_invoke_for_the_reports_releases(tmp_path):
    """The app.mjs of a LangChain.js cell, written from the committed report without npm: ChatBedrockConverse with
    its tools bound, streamed and concatenated, then invoked; node parses it."""
    out, app = written_app(tmp_path, "langchain-js", "core/interleaved-text")
    packages = json.loads((ROOT / "certification" / "langchain-js.json").read_text())["adapter"]["packages"]
    assert all(f"{name}@{version}" in (out / "README.md").read_text() for name, version in packages.items())
    assert "chat.bindTools(TOOLS" in app and "summed.concat(chunk)" in app and "model.invoke(messages)" in app
    _, blocks = written_app(tmp_path, "langchain-js-blocks", "core/smoke-text")
    assert "const stream = chat.streamEvents(messages" in blocks


def test_a_strands_ts_reproduction_holds_the_agents_stream_for_the_reports_releases(tmp_path):
    """The app.mjs of a Strands TS cell, written from the committed report without npm: an Agent with a BedrockModel
    and the scenario's tools, streamed to its tools or its result; node parses it. A 0.x release gets none."""
    from harness.adapters.apps import app_for
    from harness.suite.scenario import load_scenario

    out, app = written_app(tmp_path, "strands-ts", "edge/end-turn-with-tool-use")
    assert "new Agent({ model, messages: MESSAGES.slice(0, -1), tools: TOOLS.map(scenarioTool)" in app
    assert '"modelId": "us.anthropic.claude-sonnet-4-20250514-v1:0"' in app
    scenario = load_scenario(ROOT / "suites" / "edge" / "end-turn-with-tool-use.yaml", ROOT / "suites")
    assert app_for("strands-ts", scenario, {"@strands-agents/sdk": "0.7.0"}) is None


def test_a_cline_reproduction_holds_the_gateways_agent_model_stream(tmp_path):
    """The app.mjs of a Cline cell, written from the committed report without npm: a gateway with the Bedrock
    provider, its agent model, model.stream's events; node parses it."""
    out, app = written_app(tmp_path, "cline", "edge/max-tokens-mid-tool")
    assert 'import { createGateway } from "@cline/llms";' in app and "await model.stream({ ...REQUEST, messages })" in app
    assert '"maxTokens": 64' in app and "@cline/llms@0.0.86" in (out / "README.md").read_text()


def test_a_langchain_aws_agent_reproduction_holds_create_agents_stream_and_shows_the_finding(tmp_path):
    """The app.py of a langchain-aws-agent cell: create_agent over ChatBedrockConverse, streamed to its tools;
    where langchain is installed, the message the model node adds holds the cut call with its truncated path."""
    out, app = written_app(tmp_path, "langchain-aws-agent", "edge/max-tokens-mid-tool")
    assert "agent = create_agent(model, tools=tools)" in app
    pytest.importorskip("langchain.agents")
    ran = run_app(out, "edge/max-tokens-mid-tool")
    added = ran.stdout.split("message the agent adds:", 1)[1].split("the agent runs its tools now", 1)[0]
    assert '"path": "/home/analyst/reports/2024/q3/rev"\n' in added and '"stopReason": "max_tokens"' in added


def test_a_strands_agent_reproduction_holds_the_agents_stream_and_shows_the_finding(tmp_path):
    """The app.py of a strands-agent cell: Agent.stream_async; where strands is installed, the agent appends the
    cut call with input {} and raises MaxTokensReachedException."""
    out, app = written_app(tmp_path, "strands-agent", "edge/max-tokens-mid-tool")
    assert "events = agent.stream_async(MESSAGES[-1][\"content\"])" in app
    pytest.importorskip("strands")
    ran = run_app(out, "edge/max-tokens-mid-tool")
    assert "agent.stream_async raised: MaxTokensReachedException" in ran.stdout
    appended = ran.stdout.split("message the agent appends:", 1)[1].split("agent.stream_async raised", 1)[0]
    assert '"name": "read_file",\n        "input": {}' in appended


def test_a_pydantic_ai_agent_reproduction_holds_the_agents_run_and_shows_the_finding(tmp_path):
    """The app.py of a pydantic-ai-agent cell: Agent.iter with its model request streamed; where pydantic-ai is
    installed, against the cut stream the README serves, the agent hands its tools a response with finish_reason
    None and the cut call's partial arguments."""
    out, app = written_app(tmp_path, "pydantic-ai-agent", "faults/truncated-stream")
    assert "async with agent.iter(MESSAGES[-1][1], message_history=history or None) as run:" in app
    pytest.importorskip("pydantic_ai")
    ran = run_app(out, "faults/truncated-stream")
    assert "finish reason: None" in ran.stdout and '"args": "{\\"path\\": \\"/var/lo"' in ran.stdout


@pytest.mark.parametrize("report, needle", [
    ("ai-sdk-agent", "stopWhen: stepCountIs(1)"),
    ("langchain-js-agent", "const agent = createAgent({ model: chat, tools"),
    ("langchain-js-agent-events", 'agent.streamEvents({ messages }, { version: "v2" })'),
])
def test_a_javascript_agent_reproduction_holds_the_librarys_own_loop(tmp_path, report, needle):
    """The app.mjs of an agent path's cell (the AI SDK's tool loop, LangChain.js's createAgent), written from the
    committed report without npm; node parses it (the real runs are in the *_real.py tests)."""
    out, app = written_app(tmp_path, report, "edge/max-tokens-mid-tool")
    assert needle in app and "this reproduction runs no tools" in app
