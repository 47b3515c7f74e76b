"""History -> Converse messages (harness/converse/history.py)."""

from __future__ import annotations

import base64

import pytest

from harness.converse import TurnError, canonical_messages, to_converse_messages

PNG = b"\x89PNG\r\n\x1a\n fake"
ASK = {"role": "user", "content": "Read /tmp/a and /tmp/b"}


def tool_use(call_id, name="read_file", **input):
    return {"type": "tool_use", "id": call_id, "name": name, "input": input}


def tool_result(call_id, content="ok", **extra):
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, **extra}


def test_tool_use_and_tool_result_give_the_exact_converse_blocks():
    messages = [ASK,
                {"role": "assistant", "content": [{"type": "text", "text": "Reading."}, tool_use("tooluse_A", path="/a")]},
                {"role": "user", "content": [tool_result("tooluse_A", "contents of a")]}]
    assert to_converse_messages(messages) == [
        {"role": "user", "content": [{"text": "Read /tmp/a and /tmp/b"}]},
        {"role": "assistant", "content": [
            {"text": "Reading."},
            {"toolUse": {"toolUseId": "tooluse_A", "name": "read_file", "input": {"path": "/a"}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "tooluse_A", "content": [{"text": "contents of a"}], "status": "success"}}]},
    ]


@pytest.mark.parametrize("results", [
    [{"role": "user", "content": [tool_result(i)]} for i in ("t1", "t2", "t3")],
    [{"role": "tool", "tool_call_id": i, "content": "ok"} for i in ("t1", "t2", "t3")],
    [{"role": "user", "content": [tool_result("t1"), tool_result("t2"), tool_result("t3")]}],
], ids=["separate-user-messages", "openai-tool-messages", "one-message"])
def test_three_parallel_results_land_in_one_user_message(results):
    messages = [ASK, {"role": "assistant", "content": [tool_use("t1"), tool_use("t2"), tool_use("t3")]}, *results]
    converse = to_converse_messages(messages)
    assert [m["role"] for m in converse] == ["user", "assistant", "user"]
    assert [b["toolResult"]["toolUseId"] for b in converse[2]["content"]] == ["t1", "t2", "t3"]


@pytest.mark.parametrize("call", [
    {"type": "tool_use", "name": "list_all_speakers", "input": {}, "function": {"tool_call_id": "tooluse_abc123"}},
    {"type": "tool_use", "function": {"name": "list_all_speakers", "arguments": "{}", "tool_call_id": "tooluse_abc123"}},
    {"type": "tool_use", "tool_use_id": "tooluse_abc123", "name": "list_all_speakers", "input": {}},
], ids=["function.tool_call_id", "function-only", "tool_use_id"])
def test_tool_call_id_found_outside_id_still_yields_the_tool_use(call):
    messages = [ASK, {"role": "assistant", "content": [call]},
                {"role": "tool", "tool_call_id": "tooluse_abc123", "content": "Ann, Bob"}]
    assert to_converse_messages(messages)[1] == {"role": "assistant", "content": [
        {"toolUse": {"toolUseId": "tooluse_abc123", "name": "list_all_speakers", "input": {}}}]}


def test_openai_assistant_tool_calls_with_id_only_in_function():
    assistant = {"role": "assistant", "content": "Let me check.", "tool_calls": [
        {"function": {"name": "list_all_speakers", "arguments": '{"room": "A"}', "tool_call_id": "tooluse_abc123"}}]}
    assert to_converse_messages([ASK, assistant])[1]["content"] == [
        {"text": "Let me check."},
        {"toolUse": {"toolUseId": "tooluse_abc123", "name": "list_all_speakers", "input": {"room": "A"}}}]


@pytest.mark.parametrize("call", [
    {"type": "tool_use", "name": "f", "input": {}},
    {"type": "tool_use", "id": None, "name": "f", "input": {}},
    {"type": "tool_use", "id": "", "name": "f", "function": {"tool_call_id": ""}},
])
def test_tool_call_with_no_id_anywhere_raises_instead_of_being_dropped(call):
    with pytest.raises(TurnError) as info:
        to_converse_messages([ASK, {"role": "assistant", "content": [{"type": "text", "text": "x"}, call]}])
    assert str(info.value) == ("messages[1].content[1]: tool call 'f' has no id "
                               "(looked in id, tool_use_id, function.tool_call_id)")


