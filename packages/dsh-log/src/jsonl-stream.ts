import { BatchAdmission } from "./admission.js";
import type { LogEvent } from "./event.js";
import { lineOfSeq, type JsonlHeader, type TornTail } from "./jsonl-format.js";
import { openLogHandle, parsedEvents } from "./jsonl-file.js";
import { JsonlParser } from "./jsonl-parse.js";
import type { EventRegistry } from "./registry.js";
import { BATCH_EVENTS } from "./session-stream.js";

/** What a streamed read of a JSONL log found besides its events: the header, and a torn tail left as it is. */
export interface JsonlStreamEnd {
  readonly header: JsonlHeader;
  readonly tornTail: TornTail | undefined;
}

/** The next `count` items of `items` at most, leaving the rest to a later call. */
function* upTo<T>(items: Iterator<T>, count: number): Generator<T> {
  for (let taken = 0; taken < count; taken++) {
    const next = items.next();
    if (next.done === true) return;
    yield next.value;
  }
}

/**
 * The JSONL log at `path` as admitted batches, read, parsed and admitted exactly as `readJsonlLog`
 * reads it (the same refusals, naming the same lines), but holding only one batch and the admission
 * rules' state: for reports on logs too large to hold. Returns the header and the torn tail, if any,
 * once every batch was read; the file is left as it is.
 */
export async function* streamJsonlLog(path: string, registry: EventRegistry, batchEvents = BATCH_EVENTS): AsyncGenerator<readonly LogEvent[], JsonlStreamEnd> {
  // A handle, not a descriptor: a caller may stop iterating without returning, and a handle is closed when collected.
  const handle = await openLogHandle(path);
  try {
    const parser = new JsonlParser();
    const tail = { bytes: 0 };
    const admission = new BatchAdmission(registry);
    const events = parsedEvents(handle.fd, parser, tail);
    for (;;) {
      // Admitted as they are parsed, as `readJsonlLog` admits them: a file with two faults is refused at the same one.
      const batch = admission.admit(upTo(events, batchEvents), { parsed: true, lineOf: lineOfSeq });
      if (batch.length === 0) return parser.end(tail.bytes);
      yield batch;
    }
  } finally {
    await handle.close();
  }
}
