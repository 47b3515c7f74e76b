"""The ``app.py`` templates: LiteLLM, langchain-aws (its stream, its events path, create_agent), strands (BedrockModel
and its Agent), pydantic-ai (the direct API and its Agent), LlamaIndex and Haystack. Each is written from the shim's
own pure mappings, without importing the library, and runs with the installed release (``python app.py URL``)."""

from __future__ import annotations

from typing import Callable

from harness.adapters.apps.common import App, ends_with_prompt, py_literal, py_run, sampling, text_turn
from harness.suite.scenario import Scenario, first_turn

__all__ = ["TEMPLATES"]


_LITELLM = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with LiteLLM as an application calls it: streamed (assembled by stream_chunk_builder), then
not streamed, on the same messages. Serve the recorded stream first:

{run}
"""

import json
import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # LiteLLM's bundled price map: nothing fetched
import litellm  # noqa: E402

URL = sys.argv[1]
REQUEST = {request}
AWS = {{"aws_bedrock_runtime_endpoint": URL, "aws_region_name": "us-east-1", "aws_access_key_id": "testing",
        "aws_secret_access_key": "testing"}}


def shown(message):
    return json.dumps(message.model_dump(), indent=2, default=str, ensure_ascii=False)


chunks = list(litellm.completion(**REQUEST, **AWS, stream=True, stream_options={{"include_usage": True}}))
for chunk in chunks:
    print("chunk:", json.dumps(chunk.model_dump(mode="json", exclude_none=True), ensure_ascii=False))
streamed = litellm.stream_chunk_builder(chunks, messages=REQUEST["messages"]).choices[0].message
print("streamed message:", shown(streamed))
whole = litellm.completion(**REQUEST, **AWS).choices[0].message
print("non-streamed message:", shown(whole))
'''


def _litellm(scenario: Scenario) -> str:
    from harness.adapters.shims.litellm_format import to_openai, tool_choice  # pure mapping: no litellm import

    turn = first_turn(scenario)
    options = turn.get("options") or {}
    request: dict = {"model": f"bedrock/converse/{turn['model_id']}", "messages": to_openai(turn),
                     "max_tokens": options.get("max_tokens")}
    if turn.get("tools"):
        request["tools"] = [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                                              "parameters": t["input_schema"]}} for t in turn["tools"]]
        if options.get("tool_choice") not in (None, "auto"):
            request["tool_choice"] = tool_choice(options["tool_choice"])
    if options.get("temperature") is not None:
        request["temperature"] = options["temperature"]
    if options.get("thinking_budget"):
        request["thinking"] = {"type": "enabled", "budget_tokens": options["thinking_budget"]}
    return _LITELLM.format(scenario=scenario.id, run=py_run(scenario), request=py_literal(request))


_LANGCHAIN_AWS = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with langchain-aws as an application calls it: ChatBedrockConverse streamed (its chunks
added up, as LangChain's own aggregation does), then invoked, on the same messages. Serve the recorded stream first:

{run}
"""

import json
import sys

from langchain_aws import ChatBedrockConverse

URL = sys.argv[1]
MODEL = {model}
TOOLS = {tools}
TOOL_CHOICE = {tool_choice!r}
MESSAGES = {messages}


def shown(message):
    return json.dumps(message.model_dump(), indent=2, default=str, ensure_ascii=False)


model = ChatBedrockConverse(**MODEL, region_name="us-east-1", endpoint_url=URL, aws_access_key_id="testing",
                            aws_secret_access_key="testing", disable_streaming=False)
bound = model.bind_tools(TOOLS, tool_choice=TOOL_CHOICE) if TOOLS else model
streamed = None
for chunk in bound.stream(MESSAGES):
    print("chunk:", json.dumps({{"content": chunk.content, "tool_call_chunks": chunk.tool_call_chunks,
                                "response_metadata": chunk.response_metadata, "usage_metadata": chunk.usage_metadata}},
                               default=str, ensure_ascii=False))
    streamed = chunk if streamed is None else streamed + chunk
