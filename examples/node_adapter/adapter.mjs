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
  "cache_points", "cache_details", "structured_output", "tool_result_media", "citations",
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
    : part.type === "text" ? { text: part.text }
    : part.type === "image" || part.type === "document" ? mediaBlock(part)
    : part.type === "search_result" ? searchResult(part) : jsonPart(part.json ?? part));
}

// A RAG tool's search result as Bedrock's own block, so the model can cite it (searchResultLocation).
function searchResult(part) {
  return { searchResult: { source: part.source, title: part.title, content: part.content.map((c) => ({ text: c.text })),
    ...(part.citations ? { citations: part.citations } : {}) } };
}

const DOCUMENT_FORMATS = { "application/pdf": "pdf", "text/csv": "csv", "text/plain": "txt", "text/markdown": "md",
  "text/html": "html" };

// An image or a document as its own Converse block (never its base64 as text: the model would not see it).
function mediaBlock(block) {
  const citations = block.citations ? { citations: block.citations } : {};
  const name = block.title ?? "document";
  if (block.source.type === "text") { // a plain-text document (citations need it enabled)
    return { document: { format: "txt", name, source: { text: block.source.data }, ...citations } };
  }
  const bytes = Buffer.from(block.source.data, "base64");
  if (block.type === "image") return { image: { format: IMAGE_FORMATS[block.source.media_type], source: { bytes } } };
  return { document: { format: DOCUMENT_FORMATS[block.source.media_type], name, source: { bytes }, ...citations } };
}

// The families that take an image inside a tool result; the others take it beside the result.
const RESULT_IMAGE_MODELS = ["anthropic.", "amazon.nova", "meta."];

// A user turn's blocks with the media a family takes only beside a tool result moved there, as their own blocks:
// images for every family but Claude, Nova and Llama ("This model doesn't support the image field for user
// messages"), and anything but text in a Claude error result ("all content must be type `text` if `is_error`").
function hoisted(blocks, modelId, errors) {
  const images = RESULT_IMAGE_MODELS.some((name) => modelId.includes(name));
  const textOnlyErrors = modelId.includes("anthropic.");
  const results = [], moved = [], rest = [];
  for (const block of blocks) {
    if (!block.toolResult) { rest.push(block); continue; }
    const error = errors.has(block.toolResult.toolUseId);
    const out = block.toolResult.content.filter((p) => (p.image && !images)
      || (textOnlyErrors && error && p.text === undefined && p.json === undefined));
    const kept = block.toolResult.content.filter((p) => !out.includes(p));
    block.toolResult.content = kept.length || !out.length ? kept : [{ text: "(attached after the tool results)" }];
    results.push(block);
    moved.push(...out);
  }
  return [...results, ...moved, ...rest];
}

// Bedrock takes only a JSON object as json ("Provide a json object for the field"): anything else goes as text.
function jsonPart(value) {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return { json: value };
  return { text: typeof value === "string" ? value : JSON.stringify(value) };
}

// The families seen accepting toolResult.status; Writer Palmyra rejects it, others are unknown: leave it out there.
const STATUS_MODELS = ["anthropic.", "amazon.nova", "moonshot", "meta.", "mistral.", "cohere."];
// Writer Palmyra refuses tools on ConverseStream ("This model doesn't support tool use in streaming mode."): its
// tool calls go through Converse.
const NO_STREAMED_TOOLS = ["writer."];

function converseBlock(block, status = true) {
  switch (block.type) {
    case "text": // Bedrock rejects blank text; a cited answer goes back with its citations
      if (!block.text.trim()) return null;
      return block.citations?.length ? { citationsContent: { content: [{ text: block.text }], citations: block.citations } }
        : { text: block.text };
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
    case "document":
      return mediaBlock(block);
    default:
      throw new Error(`unsupported content block type ${JSON.stringify(block.type)}`);
  }
}

// Anthropic's cache_control as Bedrock's cachePoint block (no ttl: Bedrock's default, 5m).
const cachePoint = (control) => ({ cachePoint: { type: "default", ...(control.ttl ? { ttl: control.ttl } : {}) } });

// A converted block and, when the block asks for one, the cache point after it: beside a tool result in the
// message's content (never inside toolResult.content, where it is no member).
const withCachePoint = (made, block) => !made ? [] : block.cache_control ? [made, cachePoint(block.cache_control)] : [made];

