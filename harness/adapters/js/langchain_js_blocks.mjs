#!/usr/bin/env node
// LangChain.js's content-block streaming as a bedrock-harness adapter (`langchain-js-blocks`): `streamEvents` without a
// version (@langchain/core >= 1.4, whose v1 and v2 it deprecates for this), which returns a ChatModelStream over the
// model's `_streamChatModelEvents` (@langchain/aws >= 1.4.1: its own converter of the Bedrock stream,
// utils/stream_events.js; before, core's bridge from `_streamResponseChunks`). The same model, history and mapping
// helpers as langchain_js.mjs (langchain_js_common.mjs); the tools go as call options (`tools`, `tool_choice`,
// `cache_control`: what bindTools binds), since a bound model's streamEvents yields the events without the stream's
// message.
//
//   node langchain_js_blocks.mjs --modules DIR
//
// Each turn iterates the stream's events as an application rendering them does (message-start, content-block-start,
// content-block-delta, content-block-finish, usage, message-finish), each mapped to harness chunks as it is, and awaits
// the stream for the assembled AIMessage (content blocks, output_version v1), which closes the turn and joins the
// history.

import { capabilities, CAPABILITIES, contentChunks, Conversation, load, model, serve, toolOptions, usageChunk }
  from "./langchain_js_common.mjs";

const { version } = await load("langchain_js_blocks.mjs");

const TOOL_BLOCKS = new Set(["tool_call_chunk", "tool_call", "server_tool_call_chunk"]);

// One event's harness chunks; `state` keeps each tool block's arguments so far (a block-delta restates them whole).
function* eventChunks(event, state) {
  const { index = null } = event;
  if (event.event === "content-block-start") {
    const block = event.content ?? {};
    if (!TOOL_BLOCKS.has(block.type)) { yield* contentChunks({ ...block, index }); return; }
    const args = typeof block.args === "string" ? block.args : "";
    state.args.set(index, args);
    yield { type: "tool_call", index, input_delta: args, ...(block.id != null ? { id: block.id } : {}),
      ...(block.name != null ? { name: block.name } : {}) };
  } else if (event.event === "content-block-delta") {
    const delta = event.delta ?? {};
    if (delta.type === "text-delta") yield* contentChunks({ type: "text", text: delta.text, index });
    else if (delta.type === "reasoning-delta") yield { type: "reasoning", index, text: delta.reasoning };
    else if (delta.type === "tool-call-delta") {
      state.args.set(index, (state.args.get(index) ?? "") + (delta.args ?? ""));
      yield { type: "tool_call", index, input_delta: delta.args ?? "" };
    } else if (delta.type === "block-delta" && TOOL_BLOCKS.has(delta.fields?.type)) {
      const before = state.args.get(index) ?? "", now = delta.fields.args ?? "";
      state.args.set(index, now);
      yield { type: "tool_call", index, input_delta: now.startsWith(before) ? now.slice(before.length) : now };
    } else if (delta.type === "block-delta") {
      yield* contentChunks({ ...delta.fields, index });
    }
  } else if (event.event === "usage") {
    state.usage = event.usage;
  } else if (event.event === "message-finish") {
    if (event.reason) yield { type: "stop", reason: event.reason };
    const usage = event.usage ?? state.usage;
    if (usage) yield usageChunk(usage);
  }
}

function blocks(turn, endpoint, history) {
  const chat = model(turn, endpoint);
  return { bound: chat, chunks: (async function* () {
    const stream = chat.streamEvents(history, toolOptions(turn));
    const state = { args: new Map(), usage: null };
    for await (const event of stream) yield* eventChunks(event, state);
    return await stream;
  })() };
}

await serve({ name: "langchain-js-blocks", version,
  capabilities: capabilities(CAPABILITIES.filter((name) => name !== "non_streaming")) }, new Conversation(blocks));
