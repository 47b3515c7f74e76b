// What the AI SDK shims share (ai_sdk.mjs: streamText turn by turn; ai_sdk_agent.mjs: the SDK's own tool loop):
// loading the installed packages, the loopback-only provider, the scenario's messages as ModelMessages, the stream
// parts as chunks (nothing repaired), the SDK's assistant message as an Anthropic-format message; the protocol loop
// is protocol.mjs's, re-exported.

import { answering } from "./eventstream.mjs";
import { loadEntry, Skip, send, serve } from "./protocol.mjs";

export { Skip, send, serve };

// The packages, through the entry module beside them: `--modules DIR` (or BEDROCK_HARNESS_AI_SDK_MODULES).
export const load = (program) =>
  loadEntry(program, "BEDROCK_HARNESS_AI_SDK_MODULES", "bedrock-harness-ai-sdk.mjs", "the AI SDK's");

// ---- never a real AWS host ----

export class EndpointRefused extends Error {
  constructor(url, expected) {
    super(`the AI SDK's request goes to ${JSON.stringify(url)}, not the loopback endpoint ${JSON.stringify(expected)}:`
      + " refused, so that the library never reaches a real AWS host");
    this.name = "EndpointRefused";
  }
}

const origin = (url) => { const u = new URL(url); return `${u.protocol}//${u.hostname}:${u.port || (u.protocol === "https:" ? 443 : 80)}`; };

// The provider's fetch: a request is checked against the loopback endpoint before anything is sent.
export function guardedFetch(expected) {
  return (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (origin(url) !== origin(expected)) return Promise.reject(new EndpointRefused(url, expected));
    return fetch(input, init);
  };
}

export function model(bedrock, turn, endpoint) {
  const provider = bedrock.createAmazonBedrock({ region: endpoint.region, baseURL: endpoint.endpoint_url,
    accessKeyId: endpoint.aws_access_key_id, secretAccessKey: endpoint.aws_secret_access_key,
    fetch: guardedFetch(endpoint.endpoint_url) });
  return provider(turn.model_id);
}

// ---- what the release declares ----

// From provider specification v3 (@ai-sdk/amazon-bedrock 4.x) inputTokens is the total with the cache reads and
// writes (convertAmazonBedrockUsage); the v1 and v2 lines (2.x, 3.x) pass on Bedrock's own inputTokens. The model
// says which specification it speaks; building one sends nothing.
// The older lines' `ai` (4, 5) takes the system prompt as a string only, so they place no cache point there and
// declare no cache_points.
const specification = (bedrock) => bedrock.createAmazonBedrock({ region: "us-east-1", accessKeyId: "unused",
  secretAccessKey: "unused" })("probe").specificationVersion;

export const olderSpecification = (bedrock) => ["v1", "v2"].includes(specification(bedrock));

// An image or document in a tool result's content output, in the shape the release's `ai` validates: `ai` 7
// (specification v4) a file part with its data ({type: "data"}); `ai` 6 (v3) image-data / file-data parts; `ai` 5
// (v2) a media part. A document's title is its filename, as in a user part.
export function mediaPart(bedrock) {
  const version = specification(bedrock);
  return (part) => {
    const { media_type: mediaType, data } = part.source;
    const filename = part.type === "document" && part.title != null ? { filename: part.title } : {};
    if (version === "v2") return { type: "media", data, mediaType };
    if (version === "v3") return part.type === "image" ? { type: "image-data", data, mediaType }
      : { type: "file-data", data, mediaType, ...filename };
    return { type: "file", mediaType, data: { type: "data", data }, ...filename };
  };
}

export async function capabilities(declared, bedrock, ai) {
  const newer = ["usage_input_includes_cache", "cache_points"];
  const own = [...declared, ...typeof ai.Output?.object === "function" ? ["structured_output"] : [],
    ...await keepsServedMetadata(bedrock) ? ["response_metadata"] : [],
    ...await asksForCitations(bedrock) ? ["citations"] : []];
  return olderSpecification(bedrock) ? own.filter((name) => !newer.includes(name)) : own;
}

// The metadata event's members that say how a turn was served, as the probe's answer carries them.
const SERVED = { trace: { promptRouter: { invokedModelId: "probe-router-target" } }, serviceTier: { type: "flex" },
  performanceConfig: { latency: "optimized" } };
