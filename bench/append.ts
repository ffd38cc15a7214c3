// 3. Durable append: group-committed fsync batching vs one fsync per event, and acknowledged latency.
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { EventRegistry, createJsonlLog, defineEvent, type EventLog } from "dsh-log";
import { z } from "zod";
import { median, percentile } from "./util.js";

const noteEvent = defineEvent("bench/note", z.strictObject({ text: z.string() }));

export interface AppendMode {
  readonly eventsPerSecond: number;
  readonly ackMedianMs: number;
  readonly ackP99Ms: number;
}

async function measure(log: EventLog, events: number, concurrency: number): Promise<AppendMode> {
  const latencies: number[] = [];
  const start = performance.now();
  let next = 0;
  const writer = async () => {
    while (next < events) {
      const i = next++;
      const begun = performance.now();
      await log.append(noteEvent.input({ text: `note ${i} ${"x".repeat(200)}` }));
      latencies.push(performance.now() - begun);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, writer));
  const seconds = (performance.now() - start) / 1000;
  return { eventsPerSecond: events / seconds, ackMedianMs: median(latencies), ackP99Ms: percentile(latencies, 99) };
}

export async function appendBench(dir: string, events: number): Promise<{ perEvent: AppendMode; grouped: AppendMode; speedup: number; concurrency: number }> {
  const registry = new EventRegistry().define(noteEvent);
  const serial = await createJsonlLog(join(dir, "serial.jsonl"), { registry });
  const perEvent = await measure(serial.log, events, 1);
  await serial.log.close();
  const concurrency = 32;
  const grouped = await createJsonlLog(join(dir, "grouped.jsonl"), { registry });
  const groupedMode = await measure(grouped.log, events, concurrency);
  await grouped.log.close();
  return { perEvent, grouped: groupedMode, speedup: groupedMode.eventsPerSecond / perEvent.eventsPerSecond, concurrency };
}
