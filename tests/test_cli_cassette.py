import base64
import gzip
import json
import os

import pytest
import yaml
from click.testing import CliRunner

from harness.cassettes import cassette as cs
from harness.wire import eventstream as es
from harness.cli import main
from realworld import cassette_files, ids, interactions, requires_realworld
from test_cassette import GOOD_STREAM, flipped_crc, make, stream_interaction, with_raw_frame

TOOL_STREAM = [
    es.encode_event("messageStart", {"role": "assistant"}, 7),
    es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Think"}}}, 3),
    es.encode_event("contentBlockDelta",
                    {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "SIG" * 9}}}, 3),
    es.encode_event("contentBlockStop", {"contentBlockIndex": 0}, 2),
    es.encode_event("contentBlockStart", {"contentBlockIndex": 1,
                                          "start": {"toolUse": {"name": "get_weather", "toolUseId": "tooluse_A"}}}, 5),
    es.encode_event("contentBlockStart", {"contentBlockIndex": 2,
                                          "start": {"toolUse": {"name": "get_time", "toolUseId": "tooluse_B"}}}, 5),
    es.encode_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"city": '}}}, 9),
    es.encode_event("contentBlockDelta", {"contentBlockIndex": 2, "delta": {"toolUse": {"input": ""}}}, 9),
    es.encode_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '"Paris"}'}}}, 9),
    es.encode_event("contentBlockStop", {"contentBlockIndex": 1}, 2),
    es.encode_event("contentBlockStop", {"contentBlockIndex": 2}, 2),
    es.encode_event("messageStop", {"stopReason": "tool_use"}, 2),
    es.encode_event("metadata", {"usage": {"inputTokens": 10, "outputTokens": 20, "totalTokens": 30,
                                           "cacheReadInputTokens": 4}, "metrics": {"latencyMs": 1}}, 2),
]


def run(*args):
    return CliRunner().invoke(main, ["cassette", *map(str, args)])


def saved(tmp_path, *interactions, name="c.yaml"):
    return cs.save(tmp_path / name, make(*interactions))


def test_show_prints_the_conversation(tmp_path):
    result = run("show", saved(tmp_path, stream_interaction(TOOL_STREAM)))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "[0] ConverseStream us.anthropic.claude-3-7-sonnet-20250219-v1:0 -> HTTP 200" in lines
    assert "    user: text: Weather in Paris?" in lines
    assert "    reasoning: Think [signature SIGSIG…GSIG, 27 chars]" in lines
    assert '    tool call tooluse_A get_weather {"city": "Paris"}' in lines
    assert "    tool call tooluse_B get_time {}" in lines  # an empty input is the empty object
    assert "    stop: tool_use" in lines
    assert "    usage: input 10, output 20, total 30, cache read 4" in lines


def test_show_prints_errors_in_stream_and_over_http(tmp_path):
    failure = es.encode_exception("modelStreamErrorException", {"message": "bad"})
    broken = stream_interaction(GOOD_STREAM[:2] + [failure])
    http = cs.Interaction("POST", broken.uri, {}, b"{}", 429, "Too Many Requests",
                          {"x-amzn-ErrorType": "ThrottlingException:http://internal"}, None,
                          b'{"message":"Rate exceeded"}')
    result = run("show", saved(tmp_path, broken, http))
    assert result.exit_code == 0, result.output
    assert "    error: modelStreamErrorException: bad" in result.output.splitlines()
    assert "    error: HTTP 429 ThrottlingException: Rate exceeded" in result.output.splitlines()


def test_verify_passes_good_cassettes(tmp_path):
    result = run("verify", saved(tmp_path, stream_interaction(GOOD_STREAM)), saved(tmp_path, name="empty.yaml"))
    assert (result.exit_code, result.output) == (0, "ok: 2 cassette(s) verified\n")


def corrupt_files(tmp_path) -> dict:
    texts = {"crc.yaml": with_raw_frame(flipped_crc(GOOD_STREAM[2])),
             "truncated.yaml": with_raw_frame(GOOD_STREAM[2][:9]),
             "broken.yaml": "metadata:\n  format_version: 1\ninteractions:\n- request: [\n"}
    paths = {}
    for name, text in texts.items():
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return paths


