import { closeSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import DatabaseConstructor, { type Database, type Statement } from "better-sqlite3";
import {
  EventLog,
  LogError,
  SessionChain,
  type CreateSessionOptions,
  type EventLogOptions,
  type EventRegistry,
  type FollowOptions,
  type JsonlLogOptions,
  type LogEvent,
  type SessionInfo,
  type SessionStore,
  type SessionSummary,
  type StoredLine,
  type ReadLinesOptions,
  type StoredLines,
  type StoredSession,
} from "dsh-log";
import { CommitQueue, StoreSink, checkSessionId, firstCommit, initialContent, loadSessionLines, parseSessionLines, sessionInfo, staleBatchError, type LineBatch, type PendingBatch } from "dsh-log/store";
import { withWriteLock, withWriteLockSync, type LockWait } from "./lock-wait.js";
import { prepareDatabase } from "./schema.js";

/** How long SQLite itself waits for the write lock before dsh takes over the wait (it would block the event loop). */
const SQLITE_BUSY_MS = 50;

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * How long a write waits in all for the database's write lock while other processes hold it (default
   * 60 s), trying again after pauses that grow with the load; past it the write is `LOG_LOCKED`.
   */
  readonly busyTimeoutMs?: number;
  /** How often a follower polls for new events (default 100 ms). */
  readonly pollMs?: number;
}

interface SessionRow {
  readonly id: string;
  readonly created_at: number;
  readonly parent_id: string | null;
  readonly seed_length: number | null;
  readonly head: number;
  readonly writer_epoch: number;
  readonly chained: number;
}

function infoOf(row: SessionRow): SessionInfo {
  return sessionInfo(row.id, row.created_at, row.parent_id, row.seed_length);
}

/** What `list()` and `summary()` say of a session: its info and how many events its head counts. */
function summaryOf(row: SessionRow): SessionSummary {
  return { ...infoOf(row), events: row.head };
}

/**
 * Creates the database file readable by its owner only, when it is not there yet: SQLite gives its
 * journal, WAL and shared-memory files the database's mode. A directory that does not exist is
 * `LOG_STORE_UNAVAILABLE`, naming it.
 */
function createPrivately(location: string): void {
  try {
    closeSync(openSync(location, "wx", 0o600));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    const why = code === "ENOENT" ? `its directory ${dirname(location)} does not exist` : `it cannot be created (${code ?? (error as Error).message})`;
    throw new LogError("LOG_STORE_UNAVAILABLE", `cannot open the store sqlite:${location}: ${why}`, { cause: error });
  }
}

/**
 * Sessions in one SQLite file (`better-sqlite3`): event lines stored as text exactly as a JSONL file
 * holds them, committed with full fsync in WAL mode. Opening a session for writing takes a new writer
 * epoch; every append checks that epoch and the expected head in the same transaction, so a writer
 * that was superseded gets `LOG_CONFLICT` and writes nothing.
 */
export class SqliteStore implements SessionStore {
  readonly location: string;
  readonly #db: Database;
  readonly #pollMs: number;
  readonly #lockWaitMs: number;
  readonly #queue = new CommitQueue((batches) => this.#commitAll(batches));
  /** The statements of the append path, prepared once: a commit only binds and runs them. */
  readonly #statements: { readonly session: Statement; readonly insertEvent: Statement; readonly updateHead: Statement };
  /** One `BEGIN IMMEDIATE` transaction over a commit's batches, built once. */
  readonly #commitTransaction: (batches: readonly PendingBatch[]) => (Error | undefined)[];

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.location = resolve(path);
    createPrivately(this.location);
    this.#db = new DatabaseConstructor(this.location);
    this.#pollMs = options.pollMs ?? 100;
    this.#lockWaitMs = options.busyTimeoutMs ?? 60_000;
    try {
      // Opening runs once, in the constructor: it waits for the lock blocking; later writes wait without blocking.
      this.#db.pragma(`busy_timeout = ${SQLITE_BUSY_MS}`);
      withWriteLockSync(() => prepareDatabase(this.#db), this.#lockWait("the store's schema"));
      this.#statements = {
        session: this.#db.prepare("SELECT * FROM dsh_sessions WHERE id = ?"),
        insertEvent: this.#db.prepare("INSERT INTO dsh_events (session_id, seq, line, chain) VALUES (?, ?, ?, ?)"),
        updateHead: this.#db.prepare("UPDATE dsh_sessions SET head = ? WHERE id = ?"),
      };
    } catch (error) {
      this.#db.close();
      throw error;
    }
    this.#commitTransaction = this.#db.transaction((batches: readonly PendingBatch[]) => batches.map((batch) => this.#commitBatch(batch))).immediate;
  }

