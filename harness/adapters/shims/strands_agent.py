"""strands-agents' ``Agent`` loop as a harness adapter (``strands-agent``): the loop itself decides whether to run
the tools the model called.

One ``Agent`` per conversation (``BedrockModel`` as in the ``strands`` shim, the scenario's system prompt, its
opening messages, one ``PythonAgentTool`` per scenario tool, no callback handler, retries off as in the
``strands`` shim) runs ``stream_async`` in a thread (harness.adapters.shims.agent_loop). Its tools return the
scenario's results, which the harness sends as the next turn; the agent formats them, appends them after the
assistant message it assembled, and makes the next model call. Per model call the streamed events map as in the
``strands`` shim (text, reasoning, tool-use deltas replaced by the assembled ``toolUse``s), the raw
``messageStop`` and ``metadata`` give Bedrock's stop reason and usage, and the agent's ``{"message": ...}`` event
(the assembled message it appends to its history) closes the turn as the ``message`` chunk.

It declares no ``non_streaming``: the Agent makes each model call through the same ``stream_messages`` and
``BedrockModel.stream`` the ``strands`` shim drives, where ``streaming=False`` only swaps ``converse_stream`` for
``converse`` inside the model (its response goes through the same ``process_stream``), so the ``strands`` shim's parity
covers this path; a twin Agent would have to run every tool of the conversation a second time to reach its later model
calls. Nor a ``persisted`` variant: the Agent holds its history inside one run (``agent.messages``), and the loop
never hands it back to be stored between model calls.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from typing import Any

from harness.adapters.shims import strands as model_shim
from harness.adapters.shims import strands_native
from harness.adapters.shims.agent_loop import TIMEOUT_S, AgentLoop, AgentShim
from harness.adapters.shims.common import message_chunk
from harness.converse.stream import metadata_chunk, response_fields_chunk
from harness.judge.protocol import AdapterSkip

__all__ = ["StrandsAgentAdapter", "LastCallFirst", "ModelCall", "no_retries"]


class StrandsAgentAdapter(AgentShim):
    """``Agent(model=BedrockModel(...), tools=[...]).stream_async(prompt)``, one model call per harness turn."""

    name = "strands-agent"
    distribution = model_shim.DISTRIBUTION
    extra = "strands"
    # the model's cache_tools and cachePoint blocks, usage's cacheDetails; images and documents in the ToolResult a tool
    # returns; citations and how a request is served as the ``strands`` shim has them (the same BedrockModel)
    capabilities = AgentShim.capabilities | {"cache_points", "cache_details", "tool_result_media", "citations",
                                             "guardrail", "response_fields", "response_metadata", "service_tier"}

    def __init__(self) -> None:
        super().__init__()
        if not model_shim.has_service_tier():
            self.capabilities = self.capabilities - {"service_tier"}

    def run(self, turn: dict, endpoint: dict, loop: AgentLoop) -> None:
        """The agent on the scenario's opening, its events into ``loop`` one model call at a time."""
        choice = (turn.get("options") or {}).get("tool_choice")
        if choice not in (None, "auto"):
            raise AdapterSkip(f"a strands Agent run takes no tool_choice (the scenario forces {choice!r})")
        order = LastCallFirst()
        agent, prompt = _agent(turn, endpoint, loop, order)
        call = ModelCall(loop, order, frozenset(tool["name"] for tool in turn.get("tools") or ()))
        try:
            asyncio.run(_consume(agent, prompt, call))
        except Exception as exc:  # noqa: BLE001 - what the agent raises is the turn's error, after what streamed
            call.fail(exc)


async def _consume(agent: Any, prompt: Any, call: ModelCall) -> None:
    async for event in agent.stream_async(prompt):
        call.feed(event)


def _agent(turn: dict, endpoint: dict, loop: AgentLoop, order: LastCallFirst) -> tuple[Any, Any]:
    """The Agent holding the opening (all but its last user message) and that last message as the prompt; an
    opening that ends in tool results is all history and the agent continues from it (no prompt)."""
    from strands import Agent
    from strands.hooks import BeforeModelCallEvent

    opening = model_shim.to_strands(turn["messages"])
    # a prompt after a toolUse makes the Agent answer that call "Tool was interrupted." before the prompt
    answered = any("toolResult" in block for block in opening[-1]["content"])
    agent = Agent(model=model_shim._bedrock_model(turn, endpoint), messages=opening if answered else opening[:-1],
                  callback_handler=None, system_prompt=model_shim.system_content(turn.get("system")) or None,
                  tools=[_tool(spec, loop, order) for spec in turn.get("tools") or ()], **no_retries(Agent))
    agent.hooks.add_callback(BeforeModelCallEvent, lambda event: loop.model_call())
    return agent, None if answered else opening[-1]["content"]


