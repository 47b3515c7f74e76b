#!/usr/bin/env node
// The `langchain` package's own agent loop as a bedrock-harness adapter (`langchain-js-agent`): one
// `createAgent({model, tools, systemPrompt, middleware})` run per conversation on a ChatBedrockConverse (the model,
// history and mapping of langchain_js_common.mjs), streamed as an application streams it:
// `agent.stream({messages}, {streamMode: ["messages", "custom"]})`. Each scenario tool is a `tool(...)` whose function
// returns the scenario's result for that call (a ToolMessage, the tool's direct output, so that the result's content
// blocks and error status reach the library as given), so the agent itself decides whether to run the tools the model
// called and makes the next model call.
//
//   node langchain_js_agent.mjs --modules DIR   (DIR holds bedrock-harness-langchain-js-agent.mjs and langchain too)
//
// Model call k is harness turn k's. One middleware, the library's hook on each model and tool call, holds call k until
// the harness sends turn k (its `wrapModelCall`, which also sets the turn's tool choice and the cache point after the
// tools, the request's `toolChoice` and `modelSettings`) and keeps the captured AIMessage of each call; its
// `wrapToolCall` notes a call that returned. What the shim learns of the loop goes through the agent's own stream as
// `custom` parts (the runtime's writer), after the model call's `messages` parts, so a turn ends in stream order: when
// the call's tools all wait for their results (or returned), or when the loop waits at the next model call, or when
// it finishes. The surfaced chunks are the `messages` parts of the model node (AIMessageChunks, as the library emits
// them: its handleLLMNewToken); the tool calls, stop reason, usage and `message` are the model call's AIMessage, which
// the agent appends to its state. A loop that finishes while the scenario goes on (results sent, no next model call)
// is the turn error `agent_loop_ended`; user content between model calls is a skip.

import { anthropicMessage, assembledCalls, capabilities, converted, errorChunk, load, messageChunks, model, serve,
  systemPrompt, toolChoice, toolContent } from "./langchain_js_common.mjs";
import { Agent, LoopRun, Queue, unanswered } from "./agent_loop.mjs";

const packages = await load("langchain_js_agent.mjs", "bedrock-harness-langchain-js-agent.mjs");
const { agents, messages: lc } = packages;

const CAPABILITIES = ["text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature", "redacted_reasoning",
  "usage", "cache_usage", "stop_reason", "round_trip", "errors", "streaming", "own_history",
  "usage_input_includes_cache", "cache_points", "tool_result_media", "citations"];
const MODEL_NODE = "model_request"; // createAgent's model node (AGENT_NODE_NAME)
const RECURSION_LIMIT = 10000; // the scenario, not LangGraph's step limit, ends a conversation

const isAi = (message) => (typeof message?.getType === "function" ? message.getType() : message?.type) === "ai";

// One conversation: the agent's loop running, paused between harness turns.
class AgentRun extends LoopRun {
  library = "createAgent";

  constructor(turn, endpoint) {
    super();
    this.conversation = turn.conversation;
    this.turnIndex = 0; this.options = turn.options ?? {};
    this.queue = new Queue(); this.responses = []; this.calls = 0; this.pausedTurn = -1;
    this.waiting = new Map(); this.settled = new Set(); this.results = new Map(); this.gate = null; this.gated = -1;
    this.toolsCache = turn.tools?.at(-1)?.cache_control;
    this.writer = null; this.failed = false; this.finished = false; this.abort = new AbortController();
    const tools = (turn.tools ?? []).map((spec) => agents.tool((_input, config) => this.result(spec.name, config),
      { name: spec.name, description: spec.description, schema: spec.input_schema }));
    const harness = agents.createMiddleware({ name: "BedrockHarnessTurns",
      wrapModelCall: (request, handler) => this.modelCall(request, handler),
      wrapToolCall: (request, handler) => this.toolCall(request, handler) });
    const agent = agents.createAgent({ model: model(turn, endpoint), tools, middleware: [harness],
      ...(turn.system ? { systemPrompt: systemPrompt(turn.system) } : {}) });
    this.pump(agent, converted(turn.messages ?? []));
  }

