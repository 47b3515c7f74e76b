"""The LiteLLM shim: its verdicts against the baseline, both calls of streaming parity, the persisted variant, what
the harness finds in a malformed message LiteLLM holds, and that it stays offline (the format mapping, which needs
no LiteLLM, is tests/test_shim_litellm_format.py).

Skipped unless litellm is installed (tox env ``shim-litellm``). Known failures must fail for the documented
reason (the report shows the evidence); every other scenario run here must pass.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import ipaddress
import os
import re
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("litellm") is None:  # not importorskip: a bare `import litellm` fetches a price map
    pytest.skip("litellm is not installed (tox env shim-litellm)", allow_module_level=True)

# Every non-loopback address the process resolves or connects to, from here on (the shim's import included).
OUTSIDE: list[tuple[str, object]] = []


def _is_loopback(host: object) -> bool:
    try:
        return ipaddress.ip_address(str(host)).is_loopback
    except ValueError:
        return host == "localhost"


def _watch_network(event: str, args: tuple) -> None:
    if event == "socket.getaddrinfo" and not _is_loopback(args[0]):
        OUTSIDE.append((event, args[0]))
    elif event == "socket.connect" and isinstance(args[1], tuple) and not _is_loopback(args[1][0]):
        OUTSIDE.append((event, args[1][0]))


sys.addaudithook(_watch_network)

from harness import load_adapter
from harness.adapters import CAPABILITIES, NON_STREAMING, OWN_HISTORY, USAGE_INCLUDES_CACHE
from harness.adapters.shims import litellm as shim

# What the shim's import (litellm's included) reached; tests look only at what they themselves add (other tests in
# the same xdist worker may reach out, e.g. botocore's credential chain asking 169.254.169.254).
AT_IMPORT = list(OUTSIDE)
from harness.cassettes import cassette
from harness.endpoint.responders import CassetteResponder
from harness.endpoint.server import BedrockServer
from harness.suite.runner import cassette_path, loopback_endpoint, replay, run_scenario
from harness.suite.scenario import discover

# Only after the shim, whose import of litellm is offline (a bare `import litellm` fetches a price map).
types = importlib.import_module("litellm.types.utils")

from shim_parity import assert_found, assert_passes, natives, paired_turns  # noqa: E402
from shim_verdicts import (  # noqa: E402
    assert_baseline_lists,
    assert_refused,
    assert_sends_what_the_library_assembled,
    assert_verdict,
)

ROOT = Path(__file__).resolve().parents[1]
SPEC = "harness.adapters.shims.litellm:LiteLLMAdapter"
# Each known failure and what its report must show: the library's own output that makes it a finding.
KNOWN_NEWEST = {
    "edge/empty-text-before-reasoning": "native thinking_blocks: streamed a null null, non-streamed a list",
    "edge/interleaved-reasoning-tools": "native thinking_blocks: streamed a null null, non-streamed a list",
    "edge/nova-parallel-calls": "native content: streamed '<thinking>The user wants'",
    "edge/nova-style": "native content: streamed '<thinking>The user wants'",
    "edge/server-tool-then-client-tool": '"name": "nova_code_interpreter"',
    "edge/unsigned-reasoning-round-trip": "native thinking_blocks: streamed a null null, non-streamed a list",
    "edge/every-stop-reason": "expected reason 'malformed_model_output' / actual 'end_turn'",  # map_finish_reason
    "edge/server-tool-text-result": '"name": "nova_code_interpreter"',
    "edge/tool-result-no-status": "This model doesn't support tool use in streaming mode.",  # rule 38
    # unsigned thinking sent as text (add_thinking_blocks_to_assistant_content)
    "edge/unsigned-reasoning-to-claude": 'actual {"text": "The user asks about rain in Paris.',
    # the document named by its hash (_process_document_message)
    "edge/cache-point-before-document": "document.name 'release-notes' / actual 'Document_6a084ab266e91638_txt'",
    # the question sent as guardContent (_convert_consecutive_user_messages_to_guarded_text)
    "edge/guardrail-async": 'actual {"guardContent": {"text": {"text": "Write a short review',
    # the stream keeps the metadata's trace only: the tier and latency that served the request are lost
    "edge/service-tier-flex": 'chunk 3 (metadata): missing; expected metadata {"invoked_model_id": null, '
                              '"service_tier": "flex"',
    "edge/latency-optimized": 'chunk 3 (metadata): missing; expected metadata {"invoked_model_id": null, '
                              '"service_tier": null, "latency": "optimized"}',
    # the PDF inside the result as its own document block, named by its hash (_create_bedrock_block)
    "edge/tool-result-media": "toolResult.content[1].document.name 'quarterly-report' / actual "
                              "'DocumentPDFmessages_c83618dbcb8000d0_pdf'",
    "edge/nova-tool-result-media": "toolResult.content[1].document.name 'quarterly-report' / actual "
                                   "'DocumentPDFmessages_c83618dbcb8000d0_pdf'",
    # no status error (is_error never read) and the image kept inside the result for Claude
    "edge/tool-result-error-with-image": "expected messages[2].content[0].toolResult.status 'error' / actual no "
                                         "messages[2].content[0].toolResult.status",
}
# Findings graded warn (a judgement or a robustness scenario), with the reason the report names.
WARNED_NEWEST = {
    "edge/guardrail-intervened": "judgement guardrail-as-content-filter",
    "edge/guardrail-trace": "judgement guardrail-as-content-filter",
    "edge/interleaved-parallel-deltas": "robustness: no real recording shows Bedrock interleaving",
    "edge/max-tokens-mid-tool": "judgement arguments-as-object",
    "edge/tool-result-is-error": "judgement error-status-kept",
    "edge/tool-result-json-values": "judgement object-result-as-json",
    "faults/http-429-then-success": "judgement retry-throttled-request",
    "faults/model-stream-error-mid-tool": "judgement error-vocabulary",
    "faults/throttling-mid-tool": "judgement error-vocabulary",
}
_SINGLE_CHOICE = "(openai_chunk) has choices[0].index 1; a single-choice stream uses index 0 only"
# At the floor (certification/litellm.floor.*): each native chunk's choices[0].index is the Bedrock content block's
# index, tools are refused for models outside its price map, signature-only and signed blocks are merged or lost.
KNOWN_FLOOR = {
    **{sid: KNOWN_NEWEST[sid] for sid in ("edge/empty-text-before-reasoning", "edge/nova-parallel-calls",
                                          "edge/nova-style", "edge/server-tool-then-client-tool",
                                          "edge/unsigned-reasoning-round-trip")},
    "core/interleaved-text": f"openai_single_choice: chunk 14 {_SINGLE_CHOICE}",
    "core/parallel-calls": f"openai_single_choice: chunk 6 {_SINGLE_CHOICE}",
    "core/thinking-tools": f"openai_single_choice: chunk 26 {_SINGLE_CHOICE}",
    "edge/end-turn-with-tool-use": f"openai_single_choice: chunk 8 {_SINGLE_CHOICE}",
    "edge/interleaved-reasoning-tools": "bedrock does not support parameters: ['tools'], for model=converse/moonshot",
    "edge/max-tokens-mid-tool": f"openai_single_choice: chunk 6 {_SINGLE_CHOICE}",
    "edge/parallel-results-round-trip": f"openai_single_choice: chunk 12 {_SINGLE_CHOICE}",
    "edge/redacted-reasoning-tool": "Expected `thinking` or `redacted_thinking`, but found `text`",
    "edge/signature-only-reasoning": 'assembled message: streamed reasoning {"text": "", "signature": "ErUB',
    "edge/tool-result-json-values": f"openai_single_choice: chunk 10 {_SINGLE_CHOICE}",
    "edge/tool-result-no-status": "bedrock does not support parameters: ['tools'], for model=converse/us.writer",
    "edge/two-signed-reasoning-blocks": "assembled message block 0 (reasoning): streamed text 'Reading /etc/app/config.'",
    "edge/zero-arg-after-text": f"openai_single_choice: chunk 10 {_SINGLE_CHOICE}",
    "faults/model-stream-error-mid-tool": f"openai_single_choice: chunk 6 {_SINGLE_CHOICE}",
    "faults/throttling-mid-tool": "adapter error RateLimitError: litellm.RateLimitError: BedrockException",
    "faults/truncated-stream": 'turn 0 actual chunk 1 (stop): unexpected; expected nothing / actual stop {"reason"',
    "edge/every-stop-reason": "expected reason 'stop_sequence' / actual 'end_turn'",
    "edge/image-output-block": "openai_single_choice: chunk 6 (openai_chunk) has choices[0].index 2",
    "edge/server-tool-text-result": '"name": "nova_code_interpreter"',
    "edge/unsigned-reasoning-to-claude": 'actual {"text": "The user asks about rain in Paris.',
    "edge/cache-point-before-document": "actual no messages[0].content[2]",  # the document dropped
    "edge/cache-points": "expected system[1].cachePoint.ttl '1h' / actual no system[1].cachePoint.ttl",
    # guardrailConfig also inside inferenceConfig (built before the config blocks are popped)
    "edge/guardrail-async": 'Unknown parameter in inferenceConfig: "guardrailConfig"',
}
# The media scenarios: at 1.110.2 the image goes beside the result for OpenAI's gpt (place_tool_result_images).
MEDIA = ("edge/tool-result-media", "edge/nova-tool-result-media", "edge/tool-result-error-with-image",
         "edge/openai-tool-result-image")
# 1.80.6's config blocks hold no serviceTier, its Bedrock types no OutputConfigBlock, and it drops a tool message's
# file part (no tool_result_media)
SKIPPED_FLOOR = {"edge/service-tier-flex": "adapter lacks service_tier", "edge/latency-optimized": "adapter lacks "
                 "service_tier", "edge/structured-output": "adapter lacks structured_output",
                 **{sid: "adapter lacks tool_result_media" for sid in MEDIA}}
WARNED_FLOOR = {sid: WARNED_NEWEST[sid] for sid in ("edge/interleaved-parallel-deltas", "edge/tool-result-is-error",
                                                    "faults/http-429-then-success")}


def _floor() -> str:
    """The release the litellm extra's lower bound names (pyproject.toml), which certification/litellm.floor.* describe."""
    extra = re.search(r'^litellm = \["litellm\[mcp\]>=([^,"]+)', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    return extra.group(1)


# The installed release picks the certification its verdicts are checked against (tox: shim-litellm, -oldest).
AT_FLOOR = importlib.metadata.version("litellm") == _floor()
CERTIFIED, KNOWN, WARNED = (("litellm.floor", KNOWN_FLOOR, WARNED_FLOOR) if AT_FLOOR
                            else ("litellm", KNOWN_NEWEST, WARNED_NEWEST))
SKIPPED = SKIPPED_FLOOR if AT_FLOOR else {}
# edge/zero-arg-tool passes: litellm adds "required": [], which the request comparison reads as absent.
CHECKED = sorted({"core/parallel-calls", "core/round-trip", "core/thinking-tools", "edge/cache-usage",
                  "edge/two-signed-reasoning-blocks", "edge/zero-arg-tool", "faults/truncated-stream",
                  "edge/structured-output", "edge/prompt-router-trace", *MEDIA}
                 | set(KNOWN_NEWEST) | set(KNOWN_FLOOR) | set(WARNED_NEWEST) | set(WARNED_FLOOR))
SCENARIOS = {s.id: s for s in discover(ROOT / "suites")}


@pytest.fixture
def outside():
    """Every non-loopback address the process resolves or connects to during the test."""
    start = len(OUTSIDE)
    return lambda: OUTSIDE[start:]


@pytest.fixture
def adapter():
    return load_adapter(SPEC)


def test_identity_is_the_library_and_capabilities_are_known(adapter):
    assert adapter.name == "litellm"
    assert adapter.version == importlib.metadata.version("litellm")
    assert adapter.capabilities <= CAPABILITIES
    assert {"streaming", "redacted_reasoning", "cache_usage", OWN_HISTORY, USAGE_INCLUDES_CACHE,
            NON_STREAMING} <= adapter.capabilities
    assert set(adapter.native_differences) == {"tool_calls[*].index", "provider_specific_fields"}


def test_baseline_lists_exactly_the_known_failures():
    assert_baseline_lists("litellm", KNOWN_NEWEST)
    assert_baseline_lists("litellm.floor", KNOWN_FLOOR)


@pytest.mark.parametrize("sid", CHECKED)
def test_verdict_matches_the_baseline(adapter, sid):
    assert_verdict(adapter, CERTIFIED, sid, KNOWN, skipped=SKIPPED, warned=WARNED)


@pytest.mark.parametrize("sid", ["edge/cache-points", "edge/nova-cache-points", "edge/cache-point-before-document"])
def test_cache_points_go_where_the_turn_asks_or_fail_on_the_librarys_finding(adapter, sid):
    assert "cache_points" in adapter.capabilities
    assert_verdict(adapter, CERTIFIED, sid, KNOWN, warned=WARNED)


def test_media_in_tool_results_is_declared_where_the_release_makes_them_the_results_own_blocks(adapter, monkeypatch):
    assert ("tool_result_media" in adapter.capabilities) is (not AT_FLOOR) is shim.media_in_tool_results()
    factory = importlib.import_module("litellm.litellm_core_utils.prompt_templates.factory")
    real = factory._convert_to_bedrock_tool_call_result

    def documents_dropped(message):
        block = real(message)
        block["toolResult"]["content"] = [part for part in block["toolResult"]["content"] if "document" not in part]
        return block

    monkeypatch.setattr(factory, "_convert_to_bedrock_tool_call_result", documents_dropped)
    assert not shim.media_in_tool_results() and "tool_result_media" not in load_adapter(SPEC).capabilities


@pytest.mark.skipif(AT_FLOOR, reason="1.80.6 drops a tool message's file part: no tool_result_media")
def test_an_image_and_a_document_result_go_inside_the_tool_result_as_their_own_blocks(adapter):
    scenario = SCENARIOS["edge/tool-result-media"]
    with BedrockServer(CassetteResponder(cassette.load(cassette_path(ROOT, scenario)))) as server:
        request = replay(scenario, adapter, loopback_endpoint(server), server).turns[1]["request"]
    results = scenario.turns[0].tool_results
    screenshot, report = (block["toolResult"]["content"] for block in request["messages"][2]["content"])
    assert [next(iter(part)) for part in screenshot] == ["text", "image"]
    assert screenshot[1]["image"]["format"] == "png"
    assert screenshot[1]["image"]["source"]["bytes"] == results["take_screenshot"]["content"][1]["source"]["data"]
    assert [next(iter(part)) for part in report] == ["text", "document"] and report[1]["document"]["format"] == "pdf"
    assert report[1]["document"]["source"]["bytes"] == results["fetch_report"]["content"][1]["source"]["data"]


def test_completion_kwargs_point_litellm_at_the_endpoint():
    turn = {"model_id": "m", "system": None, "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"name": "f", "description": "d", "input_schema": {"type": "object", "properties": {}}}],
            "options": {"max_tokens": 64, "temperature": 0, "thinking_budget": 1024, "tool_choice": "any"}}
    endpoint = {"endpoint_url": "http://127.0.0.1:1", "region": "eu-west-1",
                "aws_access_key_id": "AKIAFAKEFAKEFAKEFAKE", "aws_secret_access_key": "fake"}
    kwargs = shim.completion_kwargs(turn, endpoint)
    assert kwargs["model"] == "bedrock/converse/m" and kwargs["stream"] is True
    assert (kwargs["aws_bedrock_runtime_endpoint"], kwargs["aws_region_name"]) == ("http://127.0.0.1:1", "eu-west-1")
    assert kwargs["aws_access_key_id"] == "AKIAFAKEFAKEFAKEFAKE" and kwargs["stream_options"] == {"include_usage": True}
    assert kwargs["tools"] == [{"type": "function", "function": {"name": "f", "description": "d",
                                                                 "parameters": {"type": "object", "properties": {}}}}]
    assert (kwargs["tool_choice"], kwargs["temperature"], kwargs["max_tokens"]) == ("required", 0, 64)
    assert kwargs["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    auto = {**turn, "options": {**turn["options"], "tool_choice": "auto"}}
    assert "tool_choice" not in shim.completion_kwargs(auto, endpoint)  # Bedrock's default, left out


def test_error_code_is_bedrocks_header_when_kept_else_the_exception_class():
    throttled = shim.litellm.RateLimitError("slow down", "bedrock", "m")
    throttled.litellm_response_headers = {"x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/"}
    chunk = shim.error_chunk(throttled)
    assert {k: chunk[k] for k in ("type", "code", "message")} == {"type": "error", "code": "ThrottlingException",
                                                                  "message": str(throttled)}
    assert shim.error_chunk(shim.litellm.BadRequestError("bad", "m", "bedrock"))["code"] == "BadRequestError"


def test_stays_offline_and_restores_the_environment(adapter, monkeypatch, outside):
    for key in shim._OFFLINE:
        monkeypatch.delenv(key, raising=False)
    assert run_scenario(SCENARIOS["core/single-call"], adapter, ROOT).status == "pass"
    assert not set(shim._OFFLINE) & set(os.environ)
    assert AT_IMPORT == [] and outside() == [], f"LiteLLM reached beyond loopback: {AT_IMPORT + outside()}"


def test_every_native_chunk_goes_to_the_harness_and_the_built_message_closes_the_turn(adapter):
    scenario = SCENARIOS["core/single-call"]
    with BedrockServer(CassetteResponder(cassette.load(cassette_path(ROOT, scenario)))) as server:
        chunks = replay(scenario, adapter, loopback_endpoint(server), server).turns[0]["chunks"]
    native = [c["chunk"] for c in chunks if c["type"] == "openai_chunk"]
    assert native and all(n["object"] == "chat.completion.chunk" for n in native)
    assert [c["index"] for n in native for choice in n["choices"] for c in choice.get("delta", {}).get("tool_calls") or ()]
    (message,) = [c["message"] for c in chunks if c["type"] == "message"]
    assert message["content"] == [{"type": "tool_use", "id": "tooluse_eEPuwPSzppK6bDzVKXOnbl", "name": "read_file",
                                   "input": {"path": "/tmp/test.txt"}}]
    assert not [c for c in chunks if c["type"] == "native"]  # only a turn that asks for both calls reports them
    assert adapter.history.assistant[0].tool_calls[0].id == "tooluse_eEPuwPSzppK6bDzVKXOnbl"


def test_the_next_turn_sends_the_message_stream_chunk_builder_assembled(adapter, monkeypatch):
    real = shim.litellm.stream_chunk_builder

    def resigned(chunks, messages=None, **kwargs):  # LiteLLM's stream wrapper calls it too (logging_obj)
        built = real(chunks, messages=messages, **kwargs)
        for block in built.choices[0].message.thinking_blocks or ():
            block["signature"] = "TAMPERED"
        return built

    monkeypatch.setattr(shim.litellm, "stream_chunk_builder", resigned)
    assert_sends_what_the_library_assembled(adapter, "core/thinking-tools", "TAMPERED")


def test_a_request_to_another_host_is_refused_before_it_is_sent(adapter, monkeypatch, outside):
    real = shim.completion_kwargs
    monkeypatch.setattr(shim, "completion_kwargs", lambda *args: {
        k: v for k, v in real(*args).items() if k != "aws_bedrock_runtime_endpoint"})  # LiteLLM's default host
    assert_refused(adapter)
    assert outside() == [], f"LiteLLM reached beyond loopback: {outside()}"


def test_both_calls_report_the_message_litellm_built_as_its_model_dump(adapter):
    first, second = paired_turns(adapter, "core/thinking-tools")
    stream, whole = natives(first)["stream"]["message"], natives(first)["converse"]["message"]
    for message in (stream, whole):  # LiteLLM's Message as model_dump() gives it: arguments stay JSON text
        assert message["role"] == "assistant" and message["thinking_blocks"][0]["signature"].startswith("EqQB")
        assert message["tool_calls"][0]["function"]["arguments"].replace(" ", "") == '{"path":"/tmp/test.txt"}'
    assert whole["tool_calls"][0]["index"] == 1 and "index" not in stream["tool_calls"][0]  # declared
    (held,) = [m for m in adapter.history.messages if m["role"] == "assistant"]  # turn 0's, appended once
    assert held.model_dump() == stream and stream["tool_calls"][0]["id"]  # (a dict or a model, as the release has it)
    assert [c["path"] for c in second if c["type"] == "native"] == ["stream", "converse"]


def test_the_history_advances_once_per_turn_with_both_calls(adapter):
    """core/round-trip's second request must hold one assistant message: the streamed one, not the whole one too."""
    assert_passes(adapter, "core/round-trip")


def test_a_non_streamed_call_that_raises_is_its_native_error(adapter, monkeypatch):
    real = shim.litellm.completion

    def whole_fails(**kwargs):
        if not kwargs.get("stream"):
            raise shim.litellm.APIConnectionError("planted", "bedrock", "m")
        return real(**kwargs)

    monkeypatch.setattr(shim.litellm, "completion", whole_fails)
    assert_found(adapter, "core/single-call", "parity: the streamed call built a message / the non-streamed call "
                                              "raised 'APIConnectionError: litellm.APIConnectionError: planted'")


def test_a_non_streamed_message_that_differs_is_a_parity_finding(adapter, monkeypatch):
    real = shim.litellm.completion

    def renamed(**kwargs):
        response = real(**kwargs)
        if not kwargs.get("stream"):
            response.choices[0].message.tool_calls[0].function.name = "read_file_v2"
        return response

    monkeypatch.setattr(shim.litellm, "completion", renamed)
    assert_found(adapter, "core/single-call", "native tool_calls[0].function.name: streamed 'read_file' / "
                                              "non-streamed 'read_file_v2'")


def test_a_garbled_merged_thinking_block_the_library_holds_is_reported_as_it_is(adapter, monkeypatch):
    real = shim.litellm.stream_chunk_builder

    def merged(chunks, messages=None, **kwargs):
        built = real(chunks, messages=messages, **kwargs)
        for block in built.choices[0].message.thinking_blocks or ():
            block["type"] = "texttextsignature"
        return built

    monkeypatch.setattr(shim.litellm, "stream_chunk_builder", merged)
    report = assert_found(adapter, "core/thinking-tools", 'not an assembled assistant message: content must be text, '
                                                          'thinking, redacted_thinking and tool_use blocks, got '
                                                          '[{"type": "texttextsignature"')
    assert "native thinking_blocks[0].type: streamed 'texttextsignature' / non-streamed 'thinking'" in report


def test_the_persisted_variant_sends_every_later_turn_through_plain_dicts_and_json():
    adapter = load_adapter("litellm-persisted")
    assert adapter.name == "litellm-persisted" and adapter.history.store is not None
    dump, load = adapter.history.store
    message = types.Message(content="hi", tool_calls=[{"id": "t1", "type": "function",
                                                       "function": {"name": "f", "arguments": "{}"}}])
    restored = load(dump([{"role": "user", "content": "hi"}, message]))
    assert restored == [{"role": "user", "content": "hi"}, message.model_dump()]
    paired_turns(adapter, "core/thinking-tools")
    assert all(isinstance(m, dict) for m in adapter.history.messages)  # restored from JSON before turn 1
    assert_verdict(adapter, CERTIFIED, "core/thinking-tools", KNOWN, warned=WARNED)  # the stored dicts change nothing


def test_a_store_that_loses_signatures_shows_in_the_next_request():
    adapter = load_adapter("litellm-persisted")
    dump, load = adapter.history.store

    def lossy(text):
        messages = load(text)
        for message in messages:
            for block in message.get("thinking_blocks") or ():
                block.pop("signature", None)
        return messages

    adapter.history.store = (dump, lossy)
    assert_found(adapter, "core/thinking-tools", "turn 1 request expected messages[1].content[0]")


def test_served_options_and_the_output_format_are_litellms_parameters():
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    guardrail = {"identifier": "g1", "version": "1", "trace": "enabled", "stream_processing_mode": "async"}
    turn = {"model_id": "m", "system": None, "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"name": "f", "input_schema": {"type": "object"}, "strict": True}],
            "options": {"service_tier": "flex", "latency": "optimized", "guardrail": guardrail,
                        "output_format": {"type": "json_schema", "name": "answer", "description": "The answer.",
                                          "schema": schema}}}
    kwargs = shim.completion_kwargs(turn, {"endpoint_url": "http://127.0.0.1:9", "region": "us-east-1",
                                           "aws_access_key_id": "x", "aws_secret_access_key": "y"})
    assert kwargs["service_tier"] == "flex" and kwargs["performanceConfig"] == {"latency": "optimized"}
    assert kwargs["guardrailConfig"] == {"guardrailIdentifier": "g1", "guardrailVersion": "1", "trace": "enabled",
                                         "streamProcessingMode": "async"}
    assert kwargs["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "answer", "schema": schema, "strict": True, "description": "The answer."}}
    assert kwargs["tools"][0]["function"]["strict"] is True
    assert not {"service_tier", "performanceConfig", "guardrailConfig", "response_format"} & set(
        shim.completion_kwargs({**turn, "options": {}}, {"endpoint_url": "http://127.0.0.1:9", "region": "r",
                                                         "aws_access_key_id": "x", "aws_secret_access_key": "y"}))
    capabilities = load_adapter(SPEC).capabilities
    assert {"guardrail", "response_metadata"} <= capabilities
    assert ({"service_tier", "structured_output"} <= capabilities) is not AT_FLOOR


def test_the_streams_trace_reports_the_model_a_prompt_router_invoked():
    from harness.adapters.shims.litellm_format import chunks_from_stream_chunk

    chunk = {"choices": [], "provider_specific_fields": {"trace": {"promptRouter": {"invokedModelId": "haiku"}}}}
    assert list(chunks_from_stream_chunk(chunk)) == [
        {"type": "metadata", "invoked_model_id": "haiku", "service_tier": None, "latency": None}]
    assert list(chunks_from_stream_chunk({"choices": [], "provider_specific_fields": {"trace": {"guardrail": {}}}})) == []