// Same-role messages merged (parallel tool results share ONE user turn); reasoning first in an assistant
// turn and tool results first in a user turn, as Bedrock requires.
function converseMessages(history, status = true, modelId = "") {
  const merged = [];
  const errors = new Set(); // the ids of the error results, whether or not status goes to the model
  // Unsigned reasoning goes back to gpt-oss only: Nova and Claude without thinking reject it ("User messages cannot
  // contain reasoning content"), and every model tried accepts the follow-up without it.
  const unsigned = modelId.includes("openai.");
  for (const message of history) {
    let items = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (message.role === "assistant" && !unsigned) {
      items = items.filter((b) => b.type !== "thinking" || b.signature);
    }
    for (const block of items) if (block.type === "tool_result" && block.is_error) errors.add(block.tool_use_id);
    const blocks = items.flatMap((block) => withCachePoint(converseBlock(block, status), block));
    if (!blocks.length) continue;
    const last = merged[merged.length - 1];
    if (last && last.role === message.role) last.content.push(...blocks);
    else merged.push({ role: message.role, content: blocks });
  }
  for (const message of merged) {
    const first = message.role === "assistant" ? "reasoningContent" : "toolResult";
    message.content.sort((a, b) => (first in b) - (first in a)); // Array.prototype.sort is stable
    if (message.role === "user") message.content = hoisted(message.content, modelId, errors);
  }
  return merged;
}

function toolConfig(tools, choice, thinking) {
  // Bedrock rejects an empty tool list; a turn without tools sends no tool choice either
  if (!tools || !tools.length) return undefined;
  // a tool's cache point is its own toolConfig.tools element: a tools element sets exactly one member
  const specs = tools.flatMap((t) => [{ toolSpec: { name: t.name,
    ...(t.description ? { description: t.description } : {}), inputSchema: { json: t.input_schema },
    ...(t.strict ? { strict: true } : {}) } }, ...(t.cache_control ? [cachePoint(t.cache_control)] : [])]);
  if (thinking) choice = "auto"; // Bedrock refuses forced tool use while thinking
  if (choice === "auto" || choice === "any") return { tools: specs, toolChoice: { [choice]: {} } };
  if (choice && typeof choice === "object") return { tools: specs, toolChoice: { tool: { name: choice.name } } };
  return { tools: specs };
}

function converseInput(turn) {
  const options = turn.options ?? {};
  const budget = options.thinking_budget;
  const inferenceConfig = { maxTokens: options.max_tokens };
  if (options.stop_sequences?.length) inferenceConfig.stopSequences = options.stop_sequences;
  // Bedrock rejects a temperature with thinking on
  if (!budget && options.temperature !== null && options.temperature !== undefined) {
    inferenceConfig.temperature = options.temperature;
  }
  const status = STATUS_MODELS.some((family) => turn.model_id.includes(family));
  const input = { modelId: turn.model_id, messages: converseMessages(turn.messages, status, turn.model_id), inferenceConfig };
  if (typeof turn.system === "string" && turn.system) input.system = [{ text: turn.system }];
  else if (Array.isArray(turn.system)) input.system = turn.system.flatMap((b) => withCachePoint({ text: b.text }, b));
  const wanted = options.output_format;
  if (wanted) { // structured output: outputConfig (Bedrock ignores a response_format in additionalModelRequestFields)
    const jsonSchema = { schema: JSON.stringify(wanted.schema), ...(wanted.name ? { name: wanted.name } : {}),
      ...(wanted.description ? { description: wanted.description } : {}) };
    input.outputConfig = { textFormat: { type: "json_schema", structure: { jsonSchema } } };
  }
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
  // Bedrock's key is citation (not citationsContent); it comes before the text it cites
  if (delta.citation) yield { type: "citation", index, citation: delta.citation };
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
      yield usageChunk(usage);
      const servedBy = metadataChunk(event.metadata);
      if (servedBy) yield servedBy;
    }
  }
  // a cut-off stream: never let a half-streamed tool call pass as complete
  if (!stopped) yield { type: "error", code: "incompleteStream", message: "the stream ended before messageStop" };
}

