#!/usr/bin/env node
// LangChain.js (`ChatBedrockConverse` of `@langchain/aws`, on `@langchain/core`) as a bedrock-harness adapter: the
// subprocess protocol 3 in conversation mode (own_history), Node >= 20.
//
//   node langchain_js.mjs --modules DIR
//
// DIR holds the packages (node_modules/) and bedrock-harness-langchain-js.mjs, which re-exports `@langchain/aws`,
// `@langchain/core/messages`, `@aws-sdk/client-bedrock-runtime` and `@smithy/node-http-handler` from there
// (harness.adapters.js.npm installs them into a cache folder per release); BEDROCK_HARNESS_LANGCHAIN_JS_MODULES
// overrides DIR (the offline tests point it at a fake of the library's surface).
//
// The history is what an application keeps: the scenario's opening as SystemMessage / HumanMessage / AIMessage, then
// per turn the streamed AIMessageChunks concatenated (`concat`, what `invoke` itself returns when it streams and what
// LangGraph appends), then one ToolMessage per tool result. Each streamed chunk maps to harness chunks as it is,
// nothing repaired; the concatenated message closes the turn (`message`), and a turn asking for streaming parity also
// reports both calls' messages as LangChain.js stores them (mapChatMessagesToStoredMessages of `.stream`'s
// concatenation and of `.invoke`'s AIMessage: `native`). The mapping is langchain_js_common.mjs's.

import { capabilities, CAPABILITIES, chunked, Conversation, load, NATIVE_DIFFERENCES, serve } from "./langchain_js_common.mjs";

const { version } = await load("langchain_js.mjs");

// `.stream`'s chunks, concatenated as they come.
async function* streamed(bound, history) {
  let summed;
  for await (const chunk of await bound.stream(history)) {
    summed = summed === undefined ? chunk : summed.concat(chunk);
    yield chunk;
  }
  return summed;
}

await serve({ name: "langchain-js", version, capabilities: capabilities(CAPABILITIES),
  native_differences: NATIVE_DIFFERENCES }, new Conversation(chunked(streamed)));
