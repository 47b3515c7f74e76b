// Copied beside LangChain.js's node_modules by bedrock-harness for the agent shims (langchain_js_agent.mjs,
// langchain_js_agent_events.mjs): the packages of bedrock-harness-langchain-js.mjs, `langchain` (createAgent, tool,
// createMiddleware) and core's dispatchCustomEvent, resolved from this folder and not from the shim's.
import { createRequire } from "node:module";

export * as aws from "@langchain/aws";
export * as messages from "@langchain/core/messages";
export * as runtime from "@aws-sdk/client-bedrock-runtime";
export * as http from "@smithy/node-http-handler"; // HTTP/1.1: the runtime client's default, HTTP/2, is not the loopback's
export * as agents from "langchain";
export * as dispatch from "@langchain/core/callbacks/dispatch";
export const version = createRequire(import.meta.url)("@langchain/aws/package.json").version;
