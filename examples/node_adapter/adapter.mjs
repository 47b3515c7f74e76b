#!/usr/bin/env node
// A Bedrock ConverseStream adapter in Node.js (@aws-sdk/client-bedrock-runtime) speaking bedrock-harness's
// subprocess protocol: JSON lines in on stdin, JSON lines out on stdout, logs on stderr.
//
//   sh examples/node_adapter/install.sh
//   bedrock-harness certify --command "node examples/node_adapter/adapter.mjs"
//   bedrock-harness certify --command "node examples/node_adapter/adapter.mjs --conversation"
//
// With --conversation it owns its history (capability own_history): each turn after the first brings only the
// new messages, and it sends back the assistant message it assembled from its own stream.
//
// {"type":"hello"} is answered with name, version and capabilities; each {"type":"turn"} with
// {"type":"chunk"} lines and a closing {"type":"done"} (or {"type":"error"}). EOF on stdin: exit 0.
// The harness sets AWS_ENDPOINT_URL_BEDROCK_RUNTIME (its loopback Bedrock endpoint), AWS_REGION and dummy
// credentials; the turn message's endpoint names the same URL and is the fallback.

import { createInterface } from "node:readline";
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";

const NAME = "example-node-aws-sdk-v3";
const VERSION = "1.0.0";
const CAPABILITIES = ["text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature",
  "redacted_reasoning", "usage", "cache_usage", "stop_reason", "round_trip", "errors", "streaming", "non_streaming",
  "service_tier", "guardrail", "response_fields", "response_metadata"];
const GUARDRAIL = { identifier: "guardrailIdentifier", version: "guardrailVersion", trace: "trace",
  stream_processing_mode: "streamProcessingMode" };
const IMAGE_FORMATS = { "image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp" };

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

// ---- the turn (Anthropic-format history) -> ConverseStream input ----

function toolResultContent(content) {
  if (content === null || content === undefined || content === "") return [];
  if (typeof content === "string") return [{ text: content }];
  if (!Array.isArray(content)) return [{ json: content }];
  return content.map((part) => typeof part === "string" ? { text: part }
    : part.type === "text" ? { text: part.text } : jsonPart(part.json ?? part));
}

// Bedrock takes only a JSON object as json ("Provide a json object for the field"): anything else goes as text.
function jsonPart(value) {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return { json: value };
  return { text: typeof value === "string" ? value : JSON.stringify(value) };
}

// The families seen accepting toolResult.status; Writer Palmyra rejects it, others are unknown: leave it out there.
const STATUS_MODELS = ["anthropic.", "amazon.nova", "moonshot", "meta.", "mistral.", "cohere."];

function converseBlock(block, status = true) {
  switch (block.type) {
    case "text": // Bedrock rejects blank text
      return block.text.trim() ? { text: block.text } : null;
    case "tool_use": // the id exactly as Bedrock sent it; a zero-argument input is {}, never ""
      return { toolUse: { toolUseId: block.id, name: block.name, input: block.input ?? {} } };
    case "tool_result":
      return { toolResult: { toolUseId: block.tool_use_id, content: toolResultContent(block.content),
        ...(status ? { status: block.is_error ? "error" : "success" } : {}) } };
    case "thinking": { // the signature goes back byte for byte, or thinking + tools follow-ups fail
      const text = { text: block.thinking ?? "" };
      if (block.signature) text.signature = block.signature;
      return { reasoningContent: { reasoningText: text } };
    }
    case "redacted_thinking":
      return { reasoningContent: { redactedContent: Buffer.from(block.data, "base64") } };
    case "image":
      return { image: { format: IMAGE_FORMATS[block.source.media_type],
        source: { bytes: Buffer.from(block.source.data, "base64") } } };
    default:
      throw new Error(`unsupported content block type ${JSON.stringify(block.type)}`);
  }
}

// Same-role messages merged (parallel tool results share ONE user turn); reasoning first in an assistant
// turn and tool results first in a user turn, as Bedrock requires.
function converseMessages(history, status = true) {
  const merged = [];
  for (const message of history) {
    const items = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    const blocks = items.map((block) => converseBlock(block, status)).filter(Boolean);
    if (!blocks.length) continue;
    const last = merged[merged.length - 1];
    if (last && last.role === message.role) last.content.push(...blocks);
    else merged.push({ role: message.role, content: blocks });
  }
  for (const message of merged) {
    const first = message.role === "assistant" ? "reasoningContent" : "toolResult";
    message.content.sort((a, b) => (first in b) - (first in a)); // Array.prototype.sort is stable
  }
  return merged;
}