  // Model call k waits for harness turn k, then runs with that turn's tool choice and tool cache point.
  async modelCall(request, handler) {
    this.writer = request.runtime?.writer ?? this.writer;
    const number = this.calls++;
    if (number > this.turnIndex) {
      await new Promise((release) => { this.gate = { number, release }; this.tell({ gate: number }); });
    }
    const choice = toolChoice(this.options.tool_choice);
    const cached = this.toolsCache; // the call option cache_control, after the last tool (as langchain_js.mjs)
    const response = await handler({ ...request, ...(choice ? { toolChoice: choice } : {}),
      ...(cached ? { modelSettings: { ...request.modelSettings, cache_control: cached } } : {}) });
    this.responses[number] = response;
    this.tell({ answered: number });
    return response;
  }

  async toolCall(request, handler) {
    try {
      return await handler(request);
    } finally {
      this.tell({ settled: request.toolCall?.id });
    }
  }

  // The harness's result for the call (a ToolMessage), once the next turn brings it.
  result(name, config) {
    const id = config?.toolCall?.id ?? config?.toolCallId;
    const message = (block) => new lc.ToolMessage({ content: toolContent(block), tool_call_id: id, name,
      status: block.is_error ? "error" : "success" });
    if (this.results.has(id)) return Promise.resolve(message(this.results.get(id)));
    return new Promise((resolve) => { this.waiting.set(id, (block) => resolve(message(block))); this.tell({ waiting: id }); });
  }

  // A note for the pump, written into the agent's own stream (after the parts already streamed).
  tell(note) { this.writer?.({ bedrockHarness: note }); }

  async pump(agent, messages) {
    try {
      const stream = await agent.stream({ messages }, { streamMode: ["messages", "custom"],
        recursionLimit: RECURSION_LIMIT, signal: this.abort.signal });
      for await (const [mode, data] of stream) {
        if (mode === "messages") {
          const [message, metadata] = data;
          if (metadata?.langgraph_node !== MODEL_NODE || !isAi(message)) continue;
          for (const chunk of messageChunks(message)) {
            if (chunk.type !== "stop" && chunk.type !== "usage") this.emit(chunk);
          }
        } else if (mode === "custom" && data?.bedrockHarness) {
          this.observe(data.bedrockHarness);
        }
      }
    } catch (error) {
      this.emit(errorChunk(error));
    }
    this.queue.push({ kind: "done" });
  }

  observe(note) {
    if ("answered" in note) this.closeCall(this.responses[note.answered]);
    if ("settled" in note) this.settled.add(note.settled);
    if ("gate" in note) this.gated = note.gate;
    this.check();
  }

  // The model call's tool calls, stop, usage and assembled message, from its AIMessage.
  closeCall(response) {
    for (const chunk of assembledCalls(response)) this.emit(chunk);
    for (const chunk of messageChunks(response)) if (chunk.type === "stop" || chunk.type === "usage") this.emit(chunk);
    this.emit({ type: "message", message: anthropicMessage(response) });
  }

  emit(chunk) {
    if (this.failed || this.abort.signal.aborted) return; // nothing follows an error chunk
    this.queue.push({ kind: "chunk", chunk });
    if (chunk.type === "error") this.failed = true;
  }

  // Ends the harness turn when its model call's tools all wait (or returned), or when the loop waits at the next
  // model call.
  check() {
    const response = this.responses[this.turnIndex];
    if (!response || this.pausedTurn === this.turnIndex) return;
    const ids = (response.tool_calls ?? []).map((call) => call.id);
    const waiting = ids.some((id) => this.waiting.has(id))
      && ids.every((id) => this.waiting.has(id) || this.settled.has(id));
    if (!waiting && this.gated !== this.turnIndex + 1) return;
    this.pausedTurn = this.turnIndex;
    this.queue.push({ kind: "pause" });
  }

  // The next turn's tool results: the waiting calls return them (a call the harness sent none for gets an error).
  deliver(results, turn) { // the turn's tool cache point, before the gate lets the next model call read it
    this.toolsCache = turn.tools?.at(-1)?.cache_control;
    super.deliver(results, turn);
  }

  modelCalls() { return this.calls; }

  // Abandoned (a new conversation): the run is aborted, waiting tools and a waiting model call return.
  close() {
    this.abort.abort();
    for (const [id, resolve] of this.waiting) resolve(unanswered(id));
    this.gate?.release();
  }
}

await serve({ name: "langchain-js-agent", version: packages.version, capabilities: capabilities(CAPABILITIES) },
  new Agent((turn, endpoint) => new AgentRun(turn, endpoint)));
