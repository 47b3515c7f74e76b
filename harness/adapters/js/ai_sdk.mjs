#!/usr/bin/env node
// The Vercel AI SDK (`streamText` from `ai` with `@ai-sdk/amazon-bedrock`) as a bedrock-harness adapter: the
// subprocess protocol 3 in conversation mode (own_history), Node >= 20 (the newest releases need 22).
//
//   node ai_sdk.mjs --modules DIR
//
// DIR holds the packages (node_modules/) and bedrock-harness-ai-sdk.mjs, which re-exports `ai` and
// `@ai-sdk/amazon-bedrock` from there (harness.adapters.js.npm installs both into a cache folder per release);
// BEDROCK_HARNESS_AI_SDK_MODULES overrides DIR (the offline tests point it at a fake of the SDK's surface).
//
// The history is what an application keeps: the scenario's opening as ModelMessages, then per turn the SDK's own
// `response.messages`, then the scenario's tool results as `tool` messages. The stream parts map to chunks as they
// are, nothing repaired; the SDK's assembled assistant message closes the turn (`message`), and a turn asking for
// streaming parity also reports `response.messages` of streamText and of generateText on the same input (`native`).

import { createInterface } from "node:readline";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const argv = process.argv.slice(2);
const modules = process.env.BEDROCK_HARNESS_AI_SDK_MODULES || argv[argv.indexOf("--modules") + 1];
if (!modules || argv.indexOf("--modules") < 0 && !process.env.BEDROCK_HARNESS_AI_SDK_MODULES) {
  console.error("usage: node ai_sdk.mjs --modules DIR (the folder holding the AI SDK's node_modules)");
  process.exit(2);
}
const { ai, bedrock, version } = await import(pathToFileURL(join(resolve(modules), "bedrock-harness-ai-sdk.mjs")).href);

const CAPABILITIES = ["text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature", "redacted_reasoning",
  "usage", "cache_usage", "stop_reason", "round_trip", "errors", "streaming", "own_history",
  "usage_input_includes_cache", "non_streaming"];
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

// ---- never a real AWS host ----

class EndpointRefused extends Error {
  constructor(url, expected) {
    super(`the AI SDK's request goes to ${JSON.stringify(url)}, not the loopback endpoint ${JSON.stringify(expected)}:`
      + " refused, so that the library never reaches a real AWS host");
    this.name = "EndpointRefused";
  }
}

const origin = (url) => { const u = new URL(url); return `${u.protocol}//${u.hostname}:${u.port || (u.protocol === "https:" ? 443 : 80)}`; };

// The provider's fetch: a request is checked against the loopback endpoint before anything is sent.
function guardedFetch(expected) {
  return (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (origin(url) !== origin(expected)) return Promise.reject(new EndpointRefused(url, expected));
    return fetch(input, init);
  };
}

function model(turn, endpoint) {
  const provider = bedrock.createAmazonBedrock({ region: endpoint.region, baseURL: endpoint.endpoint_url,
    accessKeyId: endpoint.aws_access_key_id, secretAccessKey: endpoint.aws_secret_access_key,
    fetch: guardedFetch(endpoint.endpoint_url) });
  return provider(turn.model_id);
}

// ---- the scenario's Anthropic-format messages -> the SDK's ModelMessages ----

const toolNames = (history) => new Map(history.flatMap((m) => Array.isArray(m.content) ? m.content : [])
  .filter((part) => part.type === "tool-call").map((part) => [part.toolCallId, part.toolName]));

function resultOutput(block) {
  const content = block.content;
  if (typeof content === "string" || content == null) {
    return { type: block.is_error ? "error-text" : "text", value: content ?? "" };
  }
  if (!Array.isArray(content)) return { type: block.is_error ? "error-json" : "json", value: content };
  if (content.length === 1 && content[0] !== null && typeof content[0] === "object" && "json" in content[0]) {
    return { type: block.is_error ? "error-json" : "json", value: content[0].json };
  }
  if (block.is_error && content.every((part) => typeof part === "string" || "text" in part)) {
    return { type: "error-text", value: content.map((part) => part.text ?? part).join("") };
  }
  return { type: "content", value: content.map(resultPart) };
}

function resultPart(part) {
  if (typeof part === "string") return { type: "text", text: part };
  if ("text" in part) return { type: "text", text: part.text };
  if ("json" in part) return { type: "text", text: JSON.stringify(part.json) };
  if (part.type === "image") {
    return { type: "file", mediaType: part.source.media_type, data: { type: "data", data: part.source.data } };
  }
  throw new Error(`unsupported tool result part ${JSON.stringify(part.type)}`);
}

