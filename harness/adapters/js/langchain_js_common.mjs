// What the LangChain.js shims share (langchain_js.mjs: `.stream` and `.invoke`; langchain_js_events.mjs:
// `streamEvents` v2; langchain_js_loop.mjs: createAgent's loop): the packages loaded through the entry module beside
// them, the model on a loopback-only client, the scenario's messages as LangChain.js messages, the streamed
// AIMessageChunks as harness chunks (as they are, nothing repaired), the assembled AIMessage as the Anthropic-format
// message, and the conversation an application keeps around one model call per turn.

import { loadEntry, serve, Skip } from "./protocol.mjs";

export { serve, Skip };

let aws, lc, runtime, http;

// The packages the entry module `entry` re-exports (`--modules DIR`, or BEDROCK_HARNESS_LANGCHAIN_JS_MODULES).
export async function load(program, entry = "bedrock-harness-langchain-js.mjs") {
  const packages = await loadEntry(program, "BEDROCK_HARNESS_LANGCHAIN_JS_MODULES", entry, "@langchain/aws's");
  ({ aws, messages: lc, runtime, http } = packages);
  return packages;
}

// What a model call per turn declares (`.stream` and `streamEvents`, each with `.invoke` for parity).
export const CAPABILITIES = ["text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature",
  "redacted_reasoning", "usage", "cache_usage", "stop_reason", "round_trip", "errors", "streaming", "own_history",
  "usage_input_includes_cache", "non_streaming", "cache_points", "tool_result_media", "citations"];

// `base` and service_tier where the model has the serviceTier field, guardrail where it has guardrailConfig (a probe
// model: building one sends nothing).
export function capabilities(base) {
  const probe = new aws.ChatBedrockConverse({ model: "probe", region: "us-east-1",
    credentials: { accessKeyId: "unused", secretAccessKey: "unused" } });
  return [...base, ...("serviceTier" in probe ? ["service_tier"] : []), ...("guardrailConfig" in probe ? ["guardrail"] : [])];
}

// Where the stored message of `.stream` and of `.invoke` legitimately differ, from @langchain/aws's code
// (listed in certification/langchain-js.md).
export const NATIVE_DIFFERENCES = {
  "data.id": "invoke's AIMessage takes the Converse response's $metadata.requestId (convertConverseMessageToLangChainMessage);"
    + " no streamed chunk carries an id",
  "data.response_metadata": "invoke keeps the Converse response's own fields ($metadata, metrics, stopReason, usage,"
    + " model_provider); the stream's chunks carry each event as it came ({...chunk}: messageStart, contentBlockStop,"
    + " messageStop, metadata), merged by concat",
  "data.content[*].index": "the merge key streamed reasoning blocks carry"
    + " (bedrockReasoningDeltaToLangchainPartialReasoningBlock); invoke's blocks are whole",
  "data.content as lone-text": "invoke holds a lone text block as a string (convertConverseMessageToLangChainMessage:"
    + " content.length === 1 && text), the stream's string deltas concatenate to one string too, or to a list of"
    + " blocks once a reasoning block came first",
  "data.tool_call_chunks": "only a concatenated AIMessageChunk has tool_call_chunks (handleConverseStreamContentBlockStart/Delta)",
  "data.usage_metadata.output_token_details": "concat (mergeUsageMetadata) adds empty detail objects a single message lacks",
  "data.usage_metadata.input_token_details": "concat (mergeUsageMetadata) adds empty detail objects a single message lacks",
};
// ---- never a real AWS host ----

class EndpointRefused extends Error {
  constructor(url, expected) {
    super(`@langchain/aws's request goes to ${JSON.stringify(url)}, not the loopback endpoint ${JSON.stringify(expected)}:`
      + " refused, so that the library never reaches a real AWS host");
    this.name = "EndpointRefused";
  }
}

const origin = (url) => { const u = new URL(url); return `${u.protocol}//${u.hostname}:${u.port || (u.protocol === "https:" ? 443 : 80)}`; };

