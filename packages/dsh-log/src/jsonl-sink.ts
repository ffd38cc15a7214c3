import { open, type FileHandle } from "node:fs/promises";
import type { LogEvent } from "./event.js";
import type { FileLock } from "./file-lock.js";
import { serializeEventLine } from "./jsonl-format.js";
import type { LogSink } from "./log.js";

interface PendingWrite {
  readonly text: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Appends event lines to a JSONL file with group commit: batches handed over while an fsync is in
 * flight are written together and made durable by the next single fsync. The file is opened for
 * appending on the first write, so a log that is only read never touches it.
 */
export class JsonlFileSink implements LogSink {
  readonly #path: string;
  #handle: FileHandle | undefined;
  readonly #lock: FileLock;
  readonly #queue: PendingWrite[] = [];
  #draining = false;
  #idle: Promise<void> = Promise.resolve();
  #failure: unknown;

  constructor(path: string, lock: FileLock) {
    this.#path = path;
    this.#lock = lock;
  }

  write(events: readonly LogEvent[]): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#queue.push({ text: events.map(serializeEventLine).join(""), resolve, reject });
      if (!this.#draining) {
        this.#draining = true;
        this.#idle = this.#drain();
      }
    });
  }

  async close(): Promise<void> {
    await this.#idle;
    await this.#handle?.close();
    await this.#lock.release();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0);
        try {
          this.#handle ??= await open(this.#path, "a", 0o600);
          await this.#handle.appendFile(batch.map((write) => write.text).join(""));
          await this.#handle.datasync();
        } catch (error) {
          this.#failure = error;
          for (const write of [...batch, ...this.#queue.splice(0)]) write.reject(error);
          return;
        }
        for (const write of batch) write.resolve();
      }
    } finally {
      this.#draining = false;
    }
  }
}