print("streamed message:", shown(streamed))
print("invoked message:", shown(bound.invoke(MESSAGES)))
'''


def _langchain_aws_fields(scenario: Scenario, turn: dict, texts: list, system: str | None) -> dict:
    """What the langchain-aws scripts are formatted with: LangChain's role/content messages, ChatBedrockConverse's
    fields (by the shim's own pure helpers), the tools as bind_tools takes them and the tool choice."""
    from harness.adapters.shims import langchain_aws as shim  # its pure helpers: no langchain import

    options = turn.get("options") or {}
    messages = [*([{"role": "system", "content": system}] if system is not None else []),
                *({"role": role, "content": text} for role, text in texts)]
    model = {"model": turn["model_id"], "max_tokens": options.get("max_tokens"),
             **sampling(options, "additional_model_request_fields"), **shim._provider(turn["model_id"]),
             **shim.served(options)}
    tools = [{"name": t["name"], "description": t.get("description", ""), "input_schema": t["input_schema"]}
             for t in turn.get("tools") or ()]
    return {"scenario": scenario.id, "run": py_run(scenario), "model": py_literal(model), "tools": py_literal(tools),
            "tool_choice": shim._tool_choice(options.get("tool_choice")), "messages": py_literal(messages)}


def _langchain_aws(scenario: Scenario) -> str | None:
    """The template on turn 0's text (None when it holds other blocks: LangChain's data blocks are the shim's)."""
    turn = first_turn(scenario)
    plain = text_turn(turn)
    return None if plain is None else _LANGCHAIN_AWS.format(**_langchain_aws_fields(scenario, turn, *plain))


_STRANDS_CONSTANTS = '''URL = sys.argv[1]
MODEL = {model}
TOOL_SPECS = {tools}
SYSTEM_PROMPT = {system!r}
MESSAGES = {messages}
'''

_STRANDS = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with strands as its agent loop calls the model: BedrockModel.stream's events, then the
message strands' process_stream assembles from them (what the agent appends to its messages), on the same messages.
Serve the recorded stream first:

{run}
"""

import asyncio
import json
import sys

import boto3
from strands.event_loop.streaming import process_stream
from strands.models.bedrock import BedrockModel

''' + _STRANDS_CONSTANTS + '''

async def main():
    session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1")
    model = BedrockModel(boto_session=session, endpoint_url=URL, **MODEL)
    events = []

    async def streamed():
        async for event in model.stream(MESSAGES, TOOL_SPECS or None, SYSTEM_PROMPT):
            print("event:", json.dumps(event, default=str, ensure_ascii=False))
            events.append(event)
            yield event

    async for typed in process_stream(streamed()):
        if "stop" in typed:
            stop_reason, message, usage, _metrics = typed["stop"]
            print("stop reason:", stop_reason)
            print("assembled message:", json.dumps(message, indent=2, default=str, ensure_ascii=False))
            print("usage:", json.dumps(usage, default=str))


asyncio.run(main())
'''


def _strands_fields(scenario: Scenario, turn: dict, texts: list, system: str | None) -> dict:
    """What the strands scripts are formatted with: Converse's own messages, BedrockModel's fields, the tool specs
    and the system prompt."""
    options = turn.get("options") or {}
    messages = [{"role": role, "content": [{"text": text}]} for role, text in texts]
    model = {"model_id": turn["model_id"], "max_tokens": options.get("max_tokens"),
             **sampling(options, "additional_request_fields")}
    tools = [{"name": t["name"], "description": t.get("description") or "", "inputSchema": {"json": t["input_schema"]}}
             for t in turn.get("tools") or ()]
    return {"scenario": scenario.id, "run": py_run(scenario), "model": py_literal(model), "tools": py_literal(tools),
            "system": system, "messages": py_literal(messages)}


def _strands(scenario: Scenario) -> str | None:
    """The template on turn 0's text (None when it holds other blocks, or a system prompt of several blocks)."""
    turn = first_turn(scenario)
    plain = text_turn(turn)
    return None if plain is None else _STRANDS.format(**_strands_fields(scenario, turn, *plain))


