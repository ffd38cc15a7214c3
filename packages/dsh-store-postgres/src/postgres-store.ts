import pg from "pg";
import { maskUrlPassword } from "dsh-base";
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
  type ReadLinesOptions,
  type StoredLines,
  type StoredSession,
} from "dsh-log";
import { CommitQueue, StoreSink, checkSessionId, firstCommit, initialContent, loadSessionLines, sessionInfo, type LineBatch, type PendingBatch } from "dsh-log/store";
import { commitBatches, type TransactionClient } from "./commit.js";
import { onLiveConnection, transaction } from "./connection-lost.js";
import { commitSettled } from "./settled-commit.js";
import { migrate } from "./schema.js";
import { followSession } from "./follow.js";

/** Where a log's appends commit: on their own through the pool, or on a caller's connection. */
interface Route {
  client: TransactionClient | undefined;
}

/** Options of {@link PostgresStore.connect}. */
export interface PostgresStoreOptions {
  /** Most connections the pool opens (default 10); a follower uses one more of its own. */
  readonly maxConnections?: number;
  /** How long a follower whose connection the server ended tries to open it again, in ms (default 30,000). */
  readonly followReconnectMs?: number;
  /**
   * Whether the append statement is a named prepared statement, parsed once per connection (default
   * true). Behind a pooler that cannot keep prepared statements across transactions (PgBouncer before
   * 1.21, or without `max_prepared_statements`), set it to false.
   */
  readonly preparedStatements?: boolean;
}

interface SessionRow {
  readonly id: string;
  readonly created_at: string;
  readonly parent_id: string | null;
  readonly seed_length: number | null;
  readonly head: number;
  readonly writer_epoch: number;
  readonly chained: boolean;
}

function infoOf(row: SessionRow): SessionInfo {
  return sessionInfo(row.id, Number(row.created_at), row.parent_id, row.seed_length);
}

/** What `list()` and `summary()` say of a session: its info and how many events its head counts. */
function summaryOf(row: SessionRow): SessionSummary {
  return { ...infoOf(row), events: row.head };
}

/**
 * Sessions in PostgreSQL (`pg`), for many workers on many machines. Event lines are `text`, never
 * `jsonb` (which reorders keys and drops duplicates), so a rebuild is byte-identical. Opening a
 * session for writing takes a new writer epoch; every append locks the session row and checks that
 * epoch and the expected head in the same transaction as the insert, so a superseded writer gets
 * `LOG_CONFLICT` and writes nothing. Appends notify followers (LISTEN/NOTIFY), who catch up by seq.
 */
export class PostgresStore implements SessionStore {
  readonly location: string;
  readonly #url: string;
  readonly #pool: pg.Pool;
  readonly #queue = new CommitQueue((batches) => this.#commitAll(batches));
  readonly #reconnectMs: number;
  readonly #commitName: string | undefined;
  /** How many times a statement is tried while the connections it gets turn out lost: one more than the pool holds. */
  readonly #attempts: number;
  /** Where each log this store opened commits: the pool, or a caller's connection inside the transaction it holds open. */
  readonly #routes = new WeakMap<EventLog, Route>();

  private constructor(url: string, pool: pg.Pool, reconnectMs: number, prepared: boolean, connections: number) {
    this.#url = url;
    this.#attempts = connections + 1;
    this.#reconnectMs = reconnectMs;
    this.#commitName = prepared ? "dsh-commit" : undefined;
    this.location = maskUrlPassword(url);
    this.#pool = pool;
  }

