"""The ``app.mjs`` templates: the AI SDK (streamText, its tool loop), LangChain.js (stream and invoke, content-block
streaming, createAgent streamed or read through streamEvents), Strands TS (its Agent) and Cline (@cline/llms's
gateway), each for the npm releases the report ran, which its head installs (``npm install ...``, then ``node app.mjs
URL``)."""

from __future__ import annotations

from harness.adapters.apps.common import App, ends_with_prompt, js_literal, js_run, npm_install, plain_texts, text_turn
from harness.converse.request import system_blocks
from harness.suite.scenario import Scenario, first_turn

__all__ = ["TEMPLATES"]


# The constants and provider both AI SDK scripts start from (a part of their templates, formatted with them).
_AI_SDK_SETUP = """const URL = process.argv[2];
const MODEL_ID = {model_id};
const SYSTEM = {system};
const MESSAGES = {messages};
const TOOLS = {tools};
const SETTINGS = {settings};

const bedrock = createAmazonBedrock({{ baseURL: URL, region: "us-east-1", accessKeyId: "testing",
  secretAccessKey: "testing" }});
"""

_AI_SDK = """#!/usr/bin/env node
// {scenario}, turn 0, with the AI SDK as an application calls it: streamText (each fullStream part, then
// response.messages, what an application appends to its history), then generateText, on the same messages.
// Install the release and serve the recorded stream first (Node {node}):
{run}

import {{ createAmazonBedrock }} from "@ai-sdk/amazon-bedrock";
import {{ generateText, jsonSchema, streamText }} from "ai";

""" + _AI_SDK_SETUP + """const tools = Object.fromEntries(TOOLS.map((t) => [t.name,
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
    plain = text_turn(turn)
    if plain is None:
        return None
    texts, system = plain
    ai = str((packages or {}).get("ai") or "")
    if (not ai[:1].isdigit()
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
    return {"node": ">= 22" if int(ai.split(".")[0]) >= 7 else ">= 20", "install": npm_install(packages),
            "model_id": js_literal(turn["model_id"]), "system": js_literal(system), "tools": js_literal(tools), "settings": js_literal(settings),
            "messages": js_literal([{"role": role, "content": text} for role, text in texts])}


def _ai_sdk(scenario: Scenario, packages: dict | None, agent: bool = False) -> App | None:
    """streamText then generateText on turn 0 (``_ai_sdk_parts``); with ``agent``, the SDK's own tool loop."""
    parts = _ai_sdk_parts(first_turn(scenario), packages)
    if parts is None:
        return None
    text = (_AI_SDK_AGENT if agent else _AI_SDK).format(scenario=scenario.id, run=js_run(scenario, parts["install"]), **parts)
    return App("app.mjs", text, "node app.mjs URL", parts["install"])


# What the LangChain.js scripts share (plain text: a value of the templates' format, not formatted again): the imports
# of the model and its messages, and the model on a runtime client pointed at the served URL.
_LANGCHAIN_JS_IMPORTS = '''import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { ChatBedrockConverse } from "@langchain/aws";
import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { NodeHttpHandler } from "@smithy/node-http-handler";
'''
_LANGCHAIN_JS_CHAT = '''const credentials = { accessKeyId: "testing", secretAccessKey: "testing" };
// HTTP/1.1: the client streams over HTTP/2 by default, which the harness's loopback endpoint does not speak
const client = new BedrockRuntimeClient({ region: "us-east-1", endpoint: URL, credentials,
  requestHandler: new NodeHttpHandler() });
const chat = new ChatBedrockConverse({ ...FIELDS, region: "us-east-1", credentials, client });
'''


