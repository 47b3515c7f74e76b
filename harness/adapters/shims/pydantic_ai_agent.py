"""pydantic-ai's ``Agent`` run as a harness adapter (``pydantic-ai-agent``): the agent graph itself decides whether
to run the tools the model called.

One ``Agent`` per conversation (``BedrockConverseModel`` as in the ``pydantic-ai`` shim, the same model settings,
``framing_announcement="never"``, one ``Tool.from_schema`` per scenario tool) is iterated node by node (``Agent.iter``) in a thread
(harness.adapters.shims.agent_loop). Each ``ModelRequestNode`` is one harness turn: its stream's part events map
as in the ``pydantic-ai`` shim, and the ``CallToolsNode`` that follows holds the ``ModelResponse`` the agent
assembled and appended to its history (tool calls' assembled arguments, stop, usage, the ``message`` chunk).
Its tools return the scenario's results (an error result raises ``ToolFailed``, pydantic-ai's failed tool
return), which the harness sends as the next turn.

It declares no ``non_streaming``: a non-streamed ``ModelRequestNode`` calls ``model.request``, the very call
``pydantic_ai.direct.model_request_sync`` makes in the ``pydantic-ai`` shim's parity check, on a history the graph
keeps the same way; a second Agent run would have to run every tool of the conversation again to reach its later
requests. Nor a ``persisted`` variant: the run holds its message history inside one ``Agent.iter`` and never hands it
back to be stored between requests (``pydantic-ai-persisted`` stores what a run would be given as
``message_history``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from harness.adapters.shims import pydantic_ai as model_shim
from harness.adapters.shims import pydantic_ai_history, pydantic_ai_native
from harness.adapters.shims.agent_loop import AgentLoop, AgentShim
from harness.adapters.shims.common import message_chunk
from harness.converse.request import system_texts
from harness.judge.protocol import USAGE_INCLUDES_CACHE

__all__ = ["PydanticAiAgentAdapter", "tool_return"]


class PydanticAiAgentAdapter(AgentShim):
    """``Agent(BedrockConverseModel(...), tools=[...]).iter(prompt)``, one model request per harness turn."""

    name = "pydantic-ai-agent"
    distribution = model_shim.DISTRIBUTION
    extra = "pydantic-ai"
    # structured output (where the release has it): NativeOutput(StructuredDict(schema)) as the Agent's output_type,
    # strict tools through a prepared toolset (Tool.from_schema takes no strict); cache points (where the release has
    # them): the system and tools points as the model settings, a message point as a CachePoint in the prompt, one
    # beside a tool result as the CachePoint of the tool's ToolReturn content
    capabilities = AgentShim.capabilities | {USAGE_INCLUDES_CACHE, model_shim.GUARDRAIL}
    vocabulary = pydantic_ai_native.VOCABULARY
    result_cache_points = True  # a tool returns ToolReturn(value, content=[CachePoint(...)])

    def __init__(self) -> None:
        super().__init__()
        model_shim.importable(self.version)
        self.capabilities = self.capabilities | model_shim.served() | (model_shim.surface() - {model_shim.CITATIONS})

    def run(self, turn: dict, endpoint: dict, loop: AgentLoop) -> None:
        """The agent on the scenario's opening, node by node, its chunks into ``loop``."""
        model = model_shim._model(turn["model_id"], endpoint)
        try:
            asyncio.run(_iterate(_agent(turn, model, loop), turn, loop))
        except Exception as exc:  # noqa: BLE001 - what the agent raises is the turn's error, after what streamed
            loop.emit(model_shim.error(exc))


def _agent(turn: dict, model: Any, loop: AgentLoop) -> Any:
    from pydantic_ai import Agent
    from pydantic_ai.tools import Tool

    tools = [Tool.from_schema(_answer(loop), name=t["name"], description=t.get("description"),
                              json_schema=t["input_schema"], takes_ctx=True) for t in turn.get("tools") or ()]
    held = len(turn["messages"]) > 1  # a history carries its own system prompt; a lone prompt takes the agent's
    # framing_announcement: the Agent adds a ~120-word preamble of its own to the system prompt of a model without a
    # mid-conversation system role (documented, default on); the scenarios pin the application's system prompt.
    settings = {**model_shim.settings(turn), "framing_announcement": "never"}
    return Agent(model, **_tools(turn, tools), **output_type(turn.get("options") or {}), model_settings=settings,
                 system_prompt=() if held else system_texts(turn.get("system")))


