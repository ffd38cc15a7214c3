import { BatchAdmission, inBatches } from "./admission.js";
import { LogError } from "./errors.js";
import type { LogEvent } from "./event.js";
import type { EventRegistry } from "./registry.js";
import { namedBySeq, parsingSessionLines } from "./session-lines.js";
import type { StoredLines } from "./store.js";

/** Events per batch a stream yields. */
export const BATCH_EVENTS = 4096;

/**
 * A stored session's events (from {@link SessionStore.readLines}) in admitted batches, parsed and
 * admitted exactly as a load does, holding only the admission rules' state and one batch: what a
 * read-only report needs of a log too large to hold whole. A bad event throws naming its seq; rows
 * that disagree with the head the store records are `LOG_CORRUPT` once the last batch is read, as a
 * load refuses them.
 */
export async function* streamSessionEvents(stored: StoredLines, registry: EventRegistry, batchEvents = BATCH_EVENTS): AsyncGenerator<readonly LogEvent[]> {
  const admission = new BatchAdmission(registry);
  for await (const batch of inBatches(stored.lines, batchEvents)) {
    const first = admission.seq;
    let events: readonly LogEvent[];
    try {
      // Each batch is parsed as a file of its own: line 2 is its first event.
      // Admitted as they are parsed, as a load admits them: a batch with two faults is refused at the one a load meets first.
      events = admission.admit(parsingSessionLines(stored.info, batch.map(({ line }) => line)), { parsed: true, lineOf: (seq) => seq - first + 2 });
    } catch (error) {
      throw namedBySeq(error, stored.info.sessionId, first);
    }
    yield events;
  }
  if (stored.recorded !== undefined && admission.seq !== stored.recorded) {
    throw new LogError("LOG_CORRUPT", `session ${stored.info.sessionId}: its head says ${stored.recorded} events, but its rows hold ${admission.seq}`);
  }
}
