// What the agent-loop shims share (ai_sdk_agent.mjs, and langchain_js_loop.mjs's createAgent run): a library's own
// loop runs on while the harness hands it one turn at a time, so its events wait in a queue, a call the scenario sent
// no result for gets an error result, a later turn may carry tool results only, and a loop that has finished is the
// turn error `agent_loop_ended`.

import { Skip } from "./protocol.mjs";

export const LOOP_ENDED = "agent_loop_ended";

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

// What a run of the loop shares (a shim's run extends it): the next turn's tool results go to the tools waiting for
// them (a call the harness sent none for gets an error result) and release a model call held for that turn; the
// run's events are relayed until it pauses. The run sets turnIndex, options, queue, results, waiting, gate,
// finished, failed and abort (an AbortController), and says how many model calls the loop has made (modelCalls())
// and what runs it (library).
export class LoopRun {
  // A chunk for the harness; nothing follows an error chunk, or a run aborted.
  emit(chunk) {
    if (this.failed || this.abort.signal.aborted) return;
    this.queue.push({ kind: "chunk", chunk });
    if (chunk.type === "error") this.failed = true;
  }

  deliver(results, turn) {
    this.turnIndex += 1;
    this.options = turn.options ?? {};
    for (const block of results) this.results.set(block.tool_use_id, block);
    for (const [id, resolve] of this.waiting) resolve(this.results.get(id) ?? unanswered(id));
    this.waiting.clear();
    if (this.gate && this.gate.number <= this.turnIndex) { this.gate.release(); this.gate = null; }
  }

  async* untilPause() {
    const turn = this.turnIndex;
    while (!this.finished) {
      const event = await this.queue.next();
      if (event.kind === "chunk") yield event.chunk;
      else if (event.kind === "pause") return;
      else this.finished = true;
    }
    if (turn > 0 && this.modelCalls() <= turn && !this.failed) {
      yield { type: "error", code: LOOP_ENDED, message: "the agent loop finished without another model call: "
        + `${this.library} did not continue after the tool results, so the scenario's next model call never happened` };
    }
  }
}

// The shim's turn handler: one run of the loop per conversation (``start(turn, endpoint)`` begins one, an object with
// conversation, finished, deliver(results, turn), untilPause() and close()), its later turns' results delivered to it.
export class Agent {
  constructor(start) { this.start = start; this.run = null; }

  async* turn(turn, endpoint) {
    if (!this.run || !("conversation" in turn) || turn.conversation !== this.run.conversation) {
      this.run?.close();
      this.run = this.start(turn, endpoint);
    } else if (this.run.finished) {
      const results = toolResults(turn);
      yield { type: "error", code: LOOP_ENDED, message: "the agent loop had already finished, without running the "
        + `${results.length} tool call(s) the model made, so their results had nowhere to go` };
      return;
    } else {
      this.run.deliver(toolResults(turn), turn);
    }
    yield* this.run.untilPause();
  }
}
