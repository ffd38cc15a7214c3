import { LogError } from "./errors.js";
import type { LineBatch } from "./store-sink.js";

/** One session's batch waiting for a shared commit, with the writer epoch it was appended under, its lines and their chain links. */
export interface PendingBatch extends LineBatch {
  readonly sessionId: string;
  readonly epoch: number;
}

/**
 * Why `batch` may not be committed given the session's stored state: its writer was superseded (a
 * newer epoch opened the session) or the session moved on from the seq the writer expects. For
 * stores, checked in the same transaction as the insert; `undefined` when the batch may go in.
 */
export function staleBatchError(batch: PendingBatch, current: { readonly head: number; readonly epoch: number }): LogError | undefined {
  if (current.epoch !== batch.epoch) return new LogError("LOG_CONFLICT", `session ${batch.sessionId} was opened by another writer; this one may no longer append`);
  const expected = batch.events[0]!.seq;
  if (current.head !== expected) return new LogError("LOG_CONFLICT", `session ${batch.sessionId} holds ${current.head} events, not the ${expected} this writer expected`);
  return undefined;
}

interface Waiting {
  readonly batch: PendingBatch;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit across sessions, for stores with transactions: batches of many sessions handed over
 * while a commit runs (or within the same turn of the event loop) are committed together by the next
 * one. `commitAll` commits what it can and returns, per batch, the error that refused it (a stale
 * writer, say) or `undefined`; a thrown error fails every batch of that commit.
 */
export class CommitQueue {
  readonly #commitAll: (batches: readonly PendingBatch[]) => Promise<readonly (Error | undefined)[]>;
  readonly #waiting: Waiting[] = [];
  #draining = false;

  constructor(commitAll: (batches: readonly PendingBatch[]) => Promise<readonly (Error | undefined)[]>) {
    this.#commitAll = commitAll;
  }

  /** Resolves once `batch` is committed; rejects with the reason it was not. */
  commit(batch: PendingBatch): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ batch, resolve, reject });
      if (!this.#draining) {
        this.#draining = true;
        // Let the appends of this turn of the event loop join the first commit.
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#waiting.length > 0) {
        const group = this.#waiting.splice(0);
        let outcomes: readonly (Error | undefined)[];
        try {
          outcomes = await this.#commitAll(group.map((waiting) => waiting.batch));
        } catch (error) {
          for (const waiting of group) waiting.reject(error);
          continue;
        }
        group.forEach((waiting, i) => {
          const error = outcomes[i];
          if (error === undefined) waiting.resolve();
          else waiting.reject(error);
        });
      }
    } finally {
      this.#draining = false;
    }
  }
}