// A build-step middleware (after the endpoint is resolved into the request, before signing, retries and sending).
function guard(client, expected) {
  client.middlewareStack.add((next) => async (args) => {
    const { protocol, hostname, port, path } = args.request;
    const url = `${protocol}//${hostname}${port ? `:${port}` : ""}${path ?? ""}`;
    if (origin(url) !== origin(expected)) throw new EndpointRefused(url, expected);
    return next(args);
  }, { step: "build", name: "bedrockHarnessLoopbackOnly", priority: "low" });
  return client;
}

// The turn's guardrail as the model's guardrailConfig field (Bedrock's GuardrailStreamConfiguration)
export const guardrailConfig = (g) => ({ guardrailIdentifier: g.identifier, guardrailVersion: g.version,
  ...(g.trace ? { trace: g.trace } : {}),
  ...(g.stream_processing_mode ? { streamProcessingMode: g.stream_processing_mode } : {}) });

export function model(turn, endpoint) {
  const credentials = { accessKeyId: endpoint.aws_access_key_id, secretAccessKey: endpoint.aws_secret_access_key };
  const client = guard(new runtime.BedrockRuntimeClient({ region: endpoint.region, endpoint: endpoint.endpoint_url,
    credentials, requestHandler: new http.NodeHttpHandler() }), endpoint.endpoint_url);
  const options = turn.options ?? {};
  const budget = options.thinking_budget;
  const chat = new aws.ChatBedrockConverse({ model: turn.model_id, region: endpoint.region, credentials, client,
    maxTokens: options.max_tokens, ...(options.temperature != null && !budget ? { temperature: options.temperature } : {}),
    ...(budget ? { additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: budget } } } : {}),
    // how the request is served: the model's serviceTier (sent as {type}) and performanceConfig fields
    ...(options.service_tier ? { serviceTier: options.service_tier } : {}),
    ...(options.latency ? { performanceConfig: { latency: options.latency } } : {}),
    ...(options.guardrail ? { guardrailConfig: guardrailConfig(options.guardrail) } : {}) });
  // 0.0.x takes no `client` field: its constructor builds its own BedrockRuntimeClient from region and credentials
  // (dist/chat_models.js:131 in 0.0.4, :146 in 0.0.9), on the runtime client's default HTTP/2 handler and without the
  // guard; `client` is a public field there (chat_models.d.ts), set as an application on those releases sets it.
  if (chat.client !== client) chat.client = client;
  return chat;
}

// `auto` is Bedrock's default and written by an app as nothing; `any` as it is; one tool by its name.
export const toolChoice = (choice) => choice && typeof choice === "object" ? choice.name : choice === "auto" ? undefined : choice;

// The turn's tools and their call options as bindTools takes them: the scenario's tools in the {type: "function"}
// form, the tool choice and the cache point after the tools ({} without tools).
export function toolOptions(turn) {
  if (!turn.tools?.length) return {};
  const tools = turn.tools.map((t) => ({ type: "function",
    function: { name: t.name, description: t.description, parameters: t.input_schema } }));
  const choice = toolChoice(turn.options?.tool_choice);
  // A cache point after the tools is the call option cache_control (applyCachePointsToConversePayload pushes it
  // after the last tool, and after the system prompt and the last message unless they hold one already): the one
  // way to it, so a point the turn asks for after another tool than the last is not placed.
  const cached = turn.tools.at(-1).cache_control;
  return { tools, ...(choice ? { tool_choice: choice } : {}), ...(cached ? { cache_control: cached } : {}) };
}

export function runnable(turn, endpoint) {
  const chat = model(turn, endpoint);
  const { tools, ...kwargs } = toolOptions(turn);
  if (!tools) return chat;
  return chat.bindTools(tools, Object.keys(kwargs).length ? kwargs : undefined);
}