// Bedrock's usage; cacheDetails (the cache writes per TTL, 1h before 5m) when it sent any.
function usageChunk(usage) {
  const chunk = { type: "usage", input_tokens: usage.inputTokens, output_tokens: usage.outputTokens,
    cache_read_input_tokens: usage.cacheReadInputTokens ?? 0, cache_write_input_tokens: usage.cacheWriteInputTokens ?? 0 };
  const details = (usage.cacheDetails ?? []).map((d) => ({ ttl: d.ttl, input_tokens: d.inputTokens }));
  return details.length ? { ...chunk, cache_details: details } : chunk;
}

// The turn's chunks; when the turn asks (non_streaming), then the message assembled from the stream and the one
// from the non-streaming Converse call on the same input, which the harness holds equal.
async function* streamTurn(client, turn) {
  const input = converseInput(turn);
  const chunks = [];
  const streams = !input.toolConfig || !NO_STREAMED_TOOLS.some((name) => input.modelId.includes(name));
  for await (const chunk of streams ? streamed(client, input) : whole(client, input)) {
    chunks.push(chunk);
    yield chunk;
  }
  if (!turn.non_streaming) return;
  const failed = chunks.find((c) => c.type === "error");
  const native = (path) => failed ? { type: "native", path, error: `${failed.code}: ${failed.message}` }
    : { type: "native", path, message: assemble(chunks) };
  yield native("stream");
  if (!streams) { // the one Converse call both paths made
    yield native("converse");
    return;
  }
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
    else if (block.citationsContent) {
      blocks.push({ type: "text", text: (block.citationsContent.content ?? []).map((c) => c.text ?? "").join(""),
        citations: block.citationsContent.citations ?? [] });
    } else if (block.toolUse && block.toolUse.type !== "server_tool_use") {
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

// The chunks of a non-streaming Converse call: each block whole, then the stop reason and usage.
async function* whole(client, input) {
  let response;
  try {
    response = await client.send(new ConverseCommand(input));
  } catch (error) {
    if (!error.$metadata) throw error;
    yield errorChunk(error, false);
    return;
  }
  for (const [index, block] of wholeMessage(response).content.entries()) {
    if (block.type === "text") {
      for (const citation of block.citations ?? []) yield { type: "citation", index, citation };
      yield { type: "text", index, text: block.text };
    } else if (block.type === "tool_use") yield { type: "tool_call", index, id: block.id, name: block.name, input: block.input };
    else if (block.type === "thinking") {
      yield { type: "reasoning", index, text: block.thinking };
      if (block.signature) yield { type: "reasoning", index, signature: block.signature };
    } else if (block.type === "redacted_thinking") yield { type: "redacted_reasoning", index, data: block.data };
  }
  yield { type: "stop", reason: response.stopReason };
  const usage = response.usage;
  yield { type: "usage", input_tokens: usage.inputTokens, output_tokens: usage.outputTokens,
    cache_read_input_tokens: usage.cacheReadInputTokens ?? 0, cache_write_input_tokens: usage.cacheWriteInputTokens ?? 0 };
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
    if (chunk.type === "text" || chunk.type === "citation") { // a citation belongs to the text block of its index
      const text = `text:${chunk.index}`;
      if (!blocks.has(text)) blocks.set(text, { type: "text", text: "" });
      if (chunk.type === "text") blocks.get(text).text += chunk.text;
      else (blocks.get(text).citations ??= []).push(chunk.citation);
    } else if (chunk.type === "reasoning") {
      if (!blocks.has(key)) blocks.set(key, { type: "thinking", thinking: "" });
      blocks.get(key).thinking += chunk.text ?? "";
      if (chunk.signature) blocks.get(key).signature = chunk.signature;
    } else if (chunk.type === "redacted_reasoning") {
      blocks.set(`${key}:${blocks.size}`, { type: "redacted_thinking", data: chunk.data });
    } else if (chunk.type === "tool_call") {
      if (!blocks.has(key)) blocks.set(key, { type: "tool_use", id: chunk.id, name: chunk.name });
      // a non-streamed call arrives whole, with its input
      args.set(key, "input" in chunk ? JSON.stringify(chunk.input) : (args.get(key) ?? "") + chunk.input_delta);
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
