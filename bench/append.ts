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

/** The disk's floor: the same bytes (batches of 100 serialized events) appended and fdatasynced with no log at all. */
async function rawFloor(dir: string, events: number): Promise<number> {
  const handle = await open(join(dir, "raw.bin"), "a");
  const bytes = Buffer.from(Array.from({ length: 100 }, (_, i) => `${JSON.stringify({ seq: i, type: "bench/note", time: Date.now(), data: note(i).data })}\n`).join(""));
  const start = performance.now();
  for (let written = 0; written < events; written += 100) {
    await handle.appendFile(bytes);
    await handle.datasync();
  }
  const seconds = (performance.now() - start) / 1000;
  await handle.close();
  return events / seconds;
}

export interface AppendResult {
  /** One writer appending batches of 100 events, awaiting each: the median of three rounds after a warm-up round. */
  readonly batched: AppendMode;
  /** Single-event appends by 1, 8 and 64 concurrent writers: group commit. */
  readonly concurrent: readonly AppendMode[];
  /** Events per second the disk allows for the same bytes in the same batches, with no log in the way. */
  readonly rawEventsPerSecond: number;
}

export async function appendBench(dir: string, events: number): Promise<AppendResult> {
  // The first round warms the JIT up (it runs about a third slower) and is not counted.
  const rounds: AppendMode[] = [];
  for (let round = 0; round < 4; round++) rounds.push(await measure(dir, `batched-${round}`, events * 10, 1, 100));
  const counted = rounds.slice(1).sort((a, b) => a.eventsPerSecond - b.eventsPerSecond);
  const batched = counted[1]!;
  const rawEventsPerSecond = await rawFloor(dir, events * 10);
  const concurrent: AppendMode[] = [];
  for (const count of [1, 8, 64]) concurrent.push(await measure(dir, `writers-${count}`, events, count, 1));
  return { batched, concurrent, rawEventsPerSecond };
}

// Run in a fresh process by `pnpm bench`, so the heap the earlier measurements left behind does not slow its collections.
if (process.argv[2] === "--append") {
  process.stdout.write(JSON.stringify(await appendBench(process.argv[3]!, Number(process.argv[4]))));
}
