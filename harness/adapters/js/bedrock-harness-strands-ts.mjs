// Copied beside the Strands Agents TypeScript SDK's node_modules by bedrock-harness: the shim (strands_ts.mjs, inside
// the Python package) imports the packages through this file, so they resolve from this folder and not from the shim's.
import { readFileSync } from "node:fs";

export * as strands from "@strands-agents/sdk";
export { NodeHttpHandler } from "@smithy/node-http-handler"; // the AWS SDK's HTTP/1.1 handler (the loopback speaks 1.1)
// the package exports no ./package.json: read it from the folder beside this file
export const version = JSON.parse(readFileSync(new URL("./node_modules/@strands-agents/sdk/package.json",
  import.meta.url), "utf8")).version;