function toolConfig(tools, choice, thinking) {
  if (!tools || !tools.length) return undefined; // Bedrock rejects an empty tool list
  const specs = tools.map((t) => ({ toolSpec: { name: t.name,
    ...(t.description ? { description: t.description } : {}), inputSchema: { json: t.input_schema } } }));
  if (thinking) choice = "auto"; // Bedrock refuses forced tool use while thinking
  if (choice === "auto" || choice === "any") return { tools: specs, toolChoice: { [choice]: {} } };
  if (choice && typeof choice === "object") return { tools: specs, toolChoice: { tool: { name: choice.name } } };
  return { tools: specs };
}

function converseInput(turn) {
  const options = turn.options ?? {};
  const budget = options.thinking_budget;
  const inferenceConfig = { maxTokens: options.max_tokens };
  // Bedrock rejects a temperature with thinking on
  if (!budget && options.temperature !== null && options.temperature !== undefined) {
    inferenceConfig.temperature = options.temperature;
  }
  const status = STATUS_MODELS.some((family) => turn.model_id.includes(family));
  const input = { modelId: turn.model_id, messages: converseMessages(turn.messages, status), inferenceConfig };
  if (turn.system) input.system = [{ text: turn.system }];
  const config = toolConfig(turn.tools, options.tool_choice, Boolean(budget));
  if (config) input.toolConfig = config;
  if (budget) input.additionalModelRequestFields = { thinking: { type: "enabled", budget_tokens: budget } };
  return { ...input, ...served(options) };
}

// How the turn asks to be served: service tier, latency, guardrail, the response fields to return.
function served(options) {
  const out = {};
  if (options.service_tier) out.serviceTier = { type: options.service_tier };
  if (options.latency) out.performanceConfig = { latency: options.latency };
  if (options.guardrail) {
    out.guardrailConfig = Object.fromEntries(Object.entries(options.guardrail)
      .filter(([, value]) => value).map(([key, value]) => [GUARDRAIL[key], value]));
  }
  if (options.response_field_paths?.length) out.additionalModelResponseFieldPaths = options.response_field_paths;
  return out;
}

// Converse's guardrailConfig has no streamProcessingMode: the non-streaming call leaves it out.
function converseTwin(input) {
  if (!input.guardrailConfig?.streamProcessingMode) return input;
  const { streamProcessingMode, ...guardrail } = input.guardrailConfig;
  return { ...input, guardrailConfig: guardrail };
}

// How the service served the turn: a prompt router's invoked model, the service tier, the latency (or null).
function metadataChunk(metadata) {
  const chunk = { invoked_model_id: metadata.trace?.promptRouter?.invokedModelId ?? null,
    service_tier: metadata.serviceTier?.type ?? null, latency: metadata.performanceConfig?.latency ?? null };
  return Object.values(chunk).some((value) => value !== null) ? { type: "metadata", ...chunk } : null;
}

// ---- ConverseStream events -> stream chunks ----

// Bedrock names an in-stream exception event in lowerCamel (throttlingException); the SDK throws it as a
// ThrottlingException. Report the wire's name, as every SDK's users see it in the event.
const errorChunk = (error, inStream) => ({ type: "error",
  code: inStream ? error.name.charAt(0).toLowerCase() + error.name.slice(1) : error.name, message: error.message });

function* deltaChunks(index, delta, calls) {
  if (delta.text) yield { type: "text", index, text: delta.text };
  const reasoning = delta.reasoningContent ?? {};
  if (reasoning.text) yield { type: "reasoning", index, text: reasoning.text };
  if (reasoning.signature) yield { type: "reasoning", index, signature: reasoning.signature };
  if (reasoning.redactedContent) {
    yield { type: "redacted_reasoning", index, data: Buffer.from(reasoning.redactedContent).toString("base64") };
  }
  // deltas of server-side tools (which ran inside Bedrock) are not calls for the application
  if (delta.toolUse?.input && calls.has(index)) {
    yield { type: "tool_call", index, ...calls.get(index), input_delta: delta.toolUse.input };
  }
}

