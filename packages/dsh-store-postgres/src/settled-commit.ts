import { LogError } from "dsh-log";
import { staleBatchError, type PendingBatch } from "dsh-log/store";
import { commitBatches, type LockedRow, type TransactionClient } from "./commit.js";
import { connectionLost, onLiveConnection } from "./connection-lost.js";

/**
 * What became of `batch` whose commit lost its connection, given its session's row now: `undefined`
 * when it went in (only its writer's epoch moves the head, so a head at the batch's end under that
 * epoch is this batch), `"again"` when it did not and may be sent again, else why it may not.
 */
export function settledBatch(batch: PendingBatch, row: LockedRow | undefined): Error | undefined | "again" {
  if (row === undefined) return new LogError("LOG_CONFLICT", `session ${batch.sessionId} is gone from the store`);
  if (row.writer_epoch === batch.epoch && row.head === batch.events.at(-1)!.seq + 1) return undefined;
  return staleBatchError(batch, { head: row.head, epoch: row.writer_epoch }) ?? "again";
}

/**
 * Commits `batches` through `pool` as {@link commitBatches} does, settling a commit whose connection
 * was lost before its outcome was heard: each session's row is read on another connection, batches
 * that went in resolve, those that did not are sent again, up to `attempts` commits in all. A writer
 * superseded meanwhile gets `LOG_CONFLICT`, as it would have from the commit itself.
 */
export async function commitSettled(pool: TransactionClient, batches: readonly PendingBatch[], name: string | undefined, attempts: number): Promise<(Error | undefined)[]> {
  const outcomes: (Error | undefined)[] = batches.map(() => undefined);
  let open = batches.map((_, i) => i);
  for (let attempt = 1; ; attempt++) {
    try {
      const results = await commitBatches(pool, open.map((i) => batches[i]!), name);
      open.forEach((i, k) => (outcomes[i] = results[k]));
      return outcomes;
    } catch (error) {
      if (attempt >= attempts || !connectionLost(error)) throw error;
    }
    const ids = open.map((i) => batches[i]!.sessionId);
    const { rows } = await onLiveConnection(attempts, () => pool.query({ text: "SELECT id, head, writer_epoch FROM dsh_sessions WHERE id = ANY($1)", values: [ids] }));
    const now = new Map((rows as LockedRow[]).map((row) => [row.id, row]));
    open = open.filter((i) => {
      const settled = settledBatch(batches[i]!, now.get(batches[i]!.sessionId));
      if (settled === "again") return true;
      outcomes[i] = settled;
      return false;
    });
    if (open.length === 0) return outcomes;
  }
}
