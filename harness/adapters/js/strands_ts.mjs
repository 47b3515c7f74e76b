#!/usr/bin/env node
// The Strands Agents TypeScript SDK (`Agent` of `@strands-agents/sdk` with its `BedrockModel`) as a bedrock-harness
// adapter: the subprocess protocol 3 in conversation mode (own_history), Node >= 22 (the SDK's engines).
//
//   node strands_ts.mjs --modules DIR
//
// DIR holds the packages (node_modules/) and bedrock-harness-strands-ts.mjs, which re-exports them from there
// (harness.adapters.js.npm installs them into a cache folder per release); BEDROCK_HARNESS_STRANDS_TS_MODULES overrides
// DIR (the offline tests point it at a fake of the SDK's surface).
//
// An agent-loop adapter, as the Python `strands-agent` shim: one Agent per conversation (the scenario's opening as
// its messages, the last user message as the prompt), one tool per scenario tool whose result is the harness's
// tool_result for that call (sent as the next turn). The shim consumes `agent.stream()` itself: model call k starts
// only when harness turn k asks for it (the shim stops pulling at the agent's `beforeModelCallEvent`), and a turn ends
// when the agent's tools wait for their results or the loop finishes. The model's stream events map to chunks as they
// are; the `modelMessageEvent` (the assistant message the agent appends to `agent.messages`) closes each model call as
// the `message` chunk. Results for a loop that already ended are an `agent_loop_ended` error, as in the Python shims.

import { loadEntry, serve, Skip } from "./protocol.mjs";

console.log = console.info = console.debug = console.error; // stdout is the protocol's: a library's prints go to stderr
const { strands, NodeHttpHandler, version } = await loadEntry("strands_ts.mjs", "BEDROCK_HARNESS_STRANDS_TS_MODULES",
  "bedrock-harness-strands-ts.mjs", "the Strands SDK's");

const CAPABILITIES = ["text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature", "redacted_reasoning",
  "usage", "cache_usage", "stop_reason", "round_trip", "errors", "streaming", "own_history"];
// Cache points: the SDK's CachePointBlock, and its AfterToolsEvent hook to place one beside a tool result.
const CACHE_POINTS = typeof strands.CachePointBlock === "function" && typeof strands.AfterToolsEvent === "function";
if (CACHE_POINTS) CAPABILITIES.push("cache_points");
// Images and documents in a tool result: ToolResultBlock.fromJSON takes both (the 0.1 fallback builds none).
if (typeof strands.ToolResultBlock.fromJSON === "function") CAPABILITIES.push("tool_result_media");
CAPABILITIES.push("guardrail"); // the BedrockModel's guardrailConfig
// Citations: a DocumentBlock's citations setting, the model's citationsDelta events and the assembled CitationsBlock
// (sent back as citationsContent).
if (typeof strands.CitationsBlock === "function") CAPABILITIES.push("citations");
const LOOP_ENDED = "agent_loop_ended";

// ---- never a real AWS host ----

const origin = (url) => `${url.protocol.replace(/:$/, "")}://${url.hostname}:${url.port || (url.protocol.startsWith("https") ? 443 : 80)}`;

// The AWS SDK's HTTP/1.1 handler, refusing (before anything is sent) a request the client resolved to another host.
function guardedHandler(expected) {
  const wanted = origin(new URL(expected));
  const handler = new NodeHttpHandler();
  const handle = handler.handle.bind(handler);
  handler.handle = (request, options) => {
    const target = origin({ protocol: request.protocol, hostname: request.hostname, port: request.port });
    if (target === wanted) return handle(request, options);
    const error = new Error(`the Strands SDK's request goes to ${JSON.stringify(target)}, not the loopback endpoint `
      + `${JSON.stringify(expected)}: refused, so that the library never reaches a real AWS host`);
    error.name = "EndpointRefused";
    return Promise.reject(error);
  };
  return handler;
}

function systemTexts(system) {
  const items = typeof system === "string" ? [system] : system ?? [];
  return items.map((item) => typeof item === "string" ? item : item.text).filter((text) => text.trim());
}