// Blocks are tracked by contentBlockIndex, so parallel tool calls never mix.
async function* eventChunks(events) {
  const calls = new Map();
  let stopped = false;
  for await (const event of events) {
    if (event.contentBlockStart) {
      const index = event.contentBlockStart.contentBlockIndex;
      const start = event.contentBlockStart.start ?? {};
      const tool = start.toolUse;
      if (!tool && !start.toolResult && Object.keys(start).length) { // an image, or a kind newer than the SDK
        yield { type: "other", index, kind: start.$unknown?.[0] ?? Object.keys(start)[0] };
      }
      if (!tool || tool.type === "server_tool_use") continue;
      if (!tool.toolUseId || !tool.name) {
        yield { type: "error", code: "invalidToolUse",
          message: `toolUse at contentBlockIndex ${index} has no toolUseId or name` };
        return;
      }
      calls.set(index, { id: tool.toolUseId, name: tool.name });
      yield { type: "tool_call", index, ...calls.get(index), input_delta: "" };
    } else if (event.contentBlockDelta) {
      yield* deltaChunks(event.contentBlockDelta.contentBlockIndex, event.contentBlockDelta.delta, calls);
    } else if (event.messageStop) {
      stopped = true;
      yield { type: "stop", reason: event.messageStop.stopReason };
      if (event.messageStop.additionalModelResponseFields !== undefined) {
        yield { type: "response_fields", fields: event.messageStop.additionalModelResponseFields };
      }
    } else if (event.metadata?.usage) {
      const usage = event.metadata.usage;
      yield { type: "usage", input_tokens: usage.inputTokens, output_tokens: usage.outputTokens,
        cache_read_input_tokens: usage.cacheReadInputTokens ?? 0,
        cache_write_input_tokens: usage.cacheWriteInputTokens ?? 0 };
      const servedBy = metadataChunk(event.metadata);
      if (servedBy) yield servedBy;
    }
  }
  // a cut-off stream: never let a half-streamed tool call pass as complete
  if (!stopped) yield { type: "error", code: "incompleteStream", message: "the stream ended before messageStop" };
}

// The turn's chunks; when the turn asks (non_streaming), then the message assembled from the stream and the one
// from the non-streaming Converse call on the same input, which the harness holds equal.
async function* streamTurn(client, turn) {
  const input = converseInput(turn);
  const chunks = [];
  for await (const chunk of streamed(client, input)) {
    chunks.push(chunk);
    yield chunk;
  }
  if (!turn.non_streaming) return;
  const failed = chunks.find((c) => c.type === "error");
  yield failed ? { type: "native", path: "stream", error: `${failed.code}: ${failed.message}` }
    : { type: "native", path: "stream", message: assemble(chunks) };
  try {
    yield { type: "native", path: "converse", message: wholeMessage(await client.send(new ConverseCommand(converseTwin(input)))) };
  } catch (error) { // the non-streaming call failed: that is its result
    yield { type: "native", path: "converse", error: `${error.name}: ${error.message}` };
  }
}

// A Converse response's message as the Anthropic-format message assemble() builds from a stream.
function wholeMessage(response) {
  const blocks = [];
  for (const block of response.output.message.content) {
    const reasoning = block.reasoningContent ?? {};
    if (block.text) blocks.push({ type: "text", text: block.text });
    else if (block.toolUse && block.toolUse.type !== "server_tool_use") {
      if (!block.toolUse.toolUseId || !block.toolUse.name) throw new Error("a toolUse without toolUseId or name");
      blocks.push({ type: "tool_use", id: block.toolUse.toolUseId, name: block.toolUse.name, input: block.toolUse.input });
    } else if (reasoning.reasoningText) {
      const text = reasoning.reasoningText;
      blocks.push({ type: "thinking", thinking: text.text ?? "", ...(text.signature ? { signature: text.signature } : {}) });
    } else if (reasoning.redactedContent) {
      blocks.push({ type: "redacted_thinking", data: Buffer.from(reasoning.redactedContent).toString("base64") });
    }
  }
  return { role: "assistant", content: blocks };
}

