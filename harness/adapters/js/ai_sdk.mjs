#!/usr/bin/env node
// The Vercel AI SDK (`streamText` from `ai` with `@ai-sdk/amazon-bedrock`) as a bedrock-harness adapter: the
// subprocess protocol 3 in conversation mode (own_history), Node >= 20 (the newest releases need 22).
//
//   node ai_sdk.mjs --modules DIR
//
// DIR holds the packages (node_modules/) and bedrock-harness-ai-sdk.mjs, which re-exports `ai` and
// `@ai-sdk/amazon-bedrock` from there (harness.adapters.js.npm installs both into a cache folder per release);
// BEDROCK_HARNESS_AI_SDK_MODULES overrides DIR (the offline tests point it at a fake of the SDK's surface).
//
// The history is what an application keeps: the scenario's opening as ModelMessages, then per turn the SDK's own
// `response.messages`, then the scenario's tool results as `tool` messages. The stream parts map to chunks as they
// are, nothing repaired; the SDK's assembled assistant message closes the turn (`message`), and a turn asking for
// streaming parity also reports `response.messages` of streamText and of generateText on the same input (`native`).

import { anthropicMessage, callOptions, capabilities, converted, errorChunk, jsonSafe, load, mediaPart,
  NATIVE_DIFFERENCES, olderMessages, partChunks, serve } from "./ai_sdk_common.mjs";

const packages = await load("ai_sdk.mjs");
const { ai } = packages;
const MEDIA = mediaPart(packages.bedrock);

const CAPABILITIES = ["text", "tool_use", "parallel_tool_use", "reasoning", "reasoning_signature", "redacted_reasoning",
  "usage", "cache_usage", "stop_reason", "round_trip", "errors", "streaming", "own_history",
  "usage_input_includes_cache", "non_streaming", "cache_points",
  "tool_result_media", "service_tier", "guardrail"];

// ---- conversation mode ----

class Conversation {
  constructor() { this.id = undefined; this.messages = []; this.assistant = []; }

  history(turn) {
    if (!("conversation" in turn) || turn.conversation !== this.id) {
      this.id = turn.conversation; this.messages = [];
    } else {
      this.messages.push(...this.assistant);
    }
    this.assistant = [];
    this.messages.push(...converted(turn.messages ?? [], this.messages, olderMessages(ai), MEDIA));
    return this.messages;
  }

  async* turn(turn, endpoint) {
    const options = callOptions(packages, turn, endpoint, this.history(turn));
    let failed = null, response = null;
    const state = { started: new Set(), metadata: null };
    try {
      const result = ai.streamText({ ...options, onError: () => {} });
      for await (const part of result.fullStream) {
        for (const chunk of partChunks(part, state)) {
          if (!failed) yield chunk; // nothing follows an error chunk
          if (chunk.type === "error") failed ??= chunk;
        }
      }
      if (!failed) response = await result.response;
    } catch (error) {
      failed = errorChunk(error);
      yield failed;
    }
    if (response) {
      this.assistant = response.messages; // appended as an application does, before the next turn's messages
      yield { type: "message", message: anthropicMessage(response.messages) };
    }
    if (!turn.non_streaming) return;
    yield response ? { type: "native", path: "stream", message: jsonSafe(response.messages) }
      : { type: "native", path: "stream", error: `${failed.code}: ${failed.message}` };
    yield await whole(options);
  }
}

// generateText on the same input: its response.messages, or what it threw. An application's guardrail for
// generateText has no stream processing mode (Converse's guardrailConfig has none; the provider passes the option on
// as it is).
async function whole(options) {
  const guardrail = options.providerOptions?.bedrock?.guardrailConfig;
  if (guardrail?.streamProcessingMode) {
    const { streamProcessingMode: _, ...converse } = guardrail;
    options = { ...options, providerOptions: { ...options.providerOptions,
      bedrock: { ...options.providerOptions.bedrock, guardrailConfig: converse } } };
  }
  try {
    const result = await ai.generateText(options);
    return { type: "native", path: "converse", message: jsonSafe(result.response.messages) };
  } catch (error) {
    const failed = errorChunk(error);
    return { type: "native", path: "converse", error: `${failed.code}: ${failed.message}` };
  }
}

await serve({ name: "ai-sdk", version: packages.version, capabilities: await capabilities(CAPABILITIES, packages.bedrock, ai),
  native_differences: NATIVE_DIFFERENCES }, new Conversation());