  /**
   * Connects to `url` (`postgres://user:password@host:port/database`) and creates the schema if it is
   * absent. A server that cannot be reached (down, refusing, the wrong password) is
   * `LOG_STORE_UNAVAILABLE`, naming the store with its password masked.
   */
  static async connect(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const connections = options.maxConnections ?? 10;
    const pool = new pg.Pool({ connectionString: url, max: connections });
    pool.on("error", () => undefined);
    try {
      const client = await pool.connect();
      try {
        await migrate(client);
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end();
      if (error instanceof LogError) throw error;
      throw new LogError("LOG_STORE_UNAVAILABLE", `cannot reach the store ${maskUrlPassword(url)}: ${(error as Error).message || String((error as NodeJS.ErrnoException).code)}`, { cause: error });
    }
    return new PostgresStore(url, pool, options.followReconnectMs ?? 30_000, options.preparedStatements ?? true, connections);
  }

  async create(options: CreateSessionOptions): Promise<StoredSession> {
    const sessionId = checkSessionId(options.sessionId ?? crypto.randomUUID());
    const initial = initialContent(options);
    const row: SessionRow = {
      id: sessionId,
      created_at: String(options.createdAt ?? Date.now()),
      parent_id: initial.parent?.sessionId ?? null,
      seed_length: initial.parent?.seedLength ?? null,
      head: initial.seed.length,
      writer_epoch: 1,
      chained: true,
    };
    // The seed is admitted once, by the log that will write to it, before anything is stored.
    const route: Route = { client: undefined };
    const sink = this.#sink(row, route);
    const log = new EventLog({ ...options, sink, events: initial.seed });
    this.#routes.set(log, route);
    const { chain, batch } = firstCommit(infoOf(row), log.slice());
    await transaction(this.#pool, this.#attempts, `session ${sessionId} to ${this.location}`, async (client) => {
      const inserted = await client.query(
        "INSERT INTO dsh_sessions (id, created_at, parent_id, seed_length, head, writer_epoch, chained) VALUES ($1, $2, $3, $4, $5, $6, true) ON CONFLICT (id) DO NOTHING",
        [row.id, row.created_at, row.parent_id, row.seed_length, row.head, row.writer_epoch],
      );
      if (inserted.rowCount === 0) throw new LogError("LOG_EXISTS", `session ${sessionId} already exists in ${this.location}`);
      await insertEvents(client, sessionId, batch);
    });
    sink.begin({ chain, signing: options.signing }, true);
    return { info: infoOf(row), log, location: `${this.location}#${sessionId}` };
  }

  async open(sessionId: string, options: JsonlLogOptions): Promise<StoredSession> {
    // Run twice after a lost reply, it only takes one more epoch.
    const { rows } = await this.#query<SessionRow>("UPDATE dsh_sessions SET writer_epoch = writer_epoch + 1 WHERE id = $1 RETURNING *", [checkSessionId(sessionId)]);
    const row = rows[0];
    if (row === undefined) throw new LogError("LOG_NOT_FOUND", `no session ${sessionId} in ${this.location}`);
    const route: Route = { client: undefined };
    const sink = this.#sink(row, route);
    const log = await this.#load(row, { ...options, sink });
    this.#routes.set(log, route);
    sink.begin({ chain: await this.#chainOf(row, log.length), signing: options.signing });
    return { info: infoOf(row), log, location: `${this.location}#${sessionId}` };
  }

  async readLines(sessionId: string, options: ReadLinesOptions = {}): Promise<StoredLines> {
    const row = await this.#existing(sessionId);
    // One statement: the head and the rows are one snapshot.
    const { rows } = await this.#query<{ head: number; line: string | null; chain: Buffer | null }>(
      "SELECT s.head, e.line, e.chain FROM dsh_sessions s LEFT JOIN dsh_events e ON e.session_id = s.id AND e.seq < $2::bigint WHERE s.id = $1 ORDER BY e.seq",
      [row.id, options.to ?? Number.MAX_SAFE_INTEGER],
    );
    const lines = rows.flatMap(({ line, chain }) => (line === null ? [] : [{ line, link: chain ?? undefined }]));
    return { info: infoOf(row), chained: row.chained, ...(options.to === undefined ? { recorded: rows[0]?.head ?? row.head } : {}), lines };
  }

  async read(sessionId: string, registry: EventRegistry): Promise<StoredSession> {
    const row = await this.#existing(sessionId);
    return { info: infoOf(row), log: await this.#load(row, { registry }), location: `${this.location}#${sessionId}` };
  }

  async list(): Promise<SessionSummary[]> {
    const { rows } = await this.#query<SessionRow>("SELECT * FROM dsh_sessions ORDER BY created_at, id");
    return rows.map(summaryOf);
  }

  async summary(sessionId: string): Promise<SessionSummary> {
    const row = await this.#existing(sessionId);
    return summaryOf(row);
  }

  /**
   * Follows a session: LISTEN for its notifications and catch up by seq on each. A connection the
   * server ends (a restart) is opened again and the follower catches up; one that cannot be opened
   * again within `followReconnectMs` ends the follow with `LOG_STORE_UNAVAILABLE`, saying why.
   */
  async *follow(sessionId: string, options: FollowOptions): AsyncGenerator<readonly LogEvent[]> {
    const info = infoOf(await this.#existing(sessionId));
    yield* followSession({ url: this.#url, location: this.location, pool: this.#pool, attempts: this.#attempts, reconnectMs: this.#reconnectMs }, info, options);
  }

  /**
   * Runs `work` with the appends of `log` (a session this store opened or created) written on
   * `client`, inside the transaction the caller began there, so they commit (or roll back) with the
   * caller's own writes. Each append is still checked against the writer epoch and head. Should that
   * transaction not commit, the log in memory is ahead of the store: close it and open the session again.
   */
  async appendWithin<T>(client: TransactionClient, log: EventLog, work: () => Promise<T>): Promise<T> {
    const route = this.#route(log);
    if (route.client !== undefined) throw new LogError("LOG_CONFLICT", "this log already appends within a transaction");
    route.client = client;
    try {
      return await work();
    } finally {
      route.client = undefined;
    }
  }

  /** Inside {@link appendWithin}, runs `work` with the log's appends committed on their own at once: for what must be durable before the caller's transaction ends. */
  async appendApart<T>(log: EventLog, work: () => Promise<T>): Promise<T> {
    const route = this.#route(log);
    const client = route.client;
    route.client = undefined;
    try {
      return await work();
    } finally {
      route.client = client;
    }
  }

  #route(log: EventLog): Route {
    const route = this.#routes.get(log);
    if (route === undefined) throw new LogError("LOG_CONFLICT", `the log was not opened by this store (${this.location})`);
    return route;
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  /** A statement on a pooled connection, safe to run twice: tried again on another connection while the one it gets turns out lost. */
  #query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    return onLiveConnection(this.#attempts, () => this.#pool.query<R>(text, values));
  }

  async #existing(sessionId: string): Promise<SessionRow> {
    const { rows } = await this.#query<SessionRow>("SELECT * FROM dsh_sessions WHERE id = $1", [checkSessionId(sessionId)]);
    if (rows[0] === undefined) throw new LogError("LOG_NOT_FOUND", `no session ${sessionId} in ${this.location}`);
    return rows[0];
  }

  /** The session's events, checked against its head as read in the same statement (one snapshot, whatever a writer does meanwhile). */
  async #load(row: SessionRow, options: EventLogOptions): Promise<EventLog> {
    const { rows } = await this.#query<{ head: number; line: string | null }>(
      "SELECT s.head, e.line FROM dsh_sessions s LEFT JOIN dsh_events e ON e.session_id = s.id WHERE s.id = $1 ORDER BY e.seq",
      [row.id],
    );
    if (rows[0] === undefined) throw new LogError("LOG_NOT_FOUND", `no session ${row.id} in ${this.location}`);
    return loadSessionLines(infoOf(row), rows.flatMap(({ line }) => (line === null ? [] : [line])), options, rows[0].head);
  }

  /** Where a chained session's chain stands after its `events` events (its last stored link), or `undefined` for a session written before chains. */
  async #chainOf(row: SessionRow, events: number): Promise<SessionChain | undefined> {
    if (!row.chained) return undefined;
    const { rows } = await this.#query<{ chain: Buffer | null }>("SELECT chain FROM dsh_events WHERE session_id = $1 AND seq = $2", [row.id, events - 1]);
    return SessionChain.after(infoOf(row), rows[0]?.chain ?? undefined, events);
  }