// ---- the scenario's Anthropic-format messages -> LangChain.js messages ----

export const blocksOf = (content) => typeof content === "string" ? [{ type: "text", text: content }] : content ?? [];

// A block's cache_control as the cache point content block after it ({cachePoint: {type: "default", ttl}}, which
// @langchain/aws sends as it is: convertCachePointBlock), in a system, human or tool message.
export const cachePoint = (control) => ({ cachePoint: { type: "default", ...(control.ttl ? { ttl: control.ttl } : {}) } });
export const withCachePoint = (part, control) => control ? [part, cachePoint(control)] : [part];

export function systemMessages(system) {
  if (!system) return [];
  if (typeof system === "string") return [new lc.SystemMessage(system)];
  return system.map((b) => new lc.SystemMessage(b.cache_control
    ? { content: withCachePoint({ type: "text", text: b.text }, b.cache_control) } : b.text));
}

// The system prompt as createAgent's one SystemMessage (its blocks and cache points in order), or the string.
export function systemPrompt(system) {
  if (typeof system === "string") return system;
  return new lc.SystemMessage({ content: system.flatMap((b) => withCachePoint({ type: "text", text: b.text }, b.cache_control)) });
}

// A JSON value goes as the object itself: @langchain/aws sends a block it does not know as `{json: block}`
// (convertToolMessageToConverseMessage), its only way to a json result; a value that is no object goes as JSON text.
export const jsonPart = (value) => value !== null && typeof value === "object" && !Array.isArray(value) ? value
  : { type: "text", text: JSON.stringify(value) };

export function resultContent(content) {
  if (content == null || typeof content === "string") return content ?? "";
  if (!Array.isArray(content)) return [jsonPart(content)];
  // an image or document as in a human message (convertToolMessageToConverseMessage converts the same blocks)
  return content.map((p) => typeof p === "string" ? { type: "text", text: p } : "json" in p ? jsonPart(p.json)
    : p.type === "image" || p.type === "document" ? userPart(p) : p);
}

const DOCUMENT_FORMATS = { "application/pdf": "pdf", "text/plain": "txt", "text/markdown": "md", "text/csv": "csv",
  "text/html": "html" };

// A document asking for citations as Bedrock's own document block, which @langchain/aws passes on as it is
// (convertLangChainContentBlockToConverseContentBlock: `{type: "document", document}`): LangChain's standard file
// block has no citations setting. A plain-text source goes as its text, a base64 one as its bytes.
const citedDocument = (block) => ({ type: "document", document: { name: block.title,
  format: DOCUMENT_FORMATS[block.source.media_type],
  source: block.source.type === "text" ? { text: block.source.data } : { bytes: Buffer.from(block.source.data, "base64") },
  citations: block.citations } });

export function userPart(block) {
  if (block.type === "image") return { type: "image_url", image_url: { url: `data:${block.source.media_type};base64,${block.source.data}` } };
  if (block.type === "document" && block.citations) return citedDocument(block);
  if (block.type === "document") { // LangChain's standard file block; its metadata name is the document's name
    return { type: "file", source_type: "base64", mime_type: block.source.media_type, data: block.source.data,
      metadata: { name: block.title } };
  }
  const { cache_control: _, ...rest } = block;
  return rest;
}

// A result's cache point goes beside its toolResult (convertToolMessageToConverseMessage), so its content is a list.
export function toolContent(block) {
  const content = resultContent(block.content);
  if (!block.cache_control) return content;
  const parts = typeof content === "string" ? [{ type: "text", text: content }] : content;
  return [...parts, cachePoint(block.cache_control)];
}

// One ToolMessage per tool_result (in order), then a HumanMessage with the rest.
export function userMessages(message) {
  const blocks = blocksOf(message.content);
  const results = blocks.filter((b) => b.type === "tool_result").map((b) => new lc.ToolMessage({
    content: toolContent(b), tool_call_id: b.tool_use_id, status: b.is_error ? "error" : "success" }));
  const rest = blocks.filter((b) => b.type !== "tool_result")
    .flatMap((b) => withCachePoint(userPart(b), b.cache_control));
  return [...results, ...(rest.length ? [new lc.HumanMessage({ content: typeof message.content === "string" ? message.content : rest })] : [])];
}

