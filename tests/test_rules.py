"""Bedrock's request rules: one rejected and one accepted request per rule, and the real accepted requests."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from realworld import ids, interactions, requires_realworld

import harness.endpoint.rules.converse
from harness.endpoint.rules.converse import RULES, Problem, check_request, validation_message

SIG = base64.b64encode(b"signature-of-the-first-thinking-block").decode()  # ends with "=" padding
PROMPT_ARN = "arn:aws:bedrock:us-east-1:123456789012:prompt/PROMPT1234"
WRAP = "The model returned the following errors: "
KIMI = "moonshotai.kimi-k2-thinking"
WRITER = "us.writer.palmyra-x5-v1:0"
CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
NOVA = "us.amazon.nova-pro-v1:0"
JSON_INVALID = "The format of the value at {} is invalid. Provide a json object for the field and try again."


def rule_id(rule) -> str:
    return rule.__name__.replace("_", "-")


def user(*content):
    return {"role": "user", "content": list(content)}


def assistant(*content):
    return {"role": "assistant", "content": list(content)}


def text(value="What is the weather in Paris?"):
    return {"text": value}


def use(tool_id, name="get_weather", **extra):
    return {"toolUse": {"toolUseId": tool_id, "name": name, "input": {"city": "Paris"}, **extra}}


def result(tool_id, **extra):
    return {"toolResult": {"toolUseId": tool_id, "content": [{"text": "sunny"}], **extra}}


def reasoning(signature=SIG):
    inner = {"text": "The user wants the weather."}
    if signature is not None:
        inner["signature"] = signature
    return {"reasoningContent": {"reasoningText": inner}}


def image():
    return {"image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}}


def document():
    return {"document": {"format": "txt", "name": "notes", "source": {"bytes": "bm90ZXM="}}}


def point(ttl=None):
    return {"cachePoint": {"type": "default", **({"ttl": ttl} if ttl else {})}}


def spec(name="get_weather", schema_type="object", **extra):
    return {"toolSpec": {"name": name, "inputSchema": {"json": {"type": schema_type, "properties": {}}}, **extra}}


def tools(*specs, choice=None):
    config = {"tools": list(specs or [spec()])}
    return {**config, "toolChoice": choice} if choice else config


def req(*messages, **members):
    return {"messages": list(messages), **members}


def tooled(*messages, **members):
    return req(*messages, toolConfig=members.pop("toolConfig", tools()), **members)


def think(kind="enabled", budget=1024, **extra):
    config = {"type": kind, "budget_tokens": budget} if kind == "enabled" else {"type": kind}
    return {"thinking": config, **extra}


def round_trip(first=(), *, thinking=None, **members):
    """A tool round trip: question, assistant tool call, its result."""
    fields = {"additionalModelRequestFields": thinking} if thinking else {}
    return tooled(user(text()), assistant(*first, text("Let me check."), use("tooluse_A")),
                  user(result("tooluse_A")), **fields, **members)


def coral(tail: str) -> str:
    return "1 validation error detected: " + tail


FINAL_TURN = (WRAP + ("messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When "
              "`thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the "
              "lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from "
              "previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at "
              "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"))

# (rule id, rejected body, [(path, Bedrock's text)]): the rule's problems, exactly.
BAD = [
    ("messages-missing", {"inferenceConfig": {"maxTokens": 10}}, [("messages", ("The messages field is missing. Add a "
     "list of messages that starts with a user message, and try again."))]),
    ("block-shape", req(user({"text": "hi", "image": image()["image"]})), [("messages.0.content.0", ("The "
     "ContentBlock object at messages.0.content.0 must set exactly one member, but it sets 2: image, text."))]),
    ("block-shape", req(user({"tool_use": {}})), [("messages.0.content.0", ("The ContentBlock object at "
     "messages.0.content.0 has an unsupported member: tool_use. Use one of: text, image, document, video, audio, "
     "toolUse, toolResult, guardContent, cachePoint, reasoningContent, citationsContent, searchResult."))]),
    ("block-shape", req(user({})), [("messages.0.content.0", ("The ContentBlock object at messages.0.content.0 must "
     "set exactly one member, but it sets 0."))]),
    ("block-shape", req(user(text()), "Sunny."), [("messages.1", ("The Message object at messages.1 must be an object "
     "with role and content."))]),
    ("block-shape", tooled(user(text()), toolConfig=tools(choice={"auto": {}, "any": {}})), [("toolConfig.toolChoice",
     "The ToolChoice object at toolConfig.toolChoice must set exactly one member, but it sets 2: any, auto.")]),
    ("block-shape", req(user({"toolResult": "tooluse_A"})), [("messages.0.content.0", ("The toolResult member of "
     "the ContentBlock object at messages.0.content.0 must be an object."))]),
    ("role-enum", req({"role": "system", "content": [text()]}), [("messages.0.role", coral("Value 'system' at "
     "'messages.1.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]"))]),
    ("member-required", req(user(text()), {"role": "assistant"}), [("messages.1.content", coral("Value at "
     "'messages.2.member.content' failed to satisfy constraint: Member must not be null"))]),
    ("member-required", tooled(user(text()), assistant({"toolUse": {"name": "get_weather", "input": {}}})),
     [("messages.1.content.0.toolUse.toolUseId", coral("Value at 'messages.2.member.content.1.member.toolUse."
       "toolUseId' failed to satisfy constraint: Member must not be null"))]),
    ("tool-name-pattern", tooled(user(text()), toolConfig=tools(spec(), spec("Complete Session"))),
     [("toolConfig.tools.1.toolSpec.name", coral("Value 'Complete Session' at 'toolConfig.tools.2.member.toolSpec."
       "name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+"))]),
    ("tool-name-pattern", tooled(user(text()), assistant(use("tooluse_A", name="functions.get_weather"))),
     [("messages.1.content.0.toolUse.name", coral("Value at 'messages.2.member.content.1.member.toolUse.name' failed "
       "to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+"))]),
    ("tool-name-pattern", tooled(user(text()), toolConfig=tools(spec("x" * 65))),
     [("toolConfig.tools.0.toolSpec.name", coral(f"Value '{'x' * 65}' at 'toolConfig.tools.1.member.toolSpec.name' "
       "failed to satisfy constraint: Member must have length less than or equal to 64"))]),
    ("non-empty-string", req(user(text()), system=[{"text": ""}]), [("system.0.text", coral("Value '' at "
     "'system.1.member.text' failed to satisfy constraint: Member must have length greater than or equal to 1"))]),
    ("tool-use-id-pattern", tooled(user(text()), assistant(use("tooluse A")), user(result("tooluse A"))),
     [("messages.1.content.0.toolUse.toolUseId", coral("Value at 'messages.2.member.content.1.member.toolUse."
       "toolUseId' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.:-]+")),
      ("messages.2.content.0.toolResult.toolUseId", coral("Value at 'messages.3.member.content.1.member.toolResult."
       "toolUseId' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.:-]+"))]),
    ("inference-range", req(user(text()), inferenceConfig={"temperature": 1.5, "topP": -0.1, "maxTokens": 0}),
     [("inferenceConfig.temperature", coral("Value '1.5' at 'inferenceConfig.temperature' failed to satisfy "
       "constraint: Member must have value less than or equal to 1")),
      ("inferenceConfig.topP", coral("Value '-0.1' at 'inferenceConfig.topP' failed to satisfy constraint: Member "
       "must have value greater than or equal to 0")),
      ("inferenceConfig.maxTokens", coral("Value '0' at 'inferenceConfig.maxTokens' failed to satisfy constraint: "
       "Member must have value greater than or equal to 1"))]),
    ("tools-empty", req(user(text()), toolConfig={"tools": []}), [("toolConfig.tools", coral("Value '[]' at "
     "'toolConfig.tools' failed to satisfy constraint: Member must have length greater than or equal to 1"))]),
    ("prompt-arn-conflict", req(user(text()), modelId=PROMPT_ARN, system=[text("Be brief.")]), [("system", ("The "
     "system field can't be used with a prompt resource as modelId. Remove system and try again."))]),
    ("response-field-paths", req(user(text()), additionalModelResponseFieldPaths=["/stop_sequence", "stop", ""]),
     [(f"additionalModelResponseFieldPaths.{i}", (f"The value at additionalModelResponseFieldPaths.{i} must be a JSON "
       "Pointer such as /stop_sequence, at most 10 of them.")) for i in (1, 2)]),
    ("first-message-user", req(assistant(text("Hello!")), user(text())), [("messages.0", ("A conversation must start "
     "with a user message. Try again with a conversation that starts with a user message."))]),
    ("first-message-user", req(), [("messages", ("A conversation must start with a user message. Try again with a "
     "conversation that starts with a user message."))]),
    ("alternating-roles", req(user(text()), user(text("And in Rome?"))), [("messages.1.role", ("A conversation must "
     "alternate between user and assistant roles. Make sure the conversation alternates between user and assistant "
     "roles and try again."))]),
    ("content-empty", req(user(text()), assistant(text("Sunny.")), user(text()), assistant()), [("messages.3.content",
     ("The content field in the Message object at messages.3 is empty. Add a ContentBlock object to the content field "
     "and try again."))]),
    ("text-blank", req(user(text()), assistant(text("Sunny.")), user(text(), text(""))), [("messages.2.content.1.text",
     ("The text field in the ContentBlock object at messages.2.content.1 is blank. Add text to the text field, and try "
     "again."))]),
    ("text-blank", req(user(text(" \n"))), [("messages.0.content.0.text", ("The text field in the ContentBlock object "
     "at messages.0.content.0 is blank. Add text to the text field, and try again."))]),
    ("toolconfig-required", req(user(text()), assistant(use("tooluse_A")), user(result("tooluse_A"))),
     [("toolConfig", "The toolConfig field must be defined when using toolUse and toolResult content blocks.")]),
    ("tool-use-duplicate-id", tooled(user(text()), assistant(use("tooluse_A"), use("tooluse_A"))),
     [("messages.1.content", "The toolUse blocks at messages.1.content contain duplicate Ids: tooluse_A")]),
    ("tool-result-exceeds", tooled(user(text()), assistant(use("tooluse_A")), user(result("tooluse_A"),
     result("tooluse_B"))), [("messages.2.content", ("The number of toolResult blocks at messages.2.content exceeds "
     "the number of toolUse blocks of previous turn."))]),
    ("tool-result-exceeds", tooled(user(result("tooluse_A"))), [("messages.0.content", ("The number of toolResult "
     "blocks at messages.0.content exceeds the number of toolUse blocks of previous turn."))]),
    ("tool-result-missing", tooled(user(text()), assistant(text("Checking."), use("tooluse_A"), use("tooluse_B")),
     user(text("Never mind."))), [("messages.2.content", ("Expected toolResult blocks at messages.2.content for the "
     "following Ids: tooluse_A, tooluse_B"))]),
    ("tool-result-missing", tooled(user(text()), assistant(use("tooluse_A"), use("tooluse_B")),
     user(result("tooluse_Atooluse_B"))), [("messages.2.content", ("Expected toolResult blocks at messages.2.content "
     "for the following Ids: tooluse_A, tooluse_B"))]),
    ("tool-result-unknown-id", tooled(user(text()), assistant(use("tooluse_A"), use("tooluse_B")),
     user(result("tooluse_A"), result("tooluse_X"))), [("messages.2.content", ("The toolResult blocks at "
     "messages.2.content contain Ids that match no toolUse block of the previous turn: tooluse_X"))]),
    ("tool-result-first", tooled(user(text()), assistant(use("tooluse_A"), use("tooluse_B")),
     user(result("tooluse_A"), text("Also:"), result("tooluse_B"))), [("messages.2.content", WRAP + ("messages.2: Did "
     "not find 2 `tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must "
     "begin with a matching number of `tool_result` blocks."))]),
    ("tool-use-input-object", tooled(user(text()), assistant({"toolUse": {"toolUseId": "tooluse_A", "name":
     "get_weather", "input": ""}})), [("messages.1.content.0.toolUse.input", ("The format of the value at "
     "messages.1.content.0.toolUse.input is invalid. Provide a json object for the field and try again."))]),
    ("document-needs-text", req(user(document())), [("messages.0.content.0",
                                                     "A text block must be included when using documents.")]),
    ("media-in-user", req(user(text()), assistant(text("Here it is."), image())), [("messages.1.content.1", ("The "
     "image block at messages.1.content.1 is only supported in user messages. Move it to a user message and try "
     "again."))]),
    ("media-limit", req(user(text(), *[image()] * 21, *[document()] * 6)), [("messages.0.content", ("The content field "
     "at messages.0 has 21 image blocks, more than the maximum of 20. Remove image blocks and try again.")),
     ("messages.0.content", ("The content field at messages.0 has 6 document blocks, more than the maximum of 5. Remove "
      "document blocks and try again."))]),
    ("tool-schema-object", tooled(user(text()), toolConfig=tools(spec(), spec("lookup", "string"))),
     [("toolConfig.tools.1.toolSpec.inputSchema.json.type", ("The value at toolConfig.tools.1.toolSpec.inputSchema."
       "json.type must be one of the following: object."))]),
    ("tool-name-duplicate", tooled(user(text()), toolConfig=tools(spec(), spec())), [(("toolConfig.tools.1.toolSpec."
     "name"), WRAP + "tools: Tool names must be unique.")]),
    ("tool-choice-unknown", tooled(user(text()), toolConfig=tools(choice={"tool": {"name": "get_time"}})),
     [("toolConfig.toolChoice.tool.name", ("The tool get_time in toolConfig.toolChoice doesn't match any tool in "
       "toolConfig.tools. Specify a defined tool and try again."))]),
    ("thinking-forced-tool", tooled(user(text()), toolConfig=tools(choice={"any": {}}),
     additionalModelRequestFields=think()), [("toolConfig.toolChoice", WRAP + ("Thinking may not be enabled when "
     "tool_choice forces tool use."))]),
    ("thinking-temperature", req(user(text()), inferenceConfig={"temperature": 0.5},
     additionalModelRequestFields=think()), [("inferenceConfig.temperature", WRAP + ("`temperature` may only be set to "
     "1 when thinking is enabled."))]),
    ("thinking-top-p", req(user(text()), inferenceConfig={"topP": 0.5}, additionalModelRequestFields=think()),
     [("inferenceConfig.topP", WRAP + ("`top_p` must be greater than or equal to 0.95 or unset when thinking is "
       "enabled."))]),
    ("thinking-top-k", req(user(text()), additionalModelRequestFields=think(top_k=8)),
     [("additionalModelRequestFields.top_k", WRAP + "`top_k` may not be set when thinking is enabled.")]),
    ("thinking-budget-min", req(user(text()), additionalModelRequestFields=think(budget=512)),
     [("additionalModelRequestFields.thinking.budget_tokens", WRAP + ("thinking.enabled.budget_tokens: Input should "
       "be greater than or equal to 1024"))]),
    ("thinking-budget", req(user(text()), inferenceConfig={"maxTokens": 2048},
     additionalModelRequestFields=think(budget=2048)), [("inferenceConfig.maxTokens", WRAP + ("`max_tokens` must be "
     "greater than `thinking.budget_tokens`."))]),
    ("thinking-prefill", req(user(text()), assistant(text("The weather in")), additionalModelRequestFields=think()),
     [("messages.1", ("This model does not support assistant message prefill. The conversation must end with a user "
       "message."))]),
    ("thinking-block-first", round_trip(thinking=think()), [("messages.1.content.0", FINAL_TURN)]),
    ("thinking-block-first", tooled(user(text()), assistant(text("Let me check."), reasoning(), use("tooluse_A")),
     user(result("tooluse_A")), additionalModelRequestFields={"reasoning_config": {"type": "enabled",
                                                                                  "budget_tokens": 2048}}),
     [("messages.1.content.0", FINAL_TURN)]),
    ("reasoning-signature-missing", round_trip([reasoning(None)], thinking=think()),
     [("messages.1.content.0.reasoningContent.reasoningText.signature", WRAP + ("messages.1.content.0.thinking."
       "signature: Field required"))]),
    ("reasoning-signature-invalid", round_trip([reasoning(SIG + SIG)], thinking=think()),
     [("messages.1.content.0.reasoningContent.reasoningText.signature", WRAP + ("messages.1.content.0: Invalid "
       "`signature` in `thinking` block"))]),
    ("reasoning-signature-invalid", round_trip([reasoning("")], thinking=think()),
     [("messages.1.content.0.reasoningContent.reasoningText.signature", WRAP + ("messages.1.content.0: Invalid "
       "`signature` in `thinking` block"))]),
    ("tool-result-status", tooled(user(text()), assistant(use("tooluse_A")), user(result("tooluse_A", status="success")),
                                  modelId=WRITER),
     [("messages.2.content.0.toolResult.status", "This model doesn't support the status field. Remove status and try "
       "again.")]),
    ("tool-result-image", tooled(user(text()), assistant(use("tooluse_A")), user(
        {"toolResult": {"toolUseId": "tooluse_A", "content": [{"text": "The screenshot:"}, image()]}}),
        modelId="us.openai.gpt-5.6-sol"),
     [("messages.2.content.0.toolResult.content.1.image", "This model doesn't support the image field for user "
       "messages. Remove image and try again.")]),
    ("tool-result-error-text", tooled(user(text()), assistant(use("tooluse_A")), user(
        {"toolResult": {"toolUseId": "tooluse_A", "status": "error", "content": [{"text": "boom"}, image(), image()]}}),
        modelId="us.anthropic.claude-sonnet-4-20250514-v1:0"),
     [("messages.2.content.0.toolResult.content", WRAP + "messages.2.content.0.tool_result: all content must be type "
       "`text` if `is_error` is true")]),
    ("reasoning-unsigned", tooled(user(text()), assistant(reasoning(None), use("tooluse_A")), user(result("tooluse_A")),
                                  modelId="us.anthropic.claude-3-haiku-20240307-v1:0"),
     [("messages.1.content.0", "User messages cannot contain reasoning content. Please remove the reasoning content "
       "and try again.")]),
    ("tool-result-json-object", tooled(user(text()), assistant(use("tooluse_A")), user(
        {"toolResult": {"toolUseId": "tooluse_A", "content": [{"json": {"ok": 1}}, {"json": 42}, {"json": [1]}]}})),
     [(path, JSON_INVALID.format(path)) for path in ("messages.2.content.0.toolResult.content.1.json",
                                                      "messages.2.content.0.toolResult.content.2.json")]),
    ("tool-result-json-type-key", tooled(user(text()), assistant(use("tooluse_A")), user(
        {"toolResult": {"toolUseId": "tooluse_A", "content": [{"json": {"file": {"__type": "File", "n": 1}}}]}})),
     [("messages.2.content.0.toolResult.content.0.json",
       JSON_INVALID.format("messages.2.content.0.toolResult.content.0.json"))]),
    ("reasoning-text-null", req(user(text()), assistant({"reasoningContent": {"reasoningText": {"signature": SIG}}},
                                                        text("Walk.")), user(text("Ok"))),
     [("messages.1.content.0.reasoningContent.reasoningText.text", coral(
         "Value at 'messages.2.member.content.1.member.reasoningContent.reasoningText.text' failed to satisfy "
         "constraint: Member must not be null"))]),
    ("reasoning-signature-empty", req(user(text()), assistant(reasoning(""), text("Walk.")), user(text("Ok"))),
     [("messages.1.content.0.reasoningContent.reasoningText.signature", "This model doesn't support the "
       "reasoningContent.reasoningText.signature field. Remove reasoningContent.reasoningText.signature and try "
       "again.")]),
    # ---- prompt caching, structured output, tool choice (bedrock-wire.md §13) ----
    ("cache-point-in-tool-result", tooled(user(text()), assistant(use("tooluse_A")), user(
        {"toolResult": {"toolUseId": "tooluse_A", "content": [{"text": "sunny"}, point("1h")]}}), modelId=CLAUDE),
     [("messages.2.content.0.toolResult.content.1", "The cachePoint at messages.2.content.0.toolResult.content.1 is "
       "not a member of ToolResultContentBlock. Put it after the toolResult block, at messages.2.content, and try "
       "again.")]),
    ("cache-ttl-order", tooled(user(text()), system=[text("Be brief."), point("1h")], toolConfig=tools(spec(), point()),
                               modelId=CLAUDE),
     [("system.1.cachePoint.ttl", WRAP + "system.0.cache_control.ttl: a ttl='1h' cache_control block must not come "
       "after a ttl='5m' cache_control block. Note that blocks are processed in the following order: `tools`, "
       "`system`, `messages`.")]),
    ("cache-ttl-order", tooled(user(text()), assistant(use("tooluse_A")), user(result("tooluse_A"), point("5m")),
                               assistant(text("Sunny.")), user(text("And Rome?"), point("1h")), modelId=CLAUDE),
     [("messages.4.content.1.cachePoint.ttl", WRAP + "messages.4.content.0.cache_control.ttl: a ttl='1h' "
       "cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the "
       "following order: `tools`, `system`, `messages`.")]),
    ("cache-ttl-extended", req(user(text()), system=[text("Be brief."), point("1h")], modelId=NOVA),
     [("system.1.cachePoint.ttl", "Extended TTL prompt caching is only supported for Anthropic models")]),
    ("cache-point-in-tools", tooled(user(text()), toolConfig=tools(spec(), spec("lookup"), point()), modelId=NOVA),
     [("toolConfig.tools.2", WRAP + "Malformed input request: #/toolConfig/tools/2: extraneous key [cachePoint] is "
       "not permitted, please reformat your input and try again.")]),
    ("tool-union", tooled(user(text()), toolConfig=tools(spec("lookup"), {**spec(), **point()}), modelId=CLAUDE),
     [("toolConfig.tools.1", "The value at toolConfig.tools.1 can only set one of the following keys: toolSpec, "
       "systemTool, modelTool, or cachePoint.")]),
    ("cache-point-after-document", req(user(text("Summarise:"), document(), point()), modelId=CLAUDE),
     [("messages.0.content.2", WRAP + "messages.0.content.2.type: Field required")]),
    ("structured-output-in-request-fields", req(user(text()), additionalModelRequestFields={
        "response_format": {"type": "json_schema", "json_schema": {"name": "w", "schema": {"type": "object"}}}}),
     [("additionalModelRequestFields.response_format", "additionalModelRequestFields.response_format is not read by "
       "Bedrock: the answer is not held to the schema. Send it as outputConfig.textFormat (type json_schema) "
       "instead.")]),
    ("tool-choice-without-tools", req(user(text()), toolConfig={"toolChoice": {"auto": {}}}),
     [("toolConfig.toolChoice", "The request sets toolConfig.toolChoice but defines no tools. Remove the tool "
       "choice, or add toolConfig.tools, and try again.")]),
    ("tool-choice-without-tools", req(user(text()), additionalModelRequestFields={"tool_choice": {"type": "auto"}}),
     [("additionalModelRequestFields.tool_choice", "The request sets additionalModelRequestFields.tool_choice but "
       "defines no tools. Remove the tool choice, or add toolConfig.tools, and try again.")]),
]

# (rule id, a body Bedrock accepts that exercises the rule); every rule must find nothing in it.
GOOD = [
    ("messages-missing", {"modelId": PROMPT_ARN}),
    ("messages-missing", req(user(text()))),
    ("block-shape", tooled(user(text(), {"cachePoint": {"type": "default"}}), toolConfig=tools(
        spec(), {"systemTool": {"name": "nova_code_interpreter"}}, {"cachePoint": {"type": "default"}}),
        modelId=CLAUDE)),
    ("block-shape", round_trip()),
    ("role-enum", req(user(text()), assistant(text("Sunny.")), user(text("Thanks")))),
    ("member-required", round_trip()),
    ("tool-name-pattern", tooled(user(text()), toolConfig=tools(spec("get-weather_2"), spec("x" * 64),
                                                                  choice={"tool": {"name": "get-weather_2"}}))),
    ("non-empty-string", req(user(text()), system=[text("Be brief."), {"cachePoint": {"type": "default"}}])),
    ("tool-use-id-pattern", tooled(user(text()), assistant(use("call.0:tool-A_1")), user(result("call.0:tool-A_1")))),
    ("inference-range", req(user(text()), inferenceConfig={"temperature": 1, "topP": 0, "maxTokens": 1})),
    ("tools-empty", tooled(user(text()))),
    ("prompt-arn-conflict", req(user(text()), modelId=PROMPT_ARN)),
    ("response-field-paths", req(user(text()), additionalModelResponseFieldPaths=["/stop_sequence", "/a~1b/0"])),
    ("first-message-user", req(user(text()))),
    ("alternating-roles", round_trip()),
    ("content-empty", req(user(text()))),
    ("text-blank", req(user(text("Summarise:"), document(), text("\n"), {"cachePoint": {"type": "default"}},
                            text("Be brief.")))),
    ("toolconfig-required", round_trip()),
    ("tool-use-duplicate-id", tooled(user(text()), assistant(use("tooluse_A"), use("tooluse_B")),
                                     user(result("tooluse_A"), result("tooluse_B")))),
    ("tool-result-exceeds", tooled(user(text()), assistant(use("tooluse_A"), use("tooluse_B")),
                                   user(result("tooluse_B"), result("tooluse_A")))),
    ("tool-result-missing", tooled(user(text()), assistant(text("Checking."), use("tooluse_A")))),  # not answered yet
    ("tool-result-missing", tooled(  # a server tool's pair lives in the assistant turn; text may follow a result
        user(text()), assistant(use("srv_1", name="nova_code_interpreter", type="server_tool_use"),
                                {"toolResult": {"toolUseId": "srv_1", "content": [{"json": {"stdout": "7006652"}}],
                                                "type": "nova_code_interpreter_result"}},
                                use("tooluse_A", name="final_result", type="tool_use")),
        user(result("tooluse_A"), text("Go on."))),),
    ("tool-result-unknown-id", round_trip()),
    ("tool-result-first", tooled(user(text()), assistant(use("tooluse_A"), use("tooluse_B")),
                                 user(result("tooluse_B"), {"cachePoint": {"type": "default"}}, result("tooluse_A"),
                                      text("Both done.")))),
    ("tool-use-input-object", tooled(user(text()), assistant({"toolUse": {"toolUseId": "tooluse_A", "name":
                                                                          "get_weather", "input": {}}}))),
    ("document-needs-text", req(user(text("Summarise this."), document()))),
    ("media-in-user", req(user(text(), image(), document()), assistant(text("A cat.")), user(text("Thanks")))),
    ("media-limit", req(user(text(), *[image()] * 20, *[document()] * 5))),
    ("tool-schema-object", tooled(user(text()), toolConfig=tools(spec(), spec("lookup")))),
    ("tool-name-duplicate", tooled(user(text()), toolConfig=tools(spec(), spec("lookup")))),
    ("tool-choice-unknown", tooled(user(text()), toolConfig=tools(spec(), choice={"tool": {"name": "get_weather"}}))),
    ("thinking-forced-tool", tooled(user(text()), toolConfig=tools(choice={"auto": {}}),
                                    additionalModelRequestFields=think())),
    ("thinking-forced-tool", tooled(user(text()), toolConfig=tools(choice={"any": {}}),
                                    additionalModelRequestFields=think("adaptive"))),
    ("thinking-forced-tool", tooled(user(text()), toolConfig=tools(choice={"any": {}}))),
    ("thinking-temperature", req(user(text()), inferenceConfig={"temperature": 1},
                                 additionalModelRequestFields=think())),
    ("thinking-temperature", req(user(text()), inferenceConfig={"temperature": 0})),
    ("thinking-top-p", req(user(text()), inferenceConfig={"topP": 0.95}, additionalModelRequestFields=think())),
    ("thinking-top-k", req(user(text()), additionalModelRequestFields={"top_k": 8})),
    ("thinking-budget-min", req(user(text()), additionalModelRequestFields=think(budget=1024))),
    ("thinking-budget", req(user(text()), inferenceConfig={"maxTokens": 4096}, additionalModelRequestFields=think())),
    ("thinking-prefill", req(user(text()), assistant(text("The weather in")))),
    ("thinking-block-first", round_trip([reasoning()], thinking=think())),
    ("thinking-block-first", round_trip([{"reasoningContent": {"redactedContent": "RWFzdGVyIGVnZw=="}}],
                                        thinking=think())),
    ("thinking-block-first", round_trip(thinking=think("adaptive"))),
    ("thinking-block-first", round_trip()),
    ("thinking-block-first", tooled(  # one tool loop is one assistant turn: only its first message opens with thinking
        user(text()), assistant(reasoning(), use("tooluse_A")), user(result("tooluse_A")),
        assistant(use("tooluse_B")), user(result("tooluse_B")), additionalModelRequestFields=think())),
    ("thinking-block-first", tooled(  # a new user question closes the earlier turn
        user(text()), assistant(reasoning(), use("tooluse_A")), user(result("tooluse_A")), assistant(text("Sunny.")),
        user(text("And Rome?")), additionalModelRequestFields=think())),
    ("reasoning-signature-missing", req(user(text()), assistant(reasoning(None), text("Walk.")), user(text("Ok")),
                                        modelId="openai.gpt-oss-120b-1:0")),
    ("reasoning-signature-invalid", round_trip([reasoning()], thinking=think())),
    ("tool-result-json-object", tooled(user(text()), assistant(use("tooluse_A")), user(
        {"toolResult": {"toolUseId": "tooluse_A", "content": [{"json": {"ok": 1}}, {"text": "42"}]}}))),
    ("tool-result-json-type-key", tooled(user(text()), assistant(use("tooluse_A")), user(
        {"toolResult": {"toolUseId": "tooluse_A", "content": [{"json": {"type": "File", "n": 1}}]}}))),
    ("reasoning-text-null", req(user(text()), assistant({"reasoningContent": {"reasoningText": {
        "text": "", "signature": SIG}}}, text("Walk.")), user(text("Ok")))),
    ("tool-result-status", {**round_trip(), "modelId": KIMI}),
    ("tool-result-status", {**tooled(user(text()), assistant(use("tooluse_A")), user(result("tooluse_A", status="error"))),
                            "modelId": "us.amazon.nova-pro-v1:0"}),
    # unsigned reasoning left out is accepted (vercel/ai #17602); signed reasoning with thinking is rule 12's matter
    ("reasoning-unsigned", tooled(user(text()), assistant(use("tooluse_A")), user(result("tooluse_A")),
                                  modelId="us.amazon.nova-pro-v1:0")),
    ("reasoning-unsigned", round_trip((reasoning(),), thinking=think())),
    # the image beside the result, in the same user message, is what OpenAI-family models take (opencode #48069)
    ("tool-result-image", {**tooled(user(text()), assistant(use("tooluse_A")), user(result("tooluse_A"), image())),
                           "modelId": "us.openai.gpt-5.6-sol"}),
    ("tool-result-image", {**tooled(user(text()), assistant(use("tooluse_A")), user(
        {"toolResult": {"toolUseId": "tooluse_A", "content": [image(), document()]}}, text("Here."))),
        "modelId": "us.anthropic.claude-sonnet-4-20250514-v1:0"}),
    # an error result's image beside it, its text inside: what Claude takes (oh-my-pi #12809)
    ("tool-result-error-text", {**tooled(user(text()), assistant(use("tooluse_A")), user(
        {"toolResult": {"toolUseId": "tooluse_A", "status": "error", "content": [{"text": "boom"}]}}, image())),
        "modelId": "us.anthropic.claude-sonnet-4-20250514-v1:0"}),
    ("reasoning-signature-empty", req(user(text()), assistant(reasoning(None), text("Walk.")), user(text("Ok")),
                                      modelId="openai.gpt-oss-120b-1:0")),
    ("cache-point-in-tool-result", tooled(user(text()), assistant(use("tooluse_A")), user(result("tooluse_A"), point()),
                                          modelId=CLAUDE)),
    ("cache-ttl-order", tooled(user(text(), point("5m")), assistant(use("tooluse_A")), user(result("tooluse_A"), point()),
                               system=[text("Be brief."), point("1h")], toolConfig=tools(spec(), point("1h")),
                               modelId=CLAUDE)),
    ("cache-ttl-order", req(user(text(), point("1h")), system=[text("Be brief."), point("1h")], modelId=CLAUDE)),
    ("cache-ttl-extended", req(user(text(), point("5m")), system=[text("Be brief."), point()], modelId=NOVA)),
    ("cache-ttl-extended", req(user(text(), point("1h")), modelId=CLAUDE)),
    ("cache-point-in-tools", tooled(user(text(), point()), system=[text("Be brief."), point()], modelId=NOVA)),
    ("cache-point-in-tools", tooled(user(text()), toolConfig=tools(spec(), point()), modelId=CLAUDE)),
    ("tool-union", tooled(user(text()), toolConfig=tools(spec(), point(), spec("lookup")), modelId=CLAUDE)),
    ("cache-point-after-document", req(user(text("Summarise:"), document(), text("\n"), point(), text("Be brief."),
                                            point()), modelId=CLAUDE)),
    ("cache-point-after-document", req(user(text("Summarise:"), {"document": {
        "format": "pdf", "name": "report", "source": {"bytes": "JVBERi0="}}}, point()), modelId=CLAUDE)),
    ("structured-output-in-request-fields", req(user(text()), outputConfig={"textFormat": {
        "type": "json_schema", "structure": {"jsonSchema": {"schema": '{"type": "object"}', "name": "w"}}}})),
    ("tool-choice-without-tools", tooled(user(text()), toolConfig=tools(spec(), choice={"any": {}}))),
]


@pytest.mark.parametrize("rule, body, expected", BAD, ids=[row[0] for row in BAD])
def test_bedrock_rejects(rule, body, expected):
    problems = [p for p in check_request(body) if p.rule == rule]
    assert [(p.path, p.message) for p in problems] == expected


@pytest.mark.parametrize("rule, body", GOOD, ids=[row[0] for row in GOOD])
def test_bedrock_accepts(rule, body):
    assert check_request(body) == []


def test_every_rule_has_a_rejected_and_an_accepted_request():
    names = [rule_id(rule) for rule in RULES]
    assert len(set(names)) == len(names)
    assert {row[0] for row in BAD} == set(names)
    assert {row[0] for row in GOOD} == set(names)


@pytest.mark.parametrize("rule", RULES, ids=rule_id)
def test_a_rule_reports_only_its_own_id_and_has_a_one_line_docstring(rule):
    docstring = (rule.__doc__ or "").strip()
    assert docstring and "\n" not in docstring
    bodies = [body for name, body, _ in BAD if name == rule_id(rule)]
    assert bodies and all(p.rule == rule_id(rule) for body in bodies for p in rule(body))


def test_several_problems_are_all_returned_in_rule_order():
    body = req({"role": "system", "content": [text()]}, user(text("")), assistant(use("tooluse_A")),
               inferenceConfig={"temperature": 0.2}, additionalModelRequestFields=think())
    problems = check_request(body)
    assert [p.rule for p in problems] == ["role-enum", "first-message-user", "text-blank", "toolconfig-required",
                                          "thinking-temperature", "thinking-prefill"]
    order = [rule_id(rule) for rule in RULES]
    assert [order.index(p.rule) for p in problems] == sorted(order.index(p.rule) for p in problems)


def test_validation_message_is_the_first_problem():
    problems = check_request(req(assistant(text("Hi")), user(text(""))))
    assert validation_message(problems) == problems[0].message
    assert problems[0].message.startswith("A conversation must start with a user message.")


def test_validation_message_joins_coral_failures_like_bedrock():
    # The shape of a real Bedrock answer to a tool with an empty name and description (litellm#24668).
    body = tooled(user(text()), toolConfig=tools(spec("", description="")))
    assert validation_message(check_request(body)) == (
        "3 validation errors detected: "
        "Value '' at 'toolConfig.tools.1.member.toolSpec.name' failed to satisfy constraint: Member must satisfy "
        "regular expression pattern: [a-zA-Z0-9_-]+; "
        "Value '' at 'toolConfig.tools.1.member.toolSpec.name' failed to satisfy constraint: Member must have length "
        "greater than or equal to 1; "
        "Value '' at 'toolConfig.tools.1.member.toolSpec.description' failed to satisfy constraint: Member must have "
        "length greater than or equal to 1")


def test_validation_message_needs_a_problem():
    with pytest.raises(ValueError, match="no problem"):
        validation_message([])


def test_problem_reads_as_its_message():
    problem = Problem("text-blank", "messages.0.content.0.text", "The text field ... is blank.")
    assert str(problem) == "The text field ... is blank."
    with pytest.raises(AttributeError):
        problem.rule = "other"


def test_model_id_argument_is_the_request_model():
    body = {"inferenceConfig": {"maxTokens": 10}}
    assert [p.rule for p in check_request(body)] == ["messages-missing"]
    assert [p.rule for p in check_request(body, "Converse", model_id=PROMPT_ARN)] == ["prompt-arn-conflict"]
    assert check_request({}, "Converse", model_id=PROMPT_ARN) == []


def test_unknown_operation_and_non_object_body_are_refused():
    with pytest.raises(ValueError, match="InvokeModelWithResponseStream"):
        check_request(req(user(text())), "InvokeModelWithResponseStream")
    with pytest.raises(TypeError, match="ConverseStream request body must be a JSON object, not list"):
        check_request([user(text())])


@pytest.mark.parametrize("body, rules", [
    (req("not a message", None, user(text())), ["input-shape"] * 2 + ["block-shape", "block-shape",
                                                                     "first-message-user"]),
    (req(user("block", 7)), ["input-shape"] * 2 + ["block-shape", "block-shape"]),
    (req(user(text()), toolConfig={"tools": ["x", None], "toolChoice": "any"}), ["input-shape"] * 3 +
     ["block-shape"] * 3),
    ({"messages": "hi", "inferenceConfig": [], "additionalModelRequestFields": 3}, ["input-shape"] * 2 +
     ["messages-missing"]),
    (req(user({"toolResult": "tooluse_A"}), assistant({"toolUse": None})), ["input-shape", "block-shape", "block-shape",
                                                                             "toolconfig-required"]),
])
def test_malformed_bodies_give_problems_not_exceptions(body, rules):
    assert [p.rule for p in check_request(body)] == rules


def _without(body: dict, index: int, drop: str) -> dict:
    """A copy of a request whose message ``index`` lost its ``drop`` blocks (a text block stands in if none is left)."""
    message = body["messages"][index]
    content = [block for block in message["content"] if drop not in block] or [{"text": "Go on."}]
    messages = [*body["messages"][:index], {**message, "content": content}, *body["messages"][index + 1:]]
    return {**body, "messages": messages}


def test_public_surface():
    assert harness.endpoint.rules.converse.__all__ == ["RULES", "RULE_IDS", "Problem", "check_request",
                                                       "validation_message"]


ACCEPTED = [i for i in interactions() if i.operation in ("Converse", "ConverseStream") and i.status == 200
            and isinstance(i.request, dict) and "messages" in i.request]


@requires_realworld
@pytest.mark.parametrize("interaction", ACCEPTED, ids=ids(ACCEPTED))
def test_real_requests_bedrock_accepted_pass(interaction):
    assert check_request(interaction.request, interaction.operation, interaction.model_id) == []


@requires_realworld
def test_real_requests_cover_the_tool_and_thinking_round_trips():
    multi_turn = [i for i in ACCEPTED if len(i.request["messages"]) >= 3]
    assert len(multi_turn) >= 5
    assert any("additionalModelRequestFields" in i.request and len(i.request["messages"]) >= 3 for i in ACCEPTED)


ROUND_TRIPS = [i for i in ACCEPTED if len(i.request["messages"]) == 3
               and any("toolUse" in block for block in i.request["messages"][1]["content"])]


@requires_realworld
@pytest.mark.parametrize("interaction", ROUND_TRIPS, ids=ids(ROUND_TRIPS))
def test_a_real_round_trip_that_drops_its_tool_results_is_rejected(interaction):
    body = _without(interaction.request, 2, "toolResult")
    uses = [b["toolUse"]["toolUseId"] for b in body["messages"][1]["content"] if "toolUse" in b]
    problems = check_request(body, interaction.operation, interaction.model_id)
    assert validation_message(problems) == ("Expected toolResult blocks at messages.2.content for the following "
                                            f"Ids: {', '.join(uses)}")


@requires_realworld
def test_a_real_thinking_round_trip_that_drops_its_reasoning_is_rejected():
    thinking = [i for i in ROUND_TRIPS if "additionalModelRequestFields" in i.request]
    assert thinking
    for interaction in thinking:
        problems = check_request(_without(interaction.request, 1, "reasoningContent"), model_id=interaction.model_id)
        assert [(p.rule, p.message) for p in problems] == [("thinking-block-first", FINAL_TURN)]


KEYS = ["messages", "role", "content", "text", "toolUse", "toolResult", "toolUseId", "name", "input", "type",
        "reasoningContent", "reasoningText", "signature", "redactedContent", "toolConfig", "tools", "toolSpec",
        "toolChoice", "tool", "any", "inputSchema", "json", "inferenceConfig", "temperature", "topP", "maxTokens",
        "additionalModelRequestFields", "thinking", "budget_tokens", "system", "image", "document", "cachePoint",
        "additionalModelResponseFieldPaths", "modelId", "user", "assistant", "enabled"]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5000) | st.floats(-2, 2) | st.sampled_from(KEYS + ["", " ", "=="]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=5),
    max_leaves=25)


@settings(max_examples=100)
@given(st.dictionaries(st.sampled_from(KEYS), JSON, max_size=6))
def test_any_json_object_gives_problems_never_an_exception(body):
    problems = check_request(body)
    assert all(isinstance(p, Problem) and p.rule and p.message for p in problems)
    if problems:
        assert validation_message(problems)


def test_a_body_checked_again_at_once_gets_its_own_findings_each_time():
    """The rules' findings are reused for the same body sent again (the Converse twin), and only for it: a body that
    differs only in a value's JSON type, or in between, is read afresh."""
    user = {"role": "user", "content": [{"text": "hi"}]}
    call = {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]}

    def answered(json_value):
        return {"messages": [user, call, {"role": "user", "content": [
            {"toolResult": {"toolUseId": "t1", "content": [{"json": json_value}]}}]}],
            "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]}}

    good, bad = answered({"ok": 1}), answered([1])
    model = "us.anthropic.claude-sonnet-4-20250514-v1:0"
    first = check_request(good, "ConverseStream", model)
    first.append("changed by a caller")
    assert check_request(good, "Converse", model) == [] and first != []
    assert [p.rule for p in check_request(bad, "Converse", model)] == ["tool-result-json-object"]
    assert check_request(answered({"ok": True}), "Converse", model) == []
    assert [p.rule for p in check_request(bad, "ConverseStream", model)] == ["tool-result-json-object"]
    assert check_request({}, "ConverseStream") != []


def test_findings_kept_by_a_bodys_bytes_are_its_own_and_its_models():
    """The server keys the kept findings by the request's bytes and model id (``raw``): the same bytes to another
    model (a prompt ARN, which changes what the rules ask) and other bytes are read afresh, and every answer is the
    one the JSON text key gives."""
    prompt = "arn:aws:bedrock:us-east-1:123456789012:prompt/PROMPT12345:1"
    model = "us.anthropic.claude-sonnet-4-20250514-v1:0"
    bodies = [{"inferenceConfig": {"maxTokens": 10}}, {"messages": [{"role": "user", "content": [{"text": "hi"}]}]},
              {"messages": [{"role": "assistant", "content": [{"text": "hi"}]}]}]
    for body in bodies:
        raw = json.dumps(body).encode()
        for model_id in (model, prompt, model):
            for operation in ("ConverseStream", "Converse"):
                assert check_request(body, operation, model_id, raw=raw) == check_request(body, operation, model_id)
    raw = json.dumps(bodies[0]).encode()
    assert check_request(bodies[0], "Converse", model, raw=raw) != check_request(bodies[0], "Converse", prompt, raw=raw)
