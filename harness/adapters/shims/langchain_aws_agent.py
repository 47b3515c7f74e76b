"""LangChain's agent loop on ``ChatBedrockConverse`` as a harness adapter (``langchain-aws-agent``): the LangGraph
graph ``langchain.agents.create_agent`` builds decides itself whether to run the tools the model called.

One agent per conversation (``create_agent(model, tools, middleware=[...])``; the model is the ``langchain-aws``
shim's ``ChatBedrockConverse``, which the agent binds the tools to itself) runs ``agent.stream({"messages":
opening}, stream_mode=["messages", "updates"])``, the streaming LangChain documents for agents, in a thread
(harness.adapters.shims.agent_loop). A ``before_model`` middleware holds each model call until its harness turn.
Per model call the ``messages`` stream's ``AIMessageChunk``s of the ``model`` node map as in the ``langchain-aws``
shim, and the ``updates`` stream's ``model`` update (the ``AIMessage`` the agent appends to its state) closes the
turn: its ``tool_calls`` (what the agent's ``ToolNode`` executes), stop and usage, then the ``message`` chunk.

Each scenario tool is a ``StructuredTool`` with the scenario's JSON schema whose function returns the harness's
result for its call (``runtime: ToolRuntime`` gives the call's id), as an application's tool returns a value
(``returned_value``: a string as it is, a JSON value as the value, which LangChain's ``_format_output`` writes as JSON
text), a result with an image or a document as LangChain content blocks; a failed result raises ``ToolException`` (the
tool's ``handle_tool_error`` makes the error ``ToolMessage``), or, holding more than text, returns its own
``ToolMessage(status="error")``.

``langchain-aws-agent-events`` runs the same agent through ``agent.astream_events({"messages": opening},
version="v2")``, LangChain's event stream of the graph, each event relayed as it comes (``relayed``): the model node's
``on_chat_model_stream`` events (``data["chunk"]``, with ``metadata["langgraph_node"]``) are the ``messages`` stream,
and the graph's own ``on_chain_stream`` events (the root run, no parent) carry what its ``astream`` yields, which for
a compiled graph is the ``updates`` stream (``{"model": {"messages": [AIMessage]}}``): the same (mode, data) pairs,
read by the same ``ModelCall``. The events come from a task of their own, which runs the graph on while an event
waits to be read, so a tool first waits until the model call's message has been relayed (``AgentLoop.result``'s
``after_close``), and the turn ends after it.

It declares no ``non_streaming`` (the model calls are ``ChatBedrockConverse``'s own ``_stream``, whose parity the
``langchain-aws`` shim checks; a twin run would execute every tool again). Cache points go in the messages as in the
``langchain-aws`` shim; a scenario with a cache point among its tools is a skip: the agent binds its tools itself,
with no place for a ``cachePoint`` entry.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import langchain.agents  # noqa: F401 - the agent's library: when missing, the adapter names the extra as it loads

from harness.adapters.shims import langchain_aws as model_shim
from harness.adapters.shims import langchain_aws_native as native
from harness.adapters.shims.agent_loop import AgentLoop, AgentShim
from harness.adapters.shims.common import has_media, message_chunk, relayed, returned_value
from harness.converse.stream import error_chunk
from harness.judge.protocol import AdapterSkip, USAGE_INCLUDES_CACHE

__all__ = ["LangchainAwsAgentAdapter", "LangchainAwsAgentEventsAdapter", "ModelCall", "tool_return"]

MODEL_NODE = "model"  # create_agent's node that calls the model


class LangchainAwsAgentAdapter(AgentShim):
    """``create_agent(ChatBedrockConverse(...), tools=[...]).stream(...)``, one model call per harness turn."""

    name = f"{model_shim.DISTRIBUTION}-agent"
    distribution = model_shim.DISTRIBUTION
    extra = "langchain-aws"
    era_companions = ("langchain-core", "langchain", "langgraph")  # matrix/bisect: the agent's packages of the era
    # cache points in the messages (a tool's cache point is a skip: the agent binds its tools itself)
    capabilities = AgentShim.capabilities | {"cache_points", "tool_result_media", "guardrail", "service_tier",
                                             "response_fields", "response_metadata", USAGE_INCLUDES_CACHE}
    after_close = False  # whether a tool waits for its model call's message to be relayed (events read behind the run)

    def __init__(self) -> None:
        super().__init__()
        if not model_shim.counts_cache_in_input():
            self.capabilities = self.capabilities - {USAGE_INCLUDES_CACHE}
        if not model_shim.has_service_tier():
            self.capabilities = self.capabilities - {"service_tier"}

    def run(self, turn: dict, endpoint: dict, loop: AgentLoop) -> None:
        """The agent on the scenario's opening, its streamed parts into ``loop`` one model call at a time."""
        choice = (turn.get("options") or {}).get("tool_choice")
        if choice not in (None, "auto"):
            raise AdapterSkip(f"create_agent takes no tool_choice (the scenario forces {choice!r})")
        if any(tool.get("cache_control") for tool in turn.get("tools") or ()):
            raise AdapterSkip("create_agent binds its tools itself: a cache point among them has no place")
        agent = _agent(turn, endpoint, loop, self.after_close)
        call = ModelCall(loop)
        history = model_shim.to_langchain(turn)
        try:
            for mode, data in self.surfaced(agent, history):
                call.feed(mode, data)
        except Exception as exc:  # noqa: BLE001 - what the agent raises is the turn's error, after what streamed
            call.fail(exc)

    def surfaced(self, agent: Any, history: list) -> Iterator[tuple[str, Any]]:
        """What the application reads of the run, as ``(mode, data)`` pairs: ``agent.stream``'s own, the ``messages``
        stream's ``(AIMessageChunk, metadata)`` and the ``updates`` stream's ``{node: update}``."""
        return agent.stream({"messages": history}, stream_mode=["messages", "updates"])