// A block's cache_control as the SDK's CachePointBlock data after it (the BedrockModel sends a cachePointBlock as a
// cachePoint with its ttl, _formatContentBlock), in the system prompt, a message or beside a tool result.
const cachePoint = (control) => ({ cachePoint: { cacheType: "default",
  ...(control.ttl ? { ttl: control.ttl } : {}) } });
const withCachePoint = (data, control) => control ? [data, cachePoint(control)] : [data];

function systemPrompt(system) {
  if (Array.isArray(system) && system.some((block) => block.cache_control)) {
    return { systemPrompt: system.flatMap((block) => withCachePoint({ text: block.text }, block.cache_control)) };
  }
  const texts = systemTexts(system);
  if (!texts.length) return {};
  return { systemPrompt: texts.length === 1 ? texts[0] : texts.map((text) => ({ text })) };
}

// The point after the tools: the model's cacheConfig (toolsTTL), its one way to it, with the automatic system and
// messages points off (the turn places those itself); it goes after the last tool, so one asked after another tool
// is not placed.
function toolsCache(tools) {
  const control = tools?.at(-1)?.cache_control;
  return control ? { cacheConfig: { strategy: "auto", toolsTTL: control.ttl ?? true, systemPromptTTL: false,
    messagesTTL: false } } : {};
}

// The turn's guardrail as the model's guardrailConfig (sent as the request's guardrailConfig, its trace and stream
// processing mode included)
const guardrail = (g) => g ? { guardrailConfig: { guardrailIdentifier: g.identifier, guardrailVersion: g.version,
  ...(g.trace ? { trace: g.trace } : {}),
  ...(g.stream_processing_mode ? { streamProcessingMode: g.stream_processing_mode } : {}) } } : {};

function model(turn, endpoint) {
  const options = turn.options ?? {};
  const budget = options.thinking_budget;
  return new strands.BedrockModel({ modelId: turn.model_id, region: endpoint.region, maxTokens: options.max_tokens,
    ...toolsCache(turn.tools), ...guardrail(options.guardrail),
    ...(options.temperature != null && !budget ? { temperature: options.temperature } : {}),
    ...(budget ? { additionalRequestFields: { thinking: { type: "enabled", budget_tokens: budget } } } : {}),
    clientConfig: { endpoint: endpoint.endpoint_url, requestHandler: guardedHandler(endpoint.endpoint_url),
      credentials: { accessKeyId: endpoint.aws_access_key_id, secretAccessKey: endpoint.aws_secret_access_key } } });
}

// ---- the scenario's Anthropic-format messages -> the SDK's MessageData ----

const FORMATS = { "image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp" };
const DOCUMENT_FORMATS = { "application/pdf": "pdf", "text/plain": "txt", "text/markdown": "md", "text/csv": "csv",
  "text/html": "html" };
// A document as the SDK's DocumentBlock data: a plain-text source as its text (DocumentBlock takes {text}), its
// citations setting as it is.
const documentData = (block) => ({ document: { name: block.title, format: DOCUMENT_FORMATS[block.source.media_type],
  source: block.source.type === "text" ? { text: block.source.data } : { bytes: block.source.data },
  ...(block.citations ? { citations: block.citations } : {}) } });
const image = (block) => ({ image: { format: FORMATS[block.source.media_type], source: { bytes: block.source.data } } });
const blocksOf = (content) => typeof content === "string" ? [{ type: "text", text: content }] : content ?? [];

function resultPart(part) {
  if (typeof part === "string") return { text: part };
  if (part.type === "text") return { text: part.text };
  if (part.type === "document") return documentData(part);
  return part.type === "image" ? image(part) : { json: part.json ?? part };
}

function toolResult(block) {
  const content = block.content;
  const parts = (typeof content === "string" && content !== "") || (content && !Array.isArray(content) && typeof content === "object")
    ? [content] : Array.isArray(content) ? content : [];
  return { toolResult: { toolUseId: block.tool_use_id, status: block.is_error ? "error" : "success",
    content: parts.map(resultPart) } };
}

