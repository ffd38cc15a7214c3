import { describe, expect, it } from "vitest";
import { CommitQueue, staleBatchError, type PendingBatch } from "./commit-queue.js";
import type { LogEvent } from "./event.js";

const event = (seq: number): LogEvent => ({ seq, type: "note/added", time: 0, data: { text: String(seq) } });
const batch = (sessionId: string, seq: number): PendingBatch => ({ sessionId, epoch: 1, events: [event(seq)], lines: [], links: undefined });

describe("CommitQueue", () => {
  it("commits batches handed over in one turn together, and those arriving during a commit in the next one", async () => {
    const calls: string[][] = [];
    let release: (() => void) | undefined;
    const queue = new CommitQueue(async (batches) => {
      calls.push(batches.map((b) => b.sessionId));
      if (calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return batches.map(() => undefined);
    });
    const first = [queue.commit(batch("a", 0)), queue.commit(batch("b", 0)), queue.commit(batch("c", 0))];
    await new Promise((resolve) => setImmediate(resolve));
    const later = [queue.commit(batch("d", 0)), queue.commit(batch("e", 0))];
    release!();
    await Promise.all([...first, ...later]);
    expect(calls).toEqual([["a", "b", "c"], ["d", "e"]]);
  });

  it("refuses only the batches the commit refused, and fails a whole group when the commit throws", async () => {
    const conflict = new Error("stale writer");
    const refusing = new CommitQueue(async (batches) => batches.map((b) => (b.sessionId === "stale" ? conflict : undefined)));
    const outcomes = await Promise.allSettled([refusing.commit(batch("ok", 0)), refusing.commit(batch("stale", 3))]);
    expect(outcomes).toEqual([{ status: "fulfilled", value: undefined }, { status: "rejected", reason: conflict }]);

    const broken = new Error("disk full");
    let calls = 0;
    const failing = new CommitQueue(async (batches) => {
      if (++calls === 1) throw broken;
      return batches.map(() => undefined);
    });
    await expect(Promise.all([failing.commit(batch("a", 0)), failing.commit(batch("b", 0))])).rejects.toBe(broken);
    // The queue keeps working for the batches that come after.
    await expect(failing.commit(batch("a", 0))).resolves.toBeUndefined();
  });
});

describe("staleBatchError", () => {
  it("lets a batch in only from the current writer at the session's head, and says which rule refused it", () => {
    const pending: PendingBatch = { sessionId: "s-1", epoch: 2, events: [event(5), event(6)], lines: [], links: undefined };
    expect(staleBatchError(pending, { head: 5, epoch: 2 })).toBeUndefined();
    expect(staleBatchError(pending, { head: 5, epoch: 3 })).toMatchObject({ code: "LOG_CONFLICT", message: "session s-1 was opened by another writer; this one may no longer append" });
    expect(staleBatchError(pending, { head: 7, epoch: 2 })).toMatchObject({ code: "LOG_CONFLICT", message: "session s-1 holds 7 events, not the 5 this writer expected" });
  });
});
