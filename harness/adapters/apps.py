"""The app script of a reproduction (``app.py``; ``app.mjs`` for a JavaScript library): a library's own public calls
on a scenario's first turn, as an application writes them, against ``bedrock-harness serve --paired --cassette ...``
(its URL the script's one argument).

One template per library, written without importing the library (the messages are built here, at generation
time, by the shim's own pure mapping: ``harness.adapters.shims.litellm_format.to_openai`` for LiteLLM; the model's
fields by ``harness.adapters.shims.langchain_aws``'s for langchain-aws, whose messages are LangChain's own
role/content dicts; strands' messages are Converse's own; pydantic-ai's settings by its shim's ``settings``,
LlamaIndex's fields by ``llama_index_stream.llm_fields``, Haystack's generation_kwargs by ``haystack_releases``; the
script builds those libraries' message objects from the turn's texts; the AI SDK's call options are written here,
for the npm releases the report ran, which the README installs).
The script prints what the library holds after the streamed call and after the non-streamed one, so a maintainer
sees the finding in the library's own objects. A library without a template gets none: ``repro.py`` still
reproduces through the shim. (Here, beside the shims, because it uses their mappings; ``bedrock-harness repro`` and
``site`` hand it to harness.studies.repro.)
"""

from __future__ import annotations

import json
import pprint
from dataclasses import dataclass
from typing import Callable

from harness.converse.request import system_blocks
from harness.suite.scenario import Scenario, first_turn

__all__ = ["App", "TEMPLATES", "app_for"]


@dataclass(frozen=True)
class App:
    """A reproduction's app script: its file name, its text, the line that runs it against the served URL and, for
    a library the harness's pip extras do not install (npm packages), the line that installs its release."""

    file: str
    text: str
    run: str
    install: str | None = None

_LITELLM = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with LiteLLM as an application calls it: streamed (assembled by stream_chunk_builder), then
not streamed, on the same messages. Serve the recorded stream first:

    {serve}    # prints URL
    python app.py URL
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
    return _LITELLM.format(scenario=scenario.id, serve=_serve(scenario), request=_shown(request))


