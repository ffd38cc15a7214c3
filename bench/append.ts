// 5. Durable append: batched appends (one fsync per batch), and group commit under concurrent writers,
// with the events each fsync made durable.
import { open } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { EventRegistry, createJsonlLog, defineEvent, type EventLog } from "dsh-log";
import { z } from "zod";
import { median, percentile } from "./util.js";

const noteEvent = defineEvent("bench/note", z.strictObject({ text: z.string() }));
const registry = () => new EventRegistry().define(noteEvent);
const note = (i: number) => noteEvent.input({ text: `note ${i} ${"x".repeat(200)}` });

export interface AppendMode {
  readonly writers: number;
  readonly eventsPerSecond: number;
  readonly ackMedianMs: number;
  readonly ackP99Ms: number;
  /** Events made durable per fsync, on average. */
  readonly eventsPerSync: number;
}

/** Counts `datasync` calls of every file handle while `work` runs (the benchmark's own instrumentation). */
async function countingSyncs<T>(dir: string, work: () => Promise<T>): Promise<{ value: T; syncs: number }> {
  const probe = await open(join(dir, "probe"), "w");
  const proto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
  await probe.close();
  const original = proto.datasync;
  let syncs = 0;
  proto.datasync = function (this: unknown) {
    syncs++;
    return original.call(this);
  };
  try {
    return { value: await work(), syncs };
  } finally {
    proto.datasync = original;
  }
}

async function writers(log: EventLog, events: number, count: number, batch: number): Promise<{ seconds: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  const writer = async () => {
    while (next < events) {
      const first = next;
      next += batch;
      const begun = performance.now();
      await log.append(Array.from({ length: Math.min(batch, events - first) }, (_, i) => note(first + i)));
      latencies.push(performance.now() - begun);
    }
  };
  await Promise.all(Array.from({ length: count }, writer));
  return { seconds: (performance.now() - start) / 1000, latencies };
}

async function measure(dir: string, name: string, events: number, count: number, batch: number): Promise<AppendMode> {
  const { log } = await createJsonlLog(join(dir, `${name}.jsonl`), { registry: registry() });
  const { value, syncs } = await countingSyncs(dir, () => writers(log, events, count, batch));
  await log.close();
  return {
    writers: count,
    eventsPerSecond: events / value.seconds,
    ackMedianMs: median(value.latencies),
    ackP99Ms: percentile(value.latencies, 99),
    eventsPerSync: events / syncs,
  };
}

export interface AppendResult {
  /** One writer appending batches of 100 events, awaiting each. */
  readonly batched: AppendMode;
  /** Single-event appends by 1, 8 and 64 concurrent writers: group commit. */
  readonly concurrent: readonly AppendMode[];
}

export async function appendBench(dir: string, events: number): Promise<AppendResult> {
  const batched = await measure(dir, "batched", events * 10, 1, 100);
  const concurrent: AppendMode[] = [];
  for (const count of [1, 8, 64]) concurrent.push(await measure(dir, `writers-${count}`, events, count, 1));
  return { batched, concurrent };
}