function userPart(block) {
  if (block.type === "text") return { type: "text", text: block.text };
  if (block.type === "image" || block.type === "document") {
    return { type: "file", mediaType: block.source.media_type, data: block.source.data };
  }
  throw new Error(`unsupported user content block ${JSON.stringify(block.type)}`);
}

function assistantPart(block) {
  switch (block.type) {
    case "text": return { type: "text", text: block.text };
    case "thinking": return { type: "reasoning", text: block.thinking ?? "",
      ...(block.signature ? { providerOptions: { bedrock: { signature: block.signature } } } : {}) };
    case "redacted_thinking": return { type: "reasoning", text: "",
      providerOptions: { bedrock: { redactedData: block.data } } };
    case "tool_use": return { type: "tool-call", toolCallId: block.id, toolName: block.name, input: block.input ?? {} };
    default: return null; // server_tool_use ran inside Bedrock: not the application's to send back
  }
}

// A user message holding tool results becomes a `tool` message (the results) and a user message (the rest).
function converted(messages, history) {
  const out = [];
  for (const message of messages) {
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (message.role === "assistant") {
      out.push({ role: "assistant", content: blocks.map(assistantPart).filter(Boolean) });
      continue;
    }
    const names = toolNames([...history, ...out]);
    const results = blocks.filter((b) => b.type === "tool_result").map((b) => ({ type: "tool-result",
      toolCallId: b.tool_use_id, toolName: names.get(b.tool_use_id) ?? "", output: resultOutput(b) }));
    const rest = blocks.filter((b) => b.type !== "tool_result").map(userPart);
    if (results.length) out.push({ role: "tool", content: results });
    if (rest.length) out.push({ role: "user", content: typeof message.content === "string" ? message.content : rest });
  }
  return out;
}

// ---- the call ----

function toolChoice(choice) {
  if (choice === "auto") return "auto";
  if (choice === "any") return "required";
  if (choice && typeof choice === "object") return { type: "tool", toolName: choice.name };
  return undefined;
}

function callOptions(turn, endpoint, messages) {
  const options = turn.options ?? {};
  const tools = Object.fromEntries((turn.tools ?? []).map((t) => [t.name, {
    description: t.description, inputSchema: ai.jsonSchema(t.input_schema), parameters: ai.jsonSchema(t.input_schema) }]));
  const budget = options.thinking_budget;
  return { model: model(turn, endpoint), messages: [...messages], maxOutputTokens: options.max_tokens,
    maxTokens: options.max_tokens, ...(turn.system ? { system: turn.system } : {}),
    ...(options.temperature != null ? { temperature: options.temperature } : {}),
    ...(turn.tools?.length ? { tools, toolChoice: toolChoice(options.tool_choice) } : {}),
    ...(budget ? { providerOptions: { bedrock: { reasoningConfig: { type: "enabled", budgetTokens: budget } } } } : {}) };
}

// ---- stream parts -> chunks, as they are ----

const meta = (part) => part.providerMetadata?.bedrock ?? part.providerMetadata?.amazonBedrock ?? {};

function errorChunk(error) {
  const cause = error?.lastError ?? error; // a RetryError carries the last attempt's error
  const header = cause?.responseHeaders?.["x-amzn-errortype"];
  const code = cause?.type ?? cause?.data?.type ?? (header ? header.split(":")[0] : undefined) ?? cause?.name ?? "Error";
  return { type: "error", code, message: String(cause?.message ?? cause) };
}

function usageChunk(usage, metadata) {
  const details = usage?.inputTokenDetails ?? {};
  return { type: "usage", input_tokens: usage?.inputTokens ?? null, output_tokens: usage?.outputTokens ?? null,
    cache_read_input_tokens: details.cacheReadTokens ?? usage?.cachedInputTokens ?? 0,
    cache_write_input_tokens: details.cacheWriteTokens ?? metadata?.usage?.cacheWriteInputTokens ?? 0 };
}