function contentData(block) {
  switch (block.type) {
    case "text": return { text: block.text };
    case "image": return image(block);
    case "document": return documentData(block);
    case "tool_use": return { toolUse: { toolUseId: block.id, name: block.name, input: block.input ?? {} } };
    case "tool_result": return toolResult(block);
    case "thinking": return { reasoning: { text: block.thinking ?? "", ...(block.signature ? { signature: block.signature } : {}) } };
    case "redacted_thinking": return { reasoning: { redactedContent: block.data } };
    default: throw new Error(`no Strands content block for ${JSON.stringify(block.type)}`);
  }
}

const messageData = (messages) => messages.map((m) => ({ role: m.role,
  content: blocksOf(m.content).flatMap((block) => withCachePoint(contentData(block), block.cache_control)) }));

// ---- the SDK's stream events and assembled message -> chunks, as they are ----

// The SDK renames Bedrock's stopReason to camelCase (STOP_REASON_MAP, else snakeToCamel): the name back, nothing else.
const snake = (reason) => reason == null ? null : String(reason).replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const base64 = (bytes) => typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("base64");

function* eventChunks(event, call) {
  switch (event.type) {
    case "modelContentBlockStartEvent":
      call.index += 1;
      if (event.start?.type === "toolUseStart") {
        yield { type: "tool_call", index: call.index, id: event.start.toolUseId, name: event.start.name, input_delta: "" };
      }
      break;
    case "modelContentBlockDeltaEvent": yield* deltaChunks(event.delta, call.index); break;
    case "modelMessageStopEvent":
      call.stopped = true;
      yield { type: "stop", reason: snake(event.stopReason) };
      break;
    case "modelMetadataEvent":
      if (event.usage) yield usageChunk(event.usage);
      break;
    default: break;
  }
}

// The SDK's citation (a location with a type field, CitationLocation) in Bedrock's CitationsDelta shape (the
// location's kind as its key; the SDK's searchResult is Bedrock's searchResultLocation), its fields as the SDK holds them.
function bedrockCitation(citation) {
  const { type, ...place } = citation.location ?? {};
  const { location: _, ...rest } = citation;
  return { ...rest, ...(type ? { location: { [type === "searchResult" ? "searchResultLocation" : type]: place } } : {}) };
}

function* deltaChunks(delta, index) {
  if (delta.type === "textDelta") yield { type: "text", index, text: delta.text };
  if (delta.type === "citationsDelta") { // the text it cites streams as textDelta events of the same block
    for (const citation of delta.citations ?? []) yield { type: "citation", index, citation: bedrockCitation(citation) };
  }
  if (delta.type === "toolUseInputDelta") yield { type: "tool_call", index, input_delta: delta.input };
  if (delta.type !== "reasoningContentDelta") return;
  if (delta.text) yield { type: "reasoning", index, text: delta.text };
  if (delta.signature) yield { type: "reasoning", index, signature: delta.signature };
  if (delta.redactedContent) yield { type: "redacted_reasoning", index, data: base64(delta.redactedContent) };
}

const usageChunk = (usage) => ({ type: "usage", input_tokens: usage.inputTokens ?? 0, output_tokens: usage.outputTokens ?? 0,
  cache_read_input_tokens: usage.cacheReadInputTokens ?? 0, cache_write_input_tokens: usage.cacheWriteInputTokens ?? 0 });

// The AWS SDK's exception (Bedrock's code) where the SDK wrapped one (ModelError, ModelThrottledError: `cause`).
const serviceError = (error) => error && typeof error === "object" && ("$fault" in error || "$metadata" in error);

function errorChunk(error) {
  let cause = error;
  while (cause?.cause && !serviceError(cause) && serviceError(cause.cause)) cause = cause.cause;
  return { type: "error", code: cause?.name ?? "Error", message: String(cause?.message ?? cause),
    ...(error?.stack ? { traceback: String(error.stack) } : {}) };
}

