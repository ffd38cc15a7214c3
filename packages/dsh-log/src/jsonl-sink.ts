import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import type { FileLock } from "./file-lock.js";
import { linkedLine, serializeLines } from "./jsonl-format.js";
import { StoreSink, type LineBatch } from "./store-sink.js";

/**
 * Where the platform has it, the log is opened with `O_DSYNC`: each write returns once its bytes are
 * durable, so a commit is one thread-pool round trip instead of a write and an `fdatasync`.
 */
const APPEND_FLAGS = constants.O_DSYNC === undefined ? "a" : constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC;

/** The text of one commit in a JSONL file: its lines, each with its chain link first when the file is chained. */
export function commitText(batch: Pick<LineBatch, "lines" | "links">): string {
  const { lines, links } = batch;
  return serializeLines(links === undefined ? lines : lines.map((line, i) => linkedLine(line, links[i]!)));
}

/**
 * Appends event lines to a JSONL file with group commit: batches handed over while a commit is in
 * flight are written together and made durable by the next single synchronous write. The file is
 * opened for appending on the first write, so a log that is only read never touches it.
 */
export class JsonlFileSink extends StoreSink {
  constructor(path: string, lock: FileLock) {
    let handle: FileHandle | undefined;
    super(
      async (batch) => {
        handle ??= await open(path, APPEND_FLAGS, 0o600);
        // One commit: all of these lines are on disk, or on load none of them is.
        const bytes = Buffer.from(commitText(batch));
        for (let offset = 0; offset < bytes.length; ) offset += (await handle.write(bytes, offset)).bytesWritten;
        if (APPEND_FLAGS === "a") await handle.datasync();
      },
      async () => {
        await handle?.close();
        await lock.release();
      },
    );
  }
}