_LANGCHAIN_AWS = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with langchain-aws as an application calls it: ChatBedrockConverse streamed (its chunks
added up, as LangChain's own aggregation does), then invoked, on the same messages. Serve the recorded stream first:

    {serve}    # prints URL
    python app.py URL
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


def _serve(scenario: Scenario) -> str:
    """The ``serve`` command the script's docstring gives: the cassette, each turn paired, the scenario's faults."""
    from harness.studies.repro import serve_command

    return serve_command(scenario, paired=True)


def _shown(value) -> str:
    """A value as the script's Python literal."""
    return pprint.pformat(value, width=110, sort_dicts=False)


def _texts(turn: dict) -> list[tuple[str, str]] | None:
    """(role, text) of each of the turn's messages; None when one holds a block other than text (the shims map those
    into the library's own types, which a template does not write)."""
    texts = []
    for message in turn["messages"]:
        content = message["content"]
        if not isinstance(content, str):
            if any(block.get("type") != "text" for block in content):
                return None
            content = "".join(block["text"] for block in content)
        texts.append((message["role"], content))
    return texts


def _sampling(options: dict, thinking_field: str) -> dict:
    """The thinking budget as ``thinking_field`` (the library's name for Bedrock's additional request fields), else
    the temperature, else nothing."""
    if options.get("thinking_budget"):
        return {thinking_field: {"thinking": {"type": "enabled", "budget_tokens": options["thinking_budget"]}}}
    return {"temperature": options["temperature"]} if options.get("temperature") is not None else {}


def _langchain_aws(scenario: Scenario) -> str | None:
    """The template on turn 0's text (None when it holds other blocks: LangChain's data blocks are the shim's)."""
    from harness.adapters.shims import langchain_aws as shim  # its pure helpers: no langchain import

    turn = first_turn(scenario)
    options = turn.get("options") or {}
    texts, system = _texts(turn), turn.get("system")
    if texts is None or (system is not None and not isinstance(system, str)):
        return None
    messages = [*([{"role": "system", "content": system}] if system is not None else []),
                *({"role": role, "content": text} for role, text in texts)]
    model = {"model": turn["model_id"], "max_tokens": options.get("max_tokens"),
             **_sampling(options, "additional_model_request_fields"), **shim._provider(turn["model_id"]),
             **shim.served(options)}
    tools = [{"name": t["name"], "description": t.get("description", ""), "input_schema": t["input_schema"]}
             for t in turn.get("tools") or ()]
    return _LANGCHAIN_AWS.format(scenario=scenario.id, serve=_serve(scenario), model=_shown(model), tools=_shown(tools),
                                 tool_choice=shim._tool_choice(options.get("tool_choice")), messages=_shown(messages))


_STRANDS = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with strands as its agent loop calls the model: BedrockModel.stream's events, then the
message strands' process_stream assembles from them (what the agent appends to its messages), on the same messages.
Serve the recorded stream first:

    {serve}    # prints URL
    python app.py URL
"""

import asyncio
import json
import sys

import boto3
from strands.event_loop.streaming import process_stream
from strands.models.bedrock import BedrockModel

URL = sys.argv[1]
MODEL = {model}
TOOL_SPECS = {tools}
SYSTEM_PROMPT = {system!r}
MESSAGES = {messages}


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


def _strands(scenario: Scenario) -> str | None:
    """The template on turn 0's text (None when it holds other blocks, or a system prompt of several blocks)."""
    turn = first_turn(scenario)
    options = turn.get("options") or {}
    texts, system = _texts(turn), turn.get("system")
    if texts is None or (system is not None and not isinstance(system, str)):
        return None
    messages = [{"role": role, "content": [{"text": text}]} for role, text in texts]
    model = {"model_id": turn["model_id"], "max_tokens": options.get("max_tokens"),
             **_sampling(options, "additional_request_fields")}
    tools = [{"name": t["name"], "description": t.get("description") or "", "inputSchema": {"json": t["input_schema"]}}
             for t in turn.get("tools") or ()]
    return _STRANDS.format(scenario=scenario.id, serve=_serve(scenario), model=_shown(model), tools=_shown(tools), system=system,
                           messages=_shown(messages))


_PYDANTIC_AI = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with pydantic-ai as an application calls it: BedrockConverseModel through the direct API,
streamed (model_request_stream_sync: its part events and the ModelResponse it assembles), then not streamed
(model_request_sync), on the same messages. Serve the recorded stream first:

    {serve}    # prints URL
    python app.py URL
"""

import sys

from pydantic_ai.direct import model_request_stream_sync, model_request_sync
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, ModelResponse, SystemPromptPart, TextPart
from pydantic_ai.messages import UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.bedrock import BedrockConverseModel
from pydantic_ai.providers.bedrock import BedrockProvider
from pydantic_ai.tools import ToolDefinition

URL = sys.argv[1]
MODEL_ID = {model_id!r}
SETTINGS = {settings}
TOOLS = {tools}
SYSTEM_PROMPT = {system!r}
MESSAGES = {messages}


def shown(response):
    return ModelMessagesTypeAdapter.dump_json([response], indent=2).decode()


history = []
for role, text in MESSAGES:
    if role == "assistant":
        history.append(ModelResponse(parts=[TextPart(content=text)]))
    else:
        system = [SystemPromptPart(content=SYSTEM_PROMPT)] if SYSTEM_PROMPT is not None and not history else []
        history.append(ModelRequest(parts=[*system, UserPromptPart(content=text)]))
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


def _pydantic_ai(scenario: Scenario) -> str | None:
    """The template on turn 0's text (None when it holds other blocks, a system prompt of several blocks, native
    structured output, or cache marks pydantic-ai cannot place: those are the shim's)."""
    from harness.adapters.shims import pydantic_ai as shim  # its pure helpers: pydantic-ai is imported lazily
    from harness.judge.protocol import AdapterSkip

    turn = first_turn(scenario)
    options = turn.get("options") or {}
    texts, system = _texts(turn), turn.get("system")
    if texts is None or (system is not None and not isinstance(system, str)) or options.get("output_format"):
        return None
    try:
        settings = shim.settings(turn)
    except AdapterSkip:
        return None
    tools = [{"name": t["name"], "description": t.get("description"), "parameters_json_schema": t["input_schema"],
              **({"strict": True} if t.get("strict") else {})} for t in turn.get("tools") or ()]
    return _PYDANTIC_AI.format(scenario=scenario.id, serve=_serve(scenario), model_id=turn["model_id"],
                               settings=_shown(settings), tools=_shown(tools), system=system, messages=_shown(texts))


_LLAMA_INDEX = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with LlamaIndex as an application calls it: BedrockConverse.stream_chat_with_tools (each
ChatResponse it yields, the last one's message and the tool calls get_tool_calls_from_response gives an agent),
then chat_with_tools, on the same messages (stream_chat and chat without tools). Serve the recorded stream first:

    {serve}    # prints URL
    python app.py URL
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
    texts, system = _texts(turn), turn.get("system")
    if texts is None or (system is not None and not isinstance(system, str)):
        return None
    messages = [*([("system", system)] if system is not None else []), *texts]
    tools = [{"name": t["name"], "description": t.get("description", ""), "schema": t["input_schema"]}
             for t in turn.get("tools") or ()]
    return _LLAMA_INDEX.format(scenario=scenario.id, serve=_serve(scenario), fields=_shown(llm_fields(turn)),
                               tools=_shown(tools), choice=_shown(tool_choice((turn.get("options") or {}).get(
                                   "tool_choice"))), messages=_shown(messages))


_HAYSTACK = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with Haystack as a pipeline calls it: AmazonBedrockChatGenerator.run with a streaming
callback (each StreamingChunk, then the reply it assembles), then run without one, on the same messages. The
generator has no endpoint option: boto3 reads AWS_ENDPOINT_URL_BEDROCK_RUNTIME. Serve the recorded stream first:

    {serve}    # prints URL
    python app.py URL
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
    """The template on turn 0's text (None when it holds other blocks, a system prompt of several blocks, or a tool
    cache point: Haystack's cache settings are the shim's)."""
    from harness.adapters.shims.haystack_releases import generation_kwargs  # pure: no Haystack import

    turn = first_turn(scenario)
    texts, system = _texts(turn), turn.get("system")
    if texts is None or (system is not None and not isinstance(system, str)) or any(
            t.get("cache_control") for t in turn.get("tools") or ()):
        return None
    tools = [{"name": t["name"], "description": t.get("description", ""), "parameters": t["input_schema"]}
             for t in turn.get("tools") or ()]
    return _HAYSTACK.format(scenario=scenario.id, serve=_serve(scenario), model=turn["model_id"],
                            generation_kwargs=_shown(generation_kwargs(turn)), tools=_shown(tools), system=system,
                            messages=_shown(texts))


_LANGCHAIN_AWS_AGENT = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with a LangChain agent as an application runs it: create_agent over ChatBedrockConverse with
the scenario's tools, streamed (stream_mode messages and updates: each chunk, then the message the model node adds)
up to where the agent would run its tools, or to its end. Serve the recorded stream first:

    {serve}    # prints URL
    python app.py URL
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
    from harness.adapters.shims import langchain_aws as shim  # its pure helpers: no langchain import

    turn = first_turn(scenario)
    options = turn.get("options") or {}
    texts, system = _texts(turn), turn.get("system")
    if (texts is None or (system is not None and not isinstance(system, str))
            or options.get("tool_choice") not in (None, "auto")
            or any(t.get("cache_control") for t in turn.get("tools") or ())):
        return None
    messages = [*([{"role": "system", "content": system}] if system is not None else []),
                *({"role": role, "content": text} for role, text in texts)]
    model = {"model": turn["model_id"], "max_tokens": options.get("max_tokens"),
             **_sampling(options, "additional_model_request_fields"), **shim._provider(turn["model_id"]),
             **shim.served(options)}
    tools = [{"name": t["name"], "description": t.get("description", ""), "input_schema": t["input_schema"]}
             for t in turn.get("tools") or ()]
    return _LANGCHAIN_AWS_AGENT.format(scenario=scenario.id, serve=_serve(scenario), model=_shown(model),
                                       tools=_shown(tools), messages=_shown(messages))


_STRANDS_AGENT = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with a strands Agent as an application runs it: Agent(model=BedrockModel(...), tools=[...])
.stream_async(prompt), its model events and the messages it appends, up to its tools' results (its tools run
nothing), or to its result, or what it raises. Serve the recorded stream first:

    {serve}    # prints URL
    python app.py URL
"""

import asyncio
import json
import sys

import boto3
from strands import Agent
from strands.models.bedrock import BedrockModel
from strands.tools.tools import PythonAgentTool

URL = sys.argv[1]
MODEL = {model}
TOOL_SPECS = {tools}
SYSTEM_PROMPT = {system!r}
MESSAGES = {messages}


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
    options = turn.get("options") or {}
    texts, system = _texts(turn), turn.get("system")
    if texts is None or (system is not None and not isinstance(system, str)) or not texts or texts[-1][0] != "user":
        return None
    model = {"model_id": turn["model_id"], "max_tokens": options.get("max_tokens"),
             **_sampling(options, "additional_request_fields")}
    tools = [{"name": t["name"], "description": t.get("description") or "", "inputSchema": {"json": t["input_schema"]}}
             for t in turn.get("tools") or ()]
    messages = [{"role": role, "content": [{"text": text}]} for role, text in texts]
    return _STRANDS_AGENT.format(scenario=scenario.id, serve=_serve(scenario), model=_shown(model),
                                 tools=_shown(tools), system=system, messages=_shown(messages))


_PYDANTIC_AI_AGENT = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with a pydantic-ai Agent as an application runs it: Agent(BedrockConverseModel(...),
tools=[...]).iter(prompt), its model request streamed (each event) and the response the agent hands its tools, or
its result when the run ends. Serve the recorded stream first:

    {serve}    # prints URL
    python app.py URL
"""

import asyncio
import sys

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, ModelResponse, SystemPromptPart, TextPart
from pydantic_ai.messages import UserPromptPart
from pydantic_ai.models.bedrock import BedrockConverseModel
from pydantic_ai.providers.bedrock import BedrockProvider
from pydantic_ai.tools import Tool

URL = sys.argv[1]
MODEL_ID = {model_id!r}
SETTINGS = {settings}
TOOLS = {tools}
SYSTEM_PROMPT = {system!r}
MESSAGES = {messages}


def never_called(**kwargs):
    raise RuntimeError("this reproduction runs no tools")


def shown(response):
    return ModelMessagesTypeAdapter.dump_json([response], indent=2).decode()


async def main():
    history = []
    for role, text in MESSAGES[:-1]:
        if role == "assistant":
            history.append(ModelResponse(parts=[TextPart(content=text)]))
        else:
            system = [SystemPromptPart(content=SYSTEM_PROMPT)] if SYSTEM_PROMPT is not None and not history else []
            history.append(ModelRequest(parts=[*system, UserPromptPart(content=text)]))
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
    from harness.adapters.shims import pydantic_ai as shim  # its pure helpers: pydantic-ai is imported lazily
    from harness.judge.protocol import AdapterSkip

    turn = first_turn(scenario)
    options = turn.get("options") or {}
    texts, system = _texts(turn), turn.get("system")
    if (texts is None or (system is not None and not isinstance(system, str)) or options.get("output_format")
            or not texts or texts[-1][0] != "user" or any(t.get("strict") for t in turn.get("tools") or ())):
        return None
    try:
        settings = shim.settings(turn)
    except AdapterSkip:
        return None
    tools = [{"name": t["name"], "description": t.get("description"), "schema": t["input_schema"]}
             for t in turn.get("tools") or ()]
    return _PYDANTIC_AI_AGENT.format(scenario=scenario.id, serve=_serve(scenario), model_id=turn["model_id"],
                                     settings=_shown(settings), tools=_shown(tools), system=system,
                                     messages=_shown(texts))


_AI_SDK = """#!/usr/bin/env node
// {scenario}, turn 0, with the AI SDK as an application calls it: streamText (each fullStream part, then
// response.messages, what an application appends to its history), then generateText, on the same messages.
// Install the release and serve the recorded stream first (Node {node}):
//
//   {install}
//   {serve}    # prints URL
//   node app.mjs URL

import {{ createAmazonBedrock }} from "@ai-sdk/amazon-bedrock";
import {{ generateText, jsonSchema, streamText }} from "ai";

const URL = process.argv[2];
const MODEL_ID = {model_id};
const SYSTEM = {system};
const MESSAGES = {messages};
const TOOLS = {tools};
const SETTINGS = {settings};

const bedrock = createAmazonBedrock({{ baseURL: URL, region: "us-east-1", accessKeyId: "testing",
  secretAccessKey: "testing" }});
const tools = Object.fromEntries(TOOLS.map((t) => [t.name,
  {{ description: t.description, inputSchema: jsonSchema(t.input_schema) }}]));
const call = {{ model: bedrock(MODEL_ID), messages: MESSAGES, ...(SYSTEM !== null ? {{ system: SYSTEM }} : {{}}),
  ...(TOOLS.length ? {{ tools }} : {{}}), ...SETTINGS }};
const shown = (value) => JSON.stringify(value, null, 2);

const result = streamText({{ ...call, onError: () => {{}} }});
for await (const part of result.fullStream) console.log("part:", JSON.stringify(part));
console.log("streamed response.messages:", shown((await result.response).messages));
try {{
  const whole = await generateText(call);
  console.log("non-streamed response.messages:", shown(whole.response.messages));
}} catch (error) {{ // what the library throws on the non-streamed call is part of what it does
  console.log("non-streamed call raised:", String(error));
}}
"""


def _ai_sdk_parts(turn: dict, packages: dict | None) -> dict | None:
    """What an AI SDK script on turn 0's text is written from, for ``ai`` 5 on (tools' ``inputSchema``,
    ``maxOutputTokens``); None for an older ``ai`` (its release unknown, or 4: ``parameters``/``maxTokens``), other
    blocks, a system prompt of several blocks, structured output, a guardrail or a cache mark (the shim's own)."""
    options = turn.get("options") or {}
    texts, system = _texts(turn), turn.get("system")
    ai = str((packages or {}).get("ai") or "")
    if (texts is None or (system is not None and not isinstance(system, str)) or not ai[:1].isdigit()
            or int(ai.split(".")[0]) < 5 or any(options.get(k) for k in ("output_format", "guardrail"))
            or any(t.get("cache_control") for t in turn.get("tools") or ())):
        return None
    choice = options.get("tool_choice")
    bedrock = {**({"reasoningConfig": {"type": "enabled", "budgetTokens": options["thinking_budget"]}}
                  if options.get("thinking_budget") else {}),
               **({"serviceTier": options["service_tier"]} if options.get("service_tier") else {}),
               **({"performanceConfig": {"latency": options["latency"]}} if options.get("latency") else {})}
    settings = {**({"maxOutputTokens": options["max_tokens"]} if options.get("max_tokens") else {}),
                **({"temperature": options["temperature"]} if options.get("temperature") is not None else {}),
                **({"toolChoice": {"auto": "auto", "any": "required"}.get(choice) if isinstance(choice, str) else
                    {"type": "tool", "toolName": choice["name"]}} if choice and turn.get("tools") else {}),
                **({"providerOptions": {"bedrock": bedrock}} if bedrock else {})}
    tools = [{"name": t["name"], "description": t.get("description", ""), "input_schema": t["input_schema"]}
             for t in turn.get("tools") or ()]
    return {"node": ">= 22" if int(ai.split(".")[0]) >= 7 else ">= 20", "install": _npm_install(packages),
            "model_id": _js(turn["model_id"]), "system": _js(system), "tools": _js(tools), "settings": _js(settings),
            "messages": _js([{"role": role, "content": text} for role, text in texts])}


def _ai_sdk(scenario: Scenario, packages: dict | None, agent: bool = False) -> App | None:
    """streamText then generateText on turn 0 (``_ai_sdk_parts``); with ``agent``, the SDK's own tool loop."""
    parts = _ai_sdk_parts(first_turn(scenario), packages)
    if parts is None:
        return None
    text = (_AI_SDK_AGENT if agent else _AI_SDK).format(scenario=scenario.id, serve=_serve(scenario), **parts)
    return App("app.mjs", text, "node app.mjs URL", parts["install"])


_LANGCHAIN_JS = """#!/usr/bin/env node
// {scenario}, turn 0, with LangChain.js as an application calls it: ChatBedrockConverse from @langchain/aws,
// {how}. Install the release and serve the recorded stream first (Node >= 20):
//
//   {install}
//   {serve}    # prints URL
//   node app.mjs URL

import {{ BedrockRuntimeClient }} from "@aws-sdk/client-bedrock-runtime";
import {{ ChatBedrockConverse }} from "@langchain/aws";
import {{ AIMessage, HumanMessage, SystemMessage }} from "@langchain/core/messages";
import {{ NodeHttpHandler }} from "@smithy/node-http-handler";

const URL = process.argv[2];
const FIELDS = {fields};
const SYSTEM = {system};
const MESSAGES = {messages};
const TOOLS = {tools};
const TOOL_CHOICE = {tool_choice};

const credentials = {{ accessKeyId: "testing", secretAccessKey: "testing" }};
// HTTP/1.1: the client streams over HTTP/2 by default, which the harness's loopback endpoint does not speak
const client = new BedrockRuntimeClient({{ region: "us-east-1", endpoint: URL, credentials,
  requestHandler: new NodeHttpHandler() }});
const chat = new ChatBedrockConverse({{ ...FIELDS, region: "us-east-1", credentials, client }});
const model = TOOLS.length ? chat.bindTools(TOOLS, TOOL_CHOICE ? {{ tool_choice: TOOL_CHOICE }} : undefined) : chat;
const messages = [...(SYSTEM !== null ? [new SystemMessage(SYSTEM)] : []),
  ...MESSAGES.map(([role, text]) => role === "assistant" ? new AIMessage(text) : new HumanMessage(text))];
const shown = (message) => JSON.stringify({{ content: message.content, tool_calls: message.tool_calls,
  response_metadata: message.response_metadata, usage_metadata: message.usage_metadata }}, null, 2);

{calls}"""
_LANGCHAIN_JS_STREAM = """let summed;
for await (const chunk of await model.stream(messages)) {{
  console.log("chunk:", JSON.stringify({{ content: chunk.content, tool_call_chunks: chunk.tool_call_chunks }}));
  summed = summed === undefined ? chunk : summed.concat(chunk);
}}
console.log("streamed message:", shown(summed));
try {{
  console.log("invoked message:", shown(await model.invoke(messages)));
}} catch (error) {{ // what the library throws on the non-streamed call is part of what it does
  console.log("invoke raised:", String(error));
}}
"""
# content-block streaming (@langchain/core 1.4 on): streamEvents without a version is a ChatModelStream of the
# model's own events, awaited for the AIMessage; the tools go as call options (a bound model's stream has no message)
_LANGCHAIN_JS_BLOCKS = """const stream = chat.streamEvents(messages, TOOLS.length ? {{ tools: TOOLS,
  ...(TOOL_CHOICE ? {{ tool_choice: TOOL_CHOICE }} : {{}}) }} : {{}});
for await (const event of stream) console.log("event:", JSON.stringify(event));
console.log("streamed message:", shown(await stream));
"""


def _langchain_js_parts(turn: dict, packages: dict | None, blocks: bool = False) -> dict | None:
    """What a LangChain.js script on turn 0's text is written from, for @langchain/aws from 0.1 on (its ``client``
    field); None for an unknown or 0.0.x release (a core before 1.4 for content-block streaming, ``blocks``), other
    blocks, a system prompt of several blocks, a guardrail or cache marks (the shim's own)."""
    options = turn.get("options") or {}
    texts, system = _texts(turn), turn.get("system")
    release = str((packages or {}).get("@langchain/aws") or "")
    core = [int(part) for part in str((packages or {}).get("@langchain/core") or "0.0").split(".")[:2] if part.isdigit()]
    if (texts is None or (system is not None and not isinstance(system, str)) or not release[:1].isdigit()
            or release.startswith("0.0.") or (blocks and core < [1, 4])
            or any(options.get(k) for k in ("output_format", "guardrail"))
            or any(t.get("cache_control") for t in turn.get("tools") or ())):
        return None
    budget = options.get("thinking_budget")
    fields = {"model": turn["model_id"], **({"maxTokens": options["max_tokens"]} if options.get("max_tokens") else {}),
              **({"temperature": options["temperature"]} if options.get("temperature") is not None and not budget
                 else {}),
              **({"additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": budget}}}
                 if budget else {}),
              **({"serviceTier": options["service_tier"]} if options.get("service_tier") else {}),
              **({"performanceConfig": {"latency": options["latency"]}} if options.get("latency") else {})}
    return {"fields": fields, "messages": [list(pair) for pair in texts],
            "schemas": [{"name": t["name"], "description": t.get("description", ""), "input_schema": t["input_schema"]}
                        for t in turn.get("tools") or ()]}


