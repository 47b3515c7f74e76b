#!/usr/bin/env node
// Cline's providers (`@cline/llms`) as a bedrock-harness adapter: the subprocess protocol 3 in conversation mode
// (own_history), Node >= 22.
//
//   node cline.mjs --modules DIR
//
// DIR holds the packages (node_modules/) and bedrock-harness-cline.mjs, which re-exports `@cline/llms` from there
// (harness.adapters.js.npm installs it into a cache folder per release); BEDROCK_HARNESS_CLINE_MODULES overrides DIR
// (the offline tests point it at a fake of the package's surface).
//
// Driven as Cline's agent runtime (`@cline/agents`, AgentRuntime) drives it: one gateway per conversation,
// `createGateway({providerConfigs: [{providerId: "bedrock", baseUrl, options: {region, accessKeyId,
// secretAccessKey}}]}).createAgentModel({providerId: "bedrock", modelId})`, and per turn
// `model.stream({systemPrompt, messages, tools, options})` with the history as AgentMessages. The history is what
// the runtime keeps: the scenario's opening as AgentMessages, then per turn the assistant message assembled from the
// model's events the way the runtime's streamPreparedRequest does (consecutive text and reasoning deltas joined into
// one part each, a tool call's input the event's value, else its JSON text parsed, a call without a name left out),
// then one `tool` message per tool result (executePreparedTool). Each AgentModelEvent maps to chunks as it is,
// nothing repaired; the assembled message closes the turn (`message`). Everything between the events and Bedrock
// (the conversion to the AI SDK's messages, the cache point, the retries) is the package's own.

import { loadEntry, Skip, serve } from "./protocol.mjs";

const packages = await loadEntry("cline.mjs", "BEDROCK_HARNESS_CLINE_MODULES", "bedrock-harness-cline.mjs",
  "@cline/llms's");
const { llms } = packages;
if (typeof llms.createGateway !== "function") { // the gateway the runtime drives: every release on npm has it
  console.error(`@cline/llms ${packages.version} has no createGateway (the gateway Cline's agent runtime drives): `
    + "the cline shim cannot run it");
  process.exit(2);
}

// Not declared: cache_points (the gateway places its own cache point, on the last user message of a Claude model's
// request, and takes none from the application), non_streaming (an AgentModel only streams), structured_output,
// service_tier and guardrail (GatewayStreamRequest has no field for them).
const CAPABILITIES = ["text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature", "redacted_reasoning",
  "usage", "cache_usage", "stop_reason", "round_trip", "errors", "streaming", "own_history",
  "usage_input_includes_cache", "tool_result_media"];

// What the package's own placement of cache points is (cache-points-as-asked): the cited code, read in the release.
const VOCABULARY = { "cache-points-as-asked": "@cline/llms applyBedrockCachePointToLastUserMessage "
  + "(providers/routing/bedrock-cache-point): a Bedrock model on the anthropic-compatible route gets one "
  + "providerOptions.bedrock.cachePoint on the last user message of every request; the gateway request "
  + "(GatewayStreamRequest) has no cache_control of its own" };

// AgentModelFinishReason ("stop" | "tool-calls" | "max-tokens" | "aborted" | "error") -> the Bedrock stopReason it
// stands for; lossy: the AI SDK's content-filter and other reasons reach the application as "stop" (the gateway's
// finish mapping), so "stop" also covers stop_sequence, guardrail_intervened and content_filtered.
const STOP_REASONS = { "stop": "end_turn", "tool-calls": "tool_use", "max-tokens": "max_tokens" };

// ---- never a real AWS host ----

class EndpointRefused extends Error {
  constructor(url, expected) {
    super(`Cline's request goes to ${JSON.stringify(url)}, not the loopback endpoint ${JSON.stringify(expected)}:`
      + " refused, so that the library never reaches a real AWS host");
    this.name = "EndpointRefused";
  }
}

const origin = (url) => { const u = new URL(url); return `${u.protocol}//${u.hostname}:${u.port || (u.protocol === "https:" ? 443 : 80)}`; };

