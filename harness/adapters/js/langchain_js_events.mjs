#!/usr/bin/env node
// LangChain.js's `streamEvents` as a bedrock-harness adapter (`langchain-js-events`): the same model, history and
// mapping as langchain_js.mjs (langchain_js_common.mjs), but each turn reads
// `bindTools(...).streamEvents(history, {version: "v2"})` as an application that renders events does: the surfaced
// chunks are the `data.chunk` AIMessageChunks of the `on_chat_model_stream` events, the turn's message (what joins the
// history, and the `stream` side of streaming parity) is the `data.output` of the `on_chat_model_end` event.
//
//   node langchain_js_events.mjs --modules DIR

import { capabilities, CAPABILITIES, chunked, Conversation, load, NATIVE_DIFFERENCES, serve } from "./langchain_js_common.mjs";

const { version } = await load("langchain_js_events.mjs");

// The model run's stream and end events (the one chat model run of the call: a bound model is no chain of its own).
async function* evented(bound, history) {
  let output;
  for await (const event of bound.streamEvents(history, { version: "v2" })) {
    if (event.event === "on_chat_model_stream") yield event.data.chunk;
    else if (event.event === "on_chat_model_end") output = event.data.output;
  }
  return output;
}

await serve({ name: "langchain-js-events", version, capabilities: capabilities(CAPABILITIES),
  native_differences: NATIVE_DIFFERENCES }, new Conversation(chunked(evented)));