def _langchain_js(scenario: Scenario, packages: dict | None, blocks: bool = False) -> App | None:
    """ChatBedrockConverse's ``stream`` and ``invoke`` on turn 0 (``_langchain_js_parts``), or with ``blocks``
    content-block streaming (``streamEvents`` without a version, @langchain/core 1.4 on)."""
    turn = first_turn(scenario)
    parts = _langchain_js_parts(turn, packages, blocks)
    if parts is None:
        return None
    choice = (turn.get("options") or {}).get("tool_choice")
    tools = [{"type": "function", "function": {"name": t["name"], "description": t["description"],
                                               "parameters": t["input_schema"]}} for t in parts["schemas"]]
    install = _npm_install(packages)
    how = ("read through content-block streaming (streamEvents without a version: its events,\n// then the AIMessage "
           "it resolves to)") if blocks else ("tools bound, streamed (its chunks added up with concat, as LangChain's\n"
                                              "// own aggregation does), then invoked, on the same messages")
    calls = (_LANGCHAIN_JS_BLOCKS if blocks else _LANGCHAIN_JS_STREAM).format()
    text = _LANGCHAIN_JS.format(scenario=scenario.id, serve=_serve(scenario), install=install,
                                fields=_js(parts["fields"]), how=how, calls=calls, system=_js(turn.get("system")),
                                messages=_js(parts["messages"]), tools=_js(tools),
                                tool_choice=_js(choice["name"] if isinstance(choice, dict) else
                                                None if choice in (None, "auto") else choice))
    return App("app.mjs", text, "node app.mjs URL", install)