  async create(options: CreateSessionOptions): Promise<StoredSession> {
    const sessionId = checkSessionId(options.sessionId ?? crypto.randomUUID());
    const initial = initialContent(options);
    const row: SessionRow = {
      id: sessionId,
      created_at: options.createdAt ?? Date.now(),
      parent_id: initial.parent?.sessionId ?? null,
      seed_length: initial.parent?.seedLength ?? null,
      head: initial.seed.length,
      writer_epoch: 1,
      chained: 1,
    };
    // The seed is admitted once, by the log that will write to it, before anything is stored.
    const sink = this.#sink(row);
    const log = new EventLog({ ...options, sink, events: initial.seed });
    const { chain, batch } = firstCommit(infoOf(row), log.slice());
    const insert = this.#db.transaction(() => {
      if (this.#row(sessionId) !== undefined) throw new LogError("LOG_EXISTS", `session ${sessionId} already exists in ${this.location}`);
      this.#db.prepare("INSERT INTO dsh_sessions (id, created_at, parent_id, seed_length, head, writer_epoch, chained) VALUES (@id, @created_at, @parent_id, @seed_length, @head, @writer_epoch, @chained)").run(row);
      this.#insert(sessionId, batch);
    });
    // One transaction: a session is created whole, or not at all.
    await withWriteLock(() => insert.immediate(), this.#lockWait(`the new session ${sessionId}`));
    sink.begin({ chain, signing: options.signing }, true);
    return { info: infoOf(row), log, location: `${this.location}#${sessionId}` };
  }

  async open(sessionId: string, options: JsonlLogOptions): Promise<StoredSession> {
    // Head and rows are read in the transaction that takes the writer role, so they agree unless the database is damaged.
    const take = this.#db.transaction(() => {
      const found = this.#existing(sessionId);
      this.#db.prepare("UPDATE dsh_sessions SET writer_epoch = writer_epoch + 1 WHERE id = ?").run(sessionId);
      const row = { ...found, writer_epoch: found.writer_epoch + 1 };
      const sink = this.#sink(row);
      const log = this.#load(row, { ...options, sink });
      sink.begin({ chain: this.#chainOf(row), signing: options.signing });
      return { info: infoOf(row), log, location: `${this.location}#${sessionId}` };
    });
    return withWriteLock(() => take.immediate(), this.#lockWait(`session ${sessionId}'s writer role`));
  }

  /** A wait for the write lock on behalf of `what`, bounded by the store's option. */
  #lockWait(what: string): LockWait {
    return { location: `sqlite:${this.location}`, what, boundMs: this.#lockWaitMs };
  }

  async read(sessionId: string, registry: EventRegistry): Promise<StoredSession> {
    // One read transaction: a writer appending meanwhile cannot make the head and the rows disagree.
    return this.#db.transaction(() => {
      const row = this.#existing(sessionId);
      return { info: infoOf(row), log: this.#load(row, { registry }), location: `${this.location}#${sessionId}` };
    })();
  }

