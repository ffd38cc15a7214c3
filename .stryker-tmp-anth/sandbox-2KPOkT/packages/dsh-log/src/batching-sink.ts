import type { LogEvent } from "./event.js";
import type { LogSink } from "./log.js";

interface PendingWrite {
  readonly events: readonly LogEvent[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A sink with group commit: batches handed over while a commit is in flight are committed together
 * by the next one, so concurrent appends share one fsync (or one transaction). The first failure
 * fails every pending and later write; acknowledged always means committed.
 */
export class BatchingSink implements LogSink {
  readonly #commit: (events: readonly LogEvent[]) => Promise<void>;
  readonly #release: () => Promise<void>;
  readonly #queue: PendingWrite[] = [];
  #draining = false;
  #idle: Promise<void> = Promise.resolve();
  #failure: unknown;

  /** `commit` makes events durable, in order; `release` frees what the sink holds once writes are done. */
  constructor(commit: (events: readonly LogEvent[]) => Promise<void>, release: () => Promise<void>) {
    this.#commit = commit;
    this.#release = release;
  }

  write(events: readonly LogEvent[]): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#queue.push({ events, resolve, reject });
      if (!this.#draining) {
        this.#draining = true;
        this.#idle = this.#drain();
      }
    });
  }

  async close(): Promise<void> {
    await this.#idle;
    await this.#release();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0);
        const events: LogEvent[] = [];
        for (const write of batch) for (const event of write.events) events.push(event);
        try {
          await this.#commit(events);
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