function guardedFetch(expected) {
  return (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (origin(url) !== origin(expected)) return Promise.reject(new EndpointRefused(url, expected));
    return fetch(input, init);
  };
}

// The gateway as the runtime builds it from {providerId, modelId, baseUrl, options}, with the turn's endpoint and
// dummy credentials as a Bedrock user's settings (direct credentials: no API key and no credential chain is read).
// A model the release's catalog does not list is a user's custom model (GatewayProviderConfig.models), declared with
// the capabilities the scenario uses: without them the gateway sends no reasoning and no images for it.
function agentModel(turn, endpoint) {
  const config = { providerId: "bedrock", baseUrl: endpoint.endpoint_url, fetch: guardedFetch(endpoint.endpoint_url),
    options: { region: endpoint.region, accessKeyId: endpoint.aws_access_key_id,
      secretAccessKey: endpoint.aws_secret_access_key } };
  const listed = llms.createGateway({ providerConfigs: [config] }).listModels("bedrock")
    .some((model) => model.id === turn.model_id);
  const custom = listed ? {} : { models: [{ id: turn.model_id, name: turn.model_id, capabilities: used(turn) }] };
  const gateway = llms.createGateway({ providerConfigs: [{ ...config, ...custom }] });
  return gateway.createAgentModel({ providerId: "bedrock", modelId: turn.model_id });
}

const mentions = (turn, type) => JSON.stringify(turn.messages ?? []).includes(`"type":"${type}"`);

function used(turn) {
  return ["text", ...(turn.tools?.length ? ["tools"] : []), ...(turn.options?.thinking_budget ? ["reasoning"] : []),
    ...(mentions(turn, "image") ? ["images"] : [])];
}

// ---- the scenario's Anthropic-format messages -> AgentMessages ----

let serial = 0;
const agentMessage = (role, content) => ({ id: `msg_${++serial}`, role, content, createdAt: Date.now() });

const blocksOf = (message) => typeof message.content === "string"
  ? [{ type: "text", text: message.content }] : message.content;

// A tool result's output as a Cline tool returns it: its text, a JSON value, or text and image parts (the shape
// toAiSdkToolResultOutput sends as content). AgentMessage has no document part.
function toolOutput(block) {
  const content = block.content;
  if (typeof content === "string" || content == null) return content ?? "";
  if (!Array.isArray(content)) return content;
  if (content.length === 1 && content[0] !== null && typeof content[0] === "object" && "json" in content[0]) {
    return content[0].json;
  }
  if (content.every((part) => typeof part === "string" || "text" in part)) {
    return content.map((part) => part.text ?? part).join("");
  }
  return content.map((part) => {
    if (typeof part === "string") return { type: "text", text: part };
    if ("text" in part) return { type: "text", text: part.text };
    if ("json" in part) return { type: "text", text: JSON.stringify(part.json) };
    if (part.type === "image") return { type: "image", data: part.source.data, mediaType: part.source.media_type };
    throw new Skip(`Cline's tool results hold text and images only (AgentToolResultPart.output), not ${JSON.stringify(part.type)}`);
  });
}

function userPart(block) {
  if (block.type === "text") return { type: "text", text: block.text };
  if (block.type === "image") return { type: "image", image: block.source.data, mediaType: block.source.media_type };
  throw new Skip(`Cline's AgentMessage holds text and image parts for a user (AgentFilePart is a path and its text), not ${JSON.stringify(block.type)}`);
}

// An assistant turn of the opening, as the runtime would hold it (reasoning metadata as the gateway reads it back:
// signature, redactedData).
function assistantPart(block) {
  switch (block.type) {
    case "text": return { type: "text", text: block.text };
    case "thinking": return { type: "reasoning", text: block.thinking ?? "",
      ...(block.signature ? { metadata: { signature: block.signature } } : {}) };
    case "redacted_thinking": return { type: "reasoning", text: "", redacted: true,
      metadata: { redactedData: block.data } };
    case "tool_use": return { type: "tool-call", toolCallId: block.id, toolName: block.name, input: block.input ?? {} };
    default: return null; // server_tool_use ran inside Bedrock
  }
}

