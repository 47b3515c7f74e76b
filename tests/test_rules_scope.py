"""Rules scoped by evidence: a rule rejects only for the model families its evidence covers."""

from __future__ import annotations

import pytest
from realworld import ids, interactions, requires_realworld

from harness.endpoint.rules.converse import RULE_IDS, check_request
from harness.endpoint.rules.scope import ALL, EVIDENCE, applies, family, split, verdict


@pytest.mark.parametrize("model_id, expected", [
    ("us.anthropic.claude-sonnet-4-20250514-v1:0", "anthropic"),
    ("anthropic.claude-3-haiku-20240307-v1:0", "anthropic"),
    ("global.anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic"),
    ("arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0", "anthropic"),
    ("arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-pro-v1:0", "nova"),
    ("us.amazon.nova-2-lite-v1:0", "nova"),
    ("amazon.titan-text-express-v1", "titan"),
    ("openai.gpt-oss-120b-1:0", "openai"),
    ("moonshotai.kimi-k2-thinking", "kimi"),
    ("moonshot.kimi-k2-thinking", "kimi"),
    ("us.deepseek.r1-v1:0", "deepseek"),
    ("meta.llama3-2-1b-instruct-v1:0", "meta"),
    ("qwen.qwen3-32b-v1:0", "qwen"),
    ("arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123", None),
    ("m:0", None),
    ("", None),
])
def test_family_of_a_model_id(model_id, expected):
    assert family(model_id) == expected


def test_every_rule_says_which_families_its_evidence_covers():
    assert set(RULE_IDS) == set(EVIDENCE)
    assert all(e.sources and e.says for e in EVIDENCE.values())


ASSISTANT_FIRST = {"messages": [{"role": "assistant", "content": [{"text": "Hello."}]},
                               {"role": "user", "content": [{"text": "Hi"}]}]}


def test_a_rule_rejects_inside_its_evidence_is_silent_where_seen_accepted_and_warns_elsewhere():
    claude, kimi, qwen = ("us.anthropic.claude-sonnet-4-20250514-v1:0", "moonshot.kimi-k2-thinking",
                          "qwen.qwen3-32b-v1:0")
    [problem] = check_request(ASSISTANT_FIRST, model_id=claude)
    assert problem.rule == "first-message-user"
    assert verdict(problem, claude) == "reject" and applies(problem, claude)
    assert check_request(ASSISTANT_FIRST, model_id=kimi) == []  # Kimi was seen accepting a leading assistant message
    enforced, warnings = split(check_request(ASSISTANT_FIRST, model_id=qwen), qwen)
    assert enforced == [] and len(warnings) == 1 and problem.message in warnings[0]
    profile = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123"
    assert verdict(problem, profile) == "warn"  # no family named: nothing settles it


def test_coral_shape_rules_hold_for_every_model():
    body = {"messages": [{"role": "system", "content": [{"text": "Hi"}]}]}
    problems = [p for p in check_request(body) if p.rule == "role-enum"]
    assert problems and all(applies(p, m) for p in problems for m in ("amazon.titan-text-express-v1", "m:0"))


