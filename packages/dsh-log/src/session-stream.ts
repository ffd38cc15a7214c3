import { admitBatch } from "./admission.js";
import { LogError } from "./errors.js";
import type { LogEvent } from "./event.js";
import type { EventRegistry } from "./registry.js";
import { parseSessionLines } from "./session-lines.js";
import type { StoredLines } from "./store.js";

/** Events per batch a stream yields. */
const BATCH_EVENTS = 4096;

/** A parse or admission failure named by the session and the seq at fault. */
function atSeq(error: unknown, sessionId: string, firstSeq: number): unknown {
  if (!(error instanceof LogError) || error.line === undefined) return error;
  // Each batch is parsed as a file of its own: line 2 is its first event.
  return new LogError(error.code, `session ${sessionId}, seq ${firstSeq + error.line - 2}: ${error.message.replace(/^line \d+: /, "")}`, { cause: error });
}

/**
 * A stored session's events (from {@link SessionStore.readLines}) in admitted batches, parsed and
 * admitted exactly as a load does, holding only the admission rules' state and one batch: what a
 * read-only report needs of a log too large to hold whole. A bad event throws naming its seq.
 */
export async function* streamSessionEvents(stored: StoredLines, registry: EventRegistry, batchEvents = BATCH_EVENTS): AsyncGenerator<readonly LogEvent[]> {
  let states: readonly unknown[] = registry.rules.map((rule) => rule.initial());
  let seq = 0;
  let pending: string[] = [];
  const admit = (): readonly LogEvent[] => {
    try {
      const parsed = parseSessionLines(stored.info, pending);
      const admitted = admitBatch(registry, parsed, seq, states, { parsed: true, lineOf: (at) => at - seq + 2 });
      states = admitted.states;
      seq += admitted.events.length;
      pending = [];
      return admitted.events;
    } catch (error) {
      throw atSeq(error, stored.info.sessionId, seq);
    }
  };
  for await (const { line } of stored.lines) {
    pending.push(line);
    if (pending.length >= batchEvents) yield admit();
  }
  if (pending.length > 0) yield admit();
}
