// What the two createAgent shims share (langchain_js_agent.mjs: `agent.stream` with the `messages` mode;
// langchain_js_agent_events.mjs: `agent.streamEvents` v2): one `createAgent({model, tools, systemPrompt,
// middleware})` run per conversation on a ChatBedrockConverse (the model, history and mapping of
// langchain_js_common.mjs), its model calls and tool results held to the harness's turns. Each scenario tool is a
// `tool(...)` whose function returns the scenario's result for that call (a ToolMessage, the tool's direct output, so
// that the result's content blocks and error status reach the library as given), so the agent itself decides whether
// to run the tools the model called and makes the next model call.
//
// Model call k is harness turn k's. One middleware, the library's hook on each model and tool call, holds call k until
// the harness sends turn k (its `wrapModelCall`, which also sets the turn's tool choice and the cache point after the
// tools, the request's `toolChoice` and `modelSettings`); its `wrapToolCall` notes a call that returned. What the
// shim learns of the loop goes through the agent's own stream as notes (`tell`, a shim's own way into the stream it
// reads), after the parts already streamed, so a turn ends in stream order: when the call's tools all wait for their
// results (or returned), or when the loop waits at the next model call, or when it finishes. A shim reads its stream
// (`pump`), emits the model node's streamed chunks and closes model call k with the message the agent appends
// (`closeCall`). A loop that finishes while the scenario goes on (results sent, no next model call) is the turn error
// `agent_loop_ended`; user content between model calls is a skip.

import { anthropicMessage, assembledCalls, converted, errorChunk, messageChunks, model, systemPrompt, toolChoice,
  toolContent } from "./langchain_js_common.mjs";
import { Agent, LoopRun, Queue, unanswered } from "./agent_loop.mjs";

export const CAPABILITIES = ["text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature",
  "redacted_reasoning", "usage", "cache_usage", "stop_reason", "round_trip", "errors", "streaming", "own_history",
  "usage_input_includes_cache", "cache_points", "tool_result_media", "citations"];
export const MODEL_NODE = "model_request"; // createAgent's model node (AGENT_NODE_NAME)
export const RECURSION_LIMIT = 10000; // the scenario, not LangGraph's step limit, ends a conversation

export const isAi = (message) => (typeof message?.getType === "function" ? message.getType() : message?.type) === "ai";

// One conversation: the agent's loop running, paused between harness turns. A shim's run says how it tells the
// stream a note (`tell(note, config)`, a promise), reads the stream (`pump()`) and what a returned model call does
// (`answered(number, response)`).
export class AgentRun extends LoopRun {
  library = "createAgent";

  constructor({ agents, messages: lc }, turn, endpoint) {
    super();
    this.lc = lc;
    this.conversation = turn.conversation;
    this.turnIndex = 0; this.options = turn.options ?? {};
    this.queue = new Queue(); this.closed = []; this.calls = 0; this.pausedTurn = -1;
    this.waiting = new Map(); this.settled = new Set(); this.results = new Map(); this.gate = null; this.gated = -1;
    this.toolsCache = turn.tools?.at(-1)?.cache_control;
    this.failed = false; this.finished = false; this.abort = new AbortController();
    const tools = (turn.tools ?? []).map((spec) => agents.tool((_input, config) => this.result(spec.name, config),
      { name: spec.name, description: spec.description, schema: spec.input_schema }));
    const harness = agents.createMiddleware({ name: "BedrockHarnessTurns",
      wrapModelCall: (request, handler) => this.modelCall(request, handler),
      wrapToolCall: (request, handler) => this.toolCall(request, handler) });
    this.agent = agents.createAgent({ model: model(turn, endpoint), tools, middleware: [harness],
      ...(turn.system ? { systemPrompt: systemPrompt(turn.system) } : {}) });
    this.input = { messages: converted(turn.messages ?? []) };
  }

  // Model call k waits for harness turn k, then runs with that turn's tool choice and tool cache point.
  async modelCall(request, handler) {
    const number = this.calls++;
    if (number > this.turnIndex) {
      await new Promise((release) => { this.gate = { number, release }; this.tell({ gate: number }); });
    }
    const choice = toolChoice(this.options.tool_choice);
    const cached = this.toolsCache; // the call option cache_control, after the last tool (as langchain_js.mjs)
    const response = await handler({ ...request, ...(choice ? { toolChoice: choice } : {}),
      ...(cached ? { modelSettings: { ...request.modelSettings, cache_control: cached } } : {}) });
    await this.answered(number, response);
    return response;
  }

  async toolCall(request, handler) {
    try {
      return await handler(request);
    } finally {
      await this.tell({ settled: request.toolCall?.id });
    }
  }

  // The harness's result for the call (a ToolMessage), once the next turn brings it.
  result(name, config) {
    const id = config?.toolCall?.id ?? config?.toolCallId;
    const message = (block) => new this.lc.ToolMessage({ content: toolContent(block), tool_call_id: id, name,
      status: block.is_error ? "error" : "success" });
    if (this.results.has(id)) return Promise.resolve(message(this.results.get(id)));
    return new Promise((resolve) => {
      this.waiting.set(id, (block) => resolve(message(block)));
      this.tell({ waiting: id }, config);
    });
  }

  // The run's stream read until it ends (the loop finished, or threw: the error chunk ends the turn).
  start() {
    this.pump().catch((error) => this.emit(errorChunk(error))).then(() => this.queue.push({ kind: "done" }));
    return this;
  }

  // The model node's streamed chunk (its stop and usage come with the closed call).
  streamed(message) {
    if (!isAi(message)) return;
    for (const chunk of messageChunks(message)) if (chunk.type !== "stop" && chunk.type !== "usage") this.emit(chunk);
  }

  observe(note) {
    if ("settled" in note) this.settled.add(note.settled);
    if ("gate" in note) this.gated = note.gate;
    this.check();
  }

  // Model call `number`'s tool calls, stop, usage and assembled message, from the message the agent appends.
  closeCall(number, message) {
    this.closed[number] = message;
    for (const chunk of assembledCalls(message)) this.emit(chunk);
    for (const chunk of messageChunks(message)) if (chunk.type === "stop" || chunk.type === "usage") this.emit(chunk);
    this.emit({ type: "message", message: anthropicMessage(message) });
    this.check();
  }

  // Ends the harness turn when its model call's tools all wait (or returned), or when the loop waits at the next
  // model call.
  check() {
    const message = this.closed[this.turnIndex];
    if (!message || this.pausedTurn === this.turnIndex) return;
    const ids = (message.tool_calls ?? []).map((call) => call.id);
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

// The shim's turn handler: a run of `Run` (an AgentRun) per conversation on `packages`, started.
export const agentTurns = (Run, packages) => new Agent((turn, endpoint) => new Run(packages, turn, endpoint).start());