function converted(messages, names) {
  const out = [];
  for (const message of messages) {
    const blocks = blocksOf(message);
    if (message.role === "assistant") {
      const content = blocks.map(assistantPart).filter(Boolean);
      for (const part of content) if (part.type === "tool-call") names.set(part.toolCallId, part.toolName);
      out.push(agentMessage("assistant", content));
      continue;
    }
    for (const block of blocks.filter((b) => b.type === "tool_result")) { // one tool message per result
      out.push(agentMessage("tool", [{ type: "tool-result", toolCallId: block.tool_use_id,
        toolName: names.get(block.tool_use_id) ?? "", output: toolOutput(block),
        ...(block.is_error ? { isError: true } : {}) }]));
    }
    const rest = blocks.filter((b) => b.type !== "tool_result").map(userPart);
    if (rest.length) out.push(agentMessage("user", rest));
  }
  return out;
}

function systemPrompt(system) {
  if (!Array.isArray(system)) return system || undefined;
  return system.map((block) => block.text).join("\n"); // GatewayStreamRequest.systemPrompt is one string
}

// AgentModelRequest.options as the runtime passes its modelOptions: maxTokens, temperature, thinking and its budget.
function requestOptions(turn) {
  const options = turn.options ?? {};
  const choice = options.tool_choice;
  if (choice && choice !== "auto") {
    throw new Skip(`Cline's model request takes no tool choice (the scenario asks for ${JSON.stringify(choice)})`);
  }
  return { ...(options.max_tokens != null ? { maxTokens: options.max_tokens } : {}),
    ...(options.temperature != null ? { temperature: options.temperature } : {}),
    ...(options.thinking_budget ? { thinking: true, thinkingBudgetTokens: options.thinking_budget } : {}) };
}

// ---- AgentModelEvents -> chunks, and the assistant message as the runtime assembles it ----

function* eventChunks(event) {
  switch (event.type) {
    case "text-delta":
      if (event.text) yield { type: "text", index: null, text: event.text };
      break;
    case "reasoning-delta": {
      const meta = event.metadata ?? {};
      if (event.text) yield { type: "reasoning", index: null, text: event.text };
      if (typeof meta.signature === "string") yield { type: "reasoning", index: null, signature: meta.signature };
      if (typeof meta.redactedData === "string") yield { type: "redacted_reasoning", index: null, data: meta.redactedData };
      break;
    }
    case "tool-call-delta":
      if (event.execution) break; // a provider-executed model tool: not the application's call
      yield { type: "tool_call", id: event.toolCallId ?? null, name: event.toolName ?? null,
        ...(event.input !== undefined ? { input: event.input } : { input_delta: event.inputText ?? "" }) };
      break;
    case "usage":
      yield { type: "usage", input_tokens: event.usage.inputTokens ?? null, output_tokens: event.usage.outputTokens ?? null,
        cache_read_input_tokens: event.usage.cacheReadTokens ?? 0,
        cache_write_input_tokens: event.usage.cacheWriteTokens ?? 0 };
      break;
    case "finish":
      if (event.reason === "error") yield { type: "error", code: null, message: event.error ?? null };
      else yield { type: "stop", reason: STOP_REASONS[event.reason] ?? event.reason };
      break;
    default:
      break;
  }
}

// streamPreparedRequest's assembly: parts in the order they began, text and reasoning deltas joined into the part
// they continue, a call keyed by its id (else its index) with its input value, else its text parsed.
class Assembly {
  constructor() { this.parts = []; this.calls = new Map(); this.count = 0; }

