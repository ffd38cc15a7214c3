import { LogError } from "dsh-log";
import type pg from "pg";

/** SQLSTATEs that say the server ended the connection (an administrator or a crash), not that the statement was wrong. */
const SERVER_ENDED = new Set(["57P01", "57P02"]);
/** Connection class SQLSTATEs that say a connection could not be opened, not that an open one was lost. */
const NOT_OPENED = new Set(["08001", "08004"]);
/** Socket errors that end an open connection. */
const SOCKET_ENDED = new Set(["ECONNRESET", "EPIPE"]);

/**
 * Whether `error` says an open connection was lost (the server ended it, a connection class
 * SQLSTATE, a reset socket, a client `pg` already saw die) rather than that the statement failed.
 * A connection that could not be opened (refused, timed out, the server starting up) is not lost:
 * another try at once would fail the same way, or wait as long again.
 */
export function connectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return SERVER_ENDED.has(code) || (code.startsWith("08") && !NOT_OPENED.has(code)) || SOCKET_ENDED.has(code);
  return /^Connection terminated|is not queryable$/.test(error.message);
}

/**
 * Runs `statement` (one that may safely run twice) and runs it again, up to `attempts` times in all,
 * while the pooled connection it got turns out to be lost: a restart leaves every idle connection
 * dead, and the pool drops each one as it fails.
 */
export async function onLiveConnection<T>(attempts: number, statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (error) {
      if (attempt >= attempts || !connectionLost(error)) throw error;
    }
  }
}

/** Heard on a checked-out connection, whose `error` event would otherwise crash the process. */
const ignore = () => undefined;

/** A pooled connection on which `BEGIN` went through; one found lost is dropped from the pool. */
async function begun(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  client.on("error", ignore);
  try {
    await client.query("BEGIN");
    return client;
  } catch (error) {
    client.off("error", ignore);
    client.release(connectionLost(error) ? (error as Error) : undefined);
    throw error;
  }
}

/**
 * Runs `work` (which may safely run again) in one transaction on a pooled connection, and runs the
 * whole transaction again on another, up to `attempts` times, when a connection is lost before its
 * `COMMIT` went out: nothing of it was committed. One lost while committing leaves the outcome
 * unknown: `LOG_STORE_UNAVAILABLE`, naming `what` was committed. The `error` event a dying client
 * also emits is heard here, as an unheard one would crash the process.
 */
export async function transaction<T>(pool: pg.Pool, attempts: number, what: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await onLiveConnection(attempts, () => begun(pool));
    let committing = false;
    let lost: Error | undefined;
    try {
      const result = await work(client);
      committing = true;
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      if (!connectionLost(error)) throw error;
      lost = error as Error;
      if (committing) throw new LogError("LOG_STORE_UNAVAILABLE", `lost the connection while committing ${what}: it may or may not have been committed`, { cause: error });
      if (attempt >= attempts) throw error;
    } finally {
      client.off("error", ignore);
      client.release(lost);
    }
  }
}
