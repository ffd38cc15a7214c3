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
import Database from "better-sqlite3";
import pg from "pg";
import { z } from "zod";
import { median } from "./util.js";

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
  /** The database's own floor for one session's appends, one durable commit per event (none for JSONL: its floor is row 4). */
  readonly floor?: { readonly what: string; readonly eventsPerSecond: number } | undefined;
  /** The store's own statements for one append run bare, with no log around them (SQLite only). */
  readonly statements?: { readonly eventsPerSecond: number } | undefined;
}

/**
 * SQLite's floor: one prepared single-row insert per transaction, in WAL mode with full fsync, as the
 * store commits, in the store's own database file (a second connection, its own table), so both
 * write the same WAL and pay the same checkpoints. (A fresh file per round, as this bench used
 * before, is slower by a third: its WAL grows instead of being reused, which flattered the store.)
 */
function sqliteFloor(path: string, events: number, round: number): number {
  return sqliteCommitRate(path, events, (db) => {
    db.exec("CREATE TABLE IF NOT EXISTS bench_floor (session_id TEXT NOT NULL, seq INTEGER NOT NULL, line TEXT NOT NULL, PRIMARY KEY (session_id, seq))");
    const insert = db.prepare("INSERT INTO bench_floor (session_id, seq, line) VALUES (?, ?, ?)");
    return (seq) => insert.run(`floor-${round}`, seq, TEXT);
  });
}

/**
 * What SQLite's store runs for one append, with no log around it: the same statements (read the
 * session row, insert the line and its 32-byte chain link, move the head) in one `BEGIN IMMEDIATE`
 * transaction, on tables of the store's shape in its file, through a second connection. The store's
 * distance from this is the work of the log itself: admission, the line, its link, the hop to commit.
 */
function sqliteStatements(path: string, events: number, round: number): number {
  return sqliteCommitRate(path, events, (db) => {
    db.exec(`CREATE TABLE IF NOT EXISTS bench_sessions (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, parent_id TEXT, seed_length INTEGER, head INTEGER NOT NULL, writer_epoch INTEGER NOT NULL DEFAULT 0, chained INTEGER NOT NULL DEFAULT 0) STRICT;
      CREATE TABLE IF NOT EXISTS bench_events (session_id TEXT NOT NULL REFERENCES bench_sessions (id), seq INTEGER NOT NULL, line TEXT NOT NULL, chain BLOB, PRIMARY KEY (session_id, seq)) STRICT, WITHOUT ROWID;`);
    const id = `statements-${round}`;
    db.prepare("INSERT INTO bench_sessions (id, created_at, head, writer_epoch, chained) VALUES (?, 0, 0, 1, 1)").run(id);
    const session = db.prepare("SELECT * FROM bench_sessions WHERE id = ?");
    const insert = db.prepare("INSERT INTO bench_events (session_id, seq, line, chain) VALUES (?, ?, ?, ?)");
    const head = db.prepare("UPDATE bench_sessions SET head = ? WHERE id = ?");
    const link = Buffer.alloc(32, 7);
    return (seq) => {
      session.get(id);
      insert.run(id, seq, JSON.stringify({ seq, type: "note/added", time: 1_700_000_000_000 + seq, data: { text: TEXT } }), link);
      head.run(seq + 1, id);
    };
  });
}

/**
 * Commits per second of `events` `BEGIN IMMEDIATE` transactions, each running what `prepare` returns
 * for its seq, on a second connection to the store's file set up as the store's (WAL, full fsync,
 * foreign keys checked).
 */
function sqliteCommitRate(path: string, events: number, prepare: (db: Database.Database) => (seq: number) => void): number {
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    const commit = db.transaction(prepare(db));
    const start = performance.now();
    for (let seq = 0; seq < events; seq++) commit.immediate(seq);
    return events / ((performance.now() - start) / 1000);
  } finally {
    db.close();
  }
}

/** PostgreSQL's floor: `BEGIN`, one single-row `INSERT`, `COMMIT` per event, on one connection. */
async function postgresFloor(url: string, events: number): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("CREATE TABLE floor_t (session_id text NOT NULL, seq integer NOT NULL, line text NOT NULL, PRIMARY KEY (session_id, seq))");
    const start = performance.now();
    for (let seq = 0; seq < events; seq++) {
      await client.query("BEGIN");
      await client.query("INSERT INTO floor_t (session_id, seq, line) VALUES ($1, $2, $3)", ["s", seq, TEXT]);
      await client.query("COMMIT");
    }
    return events / ((performance.now() - start) / 1000);
  } finally {
    await client.end();
  }
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

interface Floor {
  readonly what: string;
  readonly rate: () => Promise<number> | number;
  /** The store's own statements run bare, where the bench has them. */
  readonly statements?: () => number;
}

async function measure(name: string, store: SessionStore, quick: boolean, floor?: Floor): Promise<StoreFigures> {
  const appendPerSecond: Record<string, number> = {};
  for (const sessions of [1, 8, 64]) appendPerSecond[String(sessions)] = await appendRate(store, sessions, quick ? Math.max(2, 64 / sessions) : Math.max(4, 512 / sessions), "a");
  const loadPerSecond = await loadRate(store, quick ? 5_000 : 50_000, "l");
  // The single-session rate again, interleaved with the floor, so both see the same machine.
  let floorFigures: StoreFigures["floor"];
  let statementFigures: StoreFigures["statements"];
  if (floor !== undefined) {
    const rates: number[] = [];
    const floors: number[] = [];
    const statements: number[] = [];
    for (let round = 0; round < 9; round++) {
      rates.push(await appendRate(store, 1, quick ? 64 : 512, `f${round}`));
      floors.push(await floor.rate());
      if (floor.statements !== undefined) statements.push(floor.statements());
    }
    appendPerSecond["1"] = median(rates);
    floorFigures = { what: floor.what, eventsPerSecond: median(floors) };
    if (statements.length > 0) statementFigures = { eventsPerSecond: median(statements) };
  }
  await store.close();
  return { store: name, appendPerSecond, loadPerSecond, floor: floorFigures, statements: statementFigures };
}

/** The three stores, measured one after another on the same machine. */
export async function storesBench(quick: boolean): Promise<StoreFigures[]> {
  const dir = await mkdtemp(join(tmpdir(), "dsh-bench-stores-"));
  const postgres = await startTestPostgres();
  let floorRounds = 0;
  let statementRounds = 0;
  try {
    return [
      await measure("JSONL", new JsonlStore(join(dir, "jsonl")), quick),
      await measure("SQLite", new SqliteStore(join(dir, "sessions.db")), quick, {
        what: "prepared insert, one transaction each, in the same file",
        rate: () => sqliteFloor(join(dir, "sessions.db"), quick ? 64 : 512, floorRounds++),
        statements: () => sqliteStatements(join(dir, "sessions.db"), quick ? 64 : 512, statementRounds++),
      }),
      await measure("PostgreSQL", await PostgresStore.connect(await postgres.createDatabase()), quick, {
        what: "BEGIN, INSERT, COMMIT each",
        rate: async () => postgresFloor(await postgres.createDatabase(), quick ? 64 : 512),
      }),
    ];
  } finally {
    await postgres.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
