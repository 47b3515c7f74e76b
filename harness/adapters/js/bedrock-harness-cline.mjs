// Copied beside @cline/llms's node_modules by bedrock-harness: the shim (cline.mjs, inside the Python package)
// imports the package through this file, so it resolves from this folder and not from the shim's. The release's
// package.json is read from the folder (its exports map names no ./package.json).
import { readFileSync } from "node:fs";

export * as llms from "@cline/llms";
export const version = JSON.parse(readFileSync(new URL("./node_modules/@cline/llms/package.json", import.meta.url),
  "utf8")).version;
