"""The langchain-aws shim's release branches, on fake modules shaped like each release (runs without the library).

tests/test_shim_langchain_aws.py runs the real library (floor or newest); this module keeps CI, which installs
no shim library, watching the branches that serve the other releases.
"""

from __future__ import annotations

import sys
from types import ModuleType, SimpleNamespace

import pytest

from harness.adapters import OWN_HISTORY, USAGE_INCLUDES_CACHE
from harness.adapters.shims import common
from harness.adapters.shims import langchain_aws as shim
from harness.adapters.shims import langchain_aws_native as native
from harness.adapters.shims.common import EndpointRefused

from shim_verdicts import ENDPOINT

AWS = "https://bedrock-runtime.eu-west-1.amazonaws.com"


def usage_up_to_1_4_3(response: dict) -> dict:
    """``_extract_usage_metadata`` of langchain-aws 1.1.0-1.4.3: Bedrock's inputTokens as they are."""
    usage = response.pop("usage")
    return {"input_tokens": usage.get("inputTokens", 0), "output_tokens": usage.get("outputTokens", 0),
            "total_tokens": usage.get("totalTokens", 0),
            "input_token_details": {"cache_read": usage.get("cacheReadInputTokens", 0),
                                    "cache_creation": usage.get("cacheWriteInputTokens", 0)}}


def usage_from_1_4_4(response: dict, *, reasoning_tokens: int | None = None) -> dict:
    """``_extract_usage_metadata`` of 1.4.4 and later: the cache tokens added to input_tokens."""
    usage = response.pop("usage")
    cached = usage.get("cacheReadInputTokens", 0) + usage.get("cacheWriteInputTokens", 0)
    return {**usage_up_to_1_4_3({"usage": usage}), "input_tokens": usage.get("inputTokens", 0) + cached}


def install_release(monkeypatch, converter=None, model=None) -> None:
    """Fake ``langchain_aws`` (and its ``chat_models.bedrock_converse``) modules in place of any installed."""
    package, chat_models, converse = (ModuleType(n) for n in (
        "langchain_aws", "langchain_aws.chat_models", "langchain_aws.chat_models.bedrock_converse"))
    if converter is not None:
        converse._extract_usage_metadata = converter
    chat_models.bedrock_converse, package.chat_models, package.ChatBedrockConverse = converse, chat_models, model
    for module in (package, chat_models, converse):
        monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(common, "installed_version", lambda distribution, extra: "0.0-fake")


def model_class(client_url: str | None, control_url: str | None = None) -> type:
    """A ``ChatBedrockConverse`` whose clients point where a release would point them."""
    def boto(url: str | None) -> SimpleNamespace:
        return SimpleNamespace(meta=SimpleNamespace(endpoint_url=url))

    class ChatBedrockConverse:
        def __init__(self, **kwargs):
            self.kwargs = kwargs
            self.client = boto(kwargs["endpoint_url"] if client_url == "given" else client_url)
            self.bedrock_client = None if control_url is None else boto(
                kwargs["endpoint_url"] if control_url == "given" else control_url)

        def bind_tools(self, tools, tool_choice=None):
            return ("bound", self, tools, tool_choice)

    return ChatBedrockConverse


@pytest.mark.parametrize("converter, declared", [(usage_up_to_1_4_3, False), (usage_from_1_4_4, True)])
def test_the_usage_convention_is_asked_of_the_release(monkeypatch, converter, declared):
    install_release(monkeypatch, converter)
    assert shim.counts_cache_in_input() is declared
    adapter = shim.LangchainAwsAdapter()
    assert (USAGE_INCLUDES_CACHE in adapter.capabilities) is declared and OWN_HISTORY in adapter.capabilities
    assert USAGE_INCLUDES_CACHE in shim.LangchainAwsAdapter.capabilities  # the class keeps the newest's declaration


def test_a_release_without_the_converter_counts_as_the_newest_does(monkeypatch):
    install_release(monkeypatch)
    assert shim.counts_cache_in_input() is True