def test_tool_result_without_an_id_raises():
    with pytest.raises(TurnError, match=r"messages\[0\].content\[0\]: tool result has no tool_use_id"):
        to_converse_messages([{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}])


@pytest.mark.parametrize("raw", ["", None, {}, "{}"])
def test_zero_argument_tool_input_is_an_empty_object(raw):
    block = {"type": "tool_use", "id": "t", "name": "now", "input": raw}
    assert to_converse_messages([ASK, {"role": "assistant", "content": [block]}])[1]["content"] == [
        {"toolUse": {"toolUseId": "t", "name": "now", "input": {}}}]


def test_tool_arguments_that_are_not_json_raise():
    call = {"type": "tool_use", "id": "t", "function": {"name": "f", "arguments": "{oops"}}
    with pytest.raises(TurnError, match=r"messages\[1\].content\[0\]: tool call arguments are not valid JSON"):
        to_converse_messages([ASK, {"role": "assistant", "content": [call]}])


IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                     "data": base64.b64encode(PNG).decode()}}


@pytest.mark.parametrize("content, expected", [
    ("plain", [{"text": "plain"}]),
    ([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], [{"text": "a"}, {"text": "b"}]),
    ([{"type": "text", "text": "see"}, IMAGE], [{"text": "see"}, {"image": {"format": "png", "source": {"bytes": PNG}}}]),
    ([{"type": "json", "json": {"n": 1}}, {"text": "t"}, {"k": "v"}], [{"json": {"n": 1}}, {"text": "t"}, {"json": {"k": "v"}}]),
    ({"temp": 21, "unit": "C"}, [{"json": {"temp": 21, "unit": "C"}}]),
    ("", []),
    (None, []),
    (42, [{"text": "42"}]),
], ids=["string", "text-parts", "image-part", "json-parts", "object", "empty", "none", "number"])
def test_tool_result_content_forms(content, expected):
    converse = to_converse_messages([{"role": "user", "content": [tool_result("t", content)]}])
    assert converse[0]["content"][0]["toolResult"]["content"] == expected


@pytest.mark.parametrize("extra, status", [({"is_error": True}, "error"), ({"is_error": False}, "success"), ({}, "success")])
def test_tool_result_status_follows_is_error(extra, status):
    converse = to_converse_messages([{"role": "user", "content": [tool_result("t", "boom", **extra)]}])
    assert converse[0]["content"][0]["toolResult"]["status"] == status


SIG1 = "ErcBCkgIBhABGAIiQDYN+P1S3ACL3r24cAMKCrRNiuPPxvmT2uzREPLRyKEUXagRbXn97QCke6L7OEZvlh7NdA/MQNTwMZV8TuB4qPAS=="
SIG2 = "EqADCkgIBxABGAIqQB3h5GyHJD4hocRchUq2I40ChRLdpxjVl0xZkyVZrrk6/+=="


def test_thinking_goes_first_with_its_signature_byte_exact():
    assistant = {"role": "assistant", "content": [
        {"type": "text", "text": "Checking."}, {"type": "thinking", "thinking": "plan", "signature": SIG1},
        tool_use("t1", path="/a")]}
    content = to_converse_messages([ASK, assistant])[1]["content"]
    assert content[0] == {"reasoningContent": {"reasoningText": {"text": "plan", "signature": SIG1}}}
    assert [next(iter(b)) for b in content] == ["reasoningContent", "text", "toolUse"]


def test_two_thinking_blocks_keep_two_signatures_never_concatenated():
    assistant = {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "one", "signature": SIG1},
        {"type": "redacted_thinking", "data": base64.b64encode(b"EtkECkgI").decode()},
        {"type": "thinking", "thinking": "two", "signature": SIG2}, tool_use("t1")]}
    content = to_converse_messages([ASK, assistant])[1]["content"]
    assert content[:3] == [{"reasoningContent": {"reasoningText": {"text": "one", "signature": SIG1}}},
                           {"reasoningContent": {"redactedContent": b"EtkECkgI"}},
                           {"reasoningContent": {"reasoningText": {"text": "two", "signature": SIG2}}}]


def test_reasoning_without_a_signature_sends_no_empty_signature():
    assistant = {"role": "assistant", "content": [{"type": "thinking", "thinking": "r1 style", "signature": ""},
                                                  {"type": "text", "text": "answer"}]}
    assert to_converse_messages([ASK, assistant])[1]["content"][0] == {
        "reasoningContent": {"reasoningText": {"text": "r1 style"}}}