_AI_SDK_AGENT = """#!/usr/bin/env node
// {scenario}, turn 0, with the AI SDK's own tool loop as an application runs it: streamText with the scenario's
// tools, each with an execute (these run nothing), for its first step (stopWhen: stepCountIs(1)): the model call,
// the tools the SDK runs for it, its fullStream parts and the step's response.messages. Install the release and serve
// the recorded stream first (Node {node}):
//
//   {install}
//   {serve}    # prints URL
//   node app.mjs URL

import {{ createAmazonBedrock }} from "@ai-sdk/amazon-bedrock";
import {{ jsonSchema, stepCountIs, streamText }} from "ai";

const URL = process.argv[2];
const MODEL_ID = {model_id};
const SYSTEM = {system};
const MESSAGES = {messages};
const TOOLS = {tools};
const SETTINGS = {settings};

const bedrock = createAmazonBedrock({{ baseURL: URL, region: "us-east-1", accessKeyId: "testing",
  secretAccessKey: "testing" }});
const never = async () => {{ throw new Error("this reproduction runs no tools"); }};
const tools = Object.fromEntries(TOOLS.map((t) => [t.name,
  {{ description: t.description, inputSchema: jsonSchema(t.input_schema), execute: never }}]));
const result = streamText({{ model: bedrock(MODEL_ID), messages: MESSAGES, ...(SYSTEM !== null ? {{ system: SYSTEM }} : {{}}),
  ...(TOOLS.length ? {{ tools }} : {{}}), ...SETTINGS, stopWhen: stepCountIs(1), onError: () => {{}} }});
for await (const part of result.fullStream) console.log("part:", JSON.stringify(part));
console.log("the step's response.messages:", JSON.stringify((await result.response).messages, null, 2));
"""