@pytest.mark.parametrize("name, where", [
    ("crc.yaml", ": interaction 0 (ConverseStream), frame 2: corrupt frame bytes (ChecksumMismatch"),
    ("truncated.yaml", ": interaction 0 (ConverseStream), frame 2: corrupt frame bytes ("),
    ("broken.yaml", ": line 5, column 1: broken YAML"),
])
@pytest.mark.parametrize("command", ["verify", "show"])
def test_corruption_is_one_line_naming_file_and_location(tmp_path, name, where, command):
    path = corrupt_files(tmp_path)[name]
    before = path.read_bytes()
    result = run(command, path)
    assert result.exit_code == 1 and isinstance(result.exception, (SystemExit, type(None)))
    message = result.output.removeprefix("Error: ").strip()
    assert "\n" not in message and message.startswith(str(path)) and where in message
    assert "Traceback" not in result.output and path.read_bytes() == before


def test_verify_reports_grammar_problems(tmp_path):
    path = saved(tmp_path, stream_interaction(GOOD_STREAM[1:]))
    result = run("verify", path)
    assert result.exit_code == 1
    assert result.output == f"{path}: interaction 0 (ConverseStream), frame 0 (contentBlockDelta): " \
                            "the stream must begin with messageStart\n"


def test_scan_finds_a_planted_base64_hidden_key(tmp_path):
    clean = saved(tmp_path, stream_interaction(GOOD_STREAM))
    doc = yaml.safe_load(clean.read_text())
    doc["interactions"][0]["request"]["json"]["note"] = base64.b64encode(b"id=AKIAFAKECANARY123456").decode()
    planted = tmp_path / "planted.yaml"
    planted.write_text(yaml.safe_dump(doc))
    result = run("scan", clean, planted)
    assert result.exit_code == 1
    location = "interactions[0].request.json.note (base64-decoded)"
    assert result.output == f"{planted}: {location}: AWS access key id AKIA…56\n"
    assert run("scan", clean).output == "ok: no secrets in 1 file(s)\n"


@pytest.mark.parametrize("name", ["crc.yaml", "truncated.yaml", "broken.yaml"])
def test_scan_exits_1_on_a_file_it_cannot_parse_with_the_line_verify_gives(tmp_path, name):
    path = corrupt_files(tmp_path)[name]
    result = run("scan", path)
    assert result.exit_code == 1 and result.output == run("verify", path).output, result.output
    assert result.output.startswith(f"{path}: ") and result.output.count("\n") == 1


def test_scan_still_reads_the_raw_text_of_a_file_it_cannot_parse(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("note: AKIAFAKECANARY123456\nbroken: [\n")
    lines = run("scan", path).output.splitlines()
    assert lines[0].startswith(f"{path}: line 3, column 1: broken YAML") and "AWS access key id AKIA…56" in lines[1]


def test_scan_reads_json_lines_and_every_gzip_member(tmp_path):
    (tmp_path / "events.json").write_text('{"messageStart": {"role": "assistant"}}\n{"metadata": {}}\n')
    assert run("scan", tmp_path / "events.json").output == "ok: no secrets in 1 file(s)\n"
    (tmp_path / "two.yaml.gz").write_bytes(gzip.compress(b"a: 1\n") + gzip.compress(b"b: AKIAFAKECANARY123456\n"))
    result = run("scan", tmp_path / "two.yaml.gz")
    assert result.exit_code == 1 and "AWS access key id AKIA…56" in result.output


def test_scan_and_import_refuse_what_is_no_regular_file_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "fifo.yaml")
    for args in (["scan"], ["import"], ["verify"], ["show"]):
        extra = [tmp_path / "out.yaml"] if args == ["import"] else []
        result = run(*args, tmp_path / "fifo.yaml", *extra)
        assert result.exit_code == 2, (args, result.output)  # a path of the wrong kind: bad usage, one line
        assert result.output == f"Error: {tmp_path}/fifo.yaml: not a regular file but a FIFO\n"
    assert not (tmp_path / "out.yaml").exists()


def test_import_decompresses_every_gzip_member_within_the_limit(tmp_path):
    foreign = tmp_path / "two.yaml.gz"
    foreign.write_bytes(gzip.compress(b"interactions: []\n") + gzip.compress(b"x" * (3 << 20)))
    result = run("import", foreign, tmp_path / "out.yaml")
    assert (result.exit_code, result.output) == (1, f"Error: {foreign}: gzip data that expands past 1048576 bytes\n")
    assert not (tmp_path / "out.yaml").exists()


