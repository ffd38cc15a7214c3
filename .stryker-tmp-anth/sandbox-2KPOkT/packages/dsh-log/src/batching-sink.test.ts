import { describe, expect, it } from "vitest";
import { BatchingSink } from "./batching-sink.js";
import type { LogEvent } from "./event.js";

const event = (seq: number): LogEvent => ({ seq, type: "note/added", time: seq, data: { text: `${seq}` } });

/** A commit the test finishes by hand, recording what each call was given. */
function manualCommits() {
  const calls: number[][] = [];
  const finish: ((error?: Error) => void)[] = [];
  const commit = (events: readonly LogEvent[]) =>
    new Promise<void>((resolve, reject) => {
      calls.push(events.map((e) => e.seq));
      finish.push((error) => (error === undefined ? resolve() : reject(error)));
    });
  return { calls, finish, commit };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("BatchingSink", () => {
  it("commits the writes handed over during a commit together, in order, and acknowledges each only after its commit", async () => {
    const { calls, finish, commit } = manualCommits();
    const sink = new BatchingSink(commit, async () => undefined);
    const acknowledged: number[] = [];
    const first = sink.write([event(0)]).then(() => acknowledged.push(0));
    const second = sink.write([event(1), event(2)]).then(() => acknowledged.push(1));
    const third = sink.write([event(3)]).then(() => acknowledged.push(3));
    await settle();
    expect(calls).toEqual([[0]]);
    expect(acknowledged).toEqual([]);
    finish[0]!();
    await first;
    await settle();
    expect(calls).toEqual([[0], [1, 2, 3]]);
    expect(acknowledged).toEqual([0]);
    finish[1]!();
    await Promise.all([second, third]);
    expect(acknowledged).toEqual([0, 1, 3]);
  });

  it("fails the failed batch, every write queued behind it and every later write with the first error, and commits nothing more", async () => {
    const { calls, finish, commit } = manualCommits();
    const sink = new BatchingSink(commit, async () => undefined);
    const failed = sink.write([event(0)]);
    const queued = sink.write([event(1)]);
    await settle();
    const disk = new Error("disk full");
    finish[0]!(disk);
    await expect(failed).rejects.toBe(disk);
    await expect(queued).rejects.toBe(disk);
    await expect(sink.write([event(2)])).rejects.toBe(disk);
    expect(calls).toEqual([[0]]);
  });

  it("starts a new commit for a write after the sink went idle, and releases only once the last commit is done", async () => {
    const { calls, finish, commit } = manualCommits();
    const order: string[] = [];
    const sink = new BatchingSink(commit, async () => void order.push("released"));
    const first = sink.write([event(0)]);
    await settle();
    finish[0]!();
    await first;
    const second = sink.write([event(1)]).then(() => order.push("committed"));
    await settle();
    expect(calls).toEqual([[0], [1]]);
    const closed = sink.close();
    await settle();
    expect(order).toEqual([]);
    finish[1]!();
    await Promise.all([second, closed]);
    expect(order).toEqual(["committed", "released"]);
  });
});
