// The subprocess protocol as every JavaScript shim speaks it (protocol 3): the library's packages loaded through the
// entry module beside them (`--modules DIR`, or the folder an environment variable names: the offline tests' fakes),
// one JSON message per line on stdout, and the loop answering `hello` and each `turn`.

import { createInterface } from "node:readline";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

// A turn the shim declines to run (the harness skips the scenario with this reason).
export class Skip extends Error {
  constructor(reason) { super(reason); this.name = "Skip"; }
}

export const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

// The entry module `entry` in `--modules DIR` (or $env); a usage line naming `what` and exit 2 without one.
export async function loadEntry(program, env, entry, what) {
  const argv = process.argv.slice(2);
  const modules = process.env[env] || (argv.includes("--modules") ? argv[argv.indexOf("--modules") + 1] : undefined);
  if (!modules) {
    console.error(`usage: node ${program} --modules DIR (the folder holding ${what} node_modules)`);
    process.exit(2);
  }
  return import(pathToFileURL(join(resolve(modules), entry)).href);
}

// Answer `hello` with `hello` and each turn with the chunks `handler.turn(turn, endpoint)` yields, until stdin ends.
export async function serve(hello, handler) {
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if (message.type === "hello") {
      send({ type: "hello", ...hello });
    } else if (message.type === "turn") {
      try {
        for await (const chunk of handler.turn(message.turn, message.endpoint)) send({ type: "chunk", chunk });
        send({ type: "done" });
      } catch (error) { // a turn the shim cannot express: say so, keep serving
        send(error instanceof Skip ? { type: "skip", reason: error.message }
          : { type: "error", message: `${error.name}: ${error.message}`, traceback: String(error.stack ?? "") });
      }
    }
  }
}
