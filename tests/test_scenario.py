import copy
from pathlib import Path

import pytest
import yaml

from hostile import laughs

from harness.suite import scenario as scenario_module
from harness.suite.scenario import (
    CAPABILITIES,
    DEFAULT_OPTIONS,
    ScenarioError,
    assistant_message,
    discover,
    effective_options,
    first_turn,
    initial_messages,
    load_scenario,
    new_messages,
    next_turn,
    scenario_id,
    scenario_ids,
    select,
    turn_dict,
)

PROMPT = "Read these three files: /tmp/a.txt, /tmp/b.txt, and /tmp/c.txt"
READ_FILE = {"name": "read_file", "description": "Read a file from disk",
             "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}
SIGNATURE = "EqQBCkgIBhABGAIiQL+/9x==/sig+with/odd=chars"


def parallel_data() -> dict:
    """The example scenario of briefs/scenario-format.md (a fresh copy each time)."""
    return copy.deepcopy({
        "title": "Three parallel read_file calls",
        "description": "The model calls read_file three times in one response.",
        "tags": ["tool_use", "parallel"],
        "requires": ["tool_use", "parallel_tool_use"],
        "model_id": "us.anthropic.claude-sonnet-4-20250514-v1:0",
        "style": "claude",
        "operation": "converse-stream",
        "tools": [READ_FILE],
        "system": "You are a coding assistant.",
        "options": {"max_tokens": 2048, "temperature": None, "thinking_budget": None, "tool_choice": "auto"},
        "turns": [
            {"messages": [{"role": "user", "content": PROMPT}], "options": {},
             "script": {"content": [{"text": "I'll read all three files."},
                                    {"tool_use": {"name": "read_file", "input": {"path": "/tmp/a.txt"}}}],
                        "stop_reason": "tool_use", "usage": {"input_tokens": 412, "output_tokens": 96}},
             "tool_results": {"read_file": {"content": "contents of {input[path]}", "is_error": False}}},
            {"messages": [], "script": {"content": [{"text": "done"}], "stop_reason": "end_turn"}},
        ],
        "checks": {"hard": [{"turn": 0, "tool_calls_at_least": 1}], "soft": [{"turn": 0, "distinct_tool_ids_at_least": 2}]},
        "faults": [],
    })


def write(root: Path, sid: str, data) -> Path:
    path = root / f"{sid}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def suites(tmp_path) -> Path:
    root = tmp_path / "suites"
    write(root, "core/parallel-calls", parallel_data())
    return root


@pytest.fixture
def parallel(suites):
    return load_scenario(suites / "core/parallel-calls.yaml", suites)


def call(cid: str, path: str, name: str = "read_file") -> dict:
    return {"type": "tool_call", "id": cid, "name": name, "input": {"path": path}}


def test_exported_members_exist():
    assert all(hasattr(scenario_module, name) for name in scenario_module.__all__)


def test_load_scenario_reads_every_field(parallel, suites):
    s = parallel
    assert (s.id, s.suite, s.path) == ("core/parallel-calls", "core", suites / "core/parallel-calls.yaml")
    assert s.title == "Three parallel read_file calls" and s.tags == ("tool_use", "parallel")
    assert s.requires == frozenset({"tool_use", "parallel_tool_use"})
    assert (s.model_id, s.style, s.operation) == ("us.anthropic.claude-sonnet-4-20250514-v1:0", "claude", "converse-stream")
    assert s.tools == (READ_FILE,) and s.system == "You are a coding assistant."
    assert s.options == {**DEFAULT_OPTIONS, "max_tokens": 2048, "tool_choice": "auto"}
    assert len(s.turns) == 2 and s.turns[0].messages == ({"role": "user", "content": PROMPT},)
    assert s.turns[0].tool_results == {"read_file": {"content": "contents of {input[path]}", "is_error": False}}
    assert s.turns[0].script["stop_reason"] == "tool_use" and s.turns[1].tool_results == {}
    assert s.checks == {"hard": [{"turn": 0, "tool_calls_at_least": 1}], "soft": [{"turn": 0, "distinct_tool_ids_at_least": 2}]}
    assert s.faults == ()


def test_defaults_for_optional_fields(tmp_path):
    root = tmp_path / "suites"
    minimal = {"title": "t", "model_id": "m", "turns": [{"messages": [{"role": "user", "content": "hi"}]}]}
    s = load_scenario(write(root, "core/minimal", minimal), root)
    assert (s.style, s.operation, s.system, s.tools, s.tags, s.requires) == ("claude", "converse-stream", None, (), (), frozenset())
    assert s.options == DEFAULT_OPTIONS and s.description == "" and s.checks == {"hard": [], "soft": []}
    assert s.turns[0].script is None and s.turns[0].options == {}


def test_a_turn_offers_the_tools_it_names_and_a_result_template_carries_its_cache_point(tmp_path):
    data = parallel_data()
    data["turns"][0]["tool_results"]["read_file"]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    data["turns"][1]["tools"] = []
    data["options"]["output_format"] = {"type": "json_schema", "schema": {"type": "object"}}
    scenario = load_scenario(write(tmp_path / "suites", "core/cached", data), tmp_path / "suites")
    first = first_turn(scenario)
    assert [t["name"] for t in first["tools"]] == ["read_file"]
    assert first["options"]["output_format"] == {"type": "json_schema", "schema": {"type": "object"}}
    call = {"type": "tool_call", "id": "tooluse_A", "name": "read_file", "input": {"path": "/tmp/a"}}
    second = next_turn(scenario, 1, first, [call])
    assert second["tools"] == [] and second["messages"][-1]["content"][0]["cache_control"] == {
        "type": "ephemeral", "ttl": "1h"}
    assert "output_format" not in first_turn(load_scenario(write(tmp_path / "suites", "core/plain", parallel_data()),
                                                          tmp_path / "suites"))["options"]


def test_scenario_is_hashable_and_reports_unmet_capabilities(parallel):
    assert {parallel: 1}[parallel] == 1
    assert parallel.unmet({"text", "tool_use"}) == frozenset({"parallel_tool_use"})
    assert parallel.unmet(CAPABILITIES) == frozenset()


def mutate(path: str, value):
    """A mutation of parallel_data() setting ``path`` (dotted, [i] for lists); value DELETE removes it."""
    def apply(data):
        keys = [int(k) if k.isdigit() else k for k in path.replace("[", ".").replace("]", "").split(".")]
        target = data
        for key in keys[:-1]:
            target = target[key]
        if value is DELETE:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value
        return data
    return apply


DELETE = object()
BAD_FIELDS = [
    (mutate("turns[1].tool_results", {"read_file": "oops"}), "turns[1].tool_results.read_file: expected a mapping"),
    (mutate("turns[0].tool_results", {"reed_file": {"content": "x"}}), "turns[0].tool_results.reed_file: no such tool (tools: read_file)"),
    (mutate("turns[0].tool_results.read_file.is_error", "no"), "turns[0].tool_results.read_file.is_error: expected true or false"),
    (mutate("turns[0].tool_results.read_file.content", 3), "turns[0].tool_results.read_file.content: expected a string, list or mapping"),
    (mutate("requires", ["tool_use", "telepathy"]), "requires[1]: unknown capability 'telepathy' (known: cache_details, cache_points, cache_usage, citations, errors,"),
    (mutate("title", DELETE), "title: missing (required)"),
    (mutate("tittle", "x"), "tittle: unknown field (known: title, description,"),
    (mutate("turns", []), "turns: expected at least one turn"),
    (mutate("turns", "one"), "turns: expected a list"),
    (mutate("turns[0].messages", []), "turns[0].messages: the first turn needs at least one message (the prompt)"),
    (mutate("turns[0].messages[0].role", "system"), "turns[0].messages[0].role: unknown role 'system' (known: assistant, user)"),
    (mutate("turns[0].messages[0].content", [{"text": "no type"}]), "turns[0].messages[0].content[0].type: expected a non-empty string"),
    (mutate("turns[0].extra", 1), "turns[0].extra: unknown field (known: messages, options, script, tool_results, accepted_stop_reasons, tools)"),
    (mutate("options.max_tokens", 0), "options.max_tokens: expected an integer 1.."),
    (mutate("options.temperature", True), "options.temperature: expected a number"),
    (mutate("options.top_k", 5), "options.top_k: unknown field (known: max_tokens, temperature, thinking_budget, tool_choice, "
     "output_format, stop_sequences, service_tier, latency, guardrail, response_field_paths)"),
    (mutate("turns[1].options", {"tool_choice": "sometimes"}), "turns[1].options.tool_choice: unknown tool_choice 'sometimes' (known: any, auto)"),
    (mutate("turns[1].options", {"tool_choice": {"tool": "x"}}), "turns[1].options.tool_choice.tool: unknown field (known: name)"),
    (mutate("tools[0].input_schema", DELETE), "tools[0].input_schema: missing (required)"),
    (mutate("tools[0].name", ""), "tools[0].name: expected a non-empty string"),
    (mutate("style", "gpt"), "style: unknown style 'gpt' (known: claude, nova, nova-2, open-weight, openai, titan)"),
    (mutate("operation", "invoke"), "operation: unknown operation 'invoke'"),
    (mutate("model_id", 7), "model_id: expected a non-empty string"),
    (mutate("system", ""), "system: expected a non-empty string"),
    (mutate("turns[0].script", ["text"]), "turns[0].script: expected a mapping"),
    (mutate("turns[0].script.stop_reason", "done"), "turns[0].script.stop_reason: unknown stop_reason 'done'"),
    (mutate("turns[0].script.content", [["text"]]), "turns[0].script.content[0]: expected a mapping"),
    (mutate("checks.hard", [{"turn": 2}]), "checks.hard[0].turn: expected an integer 0..1"),
    (mutate("checks.never", []), "checks.never: unknown field (known: hard, soft)"),
    (mutate("faults", [{"turn": 0}]), "faults[0]: expected exactly one of http_error, exception, truncate_after_byte, drop_after_byte"),
    (mutate("faults", [{"turn": 0, "explode": {}}]), "faults[0].explode: unknown field"),
    (mutate("faults", [{"turn": "first", "truncate_after_byte": 9}]), "faults[0].turn: expected an integer 0..1"),
    (mutate("delivery", {"chunking": 0}), "delivery.chunking: expected whole, frame or a byte count of at least 1"),
    (mutate("delivery", {"delay": 60}), "delivery.delay: expected seconds from 0 to 5"),
    (mutate("delivery", {"chunks": 3}), "delivery.chunks: unknown field (known: chunking, delay)"),
    (mutate("checks.hard", [{"turn": 0, "tool_call_at_least": 1}]), "checks.hard[0]: unknown check 'tool_call_at_least'"),
    (mutate("turns[0].script.content", [{"toolUse": {"name": "read_file"}}]),
     "turns[0].script content[0]: unknown block kind 'toolUse'"),
    (mutate("tools[0].cache_control", {"type": "ephemeral", "ttl": "2h"}),
     "tools[0].cache_control.ttl: unknown ttl '2h' (known: 1h, 5m)"),
    (mutate("tools[0].strict", "yes"), "tools[0].strict: expected true or false"),
    (mutate("system", [{"type": "text", "text": "Be brief.", "cache_control": {"type": "persistent"}}]),
     "system[0].cache_control.type: unknown cache_control type 'persistent' (known: ephemeral)"),
    (mutate("system", []), "system: expected a string or at least one text block"),
    (mutate("turns[1].tools", ["reed_file"]), "turns[1].tools[0]: unknown tool 'reed_file' (known: read_file)"),
    (mutate("options.output_format", {"type": "json_object", "schema": {}}),
     "options.output_format.type: unknown output_format type 'json_object' (known: json_schema)"),
    (mutate("turns[0].tool_results.read_file.cache_control", {"ttl": "1h"}),
     "turns[0].tool_results.read_file.cache_control.type: missing (required)"),
    (mutate("turns[0].messages[0].content", [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral",
                                                                                               "ttl": 5}}]),
     "turns[0].messages[0].content[0].cache_control.ttl: unknown ttl 5"),
]


