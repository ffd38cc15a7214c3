import type { LogEvent } from "./event.js";

/**
 * Batches of events the JSONL reader parsed from text and already proved exact, deep-frozen JSON, so
 * admission need not copy or walk them again: frozen arrays, or the reader's own generators, which it
 * hands straight to admission. Private to this package: nothing outside it can vouch for events, and
 * neither kind of batch can gain foreign ones.
 */
const parsedBatches = new WeakSet<object>();

/** Records that `events` (a frozen array or the reader's generator) holds only events the reader parsed, walked and froze. */
export function markParsedBatch(events: Iterable<LogEvent>): void {
  parsedBatches.add(events);
}

/** Whether `events` is a batch the reader parsed and checked. */
export function isParsedBatch(events: unknown): boolean {
  return typeof events === "object" && events !== null && parsedBatches.has(events);
}