async function* streamed(client, input) {
  let response;
  try {
    response = await client.send(new ConverseStreamCommand(input));
  } catch (error) { // after the SDK's retries (a 429 is retried)
    if (!error.$metadata) throw error; // not Bedrock's answer: a bug, reported as the turn's error
    yield errorChunk(error, false);
    return;
  }
  try {
    yield* eventChunks(response.stream);
  } catch (error) { // in-stream exceptions and broken connections end the stream
    yield errorChunk(error, true);
  }
}

// ---- conversation mode: the history is ours, and so is the assistant message we send back ----

// The assistant message of one streamed turn: a block per contentBlockIndex, in stream order.
function assemble(chunks) {
  const blocks = new Map();
  const args = new Map();
  for (const chunk of chunks) {
    const key = `${chunk.type}:${chunk.index}`;
    if (chunk.type === "text") {
      if (!blocks.has(key)) blocks.set(key, { type: "text", text: "" });
      blocks.get(key).text += chunk.text;
    } else if (chunk.type === "reasoning") {
      if (!blocks.has(key)) blocks.set(key, { type: "thinking", thinking: "" });
      blocks.get(key).thinking += chunk.text ?? "";
      if (chunk.signature) blocks.get(key).signature = chunk.signature;
    } else if (chunk.type === "redacted_reasoning") {
      blocks.set(`${key}:${blocks.size}`, { type: "redacted_thinking", data: chunk.data });
    } else if (chunk.type === "tool_call") {
      if (!blocks.has(key)) blocks.set(key, { type: "tool_use", id: chunk.id, name: chunk.name });
      args.set(key, (args.get(key) ?? "") + chunk.input_delta);
    }
  }
  for (const [key, text] of args) {
    try { // a zero-argument call streams no input at all: its input is {}
      blocks.get(key).input = text.trim() ? JSON.parse(text) : {};
    } catch { // cut off by max_tokens: it cannot be executed or sent back
      blocks.delete(key);
    }
  }
  return { role: "assistant", content: [...blocks.values()] };
}

// The history of the conversation a turn names; a new name starts afresh.
class Conversation {
  constructor() { this.name = null; this.messages = []; this.assistant = null; }

  turn(turn) {
    if (turn.conversation !== this.name) {
      this.name = turn.conversation; this.messages = []; this.assistant = null;
    }
    if (this.assistant) this.messages.push(this.assistant);
    this.messages.push(...turn.messages);
    return { ...turn, messages: [...this.messages] };
  }

  async* stream(client, turn) {
    const chunks = [];
    for await (const chunk of streamTurn(client, this.turn(turn))) {
      chunks.push(chunk);
      yield chunk;
    }
    this.assistant = chunks.some((c) => c.type === "error") ? null : assemble(chunks);
    // reported, so the harness compares it with what was streamed
    if (this.assistant) yield { type: "message", message: this.assistant };
  }
}

// The bedrock-runtime client defaults to HTTP/2, which real Bedrock negotiates over TLS; the harness's loopback
// endpoint is plain-text HTTP/1.1, so the client gets the HTTP/1.1 handler.
function makeClient(endpoint) {
  return new BedrockRuntimeClient({
    requestHandler: new NodeHttpHandler(),
    endpoint: process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME ?? endpoint.endpoint_url,
    region: process.env.AWS_REGION ?? endpoint.region,
    ...(process.env.AWS_ACCESS_KEY_ID ? {} : { credentials: {
      accessKeyId: endpoint.aws_access_key_id, secretAccessKey: endpoint.aws_secret_access_key } }),
    maxAttempts: 3,
  });
}

async function main() {
  const conversation = process.argv.includes("--conversation") ? new Conversation() : null;
  const capabilities = conversation ? [...CAPABILITIES, "own_history"] : CAPABILITIES;
  let client;
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if (message.type === "hello") {
      send({ type: "hello", name: NAME, version: VERSION, capabilities });
    } else if (message.type === "turn") {
      console.error(`${message.scenario} turn ${message.index}`);
      client ??= makeClient(message.endpoint);
      const chunks = conversation ? conversation.stream(client, message.turn) : streamTurn(client, message.turn);
      try {
        for await (const chunk of chunks) send({ type: "chunk", chunk });
        send({ type: "done" });
      } catch (error) { // a turn this adapter cannot send: say so, keep serving
        send({ type: "error", message: `${error.name}: ${error.message}` });
      }
    }
  }
  // EOF on stdin: the harness is done; exit 0 once stdout has drained
}

await main();