  add(event) {
    const last = this.parts.at(-1);
    if (event.type === "text-delta") {
      if (last?.part?.type === "text") last.part.text += event.text;
      else this.parts.push({ part: { type: "text", text: event.text } });
    } else if (event.type === "reasoning-delta") {
      if (last?.part?.type === "reasoning") {
        last.part.text += event.text;
        last.part.redacted = event.redacted ?? last.part.redacted;
        last.part.metadata = event.metadata ?? last.part.metadata;
      } else {
        this.parts.push({ part: { type: "reasoning", text: event.text, redacted: event.redacted, metadata: event.metadata } });
      }
    } else if (event.type === "tool-call-delta" && !event.execution) {
      const key = event.toolCallId ?? `tool_${event.index ?? this.count}`;
      if (event.index == null && event.toolCallId == null) this.count += 1;
      let call = this.calls.get(key);
      if (!call) {
        call = { toolCallId: event.toolCallId ?? key, inputText: "" };
        this.calls.set(key, call);
        this.parts.push({ key });
      }
      if (event.toolName) call.toolName = event.toolName;
      if (event.input !== undefined) call.input = event.input;
      if (event.inputText) call.inputText += event.inputText;
    }
  }

  message() {
    const content = [];
    for (const entry of this.parts) {
      if (entry.part) { content.push(entry.part); continue; }
      const call = this.calls.get(entry.key);
      if (!call.toolName) continue; // the runtime holds it as an invalid call (missing_name), not in the message
      content.push({ type: "tool-call", toolCallId: call.toolCallId, toolName: call.toolName,
        input: call.input !== undefined ? call.input : parsed(call.inputText) });
    }
    return agentMessage("assistant", content);
  }
}

function parsed(text) {
  if (!text.trim()) return {};
  try { return JSON.parse(text); } catch { return {}; } // the runtime's invalid_arguments: input {}, flagged
}

// The AgentMessage as Anthropic blocks (the `message` chunk).
function anthropicMessage(message) {
  const blocks = message.content.map((part) => {
    switch (part.type) {
      case "text": return { type: "text", text: part.text };
      case "reasoning":
        if (part.redacted || typeof part.metadata?.redactedData === "string") {
          return { type: "redacted_thinking", data: part.metadata?.redactedData ?? part.text };
        }
        return { type: "thinking", thinking: part.text,
          ...(typeof part.metadata?.signature === "string" ? { signature: part.metadata.signature } : {}) };
      case "tool-call": return { type: "tool_use", id: part.toolCallId, name: part.toolName, input: part.input };
      default: return null;
    }
  });
  return { role: "assistant", content: blocks.filter(Boolean) };
}

// ---- conversation mode ----

class Conversation {
  constructor() { this.id = undefined; this.messages = []; this.names = new Map(); this.model = null; }

  history(turn, endpoint) {
    if (!("conversation" in turn) || turn.conversation !== this.id || !this.model) {
      this.id = turn.conversation; this.messages = []; this.names = new Map();
      this.model = agentModel(turn, endpoint);
    }
    this.messages.push(...converted(turn.messages ?? [], this.names));
    return this.messages;
  }

  async* turn(turn, endpoint) {
    const options = requestOptions(turn);
    const messages = this.history(turn, endpoint);
    const request = { systemPrompt: systemPrompt(turn.system), messages: [...messages],
      tools: (turn.tools ?? []).map((t) => ({ name: t.name, description: t.description ?? "", inputSchema: t.input_schema })),
      options };
    const assembly = new Assembly();
    let failed = false;
    try {
      for await (const event of await this.model.stream(request)) {
        assembly.add(event);
        for (const chunk of eventChunks(event)) {
          if (!failed) yield chunk; // nothing follows an error chunk
          if (chunk.type === "error") failed = true;
        }
      }
    } catch (error) {
      if (!failed) yield { type: "error", code: null, message: `${error.name}: ${error.message}` };
      failed = true;
    }
    const message = assembly.message();
    if (message.content.length) { // recorded, even after an error; the runtime records no empty one (it fails the run)
      this.messages.push(message);
      for (const part of message.content) if (part.type === "tool-call") this.names.set(part.toolCallId, part.toolName);
    }
    if (!failed) yield { type: "message", message: anthropicMessage(message) }; // nothing follows an error chunk
  }
}

await serve({ name: "cline", version: packages.version, capabilities: CAPABILITIES, vocabulary: VOCABULARY },
  new Conversation());
