// Copied beside LangChain.js's node_modules by bedrock-harness for the agent shim (langchain_js_agent.mjs): the
// packages of bedrock-harness-langchain-js.mjs, and `langchain` (createAgent, tool, createMiddleware), resolved from
// this folder and not from the shim's.
import { createRequire } from "node:module";

export * as aws from "@langchain/aws";
export * as messages from "@langchain/core/messages";
export * as runtime from "@aws-sdk/client-bedrock-runtime";
export * as http from "@smithy/node-http-handler"; // HTTP/1.1: the runtime client's default, HTTP/2, is not the loopback's
export * as agents from "langchain";
export const version = createRequire(import.meta.url)("@langchain/aws/package.json").version;
