"""Cache placement, structured output and a toolless turn's tool choice, through boto3 against the loopback endpoint:
the right placements are served, each rejected one is answered with Bedrock's text for the family its evidence covers
(a warning elsewhere), and what botocore refuses client-side is sent the way another SDK sends it (the JSON body
rewritten before signing) to meet the endpoint's answer."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ParamValidationError

from harness.endpoint.server import BedrockServer

CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
NOVA = "us.amazon.nova-pro-v1:0"
WRAP = "The model returned the following errors: "
SCRIPT = {"content": [{"text": "Done."}], "stop_reason": "end_turn"}
SPEC = {"toolSpec": {"name": "read_file", "inputSchema": {"json": {"type": "object", "properties": {}}}}}
ORDER = ("a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are "
         "processed in the following order: `tools`, `system`, `messages`.")


def point(ttl=None):
    return {"cachePoint": {"type": "default", **({"ttl": ttl} if ttl else {})}}


def question(*extra):
    return [{"role": "user", "content": [{"text": "What changed?"}, *extra]}]


def round_trip(*after_result, inside=()):
    result = {"toolResult": {"toolUseId": "tooluse_A", "content": [{"text": "notes"}, *inside]}}
    return [*question(), {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_A", "name": "read_file",
                                                                         "input": {}}}]},
            {"role": "user", "content": [result, *after_result]}]


@pytest.fixture
def served():
    """(a boto3 client, the server): the same emulated answer to each of its requests."""
    with BedrockServer.emulate([SCRIPT] * 8) as server:
        config = Config(retries={"mode": "standard", "total_max_attempts": 1}, read_timeout=30)
        yield boto3.client("bedrock-runtime", endpoint_url=server.endpoint_url, region_name="us-east-1",
                           config=config), server


def streamed_text(client, **request) -> str:
    events = client.converse_stream(**request)["stream"]
    return "".join(e["contentBlockDelta"]["delta"].get("text", "") for e in events if "contentBlockDelta" in e)


def rejected(client, **request) -> str:
    with pytest.raises(client.exceptions.ValidationException) as error:
        client.converse_stream(**request)
    return error.value.response["Error"]["Message"]


def as_another_sdk(client, rewrite) -> None:
    """Send the client's requests the way an SDK without botocore's validation does: the JSON body rewritten."""
    def hook(request, **_):
        request.data = json.dumps(rewrite(json.loads(request.data))).encode()
    client.meta.events.register("before-sign.bedrock-runtime", hook)


def test_right_placements_in_two_ttls_are_served_without_a_finding(served):
    client, server = served
    request = {"modelId": CLAUDE, "messages": round_trip(point("5m")),
               "system": [{"text": "Be brief."}, point("1h")],
               "toolConfig": {"tools": [SPEC, point("1h")]},
               "outputConfig": {"textFormat": {"type": "json_schema", "structure": {"jsonSchema": {
                   "schema": json.dumps({"type": "object"}), "name": "answer"}}}}}
    request["messages"][0]["content"].append(point("1h"))
    request["toolConfig"]["tools"][0]["toolSpec"]["strict"] = True
    assert streamed_text(client, **request) == "Done."
    nova = {"modelId": NOVA, "messages": question(point()), "system": [{"text": "Be brief."}, point()],
            "toolConfig": {"tools": [SPEC]}}
    assert streamed_text(client, **nova) == "Done."
    assert [(r.problems, r.warnings) for r in server.requests] == [([], []), ([], [])]


@pytest.mark.parametrize("request_, message", [
    ({"modelId": CLAUDE, "messages": question(), "system": [{"text": "Be brief."}, point("1h")],
      "toolConfig": {"tools": [SPEC, point()]}}, WRAP + "system.0.cache_control.ttl: " + ORDER),
    ({"modelId": CLAUDE, "messages": round_trip(point()) + [
        {"role": "assistant", "content": [{"text": "Two lines."}]},
        {"role": "user", "content": [{"text": "And now?"}, point("1h")]}], "toolConfig": {"tools": [SPEC]}},
     WRAP + "messages.4.content.0.cache_control.ttl: " + ORDER),
    ({"modelId": NOVA, "messages": question(), "toolConfig": {"tools": [SPEC, point()]}},
     WRAP + "Malformed input request: #/toolConfig/tools/1: extraneous key [cachePoint] is not permitted, please "
            "reformat your input and try again."),
    ({"modelId": CLAUDE, "messages": question({"document": {"format": "txt", "name": "notes", "source": {
        "bytes": b"- one\n"}}}, point())}, WRAP + "messages.0.content.2.type: Field required"),
    ({"modelId": NOVA, "messages": question(point("1h"))},
     "Extended TTL prompt caching is only supported for Anthropic models"),
], ids=["claude-1h-after-5m-system", "claude-1h-after-5m-message", "nova-tools-cache-point", "claude-after-txt",
        "nova-1h"])
def test_a_misplaced_cache_point_is_answered_with_bedrocks_text(served, request_, message):
    client, server = served
    assert rejected(client, **request_) == message
    assert server.requests[-1].problems[0].message == message


@pytest.mark.parametrize("request_", [
    {"modelId": "us.meta.llama4-maverick-17b-instruct-v1:0", "messages": question(),
     "system": [{"text": "Be brief."}, point("1h")], "toolConfig": {"tools": [SPEC, point()]}},
    {"modelId": CLAUDE, "messages": question({"document": {"format": "pdf", "name": "notes", "source": {
        "bytes": b"%PDF-"}}}, point())},
], ids=["ttl-order-is-claudes-rule", "a-pdf-document-takes-a-cache-point"])
def test_outside_a_rules_family_the_request_is_served(served, request_):
    client, server = served
    assert streamed_text(client, **request_) == "Done."
    assert not server.requests[-1].problems


def test_botocore_refuses_what_only_another_sdk_sends_and_the_endpoint_answers_it(served):
    client, server = served
    with pytest.raises(ParamValidationError, match=r'Unknown parameter in messages\[2\]\.content\[0\]\.toolResult'
                                                   r'\.content\[1\]: "cachePoint"'):
        client.converse_stream(modelId=CLAUDE, messages=round_trip(inside=[point()]), toolConfig={"tools": [SPEC]})
    with pytest.raises(ParamValidationError, match="Invalid number of parameters set for tagged union structure "
                                                   r"toolConfig\.tools\[0\]"):
        client.converse_stream(modelId=CLAUDE, messages=question(), toolConfig={"tools": [{**SPEC, **point()}]})
    with pytest.raises(ParamValidationError, match='Missing required parameter in toolConfig: "tools"'):
        client.converse_stream(modelId=CLAUDE, messages=question(), toolConfig={"toolChoice": {"auto": {}}})

    def rewrite(body):
        tools = body.get("toolConfig", {}).get("tools")
        if body["messages"][-1]["content"][-1] == point():  # the tool result's cache point, moved inside it
            body["messages"][-1]["content"].pop()
            body["messages"][-1]["content"][0]["toolResult"]["content"].append(point())
        elif tools and tools[-1] == point("1h"):  # the tools cache point, merged into the toolSpec's element
            tools[0].update(tools.pop())
        elif body.get("toolConfig", {}).get("tools") == [SPEC] and body["messages"][0]["content"][0]["text"] == "x":
            del body["toolConfig"]["tools"]  # a tool choice without tools
        return body
    as_another_sdk(client, rewrite)
    assert streamed_text(client, modelId=CLAUDE, messages=round_trip(point()), toolConfig={"tools": [SPEC]}) == "Done."
    assert server.requests[-1].problems == [] and server.requests[-1].warnings[0].startswith(
        "warning cache-point-in-tool-result (not enforced: its evidence rejects for no family")
    assert rejected(client, modelId=CLAUDE, messages=question(), toolConfig={"tools": [SPEC, point("1h")]}) == (
        "The value at toolConfig.tools.0 can only set one of the following keys: toolSpec, systemTool, modelTool, or "
        "cachePoint.")
    message = rejected(client, modelId=CLAUDE, messages=[{"role": "user", "content": [{"text": "x"}]}],
                       toolConfig={"tools": [SPEC], "toolChoice": {"auto": {}}})
    assert message == ("1 validation error detected: Value null at 'toolConfig.tools' failed to satisfy constraint: "
                       "Member must not be null")
    assert any(w.startswith("warning tool-choice-without-tools") for w in server.requests[-1].warnings)


def test_a_schema_in_model_fields_is_served_with_a_warning_that_bedrock_ignores_it(served):
    client, server = served
    fields = {"response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "object"}}}}
    assert streamed_text(client, modelId=CLAUDE, messages=question(), additionalModelRequestFields=fields) == "Done."
    assert server.requests[-1].problems == []
    assert server.requests[-1].warnings == [
        "warning structured-output-in-request-fields (not enforced: its evidence rejects for no family; the model "
        f"{CLAUDE} is of family anthropic): additionalModelRequestFields.response_format is not read by Bedrock: the "
        "answer is not held to the schema. Send it as outputConfig.textFormat (type json_schema) instead."]