@pytest.mark.parametrize("change, message", BAD_FIELDS, ids=[m.split(":")[0] for _, m in BAD_FIELDS])
def test_malformed_field_names_file_and_field(tmp_path, change, message):
    root = tmp_path / "suites"
    path = write(root, "core/bad", change(parallel_data()))
    with pytest.raises(ScenarioError) as error:
        load_scenario(path, root)
    assert str(error.value).startswith(f"{path}: {message}")
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("text, message", [
    ("- just\n- a list\n", "(top level): expected a mapping"),
    ("title: [unclosed\n", "cannot read: "),
    ("title: x\n" + laughs(""), "cannot read: line 9, column 12: YAML aliases would expand"),  # billion laughs
    ("title: !!timestamp x\n", "cannot read: 'x' is no valid timestamp (AttributeError) in \"<unicode string>\", line 1, column 8"),
    ("title: x\nturns: !!int '" + "9" * 5000 + "'\n", "cannot read: '" + "9" * 40 + "' is no valid int (ValueError)"),  # over int()'s limit
])
def test_malformed_file_names_the_file(tmp_path, text, message):
    root = tmp_path / "suites"
    path = write(root, "core/bad", text)
    with pytest.raises(ScenarioError, match=r"^" + str(path).replace("\\", "\\\\") + ": ") as error:
        load_scenario(path, root)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_scenario_id_needs_suite_and_name(tmp_path):
    assert scenario_id(tmp_path / "suites/edge/zero-args.yaml", tmp_path / "suites") == "edge/zero-args"
    with pytest.raises(ScenarioError, match="a scenario lives at"):
        scenario_id(tmp_path / "elsewhere/x.yaml", tmp_path / "suites")
    with pytest.raises(ScenarioError, match="a scenario lives at"):
        scenario_id(tmp_path / "suites/x.yaml", tmp_path / "suites")