def _tools(turn: dict, tools: list) -> dict:
    """``tools=``, or where a scenario tool is strict a toolset whose prepare function marks it so (the
    ToolDefinition's ``strict``, which BedrockConverseModel sends as toolSpec.strict)."""
    strict = {t["name"] for t in turn.get("tools") or () if t.get("strict")}
    if not strict:
        return {"tools": tools}
    import dataclasses

    from pydantic_ai.toolsets import FunctionToolset

    async def mark(_ctx: Any, definitions: list) -> list:
        return [dataclasses.replace(d, strict=True) if d.name in strict else d for d in definitions]

    return {"toolsets": [FunctionToolset(tools).prepared(mark)]}


def output_type(options: dict) -> dict:
    """The Agent's ``output_type`` for the turn's output format: ``NativeOutput`` of a ``StructuredDict`` of its JSON
    schema, with its name and description (nothing without one: text output)."""
    wanted = options.get("output_format")
    if wanted is None:
        return {}
    from pydantic_ai import NativeOutput, StructuredDict

    model_shim.output_config(options)  # the one-line error for a malformed output_format
    return {"output_type": NativeOutput(StructuredDict(wanted["schema"]), name=wanted.get("name"),
                                        description=wanted.get("description"))}


def _answer(loop: AgentLoop) -> Any:
    def answer(ctx: Any, **_arguments: Any) -> Any:
        return tool_return(loop.result(ctx.tool_call_id))

    return answer


def tool_return(block: dict) -> Any:
    """A tool_result block as a tool function's return value; an error result raises ``ToolFailed`` (``ModelRetry``
    before it existed)."""
    from pydantic_ai import exceptions

    part = pydantic_ai_history.request_part(block, {})
    point = pydantic_ai_history.cache_point(block)
    if point and not block.get("is_error"):  # the cache point after the result: the tool's extra user content
        from pydantic_ai.messages import ToolReturn

        return ToolReturn(return_value=part.content, content=point)
    if block.get("is_error"):
        # ToolFailed (a failed ToolReturnPart) arrived in 2.16; before it a tool reports a failure by raising
        # ModelRetry, which the agent records as a RetryPromptPart (counted against the tool's retries).
        failure = getattr(exceptions, "ToolFailed", exceptions.ModelRetry)
        raise failure(part.content if isinstance(part.content, str) else str(part.content))
    return part.content


async def _iterate(agent: Any, turn: dict, loop: AgentLoop) -> None:
    """Each model request gated to its harness turn and streamed; each CallToolsNode's response closes the turn."""
    from pydantic_ai import Agent

    history, prompt = _opening(turn)
    async with agent.iter(prompt, message_history=history) as run:
        node = run.next_node
        while not Agent.is_end_node(node):
            if Agent.is_model_request_node(node):
                await _request(node, run, loop)
            elif Agent.is_call_tools_node(node):
                for chunk in [*model_shim.from_response(node.model_response),
                              message_chunk(pydantic_ai_native.anthropic_parts(node.model_response))]:
                    loop.emit(chunk)
            node = await run.next(node)


def _opening(turn: dict) -> tuple[Any, Any]:
    """(message history, prompt): all but the last message and that message's content; an opening that ends in tool
    results is all history and no prompt (the agent refuses a prompt while a call in its history is unanswered)."""
    opening = turn["messages"]
    last = opening[-1]["content"] if isinstance(opening[-1]["content"], list) else []
    if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in last):
        return model_shim.to_pydantic_ai(turn), None
    history = model_shim.to_pydantic_ai({**turn, "messages": opening[:-1]}) if len(opening) > 1 else None
    parts = model_shim.to_pydantic_ai({**turn, "system": None, "messages": opening[-1:]})[0].parts
    return history, [item for part in parts for item in (part.content if isinstance(part.content, list)
                                                        else [part.content])]


async def _request(node: Any, run: Any, loop: AgentLoop) -> None:
    """One model request, after its turn's gate, its part events streamed into ``loop``."""
    loop.model_call()
    ids: dict[int, str] = {}
    async with node.stream(run.ctx) as stream:
        async for event in stream:
            for chunk in model_shim.from_event(event, ids):
                loop.emit(chunk)