STATUS = {"messages": [{"role": "user", "content": [{"text": "Hi"}]},
                       {"role": "assistant", "content": [{"toolUse": {"toolUseId": "functions.f:0", "name": "f",
                                                                      "input": {}}}]},
                       {"role": "user", "content": [{"toolResult": {"toolUseId": "functions.f:0", "status": "success",
                                                                    "content": [{"json": {"n": 1}}]}}]}],
          "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]}}


@pytest.mark.parametrize("model, expected", [
    ("us.writer.palmyra-x5-v1:0", "reject"),  # strands #393: Writer rejects it
    ("moonshotai.kimi-k2-thinking", None), ("us.meta.llama4-maverick-17b-instruct-v1:0", None),  # real 200s
    ("us.amazon.nova-pro-v1:0", None), ("us.anthropic.claude-sonnet-4-20250514-v1:0", None),
    ("mistral.mistral-large-2407-v1:0", None), ("cohere.command-r-plus-v1:0", None),  # langchain-aws #146
    ("openai.gpt-oss-120b-1:0", "warn"), ("qwen.qwen3-32b-v1:0", "warn")])  # no source either way
def test_tool_result_status_is_rejected_for_writer_accepted_by_most_and_a_warning_where_unknown(model, expected):
    found = [p for p in check_request(STATUS, model_id=model) if p.rule == "tool-result-status"]
    assert (verdict(found[0], model) if found else None) == expected


STREAM_TOOLS = "This model doesn't support tool use in streaming mode."


@pytest.mark.parametrize("model, expected", [
    ("us.writer.palmyra-x5-v1:0", "reject"),  # strands #393: Writer refuses tools on ConverseStream
    ("us.anthropic.claude-sonnet-4-20250514-v1:0", None), ("us.amazon.nova-pro-v1:0", None),  # real streamed calls
    ("openai.gpt-oss-120b-1:0", None), ("moonshotai.kimi-k2-thinking", None),
    ("us.meta.llama4-maverick-17b-instruct-v1:0", "warn")])  # one report, not settled
def test_streamed_tool_use_is_refused_for_writer_on_converse_stream_only(model, expected):
    found = [p for p in check_request(STATUS, "ConverseStream", model) if p.rule == "streamed-tool-use"]
    assert (verdict(found[0], model) if found else None) == expected
    assert not found or found[0].message == STREAM_TOOLS
    assert [p for p in check_request(STATUS, "Converse", model) if p.rule == "streamed-tool-use"] == []
    toolless = {"messages": [{"role": "user", "content": [{"text": "Hi"}]}]}
    assert [p for p in check_request(toolless, "ConverseStream", model) if p.rule == "streamed-tool-use"] == []


def test_the_emulator_refuses_streamed_tools_for_writer_with_bedrocks_text_through_boto3():
    import boto3
    from botocore.config import Config
    from botocore.exceptions import ClientError

    from harness.endpoint.server import BedrockServer
    with BedrockServer.emulate([{"content": [{"text": "Hi"}]}] * 2) as server:
        client = boto3.client("bedrock-runtime", endpoint_url=server.endpoint_url, region_name="us-east-1",
                              aws_access_key_id="AKIAFAKE", aws_secret_access_key="fake",
                              config=Config(retries={"total_max_attempts": 1}))
        tools = {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]}
        messages = [{"role": "user", "content": [{"text": "Hi"}]}]
        with pytest.raises(ClientError) as refused:
            client.converse_stream(modelId="us.writer.palmyra-x5-v1:0", messages=messages, toolConfig=tools)
        assert refused.value.response["Error"]["Message"] == STREAM_TOOLS
        assert client.converse(modelId="us.writer.palmyra-x5-v1:0", messages=messages,
                               toolConfig=tools)["stopReason"] == "end_turn"


UNSIGNED = {"messages": [{"role": "user", "content": [{"text": "Hi"}]},
                         {"role": "assistant", "content": [{"reasoningContent": {"reasoningText": {"text": "Think."}}},
                                                           {"text": "Hello."}]},
                         {"role": "user", "content": [{"text": "And?"}]}]}


@pytest.mark.parametrize("model, expected", [
    ("us.amazon.nova-pro-v1:0", "reject"), ("us.anthropic.claude-3-haiku-20240307-v1:0", "reject"),  # rule 37
    ("us.deepseek.r1-v1:0", "reject"),  # langchain-aws #1229
    ("openai.gpt-oss-120b-1:0", None),  # gpt-oss takes it back (langchain-aws #1229)
    ("moonshot.kimi-k2-thinking", "warn")])  # nothing settles it
def test_unsigned_reasoning_sent_back_is_rejected_for_nova_and_claude_without_thinking(model, expected):
    found = [p for p in check_request(UNSIGNED, model_id=model) if p.rule == "reasoning-unsigned"]
    assert (verdict(found[0], model) if found else None) == expected