# What the pydantic-ai scripts share: their history as ModelMessages built from the turn's texts, and how they show a
# response (plain text: a value of the templates' format, not formatted again).
_PYDANTIC_AI_HISTORY = '''def shown(response):
    return ModelMessagesTypeAdapter.dump_json([response], indent=2).decode()


def history_of(messages):
    """(role, text) pairs as the ModelMessages an application keeps, the system prompt in the first request."""
    history = []
    for role, text in messages:
        if role == "assistant":
            history.append(ModelResponse(parts=[TextPart(content=text)]))
        else:
            system = [SystemPromptPart(content=SYSTEM_PROMPT)] if SYSTEM_PROMPT is not None and not history else []
            history.append(ModelRequest(parts=[*system, UserPromptPart(content=text)]))
    return history
'''


_PYDANTIC_AI_CONSTANTS = '''URL = sys.argv[1]
MODEL_ID = {model_id!r}
SETTINGS = {settings}
TOOLS = {tools}
SYSTEM_PROMPT = {system!r}
MESSAGES = {messages}
'''

_PYDANTIC_AI = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with pydantic-ai as an application calls it: BedrockConverseModel through the direct API,
streamed (model_request_stream_sync: its part events and the ModelResponse it assembles), then not streamed
(model_request_sync), on the same messages. Serve the recorded stream first:

{run}
"""

import sys

from pydantic_ai.direct import model_request_stream_sync, model_request_sync
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, ModelResponse, SystemPromptPart, TextPart
from pydantic_ai.messages import UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.bedrock import BedrockConverseModel
from pydantic_ai.providers.bedrock import BedrockProvider
from pydantic_ai.tools import ToolDefinition

''' + _PYDANTIC_AI_CONSTANTS + '''

{history_of}

history = history_of(MESSAGES)
provider = BedrockProvider(base_url=URL, region_name="us-east-1", aws_access_key_id="testing",
                           aws_secret_access_key="testing")
model = BedrockConverseModel(MODEL_ID, provider=provider)
parameters = ModelRequestParameters(function_tools=[ToolDefinition(**tool) for tool in TOOLS], allow_text_output=True)
with model_request_stream_sync(model, history, model_settings=SETTINGS, model_request_parameters=parameters) as stream:
    for event in stream:
        print("event:", event)
    streamed = stream.response
print("streamed finish reason:", streamed.finish_reason)
print("streamed response:", shown(streamed))
try:
    whole = model_request_sync(model, history, model_settings=SETTINGS, model_request_parameters=parameters)
    print("non-streamed response:", shown(whole))
except Exception as error:  # what the library raises on the non-streamed call is part of what it does
    print("non-streamed call raised:", repr(error))
'''


def _pydantic_ai_settings(turn: dict) -> dict | None:
    """The turn's BedrockModelSettings by the shim's own ``settings``; None where it skips (cache marks pydantic-ai
    cannot place)."""
    from harness.adapters.shims import pydantic_ai as shim  # its pure helpers: pydantic-ai is imported lazily
    from harness.judge.protocol import AdapterSkip

    try:
        return shim.settings(turn)
    except AdapterSkip:
        return None


def _pydantic_ai(scenario: Scenario) -> str | None:
    """The template on turn 0's text (None when it holds other blocks, a system prompt of several blocks, native
    structured output, or cache marks pydantic-ai cannot place: those are the shim's)."""
    turn = first_turn(scenario)
    options = turn.get("options") or {}
    plain = text_turn(turn)
    if plain is None:
        return None
    texts, system = plain
    if options.get("output_format"):
        return None
    settings = _pydantic_ai_settings(turn)
    if settings is None:
        return None
    tools = [{"name": t["name"], "description": t.get("description"), "parameters_json_schema": t["input_schema"],
              **({"strict": True} if t.get("strict") else {})} for t in turn.get("tools") or ()]
    return _PYDANTIC_AI.format(scenario=scenario.id, history_of=_PYDANTIC_AI_HISTORY, run=py_run(scenario),
                               model_id=turn["model_id"], settings=py_literal(settings), tools=py_literal(tools),
                               system=system, messages=py_literal(texts))