def no_retries(agent_class: type) -> dict:
    """The Agent arguments that leave throttling unretried, as the ``strands`` shim (no event loop) leaves it."""
    parameter = inspect.signature(agent_class.__init__).parameters.get("retry_strategy")
    if parameter is None:
        # up to 1.22 the event loop retries a throttled call MAX_ATTEMPTS times (sleeping 4 s, 8 s, ...): a module
        # constant it reads on every model call, and the only knob those releases have
        from strands.event_loop import event_loop

        event_loop.MAX_ATTEMPTS = 1
        return {}
    if parameter.default is None:
        # 1.23 and 1.24 read retry_strategy=None as "the default strategy" (six attempts); one attempt is no retry
        from strands.event_loop._retry import ModelRetryStrategy

        return {"retry_strategy": ModelRetryStrategy(max_attempts=1)}
    return {"retry_strategy": None}  # from 1.25 the default is a sentinel and None means no retrying


def _tool(spec: dict, loop: AgentLoop, order: LastCallFirst) -> Any:
    """A PythonAgentTool with the scenario's schema whose result is the harness's tool_result for the call."""
    from strands.tools.tools import PythonAgentTool

    tool_spec = {"name": spec["name"], "description": spec.get("description") or "",
                 "inputSchema": {"json": spec["input_schema"]}}

    def answer(tool_use: dict, **_state: Any) -> dict:
        try:
            result = loop.result(tool_use["toolUseId"])
        except BaseException:
            order.returning(tool_use["toolUseId"], wait=False)  # cancelled: no earlier call waits for this one
            raise
        order.returning(tool_use["toolUseId"])
        return model_shim.to_strands([{"role": "user", "content": [result]}])[0]["content"][0]["toolResult"]

    return PythonAgentTool(spec["name"], tool_spec, answer)


class LastCallFirst:
    """The calls of one model response return last call first, so that the order of the results shows.

    strands' ConcurrentToolExecutor runs each call in its own thread; up to 1.41 it appended each result as its tool
    finished, from 1.42.0 it keeps the order of the calls. The harness answers every call at once, which would leave
    the order to the thread scheduler (a verdict that changes between runs); finishing the last call first is the
    case a real application meets whenever a later tool is quicker, and it gives one verdict per release.
    """

    def __init__(self) -> None:
        self._pending: list[str] = []  # the calls of the last response still running, in call order
        self._changed = threading.Condition()

    def expect(self, call_ids: list[str]) -> None:
        """The calls (to the agent's own tools) of the response the agent just appended."""
        with self._changed:
            self._pending = list(call_ids)

    def returning(self, call_id: str, wait: bool = True) -> None:
        """Wait until every later call of the response has returned (at most TIMEOUT_S), then let this one go."""
        with self._changed:
            if wait:
                self._changed.wait_for(lambda: call_id not in self._pending or self._pending[-1] == call_id,
                                       TIMEOUT_S)
            if call_id in self._pending:
                self._pending.remove(call_id)
            self._changed.notify_all()


class ModelCall:
    """Folds the agent's events into chunks, one model call at a time, flushed when its message is appended."""

    def __init__(self, loop: AgentLoop, order: LastCallFirst, tools: frozenset[str] = frozenset()) -> None:
        self.loop = loop
        self.order = order
        self.tools = tools  # the agent's tool names: a call to another tool never runs, so nothing waits for it
        self.events: list[dict] = []
        self.closing: list[dict] = []
        self.stopped = False  # whether the last call flushed closed with the stream's own stop reason

    def feed(self, event: dict) -> None:
        raw = event.get("event") or {}
        if "result" in event:
            self._result(event["result"])
        elif "messageStop" in raw:
            self.closing.append({"type": "stop", "reason": raw["messageStop"].get("stopReason")})
            self.closing.extend(response_fields_chunk(raw["messageStop"]))
        elif "usage" in raw.get("metadata", {}):
            self.closing.append(model_shim._usage(raw["metadata"]["usage"]))
            self.closing.extend(filter(None, [metadata_chunk(raw["metadata"])]))
        elif (event.get("message") or {}).get("role") == "assistant":
            self._flush(event["message"])
        elif "message" not in event:
            self.events.append(event)

    def _flush(self, message: dict) -> None:
        chunks = [chunk for chunk in map(model_shim._streamed, self.events) if chunk]
        for chunk in [*model_shim._assembled(chunks, message), *self.closing]:
            self.loop.emit(chunk)
        self.loop.emit(message_chunk(strands_native.anthropic_blocks(message["content"])))
        self.order.expect([block["toolUse"]["toolUseId"] for block in message["content"]
                           if "toolUse" in block and block["toolUse"].get("name") in self.tools])
        self.stopped = any(chunk["type"] == "stop" for chunk in self.closing)
        self.events, self.closing = [], []

    def _result(self, result: Any) -> None:
        """The agent's AgentResult: when its last model call streamed no stop reason (a cut stream), the one the
        agent reports to the application (strands ends such a call as end_turn) is what the library holds."""
        reason = getattr(result, "stop_reason", None)
        if not self.stopped and reason is not None:
            self.loop.emit({"type": "stop", "reason": str(reason)})

    def fail(self, exc: BaseException) -> None:
        """What streamed of the failed call, then its error."""
        for chunk in [*filter(None, map(model_shim._streamed, self.events)), *self.closing]:
            self.loop.emit(chunk)
        self.loop.emit(model_shim.error(exc))