const ANSWER = [["messageStart", { role: "assistant" }], ["messageStop", { stopReason: "end_turn" }],
  ["metadata", { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, metrics: { latencyMs: 1 }, ...SERVED }]];

// The provider's own doStream on a user message of `content` (its prompt parts), answered by the probe's fetch with
// ANSWER, nothing sent: {request: the Converse command it posted, finish: its finish part}, or null where it throws.
async function probe(bedrock, content) {
  const requests = [], answer = answering(ANSWER);
  const fetch = (url, init) => { requests.push(typeof init?.body === "string" ? JSON.parse(init.body) : null); return answer(); };
  try {
    const provider = bedrock.createAmazonBedrock({ region: "us-east-1", accessKeyId: "unused", secretAccessKey: "unused",
      baseURL: "http://127.0.0.1:9", fetch });
    const { stream } = await provider("probe").doStream({ prompt: [{ role: "user", content }] });
    let finish = {};
    for await (const part of stream) if (part.type === "finish") finish = part;
    return { request: requests[0], finish };
  } catch {
    return null; // a provider that cannot take the probe's turn has none of what it asks
  }
}

// Whether the release keeps the metadata event's trace, serviceTier and performanceConfig in its finish part's
// providerMetadata.bedrock (4.0.0 keeps the trace alone; 4.0.159 and 5.x all three).
async function keepsServedMetadata(bedrock) {
  const found = await probe(bedrock, [{ type: "text", text: "probe" }]);
  const [served] = metadataChunks(meta(found?.finish ?? {}));
  return served?.invoked_model_id === SERVED.trace.promptRouter.invokedModelId
    && served.service_tier === SERVED.serviceTier.type && served.latency === SERVED.performanceConfig.latency;
}

const PROBE_TEXT = new TextEncoder().encode("probe");

// Whether the release sends a document with citations enabled when its file part asks for them (the documented
// file-part option providerOptions.bedrock.citations, from the 3.0.x line on; 3.0.0 has none).
async function asksForCitations(bedrock) {
  const found = await probe(bedrock, [{ type: "text", text: "probe" }, { type: "file", mediaType: "text/plain",
    filename: "probe", data: olderSpecification(bedrock) || specification(bedrock) === "v3" ? PROBE_TEXT
      : { type: "data", data: PROBE_TEXT }, ...citationOptions({ enabled: true }) }]); // v4 tags a file part's data
  return Boolean(found?.request?.messages?.[0]?.content?.some((block) => block.document?.citations?.enabled === true));
}

// ai 4 gives each message of response.messages an id of its own per call (generateMessageId: 'msg-' and 24 random
// characters); ai 5 dropped it
export const NATIVE_DIFFERENCES = { "[*].id": "ai 4's response.messages carry a message id generated per call "
  + "(generateMessageId, 'msg-' and 24 random characters): streamText and generateText each make their own" };

// ---- the scenario's Anthropic-format messages -> the SDK's ModelMessages ----

// ai 5 renamed the message parts (tool-call `args` -> `input`, tool-result `result` -> `output`, `redacted-reasoning`
// -> `reasoning` with providerOptions, `mimeType` -> `mediaType`) in the release that added stepCountIs: without it,
// the messages take ai 4's shapes (CoreMessage: the @ai-sdk/amazon-bedrock 2.x line).
export const olderMessages = (ai) => typeof ai.stepCountIs !== "function";

const toolNames = (history) => new Map(history.flatMap((m) => Array.isArray(m.content) ? m.content : [])
  .filter((part) => part.type === "tool-call").map((part) => [part.toolCallId, part.toolName]));

export function resultOutput(block, media) {
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
  return { type: "content", value: content.map((part) => resultPart(part, media)) };
}

function resultPart(part, media) {
  if (typeof part === "string") return { type: "text", text: part };
  if ("text" in part) return { type: "text", text: part.text };
  if ("json" in part) return { type: "text", text: JSON.stringify(part.json) };
  if (part.type === "image" || part.type === "document") return media(part);
  // the provider's tool results hold no search result (convertToolResultOutput): a RAG tool's results go as the JSON
  // text an application's tool returns
  if (part.type === "search_result") return { type: "text", text: JSON.stringify(part) };
  throw new Error(`unsupported tool result part ${JSON.stringify(part.type)}`);
}