_LLAMA_INDEX = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with LlamaIndex as an application calls it: BedrockConverse.stream_chat_with_tools (each
ChatResponse it yields, the last one's message and the tool calls get_tool_calls_from_response gives an agent),
then chat_with_tools, on the same messages (stream_chat and chat without tools). Serve the recorded stream first:

{run}
"""

import json
import sys

from llama_index.core.llms import ChatMessage
from llama_index.core.tools import FunctionTool, ToolMetadata
from llama_index.llms.bedrock_converse import BedrockConverse
from pydantic import BaseModel

URL = sys.argv[1]
FIELDS = {fields}
TOOLS = {tools}
CHOICE = {choice}
MESSAGES = {messages}


def schema_model(name, schema):
    """A pydantic model whose JSON schema is the tool's own (ToolMetadata takes a model, not a schema)."""
    class Schema(BaseModel):
        @classmethod
        def model_json_schema(cls, *args, **kwargs):
            return schema

    Schema.__name__ = f"{{name}}_schema"
    return Schema


def never_called(**kwargs):
    raise RuntimeError("this reproduction runs no tools")


def shown(message):
    return json.dumps(message.model_dump(), indent=2, default=str, ensure_ascii=False)


llm = BedrockConverse(**FIELDS, region_name="us-east-1", endpoint_url=URL, aws_access_key_id="testing",
                      aws_secret_access_key="testing")
tools = [FunctionTool(fn=never_called, metadata=ToolMetadata(name=t["name"], description=t["description"],
                                                             fn_schema=schema_model(t["name"], t["schema"])))
         for t in TOOLS]
history = [ChatMessage(role=role, content=text) for role, text in MESSAGES]
if tools:
    streamed = llm.stream_chat_with_tools(tools, chat_history=history, allow_parallel_tool_calls=True, **CHOICE)
else:
    streamed = llm.stream_chat(history)
last = None
for response in streamed:
    print("delta:", json.dumps(response.delta, ensure_ascii=False))
    last = response
print("streamed message:", shown(last.message))
if tools:
    for call in llm.get_tool_calls_from_response(last, error_on_no_tool_call=False):
        print("streamed tool call:", json.dumps({{"tool_id": call.tool_id, "tool_name": call.tool_name,
                                                "tool_kwargs": call.tool_kwargs}}, default=str))
try:
    whole = (llm.chat_with_tools(tools, chat_history=history, allow_parallel_tool_calls=True, **CHOICE) if tools
             else llm.chat(history))
    print("non-streamed message:", shown(whole.message))
except Exception as error:  # what the library raises on the non-streamed call is part of what it does
    print("non-streamed call raised:", repr(error))
'''


def _llama_index(scenario: Scenario) -> str | None:
    """The template on turn 0's text (None when it holds other blocks, or a system prompt of several blocks)."""
    from harness.adapters.shims.llama_index_stream import llm_fields, tool_choice  # pure: no LlamaIndex import

    turn = first_turn(scenario)
    plain = text_turn(turn)
    if plain is None:
        return None
    texts, system = plain
    messages = [*([("system", system)] if system is not None else []), *texts]
    tools = [{"name": t["name"], "description": t.get("description", ""), "schema": t["input_schema"]}
             for t in turn.get("tools") or ()]
    return _LLAMA_INDEX.format(scenario=scenario.id, run=py_run(scenario), fields=py_literal(llm_fields(turn)),
                               tools=py_literal(tools), choice=py_literal(tool_choice((turn.get("options") or {}).get(
                                   "tool_choice"))), messages=py_literal(messages))


_HAYSTACK = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with Haystack as a pipeline calls it: AmazonBedrockChatGenerator.run with a streaming
callback (each StreamingChunk, then the reply it assembles), then run without one, on the same messages. The
generator has no endpoint option: boto3 reads AWS_ENDPOINT_URL_BEDROCK_RUNTIME. Serve the recorded stream first:

{run}
"""

import json
import os
import sys

from haystack.dataclasses import ChatMessage
from haystack.tools import Tool
from haystack.utils.auth import Secret
from haystack_integrations.components.generators.amazon_bedrock import AmazonBedrockChatGenerator

os.environ["AWS_ENDPOINT_URL_BEDROCK_RUNTIME"] = sys.argv[1]
MODEL = {model!r}
GENERATION_KWARGS = {generation_kwargs}
TOOLS = {tools}
SYSTEM_PROMPT = {system!r}
MESSAGES = {messages}


def never_called(**kwargs):
    raise RuntimeError("this reproduction runs no tools")


def shown(reply):
    return json.dumps(reply.to_dict(), indent=2, default=str, ensure_ascii=False)


def chunk_shown(chunk):
    calls = [{{"index": c.index, "id": c.id, "tool_name": c.tool_name, "arguments": c.arguments}}
             for c in chunk.tool_calls or ()]
    print("chunk:", json.dumps({{"content": chunk.content, "index": chunk.index, "tool_calls": calls,
                                "finish_reason": chunk.finish_reason, "meta": chunk.meta}}, default=str,
                               ensure_ascii=False))


generator = AmazonBedrockChatGenerator(model=MODEL, aws_access_key_id=Secret.from_token("testing"),
                                       aws_secret_access_key=Secret.from_token("testing"), aws_session_token=None,
                                       aws_region_name=Secret.from_token("us-east-1"), aws_profile_name=None,
                                       generation_kwargs=GENERATION_KWARGS)
if hasattr(generator, "warm_up"):
    generator.warm_up()
tools = [Tool(name=t["name"], description=t["description"], parameters=t["parameters"], function=never_called)
         for t in TOOLS] or None
messages = [*([ChatMessage.from_system(SYSTEM_PROMPT)] if SYSTEM_PROMPT is not None else []),
            *(ChatMessage.from_assistant(text) if role == "assistant" else ChatMessage.from_user(text)
              for role, text in MESSAGES)]
streamed = generator.run(messages, tools=tools, streaming_callback=chunk_shown)["replies"][0]
print("streamed reply:", shown(streamed))
try:
    print("non-streamed reply:", shown(generator.run(messages, tools=tools)["replies"][0]))
except Exception as error:  # what the library raises on the non-streamed call is part of what it does
    print("non-streamed call raised:", repr(error))
'''


def _haystack(scenario: Scenario) -> str | None:
    """The template on turn 0's text (None when it holds other blocks, a system prompt of several blocks, a tool
    cache point, structured output or a guardrail: Haystack's cache settings, response_format and guardrail_config
    are the shim's)."""
    from harness.adapters.shims.haystack_releases import generation_kwargs  # pure: no Haystack import

    turn = first_turn(scenario)
    plain, options = text_turn(turn), turn.get("options") or {}
    if plain is None or any(t.get("cache_control") for t in turn.get("tools") or ()) or any(
            options.get(k) for k in ("output_format", "guardrail")):
        return None
    texts, system = plain
    tools = [{"name": t["name"], "description": t.get("description", ""), "parameters": t["input_schema"]}
             for t in turn.get("tools") or ()]
    return _HAYSTACK.format(scenario=scenario.id, run=py_run(scenario), model=turn["model_id"],
                            generation_kwargs=py_literal(generation_kwargs(turn)), tools=py_literal(tools), system=system,
                            messages=py_literal(texts))


_LANGCHAIN_AWS_AGENT = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with a LangChain agent as an application runs it: create_agent over ChatBedrockConverse with
the scenario's tools, streamed (stream_mode messages and updates: each chunk, then the message the model node adds)
up to where the agent would run its tools, or to its end. Serve the recorded stream first:

{run}
"""

import json
import sys

from langchain.agents import create_agent
from langchain_aws import ChatBedrockConverse
from langchain_core.tools import StructuredTool

URL = sys.argv[1]
MODEL = {model}
TOOLS = {tools}
MESSAGES = {messages}


def never_called(**kwargs):
    raise RuntimeError("this reproduction runs no tools")


def shown(message):
    return json.dumps(message.model_dump(), indent=2, default=str, ensure_ascii=False)


model = ChatBedrockConverse(**MODEL, region_name="us-east-1", endpoint_url=URL, aws_access_key_id="testing",
                            aws_secret_access_key="testing")
tools = [StructuredTool.from_function(func=never_called, name=t["name"], description=t["description"],
                                      args_schema=t["input_schema"]) for t in TOOLS]
agent = create_agent(model, tools=tools)
try:
    for mode, data in agent.stream({{"messages": MESSAGES}}, stream_mode=["messages", "updates"]):
        if mode == "messages":
            chunk, _metadata = data
            print("chunk:", json.dumps({{"content": chunk.content,
                                        "tool_call_chunks": getattr(chunk, "tool_call_chunks", None)}},
                                       default=str, ensure_ascii=False))
        elif "model" in data:
            added = data["model"]["messages"]
            for message in added:
                print("message the agent adds:", shown(message))
            if any(getattr(message, "tool_calls", None) for message in added):
                print("the agent runs its tools now: the first model call is over")
                break
except Exception as error:  # what the agent raises is part of what it does
    print("agent.stream raised:", repr(error))
'''


def _langchain_aws_agent(scenario: Scenario) -> str | None:
    """The template on turn 0's text (None when it holds other blocks, forces a tool, or marks a tool cache point:
    create_agent takes neither)."""
    turn = first_turn(scenario)
    options = turn.get("options") or {}
    plain = text_turn(turn)
    if plain is None:
        return None
    texts, system = plain
    if (options.get("tool_choice") not in (None, "auto")
            or any(t.get("cache_control") for t in turn.get("tools") or ())):
        return None
    return _LANGCHAIN_AWS_AGENT.format(**_langchain_aws_fields(scenario, turn, texts, system))


_STRANDS_AGENT = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with a strands Agent as an application runs it: Agent(model=BedrockModel(...), tools=[...])
.stream_async(prompt), its model events and the messages it appends, up to its tools' results (its tools run
nothing), or to its result, or what it raises. Serve the recorded stream first:

{run}
"""