  /** A sink whose batches go through the store's shared commit queue under this writer's epoch, or on the connection its route names. */
  #sink(row: SessionRow, route: Route): StoreSink {
    return new StoreSink(async (batch) => {
      const pending = { sessionId: row.id, epoch: row.writer_epoch, ...batch };
      const client = route.client;
      if (client === undefined) return this.#queue.commit(pending);
      if (pending.events.length === 0) return;
      const [error] = await this.#commitAll([pending], client);
      if (error !== undefined) throw error;
    }, async () => undefined);
  }

  /**
   * Commits the batches of many sessions in one statement, so one round trip: their rows are locked
   * (in id order, so concurrent committers cannot deadlock), each batch is written only if its
   * writer's epoch is current and the head is where it expects, and followers are notified on commit.
   * Refused batches get `LOG_CONFLICT` and leave nothing behind.
   */
  #commitAll(batches: readonly PendingBatch[], on?: TransactionClient): Promise<(Error | undefined)[]> {
    // On the caller's connection, a lost connection is a lost transaction: the caller's to settle.
    if (on !== undefined) return commitBatches(on, batches, this.#commitName);
    return commitSettled(this.#pool, batches, this.#commitName, this.#attempts);
  }
}

/** Inserts event lines and their links in one statement. */
async function insertEvents(client: pg.PoolClient, sessionId: string, batch: LineBatch): Promise<void> {
  if (batch.events.length === 0) return;
  await client.query("INSERT INTO dsh_events (session_id, seq, line, chain) SELECT $1, * FROM unnest($2::integer[], $3::text[], $4::bytea[])", [
    sessionId,
    batch.events.map((event) => event.seq),
    batch.lines,
    batch.links ?? batch.lines.map(() => null),
  ]);
}