def test_discover_sorts_by_id_skips_goldens_and_filters(suites):
    for sid in ("edge/zero-args", "core/smoke-text", "faults/throttle"):
        write(suites, sid, parallel_data())
    (suites / "core/parallel-calls.golden.yaml").write_text("turns: []\n")
    all_ids = ["core/parallel-calls", "core/smoke-text", "edge/zero-args", "faults/throttle"]
    assert [s.id for s in discover(suites)] == all_ids
    assert [s.id for s in discover(suites, suites=["core"])] == all_ids[:2]
    assert [s.id for s in discover(suites, suites=["faults"], ids=["edge/zero-args"])] == all_ids[2:]
    assert [s.id for s in discover(suites, ids=["core/smoke-text"])] == ["core/smoke-text"]


def test_listed_ids_are_what_each_resolved_path_names(suites, tmp_path):
    """Files and suite folders that are no links take their ids from their names; links are resolved, so a file
    linked from another suite, a linked suite folder and a link leading out of the root read as before."""
    write(suites, "edge/zero-args", parallel_data())
    (suites / "edge/alias.yaml").symlink_to(suites / "core/parallel-calls.yaml")
    (suites / "mirror").symlink_to(suites / "edge", target_is_directory=True)
    ids = scenario_module.scenario_ids(suites)
    assert "edge/alias" not in ids and "mirror/zero-args" not in ids
    assert ids == sorted({scenario_id(p, suites) for p in suites.glob("*/*.yaml")})
    outside = write(tmp_path / "elsewhere", "core/out", parallel_data())
    (suites / "core/out.yaml").symlink_to(outside)
    with pytest.raises(ScenarioError, match="a scenario lives at"):
        scenario_module.scenario_ids(suites)