// ai 4's tool-result part: `result` (the provider sends it JSON.stringify'd), `experimental_content` for parts
function olderResult(block) {
  const content = block.content, flag = block.is_error ? { isError: true } : {};
  if (!Array.isArray(content)) return { result: content ?? "", ...flag };
  if (content.length === 1 && content[0] !== null && typeof content[0] === "object" && "json" in content[0]) {
    return { result: content[0].json, ...flag };
  }
  return { result: content, experimental_content: content.map(olderResultPart), ...flag };
}

function olderResultPart(part) {
  if (part.type === "image") return { type: "image", data: part.source.data, mimeType: part.source.media_type };
  const { text } = resultPart(part);
  return { type: "text", text };
}

// A block's cache_control as the provider's cache point after it (providerOptions.bedrock.cachePoint, which
// convert-to-amazon-bedrock-chat-messages pushes after the part's own block), its TTL kept.
export const cacheOptions = (control) => control
  ? { providerOptions: { bedrock: { cachePoint: { type: "default", ...(control.ttl ? { ttl: control.ttl } : {}) } } } }
  : {};

// The system prompt: a string, or text blocks, each a system message with its cache point (ai 6 and 7 take an array
// of system messages; the older lines get the text joined).
export function systemPrompt(system, older) {
  if (!Array.isArray(system)) return system || undefined;
  if (older) return system.map((block) => block.text).join("\n");
  return system.map((block) => ({ role: "system", content: block.text, ...cacheOptions(block.cache_control) }));
}

// A document's citations setting as the file part's documented option (providerOptions.bedrock.citations), which
// the provider sends as the document's citations {enabled: true}.
export const citationOptions = (citations) => citations ? { providerOptions: { bedrock: { citations } } } : {};

// Options for the provider, merged under providerOptions.bedrock.
const merged = (...options) => {
  const bedrock = Object.assign({}, ...options.map((option) => option.providerOptions?.bedrock ?? {}));
  return Object.keys(bedrock).length ? { providerOptions: { bedrock } } : {};
};

function userPart(block, older) {
  return older ? olderUserPart(block)
    : { ...currentUserPart(block), ...merged(citationOptions(block.citations), cacheOptions(block.cache_control)) };
}

function olderUserPart(block) {
  if (block.type === "text") return { type: "text", text: block.text };
  const { data, media_type: mimeType } = block.source ?? {};
  if (block.type === "image") return { type: "image", image: data, mimeType };
  if (block.type === "document") return { type: "file", data, mimeType };
  throw new Error(`unsupported user content block ${JSON.stringify(block.type)}`);
}

function currentUserPart(block) {
  if (block.type === "text") return { type: "text", text: block.text };
  if (block.type === "image" || block.type === "document") {
    // a document's title is the file part's filename, which the provider sends (sanitized) as the document's name;
    // a plain-text source is the text's bytes (the file part's data is base64 or bytes)
    const data = block.source.type === "text" ? new TextEncoder().encode(block.source.data) : block.source.data;
    return { type: "file", mediaType: block.source.media_type, data,
      ...(block.type === "document" && block.title != null ? { filename: block.title } : {}) };
  }
  throw new Error(`unsupported user content block ${JSON.stringify(block.type)}`);
}