_LANGCHAIN_JS_AGENT = """#!/usr/bin/env node
// {scenario}, turn 0, with a LangChain.js agent as an application runs it: createAgent over ChatBedrockConverse with
// the scenario's tools, streamed (streamMode messages and updates: each chunk, then the message the model node adds)
// up to where the agent would run its tools, or to its end. Install the release and serve the recorded stream first
// (Node >= 20):
//
//   {install}
//   {serve}    # prints URL
//   node app.mjs URL

import {{ BedrockRuntimeClient }} from "@aws-sdk/client-bedrock-runtime";
import {{ ChatBedrockConverse }} from "@langchain/aws";
import {{ AIMessage, HumanMessage }} from "@langchain/core/messages";
import {{ NodeHttpHandler }} from "@smithy/node-http-handler";
import {{ createAgent, tool }} from "langchain";

const URL = process.argv[2];
const FIELDS = {fields};
const SYSTEM = {system};
const MESSAGES = {messages};
const TOOLS = {tools};

const credentials = {{ accessKeyId: "testing", secretAccessKey: "testing" }};
// HTTP/1.1: the client streams over HTTP/2 by default, which the harness's loopback endpoint does not speak
const client = new BedrockRuntimeClient({{ region: "us-east-1", endpoint: URL, credentials,
  requestHandler: new NodeHttpHandler() }});
const model = new ChatBedrockConverse({{ ...FIELDS, region: "us-east-1", credentials, client }});
const tools = TOOLS.map((t) => tool(async () => {{ throw new Error("this reproduction runs no tools"); }},
  {{ name: t.name, description: t.description, schema: t.input_schema }}));
const agent = createAgent({{ model, tools, ...(SYSTEM !== null ? {{ systemPrompt: SYSTEM }} : {{}}) }});
const messages = MESSAGES.map(([role, text]) => role === "assistant" ? new AIMessage(text) : new HumanMessage(text));
const shown = (message) => JSON.stringify({{ content: message.content, tool_calls: message.tool_calls,
  response_metadata: message.response_metadata }}, null, 2);
try {{
  for await (const [mode, data] of await agent.stream({{ messages }}, {{ streamMode: ["messages", "updates"] }})) {{
    if (mode === "messages") {{
      console.log("chunk:", JSON.stringify({{ content: data[0].content, tool_call_chunks: data[0].tool_call_chunks }}));
    }} else if (data.model_request ?? data.model) {{ // the model node: model_request (langchain 1.x), model before
      const added = (data.model_request ?? data.model).messages;
      for (const message of added) console.log("message the agent adds:", shown(message));
      if (added.some((m) => m.tool_calls?.length)) {{
        console.log("the agent runs its tools now: the first model call is over");
        break;
      }}
    }}
  }}
}} catch (error) {{ // what the agent throws is part of what it does
  console.log("agent.stream raised:", String(error));
}}
"""