class LangchainAwsAgentEventsAdapter(LangchainAwsAgentAdapter):
    """``langchain-aws-agent-events``: the same agent read from ``astream_events({"messages": opening},
    version="v2")``, each event relayed as the run yields it."""

    name = f"{model_shim.DISTRIBUTION}-agent-events"
    after_close = True

    def surfaced(self, agent: Any, history: list) -> Iterator[tuple[str, Any]]:
        """A chat model's ``on_chat_model_stream`` event is a ``messages`` pair (its chunk and metadata, which name
        the node); the graph's own ``on_chain_stream`` (the root run: no parent) is an ``updates`` pair, the graph's
        ``astream`` output in its default stream mode, ``updates``. Other events (nodes', tools') carry nothing the
        turn reports."""
        for event in relayed(agent.astream_events({"messages": history}, version="v2")):
            if event["event"] == "on_chat_model_stream":
                yield "messages", (event["data"]["chunk"], event.get("metadata") or {})
            elif event["event"] == "on_chain_stream" and not event.get("parent_ids"):
                yield "updates", event["data"]["chunk"]


def _agent(turn: dict, endpoint: dict, loop: AgentLoop, after_close: bool = False) -> Any:
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware

    class TurnGate(AgentMiddleware):
        """Each model call waits for its harness turn."""

        def before_model(self, state: Any, runtime: Any) -> None:
            loop.model_call()

    model = model_shim._runnable({**turn, "tools": None}, endpoint)  # the agent binds the tools itself
    return create_agent(model, tools=[_tool(spec, loop, after_close) for spec in turn.get("tools") or ()],
                        middleware=[TurnGate()])


def _tool(spec: dict, loop: AgentLoop, after_close: bool = False) -> Any:
    """A StructuredTool with the scenario's schema whose result is the harness's tool_result for the call."""
    from langchain_core.tools import StructuredTool

    def answer(runtime: Any, **_arguments: Any) -> Any:
        block = loop.result(runtime.tool_call_id, after_close)
        return tool_return(block, runtime.tool_call_id, spec["name"])

    return StructuredTool.from_function(func=answer, name=spec["name"], description=spec.get("description") or "",
                                        args_schema=spec["input_schema"], handle_tool_error=True)


def tool_return(block: dict, call_id: str, name: str) -> Any:
    """A tool_result block as a tool function's outcome: its return value, or the ``ToolException`` it raises."""
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import ToolException

    content = block.get("content")
    value = model_shim._result_content(content) if has_media(content) else returned_value(content)
    if not block.get("is_error"):
        return value
    if isinstance(value, str):
        raise ToolException(value)
    return ToolMessage(content=value, tool_call_id=call_id, name=name, status="error")


class ModelCall:
    """Folds the agent's streamed parts into chunks, one model call at a time, flushed when its message is
    appended to the agent's state."""

    def __init__(self, loop: AgentLoop) -> None:
        self.loop = loop
        self.closing: list[dict] = []

    def feed(self, mode: str, data: Any) -> None:
        if mode == "messages":
            chunk, metadata = data
            if metadata.get("langgraph_node") == MODEL_NODE and hasattr(chunk, "tool_call_chunks"):
                for item in model_shim.from_chunk(chunk):
                    self._item(item)
        elif mode == "updates" and isinstance((data or {}).get(MODEL_NODE), dict):
            for message in data[MODEL_NODE].get("messages") or ():
                self._flush(message)
            self.loop.call_closed()

    def _item(self, item: dict) -> None:
        if item["type"] in model_shim.CLOSING:
            self.closing.append(item)
        else:
            self.loop.emit(item)

    def _flush(self, message: Any) -> None:
        for chunk in [*model_shim.assembled(message), *self.closing,
                      message_chunk(native.anthropic_message(message))]:
            self.loop.emit(chunk)
        self.closing = []

    def fail(self, exc: BaseException) -> None:
        """What streamed of the failed call, then its error."""
        for chunk in [*self.closing, error_chunk(exc)]:
            self.loop.emit(chunk)
        self.closing = []