def test_import_and_verify_give_one_line_for_broken_yaml(tmp_path):
    (tmp_path / "broken.yaml").write_text("a: [\n")
    imported = run("import", tmp_path / "broken.yaml", tmp_path / "out.yaml").output.removeprefix("Error: ")
    assert imported.startswith(run("verify", tmp_path / "broken.yaml").output.strip() + "; import reads: vcrpy")


def test_import_refuses_to_overwrite_without_force(tmp_path):
    src = tmp_path / "foreign.yaml"
    src.write_text(yaml.safe_dump({"interactions": [{
        "request": {"method": "POST", "uri": "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream",
                    "body": json.dumps({"messages": []}), "headers": {}},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": {},
                     "body": {"string": b"".join(GOOD_STREAM)}}}]}))
    dest = tmp_path / "mine.yaml"
    assert run("import", src, dest).exit_code == 0 and cs.verify(dest) == []
    before = dest.read_bytes()
    refused = run("import", src, dest)
    assert refused.exit_code == 2 and "exists" in refused.output and "--force" in refused.output
    assert dest.read_bytes() == before
    assert run("import", src, dest, "--force").exit_code == 0


def test_import_of_an_unknown_format_is_one_line(tmp_path):
    (tmp_path / "x.json").write_text("[1, 2]")
    result = run("import", tmp_path / "x.json", tmp_path / "out.yaml")
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "x.json: unrecognised fixture format: found a list of 2 item(s) (int) that are not decoded events; " \
           "expected one of: vcrpy YAML/JSON" in result.output and "decoded events, one JSON object per line" in result.output
    assert not (tmp_path / "out.yaml").exists()


# ------------------------------------------------------------------------------- real cassettes


def tool_calls(original) -> list[tuple[str, str, object]]:
    """(id, name, input) of every tool call in an original response, read straight from botocore's events."""
    if original.operation == "Converse":
        content = original.json()["output"]["message"]["content"]
        uses = [b["toolUse"] for b in content if "toolUse" in b]
        return [(u["toolUseId"], u["name"], u["input"]) for u in uses]
    calls, inputs = {}, {}
    for event in es.decode_events(original.body, original.operation):
        if original.operation == "InvokeModelWithResponseStream":
            event = json.loads(event["chunk"]["bytes"])
            block, delta = event.get("content_block", {}), event.get("delta", {})
            if block.get("type") == "tool_use":
                calls[event["index"]] = (block["id"], block["name"])
            inputs[event.get("index")] = inputs.get(event.get("index"), "") + delta.get("partial_json", "")
        elif "contentBlockStart" in event and "toolUse" in event["contentBlockStart"]["start"]:
            start = event["contentBlockStart"]
            use = start["start"]["toolUse"]
            calls[start["contentBlockIndex"]] = (use["toolUseId"], use["name"])
        elif "contentBlockDelta" in event and "toolUse" in event["contentBlockDelta"]["delta"]:
            index = event["contentBlockDelta"]["contentBlockIndex"]
            inputs[index] = inputs.get(index, "") + event["contentBlockDelta"]["delta"]["toolUse"]["input"]
    return [(i, n, json.loads(inputs.get(k) or "{}")) for k, (i, n) in calls.items()]


OPERATIONS = ("ConverseStream", "Converse", "InvokeModelWithResponseStream")
TOOL_FILES = [p for p in cassette_files() if any(tool_calls(o) for o in interactions()
                                                  if o.file == p and o.status == 200 and o.operation in OPERATIONS)]


@requires_realworld
@pytest.mark.parametrize("path", TOOL_FILES, ids=ids(TOOL_FILES))
def test_show_on_an_imported_real_tool_use_cassette_prints_every_tool_call(path, tmp_path):
    dest = tmp_path / "imported.yaml"
    assert run("import", path, dest).exit_code == 0
    result = run("show", dest)
    assert result.exit_code == 0, result.output
    expected = [c for o in interactions() if o.file == path and o.status == 200 for c in tool_calls(o)]
    assert expected
    for tool_id, name, tool_input in expected:
        line = f"tool call {tool_id} {name} {json.dumps(tool_input, ensure_ascii=False, separators=(', ', ': '))}"
        assert line in result.output