  async readLines(sessionId: string, options: ReadLinesOptions = {}): Promise<StoredLines> {
    return this.#db.transaction(() => {
      const row = this.#existing(sessionId);
      const rows = this.#db.prepare("SELECT line, chain FROM dsh_events WHERE session_id = ? AND seq < ? ORDER BY seq").all(row.id, options.to ?? Number.MAX_SAFE_INTEGER) as { line: string; chain: Buffer | null }[];
      const lines: StoredLine[] = rows.map(({ line, chain }) => ({ line, link: chain ?? undefined }));
      return { info: infoOf(row), chained: row.chained === 1, ...(options.to === undefined ? { recorded: row.head } : {}), lines };
    })();
  }

  async list(): Promise<SessionSummary[]> {
    const rows = this.#db.prepare("SELECT * FROM dsh_sessions ORDER BY created_at, id").all() as SessionRow[];
    return rows.map(summaryOf);
  }

  async summary(sessionId: string): Promise<SessionSummary> {
    const row = this.#existing(sessionId);
    return summaryOf(row);
  }

  async *follow(sessionId: string, options: FollowOptions): AsyncGenerator<readonly LogEvent[]> {
    const info = infoOf(this.#existing(sessionId));
    const query = this.#db.prepare("SELECT line FROM dsh_events WHERE session_id = ? AND seq >= ? ORDER BY seq").pluck();
    let next = options.fromSeq;
    while (!options.signal.aborted) {
      const lines = query.all(sessionId, next) as string[];
      if (lines.length > 0) {
        const events = parseSessionLines(info, lines);
        next = events.at(-1)!.seq + 1;
        yield events;
      }
      await sleep(this.#pollMs, undefined, { signal: options.signal }).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  #row(sessionId: string): SessionRow | undefined {
    return this.#statements.session.get(checkSessionId(sessionId)) as SessionRow | undefined;
  }

  #existing(sessionId: string): SessionRow {
    const row = this.#row(sessionId);
    if (row === undefined) throw new LogError("LOG_NOT_FOUND", `no session ${sessionId} in ${this.location}`);
    return row;
  }

  #load(row: SessionRow, options: EventLogOptions): EventLog {
    const lines = this.#db.prepare("SELECT line FROM dsh_events WHERE session_id = ? ORDER BY seq").pluck().iterate(row.id) as IterableIterator<string>;
    return loadSessionLines(infoOf(row), lines, options, row.head);
  }

  #insert(sessionId: string, batch: LineBatch): void {
    const { events, lines, links } = batch;
    for (const [i, event] of events.entries()) this.#statements.insertEvent.run(sessionId, event.seq, lines[i], links?.[i] ?? null);
  }

  /** Where a chained session's chain stands (its last stored link), or `undefined` for a session written before chains. */
  #chainOf(row: SessionRow): SessionChain | undefined {
    if (row.chained !== 1) return undefined;
    const last = row.head === 0 ? undefined : (this.#db.prepare("SELECT chain FROM dsh_events WHERE session_id = ? AND seq = ?").pluck().get(row.id, row.head - 1) as Buffer | null | undefined);
    return SessionChain.after(infoOf(row), last ?? undefined, row.head);
  }

  /** A sink whose batches go through the store's shared commit queue under this writer's epoch. */
  #sink(row: SessionRow): StoreSink {
    return new StoreSink((batch) => this.#queue.commit({ sessionId: row.id, epoch: row.writer_epoch, ...batch }), async () => undefined);
  }

  /**
   * Commits the batches of many sessions in one `BEGIN IMMEDIATE` transaction: each is written only
   * if its writer's epoch is still current and the session's head is where it expects; the others
   * are refused with `LOG_CONFLICT` and leave nothing behind.
   */
  async #commitAll(batches: readonly PendingBatch[]): Promise<(Error | undefined)[]> {
    const sessions = [...new Set(batches.map((batch) => batch.sessionId))].join(", ");
    return withWriteLock(() => this.#commitTransaction(batches), this.#lockWait(`the append to session ${sessions}`));
  }

  /** Inside the commit's transaction: writes `batch` if its writer is current and the head is where it expects, or says why not. */
  #commitBatch(batch: PendingBatch): Error | undefined {
    const { sessionId, events } = batch;
    const current = this.#existing(sessionId);
    const stale = staleBatchError(batch, { head: current.head, epoch: current.writer_epoch });
    if (stale !== undefined) return stale;
    this.#insert(sessionId, batch);
    this.#statements.updateHead.run(events.at(-1)!.seq + 1, sessionId);
    return undefined;
  }
}
