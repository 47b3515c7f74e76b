#!/usr/bin/env node
// The `langchain` package's own agent loop as a bedrock-harness adapter (`langchain-js-agent`): createAgent's run of
// langchain_js_loop.mjs, streamed as an application streams it:
// `agent.stream({messages}, {streamMode: ["messages", "custom"]})`. The shim's notes are `custom` parts (the
// runtime's writer), after the model call's `messages` parts. The surfaced chunks are the `messages` parts of the
// model node (AIMessageChunks, as the library emits them: its handleLLMNewToken); the tool calls, stop reason, usage
// and `message` are the model call's AIMessage as wrapModelCall's handler returns it, which the agent appends to its
// state.
//
//   node langchain_js_agent.mjs --modules DIR   (DIR holds bedrock-harness-langchain-js-agent.mjs and langchain too)

import { capabilities, load, serve } from "./langchain_js_common.mjs";
import { AgentRun, agentTurns, CAPABILITIES, MODEL_NODE, RECURSION_LIMIT } from "./langchain_js_loop.mjs";

const packages = await load("langchain_js_agent.mjs", "bedrock-harness-langchain-js-agent.mjs");

class StreamRun extends AgentRun {
  writer = null; responses = [];

  modelCall(request, handler) {
    this.writer = request.runtime?.writer ?? this.writer;
    return super.modelCall(request, handler);
  }

  answered(number, response) {
    this.responses[number] = response;
    return this.tell({ answered: number });
  }

  // A note for the pump, written into the agent's own stream (after the parts already streamed).
  async tell(note) { this.writer?.({ bedrockHarness: note }); }

  async pump() {
    const stream = await this.agent.stream(this.input, { streamMode: ["messages", "custom"],
      recursionLimit: RECURSION_LIMIT, signal: this.abort.signal });
    for await (const [mode, data] of stream) {
      if (mode === "messages" && data[1]?.langgraph_node === MODEL_NODE) this.streamed(data[0]);
      else if (mode === "custom" && data?.bedrockHarness) this.observe(data.bedrockHarness);
    }
  }

  observe(note) {
    if ("answered" in note) this.closeCall(note.answered, this.responses[note.answered]);
    super.observe(note);
  }
}

await serve({ name: "langchain-js-agent", version: packages.version, capabilities: capabilities(CAPABILITIES) },
  agentTurns(StreamRun, packages));