def _langchain_js_agent(scenario: Scenario, packages: dict | None) -> App | None:
    """The template on turn 0's text for ``langchain``'s createAgent (a release the report names) with @langchain/aws
    from 0.1 on; None for other blocks, a forced tool, a guardrail or cache marks (the shim's own)."""
    turn = first_turn(scenario)
    options = turn.get("options") or {}
    if not (packages or {}).get("langchain") or options.get("tool_choice") not in (None, "auto"):
        return None
    parts = _langchain_js_parts(turn, packages)
    if parts is None:
        return None
    install = _npm_install(packages)
    text = _LANGCHAIN_JS_AGENT.format(scenario=scenario.id, serve=_serve(scenario), install=install,
                                      fields=_js(parts["fields"]), system=_js(turn.get("system")),
                                      messages=_js(parts["messages"]), tools=_js(parts["schemas"]))
    return App("app.mjs", text, "node app.mjs URL", install)


_STRANDS_TS = """#!/usr/bin/env node
// {scenario}, turn 0, with the Strands Agents TypeScript SDK as an application runs it: an Agent with a BedrockModel
// and the scenario's tools, streamed (each model stream event, the message the agent appends) up to where it would
// run its tools, or to its result when the loop ends. Install the release and serve the recorded stream first
// (Node >= 22):
//
//   {install}
//   {serve}    # prints URL
//   node app.mjs URL

import {{ NodeHttpHandler }} from "@smithy/node-http-handler";
import {{ Agent, BedrockModel, Tool }} from "@strands-agents/sdk";

const URL = process.argv[2];
const MODEL = {model};
const SYSTEM = {system};
const MESSAGES = {messages};
const TOOLS = {tools};

const scenarioTool = (spec) => new (class extends Tool {{
  name = spec.name;
  description = spec.description;
  toolSpec = {{ name: spec.name, description: spec.description, inputSchema: spec.input_schema }};
  async* stream() {{ throw new Error("this reproduction runs no tools"); }}
}})();
// HTTP/1.1: the client streams over HTTP/2 by default, which the harness's loopback endpoint does not speak
const model = new BedrockModel({{ ...MODEL, region: "us-east-1", clientConfig: {{ endpoint: URL,
  requestHandler: new NodeHttpHandler(), credentials: {{ accessKeyId: "testing", secretAccessKey: "testing" }} }} }});
const agent = new Agent({{ model, messages: MESSAGES.slice(0, -1), tools: TOOLS.map(scenarioTool), printer: false,
  ...(SYSTEM !== null ? {{ systemPrompt: SYSTEM }} : {{}}) }});
const events = agent.stream(MESSAGES.at(-1).content)[Symbol.asyncIterator]();
try {{
  for (let step = await events.next(); ; step = await events.next()) {{
    if (step.done) {{
      console.log("agent result: stop reason", JSON.stringify(step.value?.stopReason));
      console.log("the agent's messages:", JSON.stringify(agent.messages, null, 2));
      break;
    }}
    const event = step.value;
    if (event.type === "modelStreamUpdateEvent") console.log("event:", JSON.stringify(event.event));
    else if (event.type === "modelMessageEvent") {{
      console.log("message the agent appends:", JSON.stringify(event.message, null, 2));
    }} else if (event.type === "beforeToolsEvent") {{
      console.log("the agent runs its tools now: the first model call is over");
      await events.return?.();
      break;
    }}
  }}
}} catch (error) {{ // what the agent throws is part of what it does
  console.log("agent.stream raised:", String(error));
}}
"""