function aiBlock(block) {
  if (block.type === "thinking") {
    return { type: "reasoning", reasoning: block.thinking ?? "", ...(block.signature ? { signature: block.signature } : {}) };
  }
  if (block.type === "redacted_thinking") return { type: "reasoning_content", redactedContent: block.data };
  return block.type === "text" ? { type: "text", text: block.text } : null;
}

// An AIMessage as LangChain.js's own stream assembles one: reasoning/text blocks, tool_use as tool_calls.
function aiMessage(message) {
  const blocks = blocksOf(message.content);
  const tool_calls = blocks.filter((b) => b.type === "tool_use")
    .map((b) => ({ id: b.id, name: b.name, args: b.input ?? {}, type: "tool_call" }));
  return new lc.AIMessage({ content: blocks.map(aiBlock).filter(Boolean), tool_calls });
}

export const converted = (messages) => messages.flatMap((m) => m.role === "assistant" ? [aiMessage(m)] : userMessages(m));

// ---- streamed AIMessageChunks -> chunks, as they are ----

export function* contentChunks(block) {
  if (typeof block === "string") block = { type: "text", text: block };
  const index = block.index ?? null;
  if (block.type === "text" && block.text) yield { type: "text", index, text: block.text };
  // the current releases' reasoning blocks, and older ones' reasoning_content with reasoningText
  const reasoning = block.type === "reasoning" ? { text: block.reasoning, signature: block.signature }
    : block.type === "reasoning_content" ? block.reasoningText ?? {} : {};
  if (reasoning.text) yield { type: "reasoning", index, text: reasoning.text };
  if (reasoning.signature) yield { type: "reasoning", index, signature: reasoning.signature };
  if (block.type === "reasoning_content" && block.redactedContent) {
    yield { type: "redacted_reasoning", index, data: block.redactedContent };
  }
}

export function usageChunk(usage) {
  const details = usage.input_token_details ?? {};
  return { type: "usage", input_tokens: usage.input_tokens ?? null, output_tokens: usage.output_tokens ?? null,
    cache_read_input_tokens: details.cache_read ?? 0, cache_write_input_tokens: details.cache_creation ?? 0 };
}

export function* messageChunks(message) {
  const content = message.content;
  if (typeof content === "string") yield* contentChunks(content);
  else for (const block of content ?? []) yield* contentChunks(block);
  for (const call of message.tool_call_chunks ?? []) {
    yield { type: "tool_call", index: call.index ?? null, input_delta: call.args ?? "",
      ...(call.id != null ? { id: call.id } : {}), ...(call.name != null ? { name: call.name } : {}) };
  }
  const meta = message.response_metadata ?? {};
  const stop = meta.messageStop?.stopReason ?? meta.stopReason;
  if (stop) yield { type: "stop", reason: stop };
  if (message.usage_metadata) yield usageChunk(message.usage_metadata);
}

// A message's tool calls (what an agent executes): its tool_calls, else the tool_call blocks of a content-block
// (output_version v1) message.
const toolCallsOf = (message) => message?.tool_calls?.length ? message.tool_calls
  : Array.isArray(message?.content) ? message.content.filter((block) => block?.type === "tool_call") : [];

// The assembled message's tool calls, each with its whole input.
export const assembledCalls = (message) => toolCallsOf(message).filter((call) => call.id)
  .map((call) => ({ type: "tool_call", id: call.id, name: call.name, input: call.args }));

export const errorChunk = (error) => ({ type: "error", code: error?.name ?? "Error", message: String(error?.message ?? error) });

// ---- the assembled AIMessage -> the Anthropic-format message chunk ----

