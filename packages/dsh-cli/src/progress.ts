import { compactionEndEvent, compactionStartEvent, requestRetryEvent, stepStartEvent } from "dsh-agent";
import type { StreamChunk } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { assistantMessageEvent, toolResultEvent } from "dsh-surface";
import type { CliIo } from "./io.js";
import { printable } from "./printable.js";

/**
 * Progress while a run streams: the answer's text on stdout, steps, tool calls, retries and
 * compactions on stderr, all made printable. On a terminal the text streams as it arrives (a retried
 * attempt's partial text is marked as discarded); otherwise each answer's text is written once
 * `durable` says it is logged, so stdout holds exactly the answers the log holds (a writer that lost
 * its session to another shows nothing it could not log).
 */
export function showProgress(io: CliIo, durable: () => Promise<void>) {
  const live = io.stdout.isTTY === true;
  let pending = "";
  /** Answers wait here for their durability, in order. */
  let printing = Promise.resolve();
  let midLine = false;
  const write = (text: string) => {
    if (text === "") return;
    io.stdout.write(printable(text, true));
    midLine = !text.endsWith("\n");
  };
  const note = (text: string) => {
    if (midLine) io.stdout.write("\n");
    midLine = false;
    io.stderr.write(`dsh: ${printable(text)}\n`);
  };
  return {
    chunk(chunk: StreamChunk) {
      if (chunk.type !== "text-delta") return;
      if (live) write(chunk.text);
      else pending += chunk.text;
    },
    event(event: LogEvent) {
      if (stepStartEvent.is(event)) {
        // Numbered as the log numbers them, from 0, like every other command and the web app.
        note(`turn ${event.data.turn} step ${event.data.step}`);
      } else if (assistantMessageEvent.is(event)) {
        if (!live) {
          const text = event.data.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
          printing = printing.then(durable).then(() => write(text));
          // A failure to log is reported by the turn that fails with it; the answer is just not shown.
          printing = printing.catch(() => undefined);
        }
        pending = "";
        for (const block of event.data.content) if (block.type === "tool-call") note(`  → ${block.name} ${block.arguments}`);
      } else if (toolResultEvent.is(event) && event.data.replaces === undefined) {
        const text = event.data.content.map((block) => (block.type === "text" ? block.text : "[image]")).join("");
        const child = event.data.child === undefined ? "" : ` (subagent session ${event.data.child.sessionId})`;
        note(`  ← ${event.data.toolName}${event.data.isError ? " (error)" : ""}: ${text.split("\n").length} line(s)${child}`);
      } else if (requestRetryEvent.is(event)) {
        if (live && midLine) note("  (the partial answer above is discarded)");
        pending = "";
        note(`  retry ${event.data.attempt} in ${event.data.delayMs} ms after ${event.data.error.code}`);
      } else if (compactionStartEvent.is(event)) {
        note(`  compacting (${event.data.reason})`);
      } else if (compactionEndEvent.is(event)) {
        note(`  compaction ${event.data.outcome}`);
      }
    },
    /** Waits for the answers still waiting to be shown, then ends the last line. */
    async finish() {
      await printing;
      if (midLine) io.stdout.write("\n");
      midLine = false;
    },
  };
}
