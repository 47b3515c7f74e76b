"""The ``app.py`` of a reproduction: a library's own public calls on a scenario's first turn, as an application
writes them, against ``bedrock-harness serve --paired --cassette ...`` (its URL the script's one argument).

One template per library whose shim maps turns without importing the library (the messages are built here, at
generation time, by the shim's own pure mapping: ``harness.adapters.shims.litellm_format.to_openai`` for LiteLLM;
the model's fields by ``harness.adapters.shims.langchain_aws``'s for langchain-aws, whose messages are LangChain's
own role/content dicts; strands' messages are Converse's own).
The script prints what the library holds after the streamed call and after the non-streamed one, so a maintainer
sees the finding in the library's own objects. A library without a template gets none: ``repro.py`` still
reproduces through the shim. (Here, beside the shims, because it uses their mappings; ``bedrock-harness repro`` and
``site`` hand it to harness.studies.repro.)
"""

from __future__ import annotations

import pprint
from typing import Callable

from harness.suite.scenario import Scenario, first_turn

__all__ = ["TEMPLATES", "app_for"]

_LITELLM = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with LiteLLM as an application calls it: streamed (assembled by stream_chunk_builder), then
not streamed, on the same messages. Serve the recorded stream first:

    bedrock-harness serve --paired --cassette cassettes/{scenario}.yaml --port 0    # prints URL
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
    return _LITELLM.format(scenario=scenario.id, request=_shown(request))


_LANGCHAIN_AWS = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with langchain-aws as an application calls it: ChatBedrockConverse streamed (its chunks
added up, as LangChain's own aggregation does), then invoked, on the same messages. Serve the recorded stream first:

    bedrock-harness serve --paired --cassette cassettes/{scenario}.yaml --port 0    # prints URL
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
    return _LANGCHAIN_AWS.format(scenario=scenario.id, model=_shown(model), tools=_shown(tools),
                                 tool_choice=shim._tool_choice(options.get("tool_choice")), messages=_shown(messages))


_STRANDS = '''#!/usr/bin/env python3
"""{scenario}, turn 0, with strands as its agent loop calls the model: BedrockModel.stream's events, then the
message strands' process_stream assembles from them (what the agent appends to its messages), on the same messages.
Serve the recorded stream first:

    bedrock-harness serve --paired --cassette cassettes/{scenario}.yaml --port 0    # prints URL
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
    return _STRANDS.format(scenario=scenario.id, model=_shown(model), tools=_shown(tools), system=system,
                           messages=_shown(messages))


TEMPLATES: dict[str, Callable[[Scenario], str | None]] = {
    "strands": _strands, "strands-persisted": _strands,
    "litellm": _litellm, "litellm-persisted": _litellm, "langchain-aws": _langchain_aws,
    "langchain-aws-persisted": _langchain_aws, "langchain-aws-events": _langchain_aws}


def app_for(spec: str | None, scenario: Scenario) -> str | None:
    """The ``app.py`` of ``scenario`` for the library ``spec`` names, or None without a template."""
    template = TEMPLATES.get(spec or "")
    return template(scenario) if template is not None else None