_LANGCHAIN_JS = """#!/usr/bin/env node
// {scenario}, turn 0, with LangChain.js as an application calls it: ChatBedrockConverse from @langchain/aws,
// {how}. Install the release and serve the recorded stream first (Node >= 20):
{run}

{imports}
const URL = process.argv[2];
const FIELDS = {fields};
const SYSTEM = {system};
const MESSAGES = {messages};
const TOOLS = {tools};
const TOOL_CHOICE = {tool_choice};

{chat}const model = TOOLS.length ? chat.bindTools(TOOLS, TOOL_CHOICE ? {{ tool_choice: TOOL_CHOICE }} : undefined) : chat;
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
    plain = text_turn(turn)
    if plain is None:
        return None
    texts, system = plain
    release = str((packages or {}).get("@langchain/aws") or "")
    core = [int(part) for part in str((packages or {}).get("@langchain/core") or "0.0").split(".")[:2] if part.isdigit()]
    if (not release[:1].isdigit()
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
    install = npm_install(packages)
    how = ("read through content-block streaming (streamEvents without a version: its events,\n// then the AIMessage "
           "it resolves to)") if blocks else ("tools bound, streamed (its chunks added up with concat, as LangChain's\n"
                                              "// own aggregation does), then invoked, on the same messages")
    calls = (_LANGCHAIN_JS_BLOCKS if blocks else _LANGCHAIN_JS_STREAM).format()
    text = _LANGCHAIN_JS.format(scenario=scenario.id, imports=_LANGCHAIN_JS_IMPORTS, chat=_LANGCHAIN_JS_CHAT, run=js_run(scenario, install),
                                fields=js_literal(parts["fields"]), how=how, calls=calls, system=js_literal(turn.get("system")),
                                messages=js_literal(parts["messages"]), tools=js_literal(tools),
                                tool_choice=js_literal(choice["name"] if isinstance(choice, dict) else
                                                None if choice in (None, "auto") else choice))
    return App("app.mjs", text, "node app.mjs URL", install)


_AI_SDK_AGENT = """#!/usr/bin/env node
// {scenario}, turn 0, with the AI SDK's own tool loop as an application runs it: streamText with the scenario's
// tools, each with an execute (these run nothing), for its first step (stopWhen: stepCountIs(1)): the model call,
// the tools the SDK runs for it, its fullStream parts and the step's response.messages. Install the release and serve
// the recorded stream first (Node {node}):
{run}

import {{ createAmazonBedrock }} from "@ai-sdk/amazon-bedrock";
import {{ jsonSchema, stepCountIs, streamText }} from "ai";

""" + _AI_SDK_SETUP + """const never = async () => {{ throw new Error("this reproduction runs no tools"); }};
const tools = Object.fromEntries(TOOLS.map((t) => [t.name,
  {{ description: t.description, inputSchema: jsonSchema(t.input_schema), execute: never }}]));
const result = streamText({{ model: bedrock(MODEL_ID), messages: MESSAGES, ...(SYSTEM !== null ? {{ system: SYSTEM }} : {{}}),
  ...(TOOLS.length ? {{ tools }} : {{}}), ...SETTINGS, stopWhen: stepCountIs(1), onError: () => {{}} }});
for await (const part of result.fullStream) console.log("part:", JSON.stringify(part));
console.log("the step's response.messages:", JSON.stringify((await result.response).messages, null, 2));
"""


_LANGCHAIN_JS_AGENT = """#!/usr/bin/env node
// {scenario}, turn 0, with a LangChain.js agent as an application runs it: createAgent over ChatBedrockConverse with
// the scenario's tools, {how}
// up to where the agent would run its tools, or to its end. Install the release and serve the recorded stream first
// (Node >= 20):
{run}

{imports}import {{ createAgent, tool }} from "langchain";

const URL = process.argv[2];
const FIELDS = {fields};
const SYSTEM = {system};
const MESSAGES = {messages};
const TOOLS = {tools};

{chat}const tools = TOOLS.map((t) => tool(async () => {{ throw new Error("this reproduction runs no tools"); }},
  {{ name: t.name, description: t.description, schema: t.input_schema }}));
const agent = createAgent({{ model: chat, tools, ...(SYSTEM !== null ? {{ systemPrompt: SYSTEM }} : {{}}) }});
const messages = MESSAGES.map(([role, text]) => role === "assistant" ? new AIMessage(text) : new HumanMessage(text));
const shown = (message) => JSON.stringify({{ content: message.content, tool_calls: message.tool_calls,
  response_metadata: message.response_metadata }}, null, 2);