def test_discover_unknown_names(suites):
    with pytest.raises(ScenarioError, match=r"^unknown scenario 'core/nope' \(known: core/parallel-calls\)$"):
        discover(suites, ids=["core/nope"])
    with pytest.raises(ScenarioError, match=r"^unknown suite 'nope' \(known: core\)$"):
        discover(suites, suites=["nope"])
    with pytest.raises(ScenarioError, match="no such scenario directory"):
        discover(suites / "missing")


def test_discover_reports_the_malformed_file(suites):
    bad = write(suites, "edge/broken", mutate("turns", [])(parallel_data()))
    with pytest.raises(ScenarioError, match=f"^{bad}: turns: expected at least one turn$"):
        discover(suites)


# ---- turn building ----

def test_first_turn_is_the_adapter_level_turn(parallel):
    assert first_turn(parallel) == {
        "model_id": "us.anthropic.claude-sonnet-4-20250514-v1:0",
        "system": "You are a coding assistant.",
        "messages": [{"role": "user", "content": PROMPT}],
        "tools": [READ_FILE],
        "options": {"max_tokens": 2048, "temperature": None, "thinking_budget": None, "tool_choice": "auto"},
        "conversation": "core/parallel-calls",
    }
    assert first_turn(parallel) == turn_dict(parallel, 0, initial_messages(parallel, 0))


