import type { LogEvent } from "./event.js";

/**
 * Frozen arrays of events the JSONL reader parsed from text and already proved exact, deep-frozen
 * JSON, so admission need not copy or walk them again. Private to this package: nothing outside it
 * can vouch for events, and a frozen array cannot gain foreign ones.
 */
const parsedBatches = new WeakSet<object>();

/** Records that `events`, a frozen array, holds only events the reader parsed, walked and froze. */
export function markParsedBatch(events: readonly LogEvent[]): void {
  parsedBatches.add(events);
}

/** Whether `events` is a batch the reader parsed and checked. */
export function isParsedBatch(events: unknown): boolean {
  return typeof events === "object" && events !== null && parsedBatches.has(events);
}
