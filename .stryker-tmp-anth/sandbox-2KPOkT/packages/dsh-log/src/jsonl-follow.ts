import { open } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import type { LogEvent } from "./event.js";
import { committedEnd } from "./jsonl-format.js";
import { JsonlParser } from "./jsonl-parse.js";
import type { FollowOptions } from "./store.js";

/** How often a follower looks for new lines. */
const POLL_MS = 100;
/** Bytes a follower reads at a time; a longer line grows its buffer. */
const READ_BYTES = 1 << 18;

/**
 * The events of the JSONL log at `path` from `options.fromSeq` on, then each batch of lines appended,
 * until the signal aborts; parsed by the file parser, so a bad line is refused naming its line in the
 * file. Each read starts at the first line not yet complete: a line being written is read again once
 * it is whole rather than kept, so a torn tail that a crashed writer left (and the next writer
 * truncated away) is never taken for the start of a line.
 */
export async function* followJsonlFile(path: string, options: FollowOptions): AsyncGenerator<readonly LogEvent[]> {
  const parser = new JsonlParser();
  // Byte 0 stays free: the parser turns the byte before a chunk into "[".
  let buffer = Buffer.allocUnsafe(1 + READ_BYTES);
  let position = 0;
  const handle = await open(path, "r");
  try {
    while (!options.signal.aborted) {
      const { size } = await handle.stat();
      if (size > position) {
        const { bytesRead } = await handle.read(buffer, 1, buffer.length - 1, position);
        // Whole commits only: the lines of a commit still being written are read again once it ends.
        const end = committedEnd(buffer, 1, bytesRead + 1);
        if (end > 1) {
          const events = parser.lines(buffer, 1, end).filter((event) => event.seq >= options.fromSeq);
          position += end - 1;
          if (events.length > 0) yield events;
          if (position < size) continue;
        } else if (bytesRead === buffer.length - 1) {
          buffer = Buffer.allocUnsafe(2 * buffer.length);
          continue;
        }
      }
      await sleep(POLL_MS, undefined, { signal: options.signal }).catch(() => undefined);
    }
  } finally {
    await handle.close();
  }
}