def test_import_of_decoded_event_lines_takes_model_and_request_and_says_what_was_synthesised(tmp_path):
    events = [{"messageStart": {"role": "assistant"}}, {"contentBlockDelta": {"contentBlockIndex": 0,
                                                                             "delta": {"text": "Hi"}}},
              {"contentBlockStop": {"contentBlockIndex": 0}}, {"messageStop": {"stopReason": "end_turn"}},
              {"metadata": {"usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}, "metrics": {"latencyMs": 1}}}]
    (tmp_path / "e.jsonl").write_text("\n".join(json.dumps(e) for e in events))
    result = run("import", tmp_path / "e.jsonl", tmp_path / "out.yaml", "--model", "openai.gpt-oss-120b-1:0")
    assert result.exit_code == 0 and "synthesised: request (metadata.synthesised)" in result.output
    assert cs.load(tmp_path / "out.yaml").interactions[0].model_id == "openai.gpt-oss-120b-1:0"
    (tmp_path / "bad.json").write_text("[1]")
    refused = run("import", tmp_path / "e.jsonl", tmp_path / "x.yaml", "--request", tmp_path / "bad.json")
    assert refused.exit_code == 2 and "bad.json: --request must be a JSON object" in refused.output


SIGNATURE = "EqQBCkgIBhABGAIiQM" + "x" * 300 + "=="
REDACTED = base64.b64encode(b"opaque-redacted-thinking-" * 20).decode()
TRACE = {"guardrail": {"inputAssessment": {"gr1": {"topicPolicy": {"topics": [
    {"name": "licence", "type": "DENY", "action": "BLOCKED"}]}}}, "actionReason": "Guardrail blocked."}}
DETAILED_STREAM = [
    es.encode_event("messageStart", {"role": "assistant"}, 7),
    es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Hm."}}}, 3),
    es.encode_event("contentBlockDelta", {"contentBlockIndex": 0,
                                          "delta": {"reasoningContent": {"signature": SIGNATURE}}}, 3),
    es.encode_event("contentBlockStop", {"contentBlockIndex": 0}, 2),
    es.encode_event("contentBlockDelta", {"contentBlockIndex": 1,
                                          "delta": {"reasoningContent": {"redactedContent": REDACTED}}}, 3),
    es.encode_event("contentBlockStop", {"contentBlockIndex": 1}, 2),
    es.encode_event("messageStop", {"stopReason": "guardrail_intervened"}, 4),
    es.encode_event("metadata", {"usage": {"inputTokens": 3, "outputTokens": 4, "totalTokens": 7,
                                           "cacheReadInputTokens": 5, "cacheReadInputTokenCount": 5,
                                           "serverToolUsage": {}},
                                 "metrics": {"latencyMs": 9}, "trace": TRACE}, 5),
]
DETAILED_REQUEST = {
    "messages": [{"role": "user", "content": [{"text": "Hi"}]},
                 {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]},
                 {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "ok"}]}},
                                              {"text": "and?"}]}],
    "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 1024}},
    "guardrailConfig": {"guardrailIdentifier": "gr1", "guardrailVersion": "1", "trace": "enabled"}}


def test_show_prints_settings_trace_usage_and_full_signatures_without_none_placeholders(tmp_path):
    import dataclasses

    it = dataclasses.replace(stream_interaction(DETAILED_STREAM), request_body=json.dumps(DETAILED_REQUEST).encode())
    path = cs.save(tmp_path / "d.yaml", cs.Cassette(None, {**make(it).metadata, "recorded": None, "region": None},
                                                     (it,)))
    short, full = run("show", path).output, run("show", path, "--full").output
    assert "None" not in short and "None" not in full and "recorded" not in short.splitlines()[0]
    assert "    user: tool result t1: ok" in short.splitlines()  # no status was sent, so none is shown
    assert '    thinking: {"type": "enabled", "budget_tokens": 1024}' in short.splitlines()
    assert '    guardrail: {"guardrailIdentifier": "gr1", "guardrailVersion": "1", "trace": "enabled"}' in short
    assert "    usage: input 3, output 4, total 7, cache read 5, server tool usage {}" in short.splitlines()
    [trace] = [line for line in short.splitlines() if line.startswith("    trace guardrail: {")]
    assert "Guardrail blocked." in trace and '"action": "BLOCKED"' in trace
    assert SIGNATURE not in short and f"[signature {SIGNATURE}]" in full
    assert "redacted reasoning (500 bytes)" in short and f"redacted reasoning: {REDACTED}" in full


