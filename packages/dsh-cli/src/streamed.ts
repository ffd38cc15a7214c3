import { createAgentRegistry } from "dsh-agent";
import { streamJsonlLog, streamSessionEvents, type LogEvent, type SessionInfo } from "dsh-log";
import type { CliIo } from "./io.js";
import { noteTornTail, storedLinesOf, type SessionRef } from "./store.js";

/** What a streamed read found: the session, and how many events it holds. */
export interface StreamedSession {
  readonly info: SessionInfo;
  readonly events: number;
}

/**
 * Reads the session a LOG argument points at a batch of admitted events at a time, handing each to
 * `visit`: checked exactly as a full read checks it (a bad event is refused naming its line in a file,
 * its seq in a store), with only one batch held. A torn JSONL tail, or a fork's broken lineage, is noted on stderr unless `quiet`.
 */
export async function streamSessionRef(ref: SessionRef, io: CliIo, visit: (batch: readonly LogEvent[]) => void, options: { readonly quiet?: boolean } = {}): Promise<StreamedSession> {
  const registry = createAgentRegistry();
  let events = 0;
  if (ref.kind === "file") {
    const stream = streamJsonlLog(ref.path, registry);
    for (let next = await stream.next(); ; next = await stream.next()) {
      if (next.done === true) {
        const { header, tornTail } = next.value;
        if (tornTail !== undefined && options.quiet !== true) noteTornTail(tornTail, io);
        return { info: header, events };
      }
      visit(next.value);
      events += next.value.length;
    }
  }
  const { stored, close } = await storedLinesOf(ref, io, options);
  try {
    for await (const batch of streamSessionEvents(stored, registry)) {
      visit(batch);
      events += batch.length;
    }
    return { info: stored.info, events };
  } finally {
    await close();
  }
}
