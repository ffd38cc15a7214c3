import { open, type FileHandle } from "node:fs/promises";
import { BatchingSink } from "./batching-sink.js";
import type { FileLock } from "./file-lock.js";
import { serializeEventLine } from "./jsonl-format.js";

/**
 * Appends event lines to a JSONL file with group commit: batches handed over while an fsync is in
 * flight are written together and made durable by the next single fsync. The file is opened for
 * appending on the first write, so a log that is only read never touches it.
 */
export class JsonlFileSink extends BatchingSink {
  constructor(path: string, lock: FileLock) {
    let handle: FileHandle | undefined;
    super(
      async (events) => {
        handle ??= await open(path, "a", 0o600);
        await handle.appendFile(events.map(serializeEventLine).join(""));
        await handle.datasync();
      },
      async () => {
        await handle?.close();
        await lock.release();
      },
    );
  }
}
