// What the agent-loop shims share (ai_sdk_agent.mjs, langchain_js_agent.mjs): a library's own loop runs on while the
// harness hands it one turn at a time, so its events wait in a queue, a call the scenario sent no result for gets an
// error result, and a later turn may carry tool results only.

import { Skip } from "./protocol.mjs";

// Events of a running loop, taken one at a time as the harness asks.
export class Queue {
  constructor() { this.items = []; this.wake = null; }
  push(item) { this.items.push(item); this.wake?.(); this.wake = null; }
  async next() {
    while (!this.items.length) await new Promise((wake) => { this.wake = wake; });
    return this.items.shift();
  }
}

export const unanswered = (id) => ({ type: "tool_result", tool_use_id: id, is_error: true,
  content: "the harness sent no result for this call" });

// The tool_result blocks of a later turn; other user content cannot enter a running loop.
export function toolResults(turn) {
  const blocks = (turn.messages ?? []).flatMap((m) => typeof m.content === "string" ? [{ type: "text" }] : m.content);
  const others = blocks.filter((b) => b.type !== "tool_result").map((b) => b.type);
  if (others.length) {
    throw new Skip(`an agent loop takes no user content between its model calls (this turn adds ${JSON.stringify(others)})`);
  }
  return blocks;
}
