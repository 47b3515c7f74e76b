// Copied beside the AI SDK's node_modules by bedrock-harness: the shim (ai_sdk.mjs, inside the Python package)
// imports the packages through this file, so they resolve from this folder and not from the shim's.
import { createRequire } from "node:module";

export * as ai from "ai";
export * as bedrock from "@ai-sdk/amazon-bedrock";
export const version = createRequire(import.meta.url)("@ai-sdk/amazon-bedrock/package.json").version;