import asyncio
import json
import sys

import boto3
from strands import Agent
from strands.models.bedrock import BedrockModel
from strands.tools.tools import PythonAgentTool

''' + _STRANDS_CONSTANTS + '''

def never_called(tool_use, **state):
    raise RuntimeError("this reproduction runs no tools")


async def main():
    session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1")
    agent = Agent(model=BedrockModel(boto_session=session, endpoint_url=URL, **MODEL), messages=MESSAGES[:-1],
                  system_prompt=SYSTEM_PROMPT, callback_handler=None,
                  tools=[PythonAgentTool(spec["name"], spec, never_called) for spec in TOOL_SPECS])
    events = agent.stream_async(MESSAGES[-1]["content"])
    try:
        async for event in events:
            if "event" in event:
                print("event:", json.dumps(event["event"], default=str, ensure_ascii=False))
            elif "message" in event and event["message"]["role"] == "assistant":
                print("message the agent appends:", json.dumps(event["message"], indent=2, default=str))
            elif "message" in event:  # its tools' results (these tools run nothing): the first model call is over
                print("the agent ran its tools: the first model call is over")
                break
            elif "result" in event:
                print("agent result: stop reason", event["result"].stop_reason)
    except Exception as error:  # what the agent raises is part of what it does
        print("agent.stream_async raised:", repr(error))
        print("the agent's messages:", json.dumps(agent.messages, indent=2, default=str, ensure_ascii=False))
    finally:
        await events.aclose()  # here, in the task that iterated it