PNG = b"\x89PNG\r\n\x1a\n fake"
CALL = {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_A", "name": "f", "input": {}}}]}


def _result(status=None, inside=True):
    parts = [{"text": "shot:"}, *([{"image": {"format": "png", "source": {"bytes": PNG}}}] if inside else [])]
    result = {"toolResult": {"toolUseId": "tooluse_A", "content": parts, **({"status": status} if status else {})}}
    return {"role": "user", "content": [result, *([] if inside else [{"image": {"format": "png",
                                                                                 "source": {"bytes": PNG}}}])]}


UNSIGNED_TURN = {"role": "assistant", "content": [{"reasoningContent": {"reasoningText": {"text": "Think."}}},
                                                  {"toolUse": {"toolUseId": "tooluse_A", "name": "f", "input": {}}}]}


@pytest.mark.parametrize("model, history, refused", [
    # rule 36: OpenAI-family models refuse an image inside a tool result, take it beside (opencode #48069)
    ("us.openai.gpt-5.6-sol", [CALL, _result()],
     "This model doesn't support the image field for user messages. Remove image and try again."),
    ("us.openai.gpt-5.6-sol", [CALL, _result(inside=False)], None),
    ("us.anthropic.claude-sonnet-4-20250514-v1:0", [CALL, _result()], None),
    # rule 35: Claude refuses an error result holding an image (oh-my-pi #12809)
    ("us.anthropic.claude-sonnet-4-20250514-v1:0", [CALL, _result("error")],
     "The model returned the following errors: messages.2.content.0.tool_result: all content must be type `text` if "
     "`is_error` is true"),
    ("us.amazon.nova-pro-v1:0", [CALL, _result("error")], None),  # no evidence for Nova: a warning, served
    # rule 37: unsigned reasoning sent back to Nova is refused, left out it is taken (oh-my-pi #9086)
    ("us.amazon.nova-pro-v1:0", [UNSIGNED_TURN, _result(inside=False)],
     "User messages cannot contain reasoning content. Please remove the reasoning content and try again."),
    ("us.amazon.nova-pro-v1:0", [CALL, _result(inside=False)], None),
    ("openai.gpt-oss-120b-1:0", [UNSIGNED_TURN, _result(inside=False)], None)])
def test_the_emulator_answers_rules_35_to_37_with_bedrocks_text_through_boto3(model, history, refused):
    import boto3
    from botocore.config import Config
    from botocore.exceptions import ClientError

    from harness.endpoint.server import BedrockServer
    tools = {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]}
    messages = [{"role": "user", "content": [{"text": "Look."}]}, *history]
    with BedrockServer.emulate([{"content": [{"text": "Seen."}]}]) as server:
        client = boto3.client("bedrock-runtime", endpoint_url=server.endpoint_url, region_name="us-east-1",
                              aws_access_key_id="AKIAFAKE", aws_secret_access_key="fake",
                              config=Config(retries={"total_max_attempts": 1}))
        if refused is None:
            assert client.converse(modelId=model, messages=messages, toolConfig=tools)["stopReason"] == "end_turn"
            return
        with pytest.raises(ClientError) as error:
            client.converse(modelId=model, messages=messages, toolConfig=tools)
        assert error.value.response["Error"]["Message"] == refused


def test_the_evidence_file_names_families_and_sources_for_every_rule():
    assert all(e.rejects is ALL or isinstance(e.rejects, frozenset) for e in EVIDENCE.values())
    assert EVIDENCE["tool-result-json-type-key"].rejects == frozenset()  # one report: a warning everywhere
    assert EVIDENCE["tool-result-json-object"].rejects is ALL


ACCEPTED = [i for i in interactions() if i.operation in ("Converse", "ConverseStream") and i.status < 300
            and isinstance(i.request, dict)]


@requires_realworld
@pytest.mark.parametrize("interaction", ACCEPTED, ids=ids(ACCEPTED))
def test_no_real_request_bedrock_accepted_is_rejected_for_its_model(interaction):
    found = check_request(interaction.request, interaction.operation, interaction.model_id)
    assert split(found, interaction.model_id)[0] == []
