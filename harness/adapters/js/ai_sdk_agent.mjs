#!/usr/bin/env node
// The Vercel AI SDK's own multi-step tool loop as a bedrock-harness adapter (`ai-sdk-agent`): one `streamText` per
// conversation with `stopWhen: stepCountIs(n)` (`maxSteps` where the release has no stopWhen) and one tool per
// scenario tool, whose `execute` returns the scenario's result for that call, so the SDK itself decides whether to
// run the tools the model called and makes the next model call. Same packages, loading and mapping as ai_sdk.mjs.
//
//   node ai_sdk_agent.mjs --modules DIR
//
// Model call k is harness turn k's: `prepareStep` holds step k until the harness sends turn k (its tool results,
// which the waiting `execute`s return; `toModelOutput` gives the model the same output ai_sdk.mjs sends for them).
// A turn ends when the step's tools all wait for their results, or when the loop reaches the next step's gate, or
// when the loop finishes. The SDK closes a step (finish-step, the step's response.messages) only after its tools
// return, so a turn whose tools wait takes its stop reason and usage from the provider's own finish part of the model
// call (watched on the model) and its `message` from the SDK's content of that model call (`onLanguageModelCallEnd`,
// ai 7; releases without it report no message for such a turn); a step that closes within its turn reports the
// assistant message of its response.messages. A loop that finishes while the scenario goes on (results sent, no
// next model call) is the turn error `agent_loop_ended`; user content between model calls is a skip.

import { anthropicMessage, cacheOptions, callOptions, capabilities, converted, errorChunk, load, mediaPart, meta,
  metadataChunks, olderMessages, partChunks, resultOutput, serve, toolChoice } from "./ai_sdk_common.mjs";
import { Agent, LoopRun, Queue, unanswered } from "./agent_loop.mjs";

const packages = await load("ai_sdk_agent.mjs");
const { ai } = packages;
const MEDIA = mediaPart(packages.bedrock);

const CAPABILITIES = ["text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature", "redacted_reasoning",
  "usage", "cache_usage", "stop_reason", "round_trip", "errors", "streaming", "own_history",
  "usage_input_includes_cache", "cache_points", "tool_result_media",
  "service_tier", "guardrail"];
const STEPS = 1000; // the scenario, not the step count, ends a conversation

const loopUntil = (steps) => typeof ai.stepCountIs === "function" ? { stopWhen: ai.stepCountIs(steps) }
  : { maxSteps: steps }; // before ai 5

// One step of the loop: what its model call streamed (provider side) and what the SDK reported of it.
class Step {
  constructor() { this.restart(); this.record = null; this.closed = false; this.finished = false; }
  restart() { // a retried model call streams the step afresh
    this.calls = new Set(); this.streamed = new Set(); this.settled = new Set();
    this.finish = null; this.ended = false; this.content = null;
  }
  provider(part) {
    if (part.type === "tool-call") this.calls.add(part.toolCallId);
    if (part.type === "finish") this.finish = part;
  }
}

// The provider's finish part: Bedrock's stop reason, the model call's usage and the service's metadata, as the SDK
// copies them to finish-step.
function closing(finish) {
  const reason = finish.finishReason;
  const usage = finish.usage ?? {};
  const count = (tokens) => typeof tokens === "object" && tokens !== null ? tokens.total ?? null : tokens ?? null;
  const input = typeof usage.inputTokens === "object" && usage.inputTokens !== null ? usage.inputTokens : {};
  return [{ type: "stop", reason: typeof reason === "object" && reason !== null ? reason.raw ?? reason.unified ?? null
    : reason ?? null },
  { type: "usage", input_tokens: count(usage.inputTokens), output_tokens: count(usage.outputTokens),
    cache_read_input_tokens: input.cacheRead ?? usage.cachedInputTokens ?? 0,
    cache_write_input_tokens: input.cacheWrite ?? finish.providerMetadata?.bedrock?.usage?.cacheWriteInputTokens ?? 0 },
  ...metadataChunks(meta(finish))];
}

// ai 5 calls toModelOutput with the output alone (execute's value: the tool_result block), ai 6 with
// { toolCallId, input, output }
const resultBlock = (given) => given?.type === "tool_result" ? given : given?.output;

// One conversation: the SDK's loop running, paused between harness turns.
class AgentRun extends LoopRun {
  library = "the SDK";