const chunk = (message) => JSON.stringify({{ content: message.content, tool_call_chunks: message.tool_call_chunks }});
const over = (added) => {{
  for (const message of added) console.log("message the agent adds:", shown(message));
  if (!added.some((m) => m.tool_calls?.length)) return false;
  console.log("the agent runs its tools now: the first model call is over");
  return true;
}};
{loop}"""

_LANGCHAIN_JS_AGENT_STREAM = """try {{
  for await (const [mode, data] of await agent.stream({{ messages }}, {{ streamMode: ["messages", "updates"] }})) {{
    if (mode === "messages") {{
      console.log("chunk:", chunk(data[0]));
    }} else if (data.model_request ?? data.model) {{ // the model node: model_request (langchain 1.x), model before
      if (over((data.model_request ?? data.model).messages)) break;
    }}
  }}
}} catch (error) {{ // what the agent throws is part of what it does
  console.log("agent.stream raised:", String(error));
}}
"""

_LANGCHAIN_JS_AGENT_EVENTS = """try {{
  for await (const event of agent.streamEvents({{ messages }}, {{ version: "v2" }})) {{
    const node = event.metadata?.langgraph_node; // the model node: model_request (langchain 1.x), model before
    if (node !== "model_request" && node !== "model") continue;
    if (event.event === "on_chat_model_stream") {{
      console.log("chunk:", chunk(event.data.chunk));
    }} else if (event.event === "on_chain_end" && event.name === node) {{ // what the node returns for the state:
      // {{messages}}, or Commands whose update holds them (langchain 1.5)
      const added = [event.data.output].flat().flatMap((part) => (part?.update ?? part)?.messages ?? []);
      if (over(added)) break;
    }}
  }}
}} catch (error) {{ // what the agent throws is part of what it does
  console.log("agent.streamEvents raised:", String(error));
}}
"""


def _langchain_js_agent(scenario: Scenario, packages: dict | None, events: bool = False) -> App | None:
    """The template on turn 0's text for ``langchain``'s createAgent (a release the report names) with @langchain/aws
    from 0.1 on, streamed, or with ``events`` read through ``streamEvents`` v2; None for other blocks, a forced tool, a
    guardrail or cache marks (the shim's own)."""
    turn = first_turn(scenario)
    options = turn.get("options") or {}
    if not (packages or {}).get("langchain") or options.get("tool_choice") not in (None, "auto"):
        return None
    parts = _langchain_js_parts(turn, packages)
    if parts is None:
        return None
    install = npm_install(packages)
    how = ("read through streamEvents v2 (each on_chat_model_stream chunk of the\n// model node, then the "
           "message its on_chain_end adds)") if events else ("streamed (streamMode messages and updates: each "
                                                            "chunk, then the message the model node adds)")
    loop = _LANGCHAIN_JS_AGENT_EVENTS if events else _LANGCHAIN_JS_AGENT_STREAM
    text = _LANGCHAIN_JS_AGENT.format(scenario=scenario.id, imports=_LANGCHAIN_JS_IMPORTS, chat=_LANGCHAIN_JS_CHAT,
                                      run=js_run(scenario, install), how=how, loop=loop.format(),
                                      fields=js_literal(parts["fields"]), system=js_literal(turn.get("system")),
                                      messages=js_literal(parts["messages"]), tools=js_literal(parts["schemas"]))
    return App("app.mjs", text, "node app.mjs URL", install)


_STRANDS_TS = """#!/usr/bin/env node
// {scenario}, turn 0, with the Strands Agents TypeScript SDK as an application runs it: an Agent with a BedrockModel
// and the scenario's tools, streamed (each model stream event, the message the agent appends) up to where it would
// run its tools, or to its result when the loop ends. Install the release and serve the recorded stream first
// (Node >= 22):
{run}

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
    plain = text_turn(turn)
    if plain is None:
        return None
    texts, system = plain
    release = str((packages or {}).get("@strands-agents/sdk") or "")
    if (not release[:1].isdigit()
            or release.startswith("0.") or not ends_with_prompt(texts)
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
    install = npm_install(packages)
    text = _STRANDS_TS.format(scenario=scenario.id, run=js_run(scenario, install), model=js_literal(model),
                              system=js_literal(system), tools=js_literal(tools),
                              messages=js_literal([{"role": role, "content": [{"text": text}]} for role, text in texts]))
    return App("app.mjs", text, "node app.mjs URL", install)


_CLINE = """#!/usr/bin/env node
// {scenario}, turn 0, with Cline's providers (@cline/llms) as Cline's agent runtime drives them: a gateway with the
// Bedrock provider, its agent model for the scenario's model, and model.stream's events (what the runtime assembles
// its assistant message from). Install the release and serve the recorded stream first (Node >= 22):
{run}

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
    texts, system = plain_texts(turn), turn.get("system")
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
    install = npm_install(packages)
    text = _CLINE.format(scenario=scenario.id, run=js_run(scenario, install), model_id=js_literal(turn["model_id"]),
                         request=js_literal(request), capabilities=js_literal(capabilities))
    return App("app.mjs", text, "node app.mjs URL", install)


TEMPLATES = {
    "ai-sdk": _ai_sdk, "ai-sdk-agent": lambda scenario, packages: _ai_sdk(scenario, packages, agent=True),
    "langchain-js": _langchain_js, "langchain-js-events": _langchain_js,
    "langchain-js-blocks": lambda scenario, packages: _langchain_js(scenario, packages, blocks=True),
    "langchain-js-agent": _langchain_js_agent,
    "langchain-js-agent-events": lambda scenario, packages: _langchain_js_agent(scenario, packages, events=True),
    "strands-ts": _strands_ts, "cline": _cline}