def test_a_release_whose_client_ignores_the_endpoint_is_refused(monkeypatch):
    install_release(monkeypatch, usage_from_1_4_4, model_class(AWS))
    with pytest.raises(EndpointRefused, match=r"^ChatBedrockConverse\.client points at 'https://bedrock-runtime\."
                                              r"eu-west-1\.amazonaws\.com', not the loopback endpoint"):
        shim._runnable({"model_id": "m"}, ENDPOINT)


def test_a_release_whose_control_plane_client_ignores_the_endpoint_is_refused(monkeypatch):
    install_release(monkeypatch, usage_from_1_4_4, model_class("given", "https://bedrock.eu-west-1.amazonaws.com"))
    with pytest.raises(EndpointRefused, match=r"^ChatBedrockConverse\.bedrock_client points at 'https://bedrock\."):
        shim._runnable({"model_id": "m"}, ENDPOINT)


@pytest.mark.parametrize("control", [None, "given"])
def test_clients_on_the_endpoint_get_the_tools_bound(monkeypatch, control):
    install_release(monkeypatch, usage_from_1_4_4, model_class("given", control))
    tools = [{"name": "f", "input_schema": {"type": "object"}}]
    bound, model, given, choice = shim._runnable({"model_id": "m", "tools": tools}, ENDPOINT)
    assert (bound, given, choice) == ("bound", tools, None)
    assert model.kwargs["endpoint_url"] == ENDPOINT["endpoint_url"]


def test_the_message_chunk_carries_what_langchain_holds_unrepaired():
    garbled = {"type": "reasoning_content", "reasoning_content": {"text": "a", "signature": "S", "type": "texttext"}}
    merged = {"type": "texttextsignature", "text": "hi", "index": 0}
    message = SimpleNamespace(tool_calls=[{"id": "t1", "name": "f", "args": {"a": 1}}], content=[
        "plain", {"type": "text", "text": "", "index": 1}, garbled, merged,
        {"type": "reasoning_content", "reasoning_content": {"signature": "S2"}},
        {"type": "tool_use", "id": "t1", "name": "f", "input": '{"a": 1}', "index": 2},
        {"type": "tool_use", "id": "t2", "name": "g", "input": '{"b"', "index": 3}])
    assert native.anthropic_message(message) == [
        {"type": "text", "text": "plain"}, {"type": "text", "text": ""}, garbled, merged,
        {"type": "thinking", "signature": "S2"},  # no text held: none made up
        {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}},  # what langchain-aws sends: its tool_call
        {"type": "tool_use", "id": "t2", "name": "g", "input": '{"b"', "index": 3}]  # no tool_call: as held


def test_a_string_content_is_one_text_block_and_calls_without_a_block_follow():
    message = SimpleNamespace(content="done", tool_calls=[{"id": "t9", "name": "g", "args": {}}])
    assert native.anthropic_message(message) == [{"type": "text", "text": "done"},
                                                 {"type": "tool_use", "id": "t9", "name": "g", "input": {}}]


def test_the_shim_declares_non_streaming_and_only_documented_differences():
    assert "non_streaming" in shim.LangchainAwsAdapter.capabilities
    assert set(shim.DIFFERENCES) == {"data.id", "data.response_metadata.ResponseMetadata",
                                     "data.response_metadata.metrics.latencyMs", "data.content[*].index",
                                     "data.content as lone-text", "data.content[*].input as json-text"}
    assert shim.LangchainAwsPersistedAdapter.name == "langchain-aws-persisted"


def test_the_persisted_variant_without_langgraph_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "langgraph.checkpoint.memory", None)  # not importable
    with pytest.raises(ImportError, match=r"LangGraph checkpointer's serializer, and langgraph is not installed: "
                                          r"pip install 'bedrock-harness\[langchain-aws\]'"):
        shim.LangchainAwsPersistedAdapter()


def test_the_agent_without_langchain_names_the_extra(monkeypatch):
    from harness.adapters import registry

    monkeypatch.delitem(sys.modules, "harness.adapters.shims.langchain_aws_agent", raising=False)
    monkeypatch.setitem(sys.modules, "langchain.agents", None)
    with pytest.raises(registry.AdapterLoadError, match=r"adapter 'langchain-aws-agent' needs 'langchain.agents', "
                                                        r"which is not installed: pip install 'bedrock-harness\[langchain-aws\]'"):
        registry.load_adapter("langchain-aws-agent")