// A block of the assistant Message as an Anthropic block, from the fields the SDK's block classes hold (the same in
// every release); one with no counterpart stays as the SDK serializes it.
const fields = (block) => Object.fromEntries(Object.entries(block).filter(([key, value]) => key !== "type"
  && value !== undefined && typeof value !== "function"));

function anthropicBlock(block) {
  const held = fields(block);
  if (block.type === "textBlock") return { type: "text", text: block.text };
  if (block.type === "citationsBlock") { // the cited text with its citations, as the harness's text block holds them
    return { type: "text", text: (block.content ?? []).map((part) => part.text ?? "").join(""),
      citations: (block.citations ?? []).map(bedrockCitation) };
  }
  if (block.type === "toolUseBlock") {
    const names = { toolUseId: "id", name: "name", input: "input" };
    return { type: "tool_use", ...Object.fromEntries(Object.entries(held).map(([k, v]) => [names[k] ?? k, v])) };
  }
  if (block.type === "reasoningBlock" && Object.keys(held).join() === "redactedContent") {
    return { type: "redacted_thinking", data: base64(held.redactedContent) };
  }
  if (block.type === "reasoningBlock" && Object.keys(held).every((key) => key === "text" || key === "signature")) {
    return { type: "thinking", ...("text" in held ? { thinking: held.text } : {}),
      ...("signature" in held ? { signature: held.signature } : {}) };
  }
  return typeof block.toJSON === "function" ? block.toJSON() : { type: block.type, ...held };
}

const messageChunk = (message) => ({ type: "message", message: { role: "assistant",
  content: message.content.map(anthropicBlock) } });

// ---- one conversation's agent loop ----

class Loop {
  constructor(turn, endpoint) {
    const choice = turn.options?.tool_choice;
    if (choice != null && choice !== "auto") {
      throw new Skip(`a Strands Agent run takes no tool_choice (the scenario forces ${JSON.stringify(choice)})`);
    }
    this.conversation = turn.conversation;
    this.turn = 0; this.calls = 0; this.finished = false; this.answered = false;
    this.results = new Map(); this.waiting = new Map(); this.pending = null; this.wake = null;
    this.call = { index: -1, stopped: false };
    const opening = messageData(turn.messages ?? []);
    // a prompt after a toolUse would leave that call unanswered: an opening ending in tool results is all history
    const answered = opening.at(-1)?.content.some((block) => "toolResult" in block);
    const agent = new strands.Agent({ model: model(turn, endpoint), messages: answered ? opening : opening.slice(0, -1),
      tools: (turn.tools ?? []).map((spec) => scenarioTool(spec, this)), printer: false, retryStrategy: null,
      ...systemPrompt(turn.system) });
    // A result's cache point goes beside it in the message the agent appends: its AfterToolsEvent hook, where an
    // application reaches that message (a tool returns only its ToolResultBlock).
    if (CACHE_POINTS) {
      agent.addHook(strands.AfterToolsEvent, (event) => { event.message.content = this.cached(event.message.content); });
    }
    this.events = agent.stream(answered ? [] : opening.at(-1).content)[Symbol.asyncIterator]();
  }

  // The harness's tool_result for a call (awaited by the tool); a call this turn's results left out gets an error.
  result(id) {
    if (this.results.has(id)) return Promise.resolve(this.results.get(id));
    if (this.answered) return Promise.resolve(unanswered(id));
    return new Promise((resolve) => { this.waiting.set(id, resolve); this.wake?.(); });
  }

  cached(content) {
    return content.flatMap((block) => {
      const control = block.type === "toolResultBlock" ? this.results.get(block.toolUseId)?.cache_control : undefined;
      return control ? [block, new strands.CachePointBlock(cachePoint(control).cachePoint)] : [block];
    });
  }

  deliver(blocks) {
    this.turn += 1; this.answered = true;
    for (const block of blocks) this.results.set(block.tool_use_id, block);
    for (const [id, resolve] of this.waiting) resolve(this.results.get(id) ?? unanswered(id));
    this.waiting.clear();
  }