def test_chunk_vocabulary_is_accepted_as_history():
    assistant = {"role": "assistant", "content": [
        {"type": "reasoning", "text": "plan", "signature": SIG1},
        {"type": "tool_call", "id": "t1", "name": "f", "input": {"a": 1}}]}
    assert to_converse_messages([ASK, assistant])[1]["content"] == [
        {"reasoningContent": {"reasoningText": {"text": "plan", "signature": SIG1}}},
        {"toolUse": {"toolUseId": "t1", "name": "f", "input": {"a": 1}}}]


def test_consecutive_same_role_messages_merge_and_empty_text_is_dropped():
    messages = [{"role": "user", "content": "first"}, {"role": "user", "content": [{"type": "text", "text": "  "}]},
                {"role": "user", "content": [{"type": "text", "text": "second"}, {"type": "text", "text": ""}]},
                {"role": "assistant", "content": ""}, {"role": "user", "content": "third"}]
    assert to_converse_messages(messages) == [
        {"role": "user", "content": [{"text": "first"}, {"text": "second"}, {"text": "third"}]}]


def test_tool_results_go_before_text_in_a_merged_user_turn():
    messages = [ASK, {"role": "assistant", "content": [tool_use("t1")]},
                {"role": "user", "content": "also this"}, {"role": "tool", "tool_call_id": "t1", "content": "ok"}]
    assert [next(iter(b)) for b in to_converse_messages(messages)[2]["content"]] == ["toolResult", "text"]


def test_user_image_becomes_bytes():
    assert to_converse_messages([{"role": "user", "content": [IMAGE]}]) == [
        {"role": "user", "content": [{"image": {"format": "png", "source": {"bytes": PNG}}}]}]