def test_show_tells_an_empty_signature_from_a_missing_one(tmp_path):
    import dataclasses

    request = {"messages": [{"role": "user", "content": [{"text": "Hi"}]},
                            {"role": "assistant", "content": [
                                {"reasoningContent": {"reasoningText": {"text": "a", "signature": ""}}},
                                {"reasoningContent": {"reasoningText": {"text": "b"}}}, {"text": "c"}]},
                            {"role": "user", "content": [{"toolResult": {"toolUseId": "x", "status": "error",
                                                                         "content": [{"text": "no"}]}}]}]}
    it = dataclasses.replace(stream_interaction(GOOD_STREAM), request_body=json.dumps(request).encode())
    lines = run("show", saved(tmp_path, it)).output.splitlines()
    assert '    assistant: reasoning: a [signature "" (empty)]' in lines
    assert "    assistant: reasoning: b [no signature]" in lines and "    user: tool result x (error): no" in lines


def test_show_says_a_tool_use_has_no_id_instead_of_printing_none(tmp_path):
    import dataclasses

    stream = [es.encode_event("messageStart", {"role": "assistant"}, 7),
              es.encode_event("contentBlockStart", {"contentBlockIndex": 0,
                                                    "start": {"toolUse": {"name": "read_file"}}}, 5),
              es.encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{}"}}}, 9),
              es.encode_event("contentBlockStop", {"contentBlockIndex": 0}, 2),
              es.encode_event("messageStop", {"stopReason": "tool_use"}, 2)]
    request = {"messages": [{"role": "user", "content": [{"text": "Hi"}]},
                            {"role": "assistant", "content": [{"toolUse": {"toolUseId": "", "name": "f",
                                                                           "input": {}}}]},
                            {"role": "user", "content": [{"toolResult": {"content": [{"text": "ok"}]}}]}]}
    it = dataclasses.replace(stream_interaction(stream), request_body=json.dumps(request).encode())
    path = saved(tmp_path, it)
    for flag in ((), ("--full",)):
        lines = run("show", path, *flag).output.splitlines()
        assert "    tool call (no toolUseId) read_file {}" in lines
        assert '    assistant: tool call "" f {}' in lines and "    user: tool result (no toolUseId): ok" in lines
        assert not [line for line in lines if "None" in line]


def test_show_prints_novas_reasoning_configuration(tmp_path):
    import dataclasses

    request = {"messages": [{"role": "user", "content": [{"text": "Hi"}]}], "additionalModelRequestFields": {
        "reasoningConfig": {"type": "enabled", "maxReasoningEffort": "low"}}}
    it = dataclasses.replace(stream_interaction(GOOD_STREAM), request_body=json.dumps(request).encode())
    lines = run("show", saved(tmp_path, it)).output.splitlines()
    assert '    reasoning config: {"type": "enabled", "maxReasoningEffort": "low"}' in lines


def test_import_says_when_model_and_request_are_not_used(tmp_path):
    uri = "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.amazon.nova-micro-v1%3A0/converse-stream"
    src = tmp_path / "foreign.yaml"
    src.write_text(yaml.safe_dump({"interactions": [{
        "request": {"method": "POST", "uri": uri, "body": json.dumps({"messages": []}), "headers": {}},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": {},
                     "body": {"string": b"".join(GOOD_STREAM)}}}]}))
    (tmp_path / "body.json").write_text('{"messages": []}')
    result = run("import", src, tmp_path / "out.yaml", "--model", "m.x-v1:0", "--request", tmp_path / "body.json")
    assert result.exit_code == 0
    assert f"note: --request {tmp_path / 'body.json'} unused: the recording holds its own requests" in result.output
    assert "note: --model m.x-v1:0 unused: the recording names its model (us.amazon.nova-micro-v1:0)" in result.output
    (tmp_path / "e.jsonl").write_text('{"messageStart": {"role": "assistant"}}\n'
                                      '{"messageStop": {"stopReason": "end_turn"}}')
    used = run("import", tmp_path / "e.jsonl", tmp_path / "e.yaml", "--model", "m.x-v1:0", "--request",
               tmp_path / "body.json")
    assert "note:" not in used.output