asyncio.run(main())
'''


def _strands_agent(scenario: Scenario) -> str | None:
    """The template on turn 0's text (None when it holds other blocks, a system prompt of several blocks, or an
    opening that does not end with the user's prompt)."""
    turn = first_turn(scenario)
    plain = text_turn(turn)
    if plain is None:
        return None
    texts, system = plain
    if not ends_with_prompt(texts):
        return None
    return _STRANDS_AGENT.format(**_strands_fields(scenario, turn, texts, system))


_PYDANTIC_AI_AGENT = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with a pydantic-ai Agent as an application runs it: Agent(BedrockConverseModel(...),
tools=[...]).iter(prompt), its model request streamed (each event) and the response the agent hands its tools, or
its result when the run ends. Serve the recorded stream first:

{run}
"""

import asyncio
import sys

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, ModelResponse, SystemPromptPart, TextPart
from pydantic_ai.messages import UserPromptPart
from pydantic_ai.models.bedrock import BedrockConverseModel
from pydantic_ai.providers.bedrock import BedrockProvider
from pydantic_ai.tools import Tool

''' + _PYDANTIC_AI_CONSTANTS + '''

def never_called(**kwargs):
    raise RuntimeError("this reproduction runs no tools")


{history_of}

async def main():
    history = history_of(MESSAGES[:-1])
    provider = BedrockProvider(base_url=URL, region_name="us-east-1", aws_access_key_id="testing",
                               aws_secret_access_key="testing")
    agent = Agent(BedrockConverseModel(MODEL_ID, provider=provider), model_settings=SETTINGS,
                  system_prompt=() if history or SYSTEM_PROMPT is None else SYSTEM_PROMPT,
                  tools=[Tool.from_schema(never_called, name=t["name"], description=t["description"],
                                          json_schema=t["schema"]) for t in TOOLS])
    try:
        async with agent.iter(MESSAGES[-1][1], message_history=history or None) as run:
            async for node in run:
                if Agent.is_model_request_node(node):
                    async with node.stream(run.ctx) as stream:
                        async for event in stream:
                            print("event:", event)
                elif Agent.is_call_tools_node(node):
                    print("response the agent hands its tools:", shown(node.model_response))
                    print("finish reason:", node.model_response.finish_reason)
                    break
            else:
                print("agent result:", run.result)
    except Exception as error:  # what the agent raises is part of what it does
        print("agent.iter raised:", repr(error))


asyncio.run(main())
'''