  constructor(turn, endpoint) {
    super();
    this.conversation = turn.conversation;
    this.turnIndex = 0; this.options = turn.options ?? {};
    this.queue = new Queue(); this.steps = []; this.seen = 0; this.pausedTurn = -1;
    this.waiting = new Map(); this.results = new Map(); this.gate = null;
    this.failed = false; this.finished = false; this.abort = new AbortController();
    const options = callOptions(packages, turn, endpoint, converted(turn.messages ?? [], [], olderMessages(ai), MEDIA));
    const tools = Object.fromEntries(Object.entries(options.tools ?? {}).map(([name, tool]) => [name, { ...tool,
      execute: (input, { toolCallId }) => this.result(toolCallId),
      toModelOutput: (given) => resultOutput(resultBlock(given), MEDIA) }]));
    const result = ai.streamText({ ...options, model: this.watched(options.model), ...(options.tools ? { tools } : {}),
      ...loopUntil(STEPS), abortSignal: this.abort.signal, onError: () => {},
      prepareStep: ({ stepNumber, messages }) => this.prepare(stepNumber, messages),
      onStepFinish: (step) => { this.steps.at(-1).record = step; },
      onLanguageModelCallEnd: (event) => { this.steps.at(-1).content = event.content; } });
    this.pump(result);
  }

  // The model with its streams watched (the provider's tool calls, finish part and end).
  watched(model) {
    return new Proxy(model, { get: (target, key) => key !== "doStream" ? Reflect.get(target, key) : async (options) => {
      const step = this.steps.at(-1);
      step.restart();
      const result = await target.doStream(options);
      return { ...result, stream: result.stream.pipeThrough(new TransformStream({
        transform: (part, controller) => { step.provider(part); controller.enqueue(part); },
        flush: () => { step.ended = true; this.check(); } })) };
    } });
  }

  // Step k waits for harness turn k; a later step's tool choice is its turn's, and its messages carry the cache
  // point a tool result asks for beside that result (a tool's execute cannot set the tool-result part's
  // providerOptions, so the application marks them in prepareStep, the loop's one hook on the messages it sends).
  async prepare(number, messages) {
    this.steps.push(new Step());
    if (number > this.turnIndex) {
      await new Promise((release) => { this.gate = { number, release }; this.check(); });
    }
    return number === 0 ? undefined : { toolChoice: toolChoice(this.options.tool_choice) ?? "auto",
      ...(this.cached() ? { messages: messages.map((message) => this.withCachePoints(message)) } : {}) };
  }

  cached() { return [...this.results.values()].some((block) => block.cache_control); }

  withCachePoints(message) {
    if (message.role !== "tool") return message;
    return { ...message, content: message.content.map((part) => part.type !== "tool-result" ? part
      : { ...part, ...cacheOptions(this.results.get(part.toolCallId)?.cache_control) }) };
  }

  result(id) {
    if (this.results.has(id)) return Promise.resolve(this.results.get(id));
    return new Promise((resolve) => { this.waiting.set(id, resolve); this.check(); });
  }

  async pump(result) {
    const state = { started: new Set(), metadata: null };
    try {
      for await (const part of result.fullStream) {
        this.observe(part);
        if (part.type !== "finish" && part.type !== "finish-step") {
          for (const chunk of partChunks(part, state)) this.emit(chunk);
        }
        this.check();
      }
    } catch (error) {
      this.emit(errorChunk(error));
    }
    if (this.steps.length) this.closeStep(this.steps.at(-1));
    this.queue.push({ kind: "done" });
  }

  observe(part) {
    const step = this.steps[this.seen];
    if (!step) return;
    if (part.type === "tool-call") step.streamed.add(part.toolCallId);
    if (part.type === "tool-error" || part.type === "tool-result") {
      step.streamed.add(part.toolCallId); step.settled.add(part.toolCallId);
    }
    if (part.type === "finish-step") { step.finished = true; this.seen += 1; }
  }

  // Ends the harness turn when its step's tools all wait, or when the loop waits at the next step's gate.
  check() {
    const step = this.steps[this.turnIndex];
    if (!step || this.pausedTurn === this.turnIndex) return;
    const calls = [...step.calls];
    const waiting = step.ended && calls.some((id) => this.waiting.has(id)) && calls.every((id) =>
      step.streamed.has(id) && (this.waiting.has(id) || step.settled.has(id)));
    const gated = this.gate?.number === this.turnIndex + 1 && step.finished;
    if (!waiting && !gated) return;
    this.closeStep(step);
    this.pausedTurn = this.turnIndex;
    this.queue.push({ kind: "pause" });
  }

  // The step's stop, usage and assembled message, once.
  closeStep(step) {
    if (step.closed) return;
    step.closed = true;
    if (step.finish) closing(step.finish).forEach((chunk) => this.emit(chunk));
    const assistant = step.record?.response?.messages?.filter((m) => m.role === "assistant").at(-1)
      ?? (step.content ? { role: "assistant", content: step.content } : null);
    if (assistant) this.emit({ type: "message", message: anthropicMessage([assistant]) });
  }

  modelCalls() { return this.steps.length; }

  // Abandoned (a new conversation): the SDK's call is aborted and waiting tools return.
  close() { this.abort.abort(); for (const resolve of this.waiting.values()) resolve(unanswered("")); }
}

await serve({ name: "ai-sdk-agent", version: packages.version,
  capabilities: await capabilities(CAPABILITIES, packages.bedrock, ai) },
  new Agent((turn, endpoint) => new AgentRun(turn, endpoint)));