function olderAssistantPart(block) {
  switch (block.type) {
    case "thinking":
      return { type: "reasoning", text: block.thinking ?? "", ...(block.signature ? { signature: block.signature } : {}) };
    case "redacted_thinking": return { type: "redacted-reasoning", data: block.data };
    case "tool_use": return { type: "tool-call", toolCallId: block.id, toolName: block.name, args: block.input ?? {} };
    default: return assistantPart(block);
  }
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
export function converted(messages, history, older, media) {
  const out = [];
  for (const message of messages) {
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (message.role === "assistant") {
      out.push({ role: "assistant", content: blocks.map(older ? olderAssistantPart : assistantPart).filter(Boolean) });
      continue;
    }
    const names = toolNames([...history, ...out]);
    const results = blocks.filter((b) => b.type === "tool_result").map((b) => ({ type: "tool-result",
      toolCallId: b.tool_use_id, toolName: names.get(b.tool_use_id) ?? "",
      ...(older ? olderResult(b) : { output: resultOutput(b, media), ...cacheOptions(b.cache_control) }) }));
    const rest = blocks.filter((b) => b.type !== "tool_result").map((b) => userPart(b, older));
    if (results.length) out.push({ role: "tool", content: results });
    if (rest.length) out.push({ role: "user", content: typeof message.content === "string" ? message.content : rest });
  }
  return out;
}

// ---- the call ----

export function toolChoice(choice) {
  if (choice === "auto") return "auto";
  if (choice === "any") return "required";
  if (choice && typeof choice === "object") return { type: "tool", toolName: choice.name };
  return undefined;
}

const guardrailConfig = (g) => ({ guardrailIdentifier: g.identifier, guardrailVersion: g.version,
  ...(g.trace ? { trace: g.trace } : {}),
  ...(g.stream_processing_mode ? { streamProcessingMode: g.stream_processing_mode } : {}) });

export function callOptions({ ai, bedrock }, turn, endpoint, messages) {
  const options = turn.options ?? {};
  const tools = Object.fromEntries((turn.tools ?? []).map((t) => [t.name, {
    description: t.description, inputSchema: ai.jsonSchema(t.input_schema), parameters: ai.jsonSchema(t.input_schema),
    ...(t.strict != null ? { strict: t.strict } : {}) }]));
  // structured output: the SDK's Output.object with the turn's JSON schema (the provider decides how it is sent)
  const format = options.output_format;
  const budget = options.thinking_budget;
  // providerOptions.bedrock: reasoning, the service tier (a documented option, sent as serviceTier {type}), the
  // latency and the guardrail (performanceConfig, guardrailConfig: not in the options schema, but the provider spreads
  // the options it does not know into the Converse command, getArgs' filteredAmazonBedrockOptions)
  const bedrockOptions = { ...(budget ? { reasoningConfig: { type: "enabled", budgetTokens: budget } } : {}),
    ...(options.service_tier ? { serviceTier: options.service_tier } : {}),
    ...(options.latency ? { performanceConfig: { latency: options.latency } } : {}),
    ...(options.guardrail ? { guardrailConfig: guardrailConfig(options.guardrail) } : {}) };
  // toolCallStreaming: ai 4 streams a call's input parts only when asked (ai 5 always does)
  return { model: model(bedrock, turn, endpoint), messages: [...messages], maxOutputTokens: options.max_tokens,
    maxTokens: options.max_tokens, toolCallStreaming: true,
    ...(turn.system ? { system: systemPrompt(turn.system, olderSpecification(bedrock)) } : {}),
    ...(options.temperature != null ? { temperature: options.temperature } : {}),
    ...(turn.tools?.length ? { tools, toolChoice: toolChoice(options.tool_choice) } : {}),
    ...(format ? { output: ai.Output.object({ schema: ai.jsonSchema(format.schema), name: format.name,
      description: format.description }) } : {}),
    ...(Object.keys(bedrockOptions).length ? { providerOptions: { bedrock: bedrockOptions } } : {}) };
}

// ---- stream parts -> chunks, as they are ----

export const meta = (part) => part.providerMetadata?.bedrock ?? part.providerMetadata?.amazonBedrock ?? {};

export function errorChunk(error) {
  const cause = error?.lastError ?? error; // a RetryError carries the last attempt's error
  const header = cause?.responseHeaders?.["x-amzn-errortype"];
  const code = cause?.type ?? cause?.data?.type ?? (header ? header.split(":")[0] : undefined) ?? cause?.name ?? "Error";
  return { type: "error", code, message: String(cause?.message ?? cause) };
}

// ai 4 counts promptTokens/completionTokens and leaves the cache counts in the provider's metadata
export function usageChunk(usage, metadata) {
  const details = usage?.inputTokenDetails ?? {};
  return { type: "usage", input_tokens: usage?.inputTokens ?? usage?.promptTokens ?? null,
    output_tokens: usage?.outputTokens ?? usage?.completionTokens ?? null,
    cache_read_input_tokens: details.cacheReadTokens ?? usage?.cachedInputTokens ?? metadata?.usage?.cacheReadInputTokens
      ?? 0,
    cache_write_input_tokens: details.cacheWriteTokens ?? metadata?.usage?.cacheWriteInputTokens ?? 0 };
}

// How the service served the turn, as the provider keeps the metadata event in the finish part's
// providerMetadata.bedrock (its trace, serviceTier and performanceConfig, as sent): a prompt router's invoked model,
// the tier and the latency; nothing when it holds none of them.
export function* metadataChunks(metadata) {
  const chunk = { invoked_model_id: metadata?.trace?.promptRouter?.invokedModelId ?? null,
    service_tier: metadata?.serviceTier?.type ?? null, latency: metadata?.performanceConfig?.latency ?? null };
  if (Object.values(chunk).some((value) => value != null)) yield { type: "metadata", ...chunk };
}

export function* partChunks(part, state) {
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
    case "reasoning": // ai 4's reasoning parts: text, then the signature or the redacted data as parts of their own
      if (part.textDelta) yield { type: "reasoning", index: null, text: part.textDelta };
      break;
    case "reasoning-signature":
      yield { type: "reasoning", index: null, signature: part.signature };
      break;
    case "redacted-reasoning":
      yield { type: "redacted_reasoning", index: null, data: part.data };
      break;
    case "reasoning-end":
      if (meta(part).redactedContent != null) {
        yield { type: "redacted_reasoning", index: part.id ?? null, data: meta(part).redactedContent };
      }
      break;
    case "tool-input-start":
    case "tool-call-streaming-start": { // ai 4 (with toolCallStreaming): toolCallId, argsTextDelta
      const id = part.id ?? part.toolCallId;
      state.started.add(id);
      yield { type: "tool_call", index: id, id, name: part.toolName, input_delta: "" };
      break;
    }
    case "tool-input-delta":
      yield { type: "tool_call", index: part.id, input_delta: part.delta ?? part.inputTextDelta };
      break;
    case "tool-call-delta":
      yield { type: "tool_call", index: part.toolCallId, input_delta: part.argsTextDelta };
      break;
    case "tool-call": // streamed already, unless the release streams no input parts
      if (!state.started.has(part.toolCallId)) {
        yield { type: "tool_call", id: part.toolCallId, name: part.toolName, input: part.input ?? part.args };
      }
      break;
    case "finish-step":
    case "step-finish": // ai 4
      state.metadata = meta(part);
      break;
    case "finish":
      // Bedrock's own stopReason where the release keeps it (rawFinishReason), else the SDK's unified reason
      yield { type: "stop", reason: part.rawFinishReason ?? part.finishReason ?? null };
      yield usageChunk(part.totalUsage ?? part.usage, state.metadata);
      yield* metadataChunks(state.metadata);
      break;
    case "error":
      yield errorChunk(part.error);
      break;
    default:
      break;
  }
}