def test_options_precedence_turn_over_scenario_over_defaults(tmp_path):
    data = parallel_data()
    data["options"] = {"max_tokens": 4096, "thinking_budget": 1024}
    data["turns"][1]["options"] = {"thinking_budget": 2048, "tool_choice": {"name": "read_file"}}
    root = tmp_path / "suites"
    s = load_scenario(write(root, "core/opts", data), root)
    assert effective_options(s, 0) == {"max_tokens": 4096, "temperature": None, "thinking_budget": 1024, "tool_choice": None}
    assert effective_options(s, 1) == {"max_tokens": 4096, "temperature": None, "thinking_budget": 2048,
                                       "tool_choice": {"name": "read_file"}}


def test_next_turn_for_three_parallel_calls(parallel):
    output = [{"type": "text", "text": "I'll read all three files."},
              call("tooluse_A1", "/tmp/a.txt"), call("tooluse_B2", "/tmp/b.txt"), call("tooluse_C3", "/tmp/c.txt"),
              {"type": "stop", "reason": "tool_use"},
              {"type": "usage", "input_tokens": 1, "output_tokens": 2, "cache_read_input_tokens": 0,
               "cache_write_input_tokens": 0}]
    turn = next_turn(parallel, 1, first_turn(parallel), output)
    assert turn["messages"] == [
        {"role": "user", "content": PROMPT},
        {"role": "assistant", "content": [
            {"type": "text", "text": "I'll read all three files."},
            {"type": "tool_use", "id": "tooluse_A1", "name": "read_file", "input": {"path": "/tmp/a.txt"}},
            {"type": "tool_use", "id": "tooluse_B2", "name": "read_file", "input": {"path": "/tmp/b.txt"}},
            {"type": "tool_use", "id": "tooluse_C3", "name": "read_file", "input": {"path": "/tmp/c.txt"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tooluse_A1", "content": "contents of /tmp/a.txt", "is_error": False},
            {"type": "tool_result", "tool_use_id": "tooluse_B2", "content": "contents of /tmp/b.txt", "is_error": False},
            {"type": "tool_result", "tool_use_id": "tooluse_C3", "content": "contents of /tmp/c.txt", "is_error": False},
        ]},
    ]
    assert {k: v for k, v in turn.items() if k != "messages"} == {k: v for k, v in first_turn(parallel).items() if k != "messages"}


def thinking_scenario(tmp_path, turn1_messages=(), tool_results=None):
    data = parallel_data()
    data["requires"] = ["tool_use", "reasoning", "reasoning_signature"]
    data["options"] = {"thinking_budget": 1024, "max_tokens": 4096}
    data["turns"][0]["tool_results"] = tool_results or {"read_file": {"content": "contents of {input[path]}"}}
    data["turns"][1]["messages"] = list(turn1_messages)
    root = tmp_path / "suites"
    return load_scenario(write(root, "core/thinking-tools", data), root)


def test_next_turn_for_thinking_and_tool_keeps_the_signed_block_first(tmp_path):
    s = thinking_scenario(tmp_path)
    output = [{"type": "reasoning", "text": "I should read the file.", "signature": SIGNATURE},
              {"type": "text", "text": "Reading it."}, call("tooluse_T", "/tmp/a.txt"), {"type": "stop", "reason": "tool_use"}]
    messages = next_turn(s, 1, first_turn(s), output)["messages"]
    assert messages[1] == {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "I should read the file.", "signature": SIGNATURE},
        {"type": "text", "text": "Reading it."},
        {"type": "tool_use", "id": "tooluse_T", "name": "read_file", "input": {"path": "/tmp/a.txt"}},
    ]}
    assert messages[2] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "tooluse_T", "content": "contents of /tmp/a.txt", "is_error": False}]}