function anthropicBlock(block) {
  if (typeof block === "string") return block ? { type: "text", text: block } : null;
  if (block.type === "text") return { type: "text", text: block.text };
  if (block.type === "reasoning") {
    return { type: "thinking", thinking: block.reasoning, ...(block.signature != null ? { signature: block.signature } : {}) };
  }
  if (block.type === "reasoning_content" && block.redactedContent != null) {
    return { type: "redacted_thinking", data: block.redactedContent };
  }
  if (block.type === "reasoning_content" && block.reasoningText) {
    const { text, signature } = block.reasoningText;
    return { type: "thinking", thinking: text, ...(signature != null ? { signature } : {}) };
  }
  return null;
}

export function anthropicMessage(message) {
  const content = typeof message.content === "string" ? [message.content] : message.content ?? [];
  const calls = toolCallsOf(message).map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args }));
  return { role: "assistant", content: [...content.map(anthropicBlock).filter(Boolean), ...calls] };
}

export const stored = (message) => JSON.parse(JSON.stringify(lc.mapChatMessagesToStoredMessages([message])[0]));

// ---- conversation mode ----

// One model call per turn on the history an application keeps: `source(turn, endpoint, history)` returns the model
// it called (for `.invoke` parity) and `chunks`, which yields the harness chunks of what the application reads and
// returns the assembled AIMessage (or undefined). `chunked(read)` makes a source of a reader of AIMessageChunks.
export class Conversation {
  constructor(source) { this.source = source; this.id = undefined; this.messages = []; this.assistant = null; }

  history(turn) {
    if (!("conversation" in turn) || turn.conversation !== this.id) {
      this.id = turn.conversation;
      this.messages = systemMessages(turn.system);
    } else if (this.assistant) {
      this.messages.push(this.assistant);
    }
    this.assistant = null;
    this.messages.push(...converted(turn.messages ?? []));
    return [...this.messages];
  }

  async* turn(turn, endpoint) {
    const history = this.history(turn);
    const { bound, chunks } = this.source(turn, endpoint, history);
    let summed, failed = null;
    const closing = []; // stop and usage wait for the assembled message's tool calls
    try {
      for (let step = await chunks.next(); ; step = await chunks.next()) {
        if (step.done) { summed = step.value; break; }
        const item = step.value;
        if (item.type === "stop" || item.type === "usage") closing.push(item); else yield item;
      }
    } catch (error) {
      failed = errorChunk(error);
    }
    if (!failed) yield* assembledCalls(summed);
    yield* closing;
    if (failed) yield failed;
    else if (summed) {
      this.assistant = summed; // appended as an application does, before the next turn's messages
      yield { type: "message", message: anthropicMessage(summed) };
    }
    if (!turn.non_streaming) return;
    yield summed && !failed ? { type: "native", path: "stream", message: stored(summed) }
      : { type: "native", path: "stream", error: failed ? `${failed.code}: ${failed.message}` : "the stream ended without a chunk" };
    yield await whole(bound, history);
  }
}

// A source reading AIMessageChunks (`read(bound, history)` yields them and returns the assembled message) from the
// turn's bound model, each mapped by messageChunks.
export const chunked = (read) => (turn, endpoint, history) => {
  const bound = runnable(turn, endpoint);
  return { bound, chunks: (async function* () {
    const messages = read(bound, history);
    for (let step = await messages.next(); ; step = await messages.next()) {
      if (step.done) return step.value;
      yield* messageChunks(step.value);
    }
  })() };
};

// `.invoke` on the same history (ChatBedrockConverse's _generateNonStreaming: Converse): its stored message, or
// what it threw.
async function whole(bound, history) {
  try {
    return { type: "native", path: "converse", message: stored(await bound.invoke(history)) };
  } catch (error) {
    const failed = errorChunk(error);
    return { type: "native", path: "converse", error: `${failed.code}: ${failed.message}` };
  }
}
