#!/usr/bin/env node
// The `langchain` package's own agent loop read through its events (`langchain-js-agent-events`): createAgent's run
// of langchain_js_loop.mjs, consumed as an application that renders events consumes it:
// `agent.streamEvents({messages}, {version: "v2"})`. The surfaced chunks are the `data.chunk` AIMessageChunks of the
// model node's `on_chat_model_stream` events (`metadata.langgraph_node`: the node the run is in); model call k closes
// on the model node's k-th `on_chain_end`, whose `data.output` is what the node returns for the agent's state (the
// message the agent appends: its tool calls, stop reason, usage and `message`). The shim's notes are custom events
// (`dispatchCustomEvent`, `on_custom_event` in the same stream).
//
//   node langchain_js_agent_events.mjs --modules DIR   (DIR holds bedrock-harness-langchain-js-agent.mjs and langchain)

import { capabilities, errorChunk, load, serve } from "./langchain_js_common.mjs";
import { AgentRun, agentTurns, CAPABILITIES, isAi, MODEL_NODE, RECURSION_LIMIT } from "./langchain_js_loop.mjs";

const packages = await load("langchain_js_agent_events.mjs", "bedrock-harness-langchain-js-agent.mjs");
const NOTE = "bedrock_harness"; // the custom events' name

// The messages the model node's output adds to the state: `{messages}` (langchain 1.2), or the Commands whose update
// holds them (1.5: AgentNode returns `[new Command({update: {messages: [aiMessage]}})]`).
const added = (output) => [output].flat().flatMap((part) => (part?.update ?? part)?.messages ?? []);

class EventsRun extends AgentRun {
  ended = 0; // model node runs that ended

  answered() {} // the call closes on its node's end event

  // A note for the pump: a custom event of the run the note is made in (the tool's config, or the context's).
  tell(note, config) {
    return packages.dispatch.dispatchCustomEvent(NOTE, note, config).catch((error) => this.emit(errorChunk(error)));
  }

  async pump() {
    const events = this.agent.streamEvents(this.input, { version: "v2", recursionLimit: RECURSION_LIMIT,
      signal: this.abort.signal });
    for await (const { event: kind, name, data, metadata } of events) {
      if (kind === "on_custom_event" && name === NOTE) this.observe(data);
      else if (metadata?.langgraph_node !== MODEL_NODE) continue;
      else if (kind === "on_chat_model_stream") this.streamed(data.chunk);
      else if (kind === "on_chain_end" && name === MODEL_NODE) this.nodeEnded(data.output); // not its router's end
    }
  }

  // Model call k closes on the k-th end of the model node, with the AIMessage its output adds.
  nodeEnded(output) {
    const number = this.ended++;
    const message = added(output).filter(isAi).at(-1);
    if (message) this.closeCall(number, message);
  }
}

await serve({ name: "langchain-js-agent-events", version: packages.version, capabilities: capabilities(CAPABILITIES) },
  agentTurns(EventsRun, packages));