def _strands_ts(scenario: Scenario, packages: dict | None) -> App | None:
    """The template on turn 0's text for @strands-agents/sdk from 1.0 on (its Tool class, modelMessageEvent); None
    for an unknown or 0.x release, other blocks, a system prompt of several blocks, an opening that does not end with
    the user's prompt, a guardrail or cache marks (the shim's own)."""
    turn = first_turn(scenario)
    options = turn.get("options") or {}
    texts, system = _texts(turn), turn.get("system")
    release = str((packages or {}).get("@strands-agents/sdk") or "")
    if (texts is None or (system is not None and not isinstance(system, str)) or not release[:1].isdigit()
            or release.startswith("0.") or not texts or texts[-1][0] != "user"
            or any(options.get(k) for k in ("output_format", "guardrail"))
            or any(t.get("cache_control") for t in turn.get("tools") or ())):
        return None
    budget = options.get("thinking_budget")
    model = {"modelId": turn["model_id"], **({"maxTokens": options["max_tokens"]} if options.get("max_tokens") else {}),
             **({"temperature": options["temperature"]} if options.get("temperature") is not None and not budget
                else {}),
             **({"additionalRequestFields": {"thinking": {"type": "enabled", "budget_tokens": budget}}}
                if budget else {})}
    tools = [{"name": t["name"], "description": t.get("description", ""), "input_schema": t["input_schema"]}
             for t in turn.get("tools") or ()]
    install = _npm_install(packages)
    text = _STRANDS_TS.format(scenario=scenario.id, serve=_serve(scenario), install=install, model=_js(model),
                              system=_js(system), tools=_js(tools),
                              messages=_js([{"role": role, "content": [{"text": text}]} for role, text in texts]))
    return App("app.mjs", text, "node app.mjs URL", install)


