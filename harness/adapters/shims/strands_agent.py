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
"""

from __future__ import annotations

import asyncio
from typing import Any

from harness.adapters.shims import strands as model_shim
from harness.adapters.shims.agent_loop import AgentLoop, AgentShim
from harness.adapters.shims.common import message_chunk
from harness.converse.request import system_texts
from harness.suite.protocol import AdapterSkip

__all__ = ["StrandsAgentAdapter", "ModelCall"]


class StrandsAgentAdapter(AgentShim):
    """``Agent(model=BedrockModel(...), tools=[...]).stream_async(prompt)``, one model call per harness turn."""

    name = "strands-agent"
    distribution = model_shim.DISTRIBUTION
    extra = "strands"

    def run(self, turn: dict, endpoint: dict, loop: AgentLoop) -> None:
        """The agent on the scenario's opening, its events into ``loop`` one model call at a time."""
        choice = (turn.get("options") or {}).get("tool_choice")
        if choice not in (None, "auto"):
            raise AdapterSkip(f"a strands Agent run takes no tool_choice (the scenario forces {choice!r})")
        agent, prompt = _agent(turn, endpoint, loop)
        call = ModelCall(loop)
        try:
            asyncio.run(_consume(agent, prompt, call))
        except Exception as exc:  # noqa: BLE001 - what the agent raises is the turn's error, after what streamed
            call.fail(exc)


async def _consume(agent: Any, prompt: Any, call: ModelCall) -> None:
    async for event in agent.stream_async(prompt):
        call.feed(event)


def _agent(turn: dict, endpoint: dict, loop: AgentLoop) -> tuple[Any, Any]:
    """The Agent holding the opening (all but its last user message) and that last message as the prompt."""
    from strands import Agent
    from strands.hooks import BeforeModelCallEvent

    opening = model_shim.to_strands(turn["messages"])
    texts = system_texts(turn.get("system"))
    agent = Agent(model=model_shim._bedrock_model(turn, endpoint), messages=opening[:-1], callback_handler=None,
                  system_prompt=[{"text": text} for text in texts] or None, retry_strategy=None,
                  tools=[_tool(spec, loop) for spec in turn.get("tools") or ()])
    agent.hooks.add_callback(BeforeModelCallEvent, lambda event: loop.model_call())
    return agent, opening[-1]["content"]


def _tool(spec: dict, loop: AgentLoop) -> Any:
    """A PythonAgentTool with the scenario's schema whose result is the harness's tool_result for the call."""
    from strands.tools.tools import PythonAgentTool

    tool_spec = {"name": spec["name"], "description": spec.get("description") or "",
                 "inputSchema": {"json": spec["input_schema"]}}

    def answer(tool_use: dict, **_state: Any) -> dict:
        return model_shim.to_strands([{"role": "user", "content": [loop.result(tool_use["toolUseId"])]}])[0][
            "content"][0]["toolResult"]

    return PythonAgentTool(spec["name"], tool_spec, answer)


class ModelCall:
    """Folds the agent's events into chunks, one model call at a time, flushed when its message is appended."""

    def __init__(self, loop: AgentLoop) -> None:
        self.loop = loop
        self.events: list[dict] = []
        self.closing: list[dict] = []

    def feed(self, event: dict) -> None:
        raw = event.get("event") or {}
        if "messageStop" in raw:
            self.closing.append({"type": "stop", "reason": raw["messageStop"].get("stopReason")})
        elif "usage" in raw.get("metadata", {}):
            self.closing.append(model_shim._usage(raw["metadata"]["usage"]))
        elif (event.get("message") or {}).get("role") == "assistant":
            self._flush(event["message"])
        elif "message" not in event:
            self.events.append(event)

    def _flush(self, message: dict) -> None:
        chunks = [chunk for chunk in map(model_shim._streamed, self.events) if chunk]
        for chunk in [*model_shim._assembled(chunks, message), *self.closing]:
            self.loop.emit(chunk)
        self.loop.emit(message_chunk(model_shim.anthropic_blocks(message["content"])))
        self.events, self.closing = [], []

    def fail(self, exc: BaseException) -> None:
        """What streamed of the failed call, then its error."""
        for chunk in [*filter(None, map(model_shim._streamed, self.events)), *self.closing]:
            self.loop.emit(chunk)
        self.loop.emit(model_shim.error(exc))
