// 5. Durable append: batched appends (one fsync per batch), and group commit under concurrent writers,
// with the events each fsync made durable; the hash chain's and the signed heads' share beside it.
import { generateKeyPairSync } from "node:crypto";
import { constants } from "node:fs";
import { open, writeFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { EventRegistry, FileWitness, createJsonlLog, defineEvent, openJsonlLog, type EventLog } from "dsh-log";
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

/** How the JSONL sink makes a write durable: `O_DSYNC` where the platform has it (each write syncs), else `datasync`. */
const syncCall = constants.O_DSYNC === undefined ? "datasync" : "write";
const rawFlags = syncCall === "write" ? constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC : "a";

/** Counts the durable writes (or `datasync` calls) of every file handle until `stop` (the benchmark's own instrumentation). */
async function syncCounter(dir: string): Promise<{ readonly syncs: () => number; readonly stop: () => void }> {
  const probe = await open(join(dir, "probe"), "w");
  const proto = Object.getPrototypeOf(probe) as Record<typeof syncCall, (...args: unknown[]) => Promise<unknown>>;
  await probe.close();
  const original = proto[syncCall];
  let syncs = 0;
  proto[syncCall] = function (this: unknown, ...args: unknown[]) {
    syncs++;
    return original.apply(this, args);
  };
  return { syncs: () => syncs, stop: () => void (proto[syncCall] = original) };
}

/** Makes `bytes` durable at the end of `handle` the way the JSONL sink does, with no log in the way. */
async function durableWrite(handle: FileHandle, bytes: Buffer): Promise<void> {
  for (let offset = 0; offset < bytes.length; ) offset += (await handle.write(bytes, offset)).bytesWritten;
  if (syncCall === "datasync") await handle.datasync();
}

function appendMode(writers: number, events: number, seconds: number, latencies: readonly number[], syncs: number): AppendMode {
  return { writers, eventsPerSecond: events / seconds, ackMedianMs: median(latencies), ackP99Ms: percentile(latencies, 99), eventsPerSync: events / syncs };
}

/** `count` writers appending single events concurrently; the inputs are built before the clock starts (making them is the caller's work). */
async function concurrentWriters(dir: string, events: number, count: number): Promise<AppendMode> {
  const { log } = await createJsonlLog(join(dir, `writers-${count}.jsonl`), { registry: registry() });
  const inputs = Array.from({ length: events }, (_, i) => note(i));
  const counter = await syncCounter(dir);
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  const writer = async () => {
    while (next < events) {
      const input = inputs[next++]!;
      const begun = performance.now();
      await log.append(input);
      latencies.push(performance.now() - begun);
    }
  };
  await Promise.all(Array.from({ length: count }, writer));
  const seconds = (performance.now() - start) / 1000;
  counter.stop();
  await log.close();
  return appendMode(count, events, seconds, latencies, counter.syncs());
}

/** What one batched round measured: the chained log (what every new session is), and beside it the same batches unchained and signed. */
interface BatchedRound {
  readonly mode: AppendMode;
  readonly rawEventsPerSecond: number;
  readonly unchainedEventsPerSecond: number;
  readonly signedEventsPerSecond: number;
}

/** A log written the way logs were before hash chains: a version 1 file, opened for appending (its writer links nothing). */
async function unchainedLog(path: string): Promise<EventLog> {
  await writeFile(path, '{"format":"dsh-log","version":1,"sessionId":"unchained","createdAt":0}\n', { mode: 0o600 });
  return (await openJsonlLog(path, { registry: registry() })).log;
}

/**
 * One writer appending batches of 100 and awaiting each, to four places in turn, so every figure
 * comes from the same moments of a noisy disk: a chained log (what every new session is), an
 * unchained one (a version 1 file: the append path before chains), a chained one whose heads are
 * signed and appended to a witness file on the same disk, and the same bytes with no log in the way
 * (the disk's floor). Only the awaited appends and the floor's writes are timed.
 */
async function batchedRound(dir: string, name: string, events: number): Promise<BatchedRound> {
  const { log } = await createJsonlLog(join(dir, `${name}.jsonl`), { registry: registry() });
  const unchained = await unchainedLog(join(dir, `${name}-unchained.jsonl`));
  const witness = new FileWitness(join(dir, `${name}-witness.jsonl`));
  const signed = (await createJsonlLog(join(dir, `${name}-signed.jsonl`), { registry: registry(), signing: { key: generateKeyPairSync("ed25519").privateKey, witness } })).log;
  const raw = await open(join(dir, `${name}.raw`), rawFlags, 0o600);
  const inputs = Array.from({ length: events }, (_, i) => note(i));
  const counter = await syncCounter(dir);
  const latencies: number[] = [];
  let logSyncs = 0;
  let rawMs = 0;
  let unchainedMs = 0;
  let signedMs = 0;
  const timed = async (append: () => Promise<unknown>): Promise<number> => {
    const begun = performance.now();
    await append();
    return performance.now() - begun;
  };
  for (let first = 0; first < events; first += 100) {
    const batch = inputs.slice(first, first + 100);
    const before = counter.syncs();
    const begun = performance.now();
    const committed = await log.append(batch);
    latencies.push(performance.now() - begun);
    logSyncs += counter.syncs() - before;
    unchainedMs += await timed(() => unchained.append(batch));
    signedMs += await timed(() => signed.append(batch));
    const bytes = Buffer.from(committed.map((event) => `${JSON.stringify({ seq: event.seq, type: event.type, time: event.time, data: event.data })}\n`).join(""));
    rawMs += await timed(() => durableWrite(raw, bytes));
  }
  counter.stop();
  await Promise.all([log.close(), unchained.close(), signed.close(), raw.close()]);
  await witness.close();
  const seconds = latencies.reduce((sum, ms) => sum + ms, 0) / 1000;
  return {
    mode: appendMode(1, events, seconds, latencies, logSyncs),
    rawEventsPerSecond: events / (rawMs / 1000),
    unchainedEventsPerSecond: events / (unchainedMs / 1000),
    signedEventsPerSecond: events / (signedMs / 1000),
  };
}

export interface AppendResult {
  /** One writer appending batches of 100 events, awaiting each: the median of three rounds after a warm-up round. */
  readonly batched: AppendMode;
  /** Single-event appends by 1, 8 and 64 concurrent writers: group commit. */
  readonly concurrent: readonly AppendMode[];
  /** Events per second the disk allowed for the same bytes in the same batches with no log in the way, interleaved with the median round's batches. */
  readonly rawEventsPerSecond: number;
  /** The same batches to an unchained log (the append path before hash chains), interleaved likewise. */
  readonly unchainedEventsPerSecond: number;
  /** The same batches to a chained log whose heads are signed and witnessed in a file on the same disk, interleaved likewise. */
  readonly signedEventsPerSecond: number;
}

export async function appendBench(dir: string, events: number): Promise<AppendResult> {
  // The first round warms the JIT up (it runs about a third slower) and is not counted.
  const rounds: BatchedRound[] = [];
  for (let round = 0; round < 4; round++) rounds.push(await batchedRound(dir, `batched-${round}`, events * 10));
  const middle = rounds.slice(1).sort((a, b) => a.mode.eventsPerSecond - b.mode.eventsPerSecond)[1]!;
  const concurrent: AppendMode[] = [];
  for (const count of [1, 8, 64]) concurrent.push(await concurrentWriters(dir, events, count));
  const { mode, rawEventsPerSecond, unchainedEventsPerSecond, signedEventsPerSecond } = middle;
  return { batched: mode, concurrent, rawEventsPerSecond, unchainedEventsPerSecond, signedEventsPerSecond };
}

// Run in a fresh process by `pnpm bench`, so the heap the earlier measurements left behind does not slow its collections.
if (process.argv[2] === "--append") {
  process.stdout.write(JSON.stringify(await appendBench(process.argv[3]!, Number(process.argv[4]))));
}