@pytest.mark.parametrize("message, error", [
    ({"role": "system", "content": "x"}, "messages[0]: role must be 'user', 'assistant' or 'tool', got 'system'"),
    ({"role": "user", "content": [{"type": "video"}]}, "messages[0].content[0]: unsupported content block 'video'"),
    ({"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "http://x"}}]},
     "messages[0].content[0]: image source must be base64"),
    ({"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                               "data": "***"}}]},
     "messages[0].content[0]: data is not valid base64"),
    ({"role": "assistant", "content": [{"type": "redacted_thinking", "data": ""}]},
     "messages[0].content[0]: data is not valid base64"),
    ("hello", "messages[0]: a message must be an object"),
])
def test_bad_history_raises_naming_the_position(message, error):
    with pytest.raises(TurnError) as info:
        to_converse_messages([message])
    assert str(info.value).startswith(error)


def test_canonical_form_is_anthropic_blocks():
    assert canonical_messages([ASK, {"role": "assistant", "tool_calls": [
        {"id": "t1", "type": "function", "function": {"name": "f", "arguments": ""}}]}]) == [
        {"role": "user", "content": [{"type": "text", "text": "Read /tmp/a and /tmp/b"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]}]


def test_unsigned_reasoning_keeps_its_place_and_is_sent_without_a_signature():
    message = {"role": "assistant", "content": [
        {"type": "text", "text": ""}, {"type": "text", "text": "Let me look."},
        {"type": "thinking", "thinking": "Search first.", "signature": ""},
        {"type": "tool_use", "id": "functions.glob_search:0", "name": "glob_search", "input": {}},
        {"type": "thinking", "thinking": "Signed.", "signature": "U0lH"}]}
    [converted] = to_converse_messages([message])
    assert converted["content"] == [
        {"reasoningContent": {"reasoningText": {"text": "Signed.", "signature": "U0lH"}}},  # signed: first
        {"text": "Let me look."}, {"reasoningContent": {"reasoningText": {"text": "Search first."}}},
        {"toolUse": {"toolUseId": "functions.glob_search:0", "name": "glob_search", "input": {}}}]


# ---- media inside tool results (issue 28, §13 rules 35-36) ----

PDF = b"%PDF-1.4 fake"
IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()}}
DOC = {"type": "document", "title": "q3-report",
       "source": {"type": "base64", "media_type": "application/pdf", "data": base64.b64encode(PDF).decode()}}
PNG_BLOCK = {"image": {"format": "png", "source": {"bytes": PNG}}}
PDF_BLOCK = {"document": {"format": "pdf", "name": "q3-report", "source": {"bytes": PDF}}}


def media_history(*parts, is_error=False, then=()):
    return [ASK, {"role": "assistant", "content": [tool_use("tooluse_A", path="/a")]},
            {"role": "user", "content": [tool_result("tooluse_A", [{"type": "text", "text": "Shot:"}, *parts],
                                                     is_error=is_error), *then]}]


def test_an_image_and_a_document_stay_inside_the_result_as_their_own_blocks_by_default():
    [_, _, user] = to_converse_messages(media_history(IMAGE, DOC))
    assert user["content"] == [{"toolResult": {"toolUseId": "tooluse_A", "status": "success",
                                               "content": [{"text": "Shot:"}, PNG_BLOCK, PDF_BLOCK]}}]


def test_an_image_goes_beside_the_result_for_a_family_that_takes_none_inside_it_before_the_user_text():
    then = ({"type": "text", "text": "And now?"},)
    [_, _, user] = to_converse_messages(media_history(IMAGE, DOC, then=then), False, images=False)
    assert user["content"] == [{"toolResult": {"toolUseId": "tooluse_A", "content": [{"text": "Shot:"}, PDF_BLOCK]}},
                               PNG_BLOCK, {"text": "And now?"}]


def test_an_error_result_keeps_its_text_alone_where_the_family_wants_it_and_a_result_never_goes_empty():
    [_, _, user] = to_converse_messages(media_history(IMAGE, is_error=True), error_text_only=True)
    assert user["content"] == [{"toolResult": {"toolUseId": "tooluse_A", "status": "error",
                                               "content": [{"text": "Shot:"}]}}, PNG_BLOCK]
    only = [ASK, {"role": "assistant", "content": [tool_use("tooluse_A")]},
            {"role": "user", "content": [tool_result("tooluse_A", [IMAGE])]}]
    [_, _, user] = to_converse_messages(only, False, images=False)
    assert user["content"] == [{"toolResult": {"toolUseId": "tooluse_A", "content": [
        {"text": "(attached after the tool results)"}]}}, PNG_BLOCK]


@pytest.mark.parametrize("part, error", [
    ({**DOC, "title": ""}, "document has no title"),
    ({**DOC, "source": {**DOC["source"], "media_type": "application/zip"}}, "document source must be text, or base64"),
    ({**DOC, "source": {**DOC["source"], "data": "not base64!"}}, "data is not valid base64")])
def test_a_bad_document_names_its_position(part, error):
    with pytest.raises(TurnError, match=rf"messages\[2\]\.content\[0\]\.content\[1\]: {error}"):
        to_converse_messages(media_history(part))


def test_the_request_picks_the_history_policy_by_family():
    from harness.converse.request import history_policy
    assert history_policy("us.anthropic.claude-sonnet-4-20250514-v1:0") == {
        "images": True, "error_text_only": True, "unsigned_reasoning": False}
    assert history_policy("us.amazon.nova-pro-v1:0") == {
        "images": True, "error_text_only": False, "unsigned_reasoning": False}
    assert history_policy("us.openai.gpt-5.6-sol") == {
        "images": False, "error_text_only": False, "unsigned_reasoning": True}


def test_unsigned_reasoning_goes_back_only_where_asked_and_signed_reasoning_always():
    signed = {"type": "thinking", "thinking": "a", "signature": "c2ln"}
    unsigned = {"type": "thinking", "thinking": "b"}
    messages = [ASK, {"role": "assistant", "content": [signed, unsigned, {"type": "text", "text": "Hi."}]},
                {"role": "user", "content": "And?"}]
    [_, kept, _] = to_converse_messages(messages)
    [_, left, _] = to_converse_messages(messages, unsigned_reasoning=False)
    assert len(kept["content"]) == 3
    assert left["content"] == [{"reasoningContent": {"reasoningText": {"text": "a", "signature": "c2ln"}}},
                               {"text": "Hi."}]


def test_an_error_results_json_stays_inside_it_for_a_family_taking_text_only_there():
    """Rule 35 takes text or JSON in an error result: a JSON part stays (moved beside, it would be a json block in
    the message, which Bedrock's ContentBlock has no member for: explore found the reference doing that)."""
    only = [ASK, {"role": "assistant", "content": [tool_use("tooluse_A")]},
            {"role": "user", "content": [tool_result("tooluse_A", [{"type": "json", "json": {"result": "?"}}],
                                                     is_error=True)]}]
    [_, _, user] = to_converse_messages(only, error_text_only=True)
    assert user["content"] == [{"toolResult": {"toolUseId": "tooluse_A", "status": "error",
                                               "content": [{"json": {"result": "?"}}]}}]