def test_assistant_message_puts_reasoning_first_and_keeps_stream_order_otherwise():
    output = [{"type": "text", "text": "a"}, {"type": "reasoning", "text": "r1", "signature": "S1"},
              call("t1", "/x"), {"type": "redacted_reasoning", "data": "UkVEQUNURUQ="},
              {"type": "reasoning", "text": "r2", "signature": None}, {"type": "text", "text": "b"},
              {"type": "stop", "reason": "end_turn"}, {"type": "error", "code": "x", "message": "y"}]
    assert assistant_message(output) == {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "r1", "signature": "S1"},
        {"type": "redacted_thinking", "data": "UkVEQUNURUQ="},
        {"type": "thinking", "thinking": "r2"},
        {"type": "text", "text": "a"},
        {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "/x"}},
        {"type": "text", "text": "b"},
    ]}


def test_turn_messages_merge_into_the_tool_result_message(tmp_path):
    own = [{"role": "user", "content": "Now summarize."}, {"role": "user", "content": [{"type": "text", "text": "Briefly."}]}]
    s = thinking_scenario(tmp_path, turn1_messages=own)
    messages = next_turn(s, 1, first_turn(s), [call("t1", "/a")])["messages"]
    assert messages[2] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "contents of /a", "is_error": False},
        {"type": "text", "text": "Now summarize."}, {"type": "text", "text": "Briefly."}]}
    assert len(messages) == 3


def test_turn_without_tool_calls_appends_its_messages(tmp_path):
    s = thinking_scenario(tmp_path, turn1_messages=[{"role": "user", "content": "And then?"}])
    messages = next_turn(s, 1, first_turn(s), [{"type": "text", "text": "Hello."}])["messages"]
    assert messages[1:] == [{"role": "assistant", "content": [{"type": "text", "text": "Hello."}]},
                            {"role": "user", "content": "And then?"}]


def test_accepted_stop_reasons_are_stop_reasons(tmp_path):
    data = parallel_data()
    data["turns"][0]["accepted_stop_reasons"] = ["tool_use", "done"]
    root = tmp_path / "suites"
    with pytest.raises(ScenarioError, match=r"turns\[0\]\.accepted_stop_reasons\[1\]: unknown stop_reason 'done'"):
        load_scenario(write(root, "core/stops", data), root)


def test_new_messages_hold_only_the_tool_results_and_the_turns_own_content(tmp_path):
    s = thinking_scenario(tmp_path, turn1_messages=[{"role": "user", "content": "Now summarize."}])
    output = [{"type": "reasoning", "text": "r", "signature": SIGNATURE}, call("my-id-1", "/a"), call("my-id-2", "/b")]
    assert new_messages(s, 1, output) == [{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "my-id-1", "content": "contents of /a", "is_error": False},
        {"type": "tool_result", "tool_use_id": "my-id-2", "content": "contents of /b", "is_error": False},
        {"type": "text", "text": "Now summarize."}]}]
    assert turn_dict(s, 1, new_messages(s, 1, output))["conversation"] == "core/thinking-tools"