_CLINE = """#!/usr/bin/env node
// {scenario}, turn 0, with Cline's providers (@cline/llms) as Cline's agent runtime drives them: a gateway with the
// Bedrock provider, its agent model for the scenario's model, and model.stream's events (what the runtime assembles
// its assistant message from). Install the release and serve the recorded stream first (Node >= 22):
//
//   {install}
//   {serve}    # prints URL
//   node app.mjs URL

import {{ createGateway }} from "@cline/llms";

const URL = process.argv[2];
const MODEL_ID = {model_id};
const REQUEST = {request};
const CAPABILITIES = {capabilities};

const config = {{ providerId: "bedrock", baseUrl: URL,
  options: {{ region: "us-east-1", accessKeyId: "testing", secretAccessKey: "testing" }} }};
// a model the provider's catalogue does not list is declared with what the request uses, as Cline's settings do
const listed = createGateway({{ providerConfigs: [config] }}).listModels("bedrock").some((m) => m.id === MODEL_ID);
const models = listed ? {{}} : {{ models: [{{ id: MODEL_ID, name: MODEL_ID, capabilities: CAPABILITIES }}] }};
const model = createGateway({{ providerConfigs: [{{ ...config, ...models }}] }})
  .createAgentModel({{ providerId: "bedrock", modelId: MODEL_ID }});
let serial = 0;
const messages = REQUEST.messages.map(([role, text]) => ({{ id: `msg_${{++serial}}`, role,
  content: [{{ type: "text", text }}], createdAt: Date.now() }}));
try {{
  for await (const event of await model.stream({{ ...REQUEST, messages }})) console.log("event:", JSON.stringify(event));
}} catch (error) {{ // what the model throws is part of what it does
  console.log("model.stream raised:", String(error));
}}
"""


def _cline(scenario: Scenario, packages: dict | None) -> App | None:
    """The template on turn 0's text for @cline/llms (a release the report names); None for other blocks, or a tool
    choice other than auto (its model request takes none)."""
    turn = first_turn(scenario)
    options = turn.get("options") or {}
    texts, system = _texts(turn), turn.get("system")
    if texts is None or not (packages or {}).get("@cline/llms") or options.get("tool_choice") not in (None, "auto"):
        return None
    system_text = "\n".join(text for text, _control in system_blocks(system)) if system else None
    request = {**({"systemPrompt": system_text} if system_text else {}), "messages": [list(pair) for pair in texts],
               "tools": [{"name": t["name"], "description": t.get("description") or "", "inputSchema": t["input_schema"]}
                         for t in turn.get("tools") or ()],
               "options": {**({"maxTokens": options["max_tokens"]} if options.get("max_tokens") is not None else {}),
                           **({"temperature": options["temperature"]} if options.get("temperature") is not None
                              else {}),
                           **({"thinking": True, "thinkingBudgetTokens": options["thinking_budget"]}
                              if options.get("thinking_budget") else {})}}
    capabilities = ["text", *(["tools"] if turn.get("tools") else []),
                    *(["reasoning"] if options.get("thinking_budget") else [])]
    install = _npm_install(packages)
    text = _CLINE.format(scenario=scenario.id, serve=_serve(scenario), install=install, model_id=_js(turn["model_id"]),
                         request=_js(request), capabilities=_js(capabilities))
    return App("app.mjs", text, "node app.mjs URL", install)


def _npm_install(packages: dict) -> str:
    """The npm line that installs the releases a report ran."""
    return "npm install " + " ".join(f"{name}@{version}" for name, version in sorted(packages.items()))


def _js(value) -> str:
    """A value as the script's JavaScript literal (JSON, indented as the Python templates' literals are)."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def _python(template: Callable[[Scenario], str | None]) -> Callable[[Scenario, dict | None], App | None]:
    """A Python template as an ``app.py`` run with ``python app.py URL`` (the library's release is the installed one)."""
    def app(scenario: Scenario, packages: dict | None) -> App | None:
        text = template(scenario)
        return App("app.py", text, "python app.py URL") if text is not None else None
    return app


TEMPLATES: dict[str, Callable[[Scenario, dict | None], App | None]] = {
    **{spec: _python(template) for spec, template in {
        "strands": _strands, "strands-persisted": _strands,
        "litellm": _litellm, "litellm-persisted": _litellm, "langchain-aws": _langchain_aws,
        "langchain-aws-persisted": _langchain_aws, "langchain-aws-events": _langchain_aws,
        "pydantic-ai": _pydantic_ai, "pydantic-ai-persisted": _pydantic_ai,
        "llama-index": _llama_index, "llama-index-persisted": _llama_index,
        "haystack": _haystack, "haystack-persisted": _haystack, "langchain-aws-agent": _langchain_aws_agent,
        "strands-agent": _strands_agent, "pydantic-ai-agent": _pydantic_ai_agent}.items()},
    "ai-sdk": _ai_sdk, "ai-sdk-agent": lambda scenario, packages: _ai_sdk(scenario, packages, agent=True),
    "langchain-js": _langchain_js, "langchain-js-agent": _langchain_js_agent, "langchain-js-events": _langchain_js,
    "langchain-js-blocks": lambda scenario, packages: _langchain_js(scenario, packages, blocks=True),
    "strands-ts": _strands_ts, "cline": _cline}


def app_for(spec: str | None, scenario: Scenario, packages: dict | None = None) -> App | None:
    """The app script of ``scenario`` for the library ``spec`` names (``packages``: the npm releases a JavaScript
    shim's report ran, which its script is written for), or None without a template."""
    template = TEMPLATES.get(spec or "")
    return template(scenario, packages) if template is not None else None