def _pydantic_ai_agent(scenario: Scenario) -> str | None:
    """The template on turn 0's text (None when it holds other blocks, a system prompt of several blocks, an opening
    that does not end with the user's prompt, native structured output, strict tools, or cache marks pydantic-ai
    cannot place)."""
    turn = first_turn(scenario)
    options = turn.get("options") or {}
    plain = text_turn(turn)
    if plain is None:
        return None
    texts, system = plain
    if (options.get("output_format") or not ends_with_prompt(texts)
            or any(t.get("strict") for t in turn.get("tools") or ())):
        return None
    settings = _pydantic_ai_settings(turn)
    if settings is None:
        return None
    tools = [{"name": t["name"], "description": t.get("description"), "schema": t["input_schema"]}
             for t in turn.get("tools") or ()]
    return _PYDANTIC_AI_AGENT.format(scenario=scenario.id, history_of=_PYDANTIC_AI_HISTORY, run=py_run(scenario),
                                     model_id=turn["model_id"], settings=py_literal(settings), tools=py_literal(tools),
                                     system=system, messages=py_literal(texts))


def _app(template: Callable[[Scenario], str | None]) -> Callable[[Scenario, dict | None], App | None]:
    """A template as an ``app.py`` run with ``python app.py URL`` (the library's release is the installed one)."""
    def app(scenario: Scenario, packages: dict | None) -> App | None:
        text = template(scenario)
        return App("app.py", text, "python app.py URL") if text is not None else None
    return app


TEMPLATES = {spec: _app(template) for spec, template in {
    "litellm": _litellm, "litellm-persisted": _litellm,
    "langchain-aws": _langchain_aws, "langchain-aws-persisted": _langchain_aws, "langchain-aws-events": _langchain_aws,
    "langchain-aws-agent": _langchain_aws_agent, "langchain-aws-agent-events": _langchain_aws_agent,
    "strands": _strands, "strands-persisted": _strands, "strands-agent": _strands_agent,
    "pydantic-ai": _pydantic_ai, "pydantic-ai-persisted": _pydantic_ai, "pydantic-ai-agent": _pydantic_ai_agent,
    "llama-index": _llama_index, "llama-index-persisted": _llama_index,
    "haystack": _haystack, "haystack-persisted": _haystack}.items()}