def test_new_messages_without_calls_or_content_name_the_turns(tmp_path):
    s = thinking_scenario(tmp_path)
    with pytest.raises(ScenarioError, match=r"core/thinking-tools: turn 0 surfaced no tool call and turn 1 adds no"):
        new_messages(s, 1, [{"type": "text", "text": "Hello."}])
    with pytest.raises(ScenarioError, match="no turn 2 to build"):
        new_messages(s, 2, [call("t", "/a")])


def test_templates_fill_lists_and_mappings_with_input_id_and_name(tmp_path):
    template = {"content": [{"type": "text", "text": "{name} {id}: {input[path]}"}, {"n": 1, "k": "{input[path]}"}],
                "is_error": True}
    s = thinking_scenario(tmp_path, tool_results={"read_file": template})
    result = next_turn(s, 1, first_turn(s), [call("tooluse_Z", "/etc/x")])["messages"][2]["content"][0]
    assert result == {"type": "tool_result", "tool_use_id": "tooluse_Z", "is_error": True,
                      "content": [{"type": "text", "text": "read_file tooluse_Z: /etc/x"}, {"n": 1, "k": "/etc/x"}]}
    assert s.turns[0].tool_results["read_file"] == template  # the scenario is untouched


@pytest.mark.parametrize("template, message", [
    ("{input[missing]}", "turns[0].tool_results.read_file.content: cannot fill in call 'tooluse_Z'"),
    ("{input.__class__}", "turns[0].tool_results.read_file.content: cannot fill in call 'tooluse_Z'"),
])
def test_template_errors_name_the_file_turn_and_tool(tmp_path, template, message):
    s = thinking_scenario(tmp_path, tool_results={"read_file": {"content": template}})
    with pytest.raises(ScenarioError) as error:
        next_turn(s, 1, first_turn(s), [call("tooluse_Z", "/etc/x")])
    assert str(error.value).startswith(f"{s.path}: {message}")


@pytest.mark.parametrize("template, limit", [
    ("{id:>4000000000}", "a format width or precision of 4000000000 is over the limit of 1048576 characters"),
    ("{input[path]:.99999999}", "a format width or precision of 99999999 is over the limit of 1048576 characters"),
    ("{id:{input[path]}}", None),  # a width from the call: refused as it renders, like any other
    (["{id:>600000}", "{id:>600000}"], "it renders more than the limit of 1048576 characters"),
    ("x" * 1048577, "it renders more than the limit of 1048576 characters"),
], ids=["width", "precision", "nested-width", "two-wide-strings", "long-literal"])
def test_a_template_renders_within_its_limit_before_anything_is_made(tmp_path, template, limit):
    s = thinking_scenario(tmp_path, tool_results={"read_file": {"content": template}})
    width = "1" + "0" * 12 if limit is None else None
    with pytest.raises(ScenarioError) as error:
        next_turn(s, 1, first_turn(s), [call("tooluse_Z", width or "/etc/x")])
    message = str(error.value)
    assert message.startswith(f"{s.path}: turns[0].tool_results.read_file.content: cannot fill in call 'tooluse_Z': ")
    assert (limit or "a format width or precision of 1000000000000 is over the limit") in message


def test_a_template_just_within_its_limit_renders(tmp_path):
    s = thinking_scenario(tmp_path, tool_results={"read_file": {"content": ["{id:>500000}", "{input[path]}"]}})
    turn = next_turn(s, 1, first_turn(s), [call("tooluse_Z", "/etc/x")])
    content = turn["messages"][-1]["content"][0]["content"]
    assert content == [" " * (500000 - len("tooluse_Z")) + "tooluse_Z", "/etc/x"]