  // The loop's chunks until its tools wait for results, its next model call belongs to a later turn, or it ends.
  async* untilPause() {
    while (!this.finished && this.calls - 1 <= this.turn) {
      this.pending ??= this.events.next();
      const paused = new Promise((resolve) => { this.wake = () => resolve({ paused: true }); });
      if (this.waiting.size) return;
      const got = await Promise.race([this.pending.then((next) => ({ next }), (error) => ({ error })), paused]);
      if (got.paused) return;
      this.pending = null;
      if (got.error) {
        this.finished = true;
        yield errorChunk(got.error);
      } else if (got.next.done) {
        this.finished = true;
        if (!this.call.stopped && got.next.value?.stopReason) yield { type: "stop", reason: snake(got.next.value.stopReason) };
      } else {
        yield* this.feed(got.next.value);
      }
    }
  }

  *feed(event) {
    if (event.type === "beforeModelCallEvent") {
      this.calls += 1; this.answered = false; this.call = { index: -1, stopped: false };
    } else if (event.type === "modelStreamUpdateEvent" || event.type === "modelStreamEventHook") { // up to 0.x: ...Hook
      yield* eventChunks(event.event, this.call);
    } else if (event.type === "modelMessageEvent" || event.type === "afterModelCallEvent" && event.stopData?.message
               && !this.call.message) { // releases without modelMessageEvent report the message after the call
      this.call.message = true;
      yield messageChunk(event.message ?? event.stopData.message);
    }
  }
}

// The SDK's ToolResultBlock for a toolResult's data (releases before ToolResultBlock.fromJSON: built from its parts).
function resultBlock(data) {
  if (typeof strands.ToolResultBlock.fromJSON === "function") return strands.ToolResultBlock.fromJSON(data);
  const part = (item) => "text" in item ? new strands.TextBlock(item.text) : "json" in item ? new strands.JsonBlock(item)
    : new strands.ImageBlock({ format: item.image.format, source: { bytes: Buffer.from(item.image.source.bytes, "base64") } });
  const { toolUseId, status, content } = data.toolResult;
  return new strands.ToolResultBlock({ toolUseId, status, content: content.map(part) });
}

const unanswered = (id) => ({ type: "tool_result", tool_use_id: id, is_error: true,
  content: "the harness sent no result for this call" });

// A Tool of the SDK with the scenario's schema whose result is the harness's tool_result for the call.
function scenarioTool(spec, loop) {
  return new (class extends (strands.Tool ?? Object) { // 0.1 exports no Tool class: a tool is its interface
    name = spec.name;
    description = spec.description ?? "";
    toolSpec = { name: spec.name, description: spec.description ?? "", inputSchema: spec.input_schema };
    async* stream(context) {
      const block = await loop.result(context.toolUse.toolUseId);
      return resultBlock(toolResult(block));
    }
  })();
}

// Turn 0 starts the loop; a later turn hands it the tool results; either streams to the next pause.
async function* turnChunks(state, turn, endpoint) {
  if (!state.loop || !("conversation" in turn) || turn.conversation !== state.loop.conversation) {
    state.loop = null;
    state.loop = new Loop(turn, endpoint);
  } else {
    const blocks = (turn.messages ?? []).flatMap((m) => blocksOf(m.content));
    const others = blocks.filter((b) => b.type !== "tool_result").map((b) => b.type);
    if (others.length) throw new Skip(`an agent loop takes no user content between its model calls (this turn adds ${JSON.stringify(others)})`);
    if (state.loop.finished) {
      yield { type: "error", code: LOOP_ENDED, message: "the agent loop had already finished, without running the "
        + `${blocks.length} tool call(s) the model made, so their results had nowhere to go` };
      return;
    }
    state.loop.deliver(blocks);
  }
  yield* state.loop.untilPause();
}

const state = { loop: null };
await serve({ name: "strands-ts", version, capabilities: CAPABILITIES },
  { turn: (turn, endpoint) => turnChunks(state, turn, endpoint) });
process.exit(0); // a loop abandoned mid-conversation still waits on its tools: nothing more to serve
