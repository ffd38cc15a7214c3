import { LogError, type FollowOptions, type LogEvent, type SessionInfo } from "dsh-log";
import { parseSessionLines } from "dsh-log/store";
import pg from "pg";
import { onLiveConnection } from "./connection-lost.js";
import { NOTIFY_CHANNEL } from "./schema.js";

/** What a follower needs of its store. */
export interface FollowContext {
  readonly url: string;
  /** The store's location without credentials, for messages. */
  readonly location: string;
  readonly pool: pg.Pool;
  /** How many times a catch-up query is tried while the pooled connections it gets turn out lost. */
  readonly attempts: number;
  /** How long to try opening a connection the server ended, in ms. */
  readonly reconnectMs: number;
}

/**
 * The events of `info`'s session from `options.fromSeq` on, in committed batches: one connection
 * LISTENs for notifications, and each one is followed by a catch-up query by seq. A connection the
 * server ends is opened again (then the follower catches up); failing that, `LOG_STORE_UNAVAILABLE`.
 */
export async function* followSession(context: FollowContext, info: SessionInfo, options: FollowOptions): AsyncGenerator<readonly LogEvent[]> {
  const { sessionId } = info;
  let wake: (() => void) | undefined;
  let pending = true;
  let lost: Error | undefined;
  let listener: pg.Client | undefined;
  const signal = () => {
    pending = true;
    wake?.();
  };
  const listen = async (): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: context.url });
    const drop = (error: Error) => {
      if (client !== listener) return;
      lost ??= error;
      signal();
    };
    client.on("error", drop);
    client.on("end", () => drop(new Error("the server ended the connection")));
    client.on("notification", (message) => {
      if (message.payload === sessionId) signal();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  };
  options.signal.addEventListener("abort", signal, { once: true });
  try {
    listener = await listen();
    let next = options.fromSeq;
    while (!options.signal.aborted) {
      if (!pending) await new Promise<void>((resolve) => (wake = resolve));
      pending = false;
      if (options.signal.aborted) break;
      if (lost !== undefined) {
        const old = listener;
        listener = undefined;
        await old?.end().catch(() => undefined);
        listener = await listenAgain(context, sessionId, lost, listen, options.signal);
        lost = undefined;
      }
      // Catch up by seq: a notification says "something new", the query says what.
      const lines = await linesFrom(context, sessionId, next);
      if (lines.length > 0) {
        const events = parseSessionLines(info, lines);
        next = events.at(-1)!.seq + 1;
        yield events;
      }
    }
  } finally {
    options.signal.removeEventListener("abort", signal);
    const last = listener;
    listener = undefined;
    await last?.end().catch(() => undefined);
  }
}

/** The lines of a session from `seq` on; a query on a connection the server just ended is tried again on another. */
async function linesFrom(context: FollowContext, sessionId: string, seq: number): Promise<string[]> {
  const query = () => context.pool.query<{ line: string }>("SELECT line FROM dsh_events WHERE session_id = $1 AND seq >= $2 ORDER BY seq", [sessionId, seq]);
  const { rows } = await onLiveConnection(context.attempts, query);
  return rows.map((row) => row.line);
}

/** A new listening connection after `lost`, tried with backoff for `context.reconnectMs`, until `signal` aborts. */
async function listenAgain(context: FollowContext, sessionId: string, lost: Error, listen: () => Promise<pg.Client>, signal: AbortSignal): Promise<pg.Client> {
  let last: unknown = lost;
  for (let attempt = 0, waited = 0; ; attempt++) {
    try {
      return await listen();
    } catch (error) {
      last = error;
    }
    if (waited >= context.reconnectMs || signal.aborted) break;
    const delay = Math.min(2_000, 100 * 2 ** attempt);
    await new Promise((resolve) => setTimeout(resolve, delay));
    waited += delay;
  }
  throw new LogError("LOG_STORE_UNAVAILABLE", `lost the connection to ${context.location} while following session ${sessionId}, and could not open it again: ${(last as Error).message}`, { cause: last });
}