def test_call_without_template_is_an_error(tmp_path):
    s = thinking_scenario(tmp_path)
    with pytest.raises(ScenarioError, match=r"turns\[0\]\.tool_results: no template for tool 'list_files' \(call 't9'\)"):
        next_turn(s, 1, first_turn(s), [call("t9", "/", name="list_files")])


def test_next_turn_refuses_bad_index_and_empty_output(parallel):
    with pytest.raises(ScenarioError, match="core/parallel-calls: no turn 2 to build"):
        next_turn(parallel, 2, first_turn(parallel), [call("t", "/a")])
    with pytest.raises(ScenarioError, match="core/parallel-calls: turn 0 produced no content to continue from"):
        next_turn(parallel, 1, first_turn(parallel), [{"type": "error", "code": "throttlingException", "message": "x"}])
    with pytest.raises(ScenarioError, match="core/parallel-calls: no turn 5"):
        initial_messages(parallel, 5)


def test_next_turn_never_shares_state_with_its_inputs(parallel):
    previous = first_turn(parallel)
    before = copy.deepcopy(previous)
    output = [call("t1", "/a")]
    turn = next_turn(parallel, 1, previous, output)
    turn["messages"][0]["content"] = "changed"
    turn["messages"][1]["content"][0]["input"]["path"] = "changed"
    turn["tools"][0]["name"] = "changed"
    assert previous == before and output == [call("t1", "/a")]
    assert parallel.tools == (READ_FILE,) and first_turn(parallel) == before


def test_ids_come_from_file_names_and_select_picks_like_discover(tmp_path):
    root = tmp_path / "suites"
    for sid in ("core/a", "core/b", "edge/c"):
        write(root, sid, parallel_data())
    write(root, "edge/broken", "title: [unclosed\n")  # listed by id without being parsed
    (root / "core" / "a.golden.yaml").write_text("turns: []\n")
    assert scenario_ids(root) == ["core/a", "core/b", "edge/broken", "edge/c"]
    (root / "edge" / "broken.yaml").unlink()
    every = discover(root)
    for suites, ids in (((), ()), (("edge",), ("core/b",)), ((), ("core/a",))):
        assert [s.id for s in select(every, suites, ids)] == [s.id for s in discover(root, suites, ids)]
    with pytest.raises(ScenarioError, match="unknown scenario 'core/nope'"):
        select(every, (), ("core/nope",))


@pytest.mark.parametrize("options, message", [
    ({"service_tier": "gold"}, "options.service_tier: unknown service_tier 'gold' (known: default, flex, priority, reserved)"),
    ({"latency": "fast"}, "options.latency: unknown latency 'fast' (known: optimized, standard)"),
    ({"guardrail": {"identifier": "g"}}, "options.guardrail.version: missing (required)"),
    ({"guardrail": {"identifier": "g", "version": "1", "stream_processing_mode": "later"}},
     "options.guardrail.stream_processing_mode: unknown stream_processing_mode 'later' (known: async, sync)"),
    ({"response_field_paths": "/stop_sequence"}, "options.response_field_paths: expected a list"),
])
def test_served_options_are_validated_naming_the_field(tmp_path, options, message):
    path = tmp_path / "suites" / "edge" / "served.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump({"title": "t", "model_id": "m", "options": options,
                                    "turns": [{"messages": [{"role": "user", "content": "hi"}]}]}))
    with pytest.raises(ScenarioError) as raised:
        load_scenario(path, tmp_path / "suites")
    assert str(raised.value) == f"{path}: {message}"


def test_served_options_reach_the_turn_only_when_a_scenario_sets_them():
    scenarios = {s.id: s for s in discover(Path(__file__).resolve().parents[1] / "suites")}
    assert first_turn(scenarios["edge/service-tier-flex"])["options"]["service_tier"] == "flex"
    assert not {"service_tier", "latency", "guardrail", "response_field_paths"} & set(
        first_turn(scenarios["core/smoke-text"])["options"])
