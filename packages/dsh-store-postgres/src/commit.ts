import { LogError } from "dsh-log";
import { staleBatchError, type PendingBatch } from "dsh-log/store";
import { NOTIFY_CHANNEL } from "./schema.js";

/**
 * A connection in a transaction the caller holds open, as `appendWithin` uses it: a `pg` client (or
 * anything with its `query`), so this package's types need no driver types of yours.
 */
export interface TransactionClient {
  query(query: { readonly name?: string; readonly text: string; readonly values: unknown[] }): Promise<{ readonly rows: unknown[] }>;
}

/**
 * One commit of batches as a single statement: lock the sessions' rows in id order, accept each batch
 * whose writer epoch and expected head match, insert the accepted events, move their heads and notify
 * followers; it returns the locked rows as they were. Parameters: per batch the session id, expected
 * head, writer epoch and new head ($1-$4); per event its session id, seq and line ($5-$7); the channel ($8).
 */
const COMMIT_SQL = `
WITH expected AS (
  SELECT * FROM unnest($1::text[], $2::integer[], $3::integer[], $4::integer[]) AS e (id, head, epoch, next_head)
), locked AS (
  SELECT s.id, s.head, s.writer_epoch FROM dsh_sessions AS s WHERE s.id IN (SELECT id FROM expected) ORDER BY s.id FOR UPDATE
), accepted AS (
  SELECT e.id, e.next_head FROM expected AS e JOIN locked AS l ON l.id = e.id AND l.head = e.head AND l.writer_epoch = e.epoch
), inserted AS (
  INSERT INTO dsh_events (session_id, seq, line, chain)
  SELECT v.session_id, v.seq, v.line, v.chain FROM unnest($5::text[], $6::integer[], $7::text[], $9::bytea[]) AS v (session_id, seq, line, chain)
  WHERE v.session_id IN (SELECT id FROM accepted)
  RETURNING 1
), moved AS (
  UPDATE dsh_sessions AS s SET head = a.next_head FROM accepted AS a WHERE s.id = a.id RETURNING s.id
)
SELECT l.id, l.head, l.writer_epoch,
  (SELECT count(*) FROM inserted) AS inserted,
  (SELECT count(*) FROM (SELECT pg_notify($8, id) FROM moved) AS n) AS notified
FROM locked AS l`;

/**
 * One session's batch as a single statement: move the head only if the writer epoch and the expected
 * head match (one row, so no lock order to keep), insert the events only if it moved, and notify
 * followers; it returns a row only if the batch went in. Parameters: the session id, expected head,
 * writer epoch and new head ($1-$4); per event its seq, line and link ($5-$7); the channel ($8).
 */
const COMMIT_ONE_SQL = `
WITH moved AS (
  UPDATE dsh_sessions SET head = $4 WHERE id = $1 AND head = $2 AND writer_epoch = $3 RETURNING id
), inserted AS (
  INSERT INTO dsh_events (session_id, seq, line, chain)
  SELECT $1, v.seq, v.line, v.chain FROM unnest($5::integer[], $6::text[], $7::bytea[]) AS v (seq, line, chain)
  WHERE EXISTS (SELECT 1 FROM moved)
)
SELECT pg_notify($8, id) FROM moved`;

/**
 * {@link COMMIT_ONE_SQL} for a batch of one event, the most common append: the event's seq is the
 * expected head and its line and link are plain parameters ($5, $6; the channel $7), which spares the
 * server the arrays.
 */
const COMMIT_EVENT_SQL = `
WITH moved AS (
  UPDATE dsh_sessions SET head = $4 WHERE id = $1 AND head = $2 AND writer_epoch = $3 RETURNING id
), inserted AS (
  INSERT INTO dsh_events (session_id, seq, line, chain)
  SELECT $1, $2, $5::text, $6::bytea WHERE EXISTS (SELECT 1 FROM moved)
)
SELECT pg_notify($7, id) FROM moved`;

/** A session's head and writer epoch as read from its row (by the commit statement: as it was when locked). */
export interface LockedRow {
  readonly id: string;
  readonly head: number;
  readonly writer_epoch: number;
}

/**
 * Commits `batches` in one statement on `on` (the pool, or a caller's connection in its transaction),
 * as the named prepared statement `name` when given; returns, per batch, why it was refused, if it was.
 */
export async function commitBatches(on: TransactionClient, batches: readonly PendingBatch[], name: string | undefined): Promise<(Error | undefined)[]> {
  if (batches.length === 1) return [await commitOne(on, batches[0]!, name === undefined ? undefined : `${name}-one`)];
  const events = batches.flatMap((batch) => batch.events.map((event, i) => ({ sessionId: batch.sessionId, seq: event.seq, line: batch.lines[i]!, link: batch.links?.[i] ?? null })));
  // A named statement (unless turned off): each connection parses and plans it once.
  const { rows } = await on.query({ ...(name === undefined ? {} : { name }), text: COMMIT_SQL, values: [
    batches.map((batch) => batch.sessionId),
    batches.map((batch) => batch.events[0]!.seq),
    batches.map((batch) => batch.epoch),
    batches.map((batch) => batch.events.at(-1)!.seq + 1),
    events.map((event) => event.sessionId),
    events.map((event) => event.seq),
    events.map((event) => event.line),
    NOTIFY_CHANNEL,
    events.map((event) => event.link),
  ] });
  // The rows as they were when locked: the same check the statement made, for the reason of a refusal.
  const current = new Map((rows as LockedRow[]).map((row) => [row.id, row]));
  return batches.map((batch) => {
    const row = current.get(batch.sessionId)!;
    return staleBatchError(batch, { head: row.head, epoch: row.writer_epoch });
  });
}

/** Commits one session's batch (the usual case: one writer in the process); returns why it was refused, if it was. */
async function commitOne(on: TransactionClient, batch: PendingBatch, name: string | undefined): Promise<Error | undefined> {
  const head = [batch.sessionId, batch.events[0]!.seq, batch.epoch, batch.events.at(-1)!.seq + 1];
  const { rows } =
    batch.events.length === 1
      ? await on.query({ ...(name === undefined ? {} : { name: `${name}-event` }), text: COMMIT_EVENT_SQL, values: [...head, batch.lines[0], batch.links?.[0] ?? null, NOTIFY_CHANNEL] })
      : await on.query({ ...(name === undefined ? {} : { name }), text: COMMIT_ONE_SQL, values: [
          ...head,
          batch.events.map((event) => event.seq),
          batch.lines,
          batch.links ?? batch.lines.map(() => null),
          NOTIFY_CHANNEL,
        ] });
  if (rows.length === 1) return undefined;
  // Refused: read the row as it is now, for the reason.
  const current = await on.query({ text: "SELECT id, head, writer_epoch FROM dsh_sessions WHERE id = $1", values: [batch.sessionId] });
  const row = current.rows[0] as LockedRow | undefined;
  return (row === undefined ? undefined : staleBatchError(batch, { head: row.head, epoch: row.writer_epoch })) ?? new LogError("LOG_CONFLICT", `session ${batch.sessionId} changed while this writer appended; it may no longer append`);
}
