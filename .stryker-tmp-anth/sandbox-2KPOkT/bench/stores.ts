// 7. Session stores: durable append throughput with 1, 8 and 64 concurrent sessions, and load rate,
// for the JSONL directory, SQLite and PostgreSQL, each as a ratio against JSONL in the same run.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { EventRegistry, JsonlStore, defineEvent, type SessionStore } from "dsh-log";
import { startTestPostgres } from "dsh-store-conformance/postgres-server";
import { PostgresStore } from "dsh-store-postgres";
import { SqliteStore } from "dsh-store-sqlite";
import { z } from "zod";

const noted = defineEvent("note/added", z.strictObject({ text: z.string() }));
const registry = () => new EventRegistry().define(noted);
const TEXT = "A tool result of a typical size, with a path, some numbers 12345 and a sentence or two. ".repeat(4);

/** Throughput and load figures of one store. */
export interface StoreFigures {
  readonly store: string;
  /** Acknowledged events per second with this many sessions appending at once, one event per append. */
  readonly appendPerSecond: Readonly<Record<string, number>>;
  /** Events per second read back (with full admission) from one large session. */
  readonly loadPerSecond: number;
}

/** `sessions` sessions appending `perSession` events each, one awaited append at a time, all at once. */
async function appendRate(store: SessionStore, sessions: number, perSession: number, tag: string): Promise<number> {
  const opened = await Promise.all(Array.from({ length: sessions }, (_, i) => store.create({ registry: registry(), sessionId: `${tag}-${sessions}-${i}` })));
  const start = performance.now();
  await Promise.all(
    opened.map(async ({ log }) => {
      for (let n = 0; n < perSession; n++) await log.append(noted.input({ text: TEXT }));
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  for (const { log } of opened) await log.close();
  return (sessions * perSession) / seconds;
}

/** Writes one session of `events` events in batches, then times reading it back. */
async function loadRate(store: SessionStore, events: number, tag: string): Promise<number> {
  const { log } = await store.create({ registry: registry(), sessionId: `${tag}-load` });
  for (let done = 0; done < events; done += 500) await log.append(Array.from({ length: Math.min(500, events - done) }, () => noted.input({ text: TEXT })));
  await log.close();
  const start = performance.now();
  const read = await store.read(`${tag}-load`, registry());
  if (read.log.length !== events) throw new Error("the store lost events");
  return events / ((performance.now() - start) / 1000);
}

async function measure(name: string, store: SessionStore, quick: boolean): Promise<StoreFigures> {
  const appendPerSecond: Record<string, number> = {};
  for (const sessions of [1, 8, 64]) appendPerSecond[String(sessions)] = await appendRate(store, sessions, quick ? Math.max(2, 64 / sessions) : Math.max(4, 512 / sessions), "a");
  const loadPerSecond = await loadRate(store, quick ? 5_000 : 50_000, "l");
  await store.close();
  return { store: name, appendPerSecond, loadPerSecond };
}

/** The three stores, measured one after another on the same machine. */
export async function storesBench(quick: boolean): Promise<StoreFigures[]> {
  const dir = await mkdtemp(join(tmpdir(), "dsh-bench-stores-"));
  const postgres = await startTestPostgres();
  try {
    return [
      await measure("JSONL", new JsonlStore(join(dir, "jsonl")), quick),
      await measure("SQLite", new SqliteStore(join(dir, "sessions.db")), quick),
      await measure("PostgreSQL", await PostgresStore.connect(await postgres.createDatabase()), quick),
    ];
  } finally {
    await postgres.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