function* partChunks(part, state) {
  switch (part.type) {
    case "text-delta": {
      const text = part.text ?? part.delta ?? part.textDelta;
      if (text) yield { type: "text", index: part.id ?? null, text };
      break;
    }
    case "reasoning-delta": {
      const text = part.text ?? part.delta;
      if (text) yield { type: "reasoning", index: part.id ?? null, text };
      if (meta(part).signature != null) yield { type: "reasoning", index: part.id ?? null, signature: meta(part).signature };
      if (meta(part).redactedData != null) yield { type: "redacted_reasoning", index: part.id ?? null, data: meta(part).redactedData };
      break;
    }
    case "reasoning-end":
      if (meta(part).redactedContent != null) {
        yield { type: "redacted_reasoning", index: part.id ?? null, data: meta(part).redactedContent };
      }
      break;
    case "tool-input-start":
      state.started.add(part.id);
      yield { type: "tool_call", index: part.id, id: part.id, name: part.toolName, input_delta: "" };
      break;
    case "tool-input-delta":
      yield { type: "tool_call", index: part.id, input_delta: part.delta ?? part.inputTextDelta };
      break;
    case "tool-call": // streamed already, unless the release streams no input parts
      if (!state.started.has(part.toolCallId)) {
        yield { type: "tool_call", id: part.toolCallId, name: part.toolName, input: part.input ?? part.args };
      }
      break;
    case "finish-step":
      state.metadata = meta(part);
      break;
    case "finish":
      // Bedrock's own stopReason where the release keeps it (rawFinishReason), else the SDK's unified reason
      yield { type: "stop", reason: part.rawFinishReason ?? part.finishReason ?? null };
      yield usageChunk(part.totalUsage ?? part.usage, state.metadata);
      break;
    case "error":
      yield errorChunk(part.error);
      break;
    default:
      break;
  }
}

// ---- the SDK's assistant message -> the Anthropic-format message chunk ----

function anthropicBlock(part) {
  const options = part.providerOptions?.bedrock ?? part.providerOptions?.amazonBedrock
    ?? part.providerMetadata?.bedrock ?? part.providerMetadata?.amazonBedrock ?? {};
  switch (part.type) {
    case "text": return { type: "text", text: part.text };
    case "reasoning":
      if (options.redactedData != null) return { type: "redacted_thinking", data: options.redactedData };
      if (options.redactedContent != null) return { type: "redacted_thinking", data: options.redactedContent };
      return { type: "thinking", thinking: part.text, ...(options.signature != null ? { signature: options.signature } : {}) };
    case "tool-call": return { type: "tool_use", id: part.toolCallId, name: part.toolName, input: part.input ?? part.args };
    default: return null;
  }
}

function anthropicMessage(messages) {
  const parts = messages.filter((m) => m.role === "assistant")
    .flatMap((m) => typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content);
  return { role: "assistant", content: parts.map(anthropicBlock).filter(Boolean) };
}

const jsonSafe = (value) => JSON.parse(JSON.stringify(value, (key, v) =>
  v instanceof Uint8Array ? Buffer.from(v).toString("base64") : v instanceof URL ? v.href : v));

// ---- conversation mode ----

class Conversation {
  constructor() { this.id = undefined; this.messages = []; this.assistant = []; }

  history(turn) {
    if (!("conversation" in turn) || turn.conversation !== this.id) {
      this.id = turn.conversation; this.messages = [];
    } else {
      this.messages.push(...this.assistant);
    }
    this.assistant = [];
    this.messages.push(...converted(turn.messages ?? [], this.messages));
    return this.messages;
  }

  async* turn(turn, endpoint) {
    const options = callOptions(turn, endpoint, this.history(turn));
    let failed = null, response = null;
    const state = { started: new Set(), metadata: null };
    try {
      const result = ai.streamText({ ...options, onError: () => {} });
      for await (const part of result.fullStream) {
        for (const chunk of partChunks(part, state)) {
          if (!failed) yield chunk; // nothing follows an error chunk
          if (chunk.type === "error") failed ??= chunk;
        }
      }
      if (!failed) response = await result.response;
    } catch (error) {
      failed = errorChunk(error);
      yield failed;
    }
    if (response) {
      this.assistant = response.messages; // appended as an application does, before the next turn's messages
      yield { type: "message", message: anthropicMessage(response.messages) };
    }
    if (!turn.non_streaming) return;
    yield response ? { type: "native", path: "stream", message: jsonSafe(response.messages) }
      : { type: "native", path: "stream", error: `${failed.code}: ${failed.message}` };
    yield await whole(options);
  }
}

// generateText on the same input: its response.messages, or what it threw.
async function whole(options) {
  try {
    const result = await ai.generateText(options);
    return { type: "native", path: "converse", message: jsonSafe(result.response.messages) };
  } catch (error) {
    const failed = errorChunk(error);
    return { type: "native", path: "converse", error: `${failed.code}: ${failed.message}` };
  }
}

async function main() {
  const conversation = new Conversation();
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if (message.type === "hello") {
      send({ type: "hello", name: "ai-sdk", version, capabilities: CAPABILITIES });
    } else if (message.type === "turn") {
      try {
        for await (const chunk of conversation.turn(message.turn, message.endpoint)) send({ type: "chunk", chunk });
        send({ type: "done" });
      } catch (error) { // a turn the shim cannot express: say so, keep serving
        send({ type: "error", message: `${error.name}: ${error.message}`, traceback: String(error.stack ?? "") });
      }
    }
  }
}

await main();