// ---- the SDK's assistant message -> the Anthropic-format message chunk ----

export function anthropicBlock(part) {
  const options = part.providerOptions?.bedrock ?? part.providerOptions?.amazonBedrock
    ?? part.providerMetadata?.bedrock ?? part.providerMetadata?.amazonBedrock ?? {};
  switch (part.type) {
    case "text": return { type: "text", text: part.text };
    case "redacted-reasoning": return { type: "redacted_thinking", data: part.data }; // ai 4
    case "reasoning":
      if (part.signature != null) return { type: "thinking", thinking: part.text, signature: part.signature }; // ai 4
      if (options.redactedData != null) return { type: "redacted_thinking", data: options.redactedData };
      if (options.redactedContent != null) return { type: "redacted_thinking", data: options.redactedContent };
      return { type: "thinking", thinking: part.text, ...(options.signature != null ? { signature: options.signature } : {}) };
    case "tool-call": return { type: "tool_use", id: part.toolCallId, name: part.toolName, input: part.input ?? part.args };
    default: return null;
  }
}

export function anthropicMessage(messages) {
  const parts = messages.filter((m) => m.role === "assistant")
    .flatMap((m) => typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content);
  return { role: "assistant", content: parts.map(anthropicBlock).filter(Boolean) };
}

export const jsonSafe = (value) => JSON.parse(JSON.stringify(value, (key, v) =>
  v instanceof Uint8Array ? Buffer.from(v).toString("base64") : v instanceof URL ? v.href : v));
