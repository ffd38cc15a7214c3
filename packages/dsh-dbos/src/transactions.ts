import { AsyncLocalStorage } from "node:async_hooks";
import { DBOS } from "@dbos-inc/dbos-sdk";
import {
  DBOSStepAlreadyRecordedError,
  assertStillOwnsWorkflow,
  isPGKeyConflictError,
  migrateDataSourcePG,
  replayRecordedStep,
  type DataSourceTransactionHandler,
} from "@dbos-inc/dbos-sdk/datasource";
import pg from "pg";
import SuperJSON from "superjson";
import { DurableError } from "./errors.js";

/** The schema of DBOS's completion records in the sessions' database (beside DBOS's own system tables). */
const SCHEMA = "dbos";

interface Recorded {
  readonly output: string | null;
  readonly error: string | null;
}

/**
 * A DBOS data source over the sessions' PostgreSQL: each transaction runs on one pooled connection,
 * and its completion record (the unit's receipt) is inserted on that connection before COMMIT, so
 * the log append and the record commit together or not at all. A unit already recorded is replayed,
 * never run again; a concurrent duplicate loses on the record's primary key and replays the winner's.
 */
export class TurnTransactions implements DataSourceTransactionHandler {
  readonly name: string;
  readonly #url: string;
  readonly #maxConnections: number;
  readonly #client = new AsyncLocalStorage<pg.PoolClient>();
  #pool: pg.Pool | undefined;

  readonly #reconnectMs: number;

  constructor(name: string, url: string, maxConnections: number, reconnectMs = 60_000) {
    this.name = name;
    this.#url = url;
    this.#maxConnections = maxConnections;
    this.#reconnectMs = reconnectMs;
  }

  async initialize(): Promise<void> {
    const pool = new pg.Pool({ connectionString: this.#url, max: this.#maxConnections });
    pool.on("error", () => undefined);
    const client = await pool.connect();
    try {
      await migrateDataSourcePG(async (sql) => (await client.query(sql)).rows, SCHEMA);
    } finally {
      client.release();
    }
    this.#pool = pool;
  }

  async destroy(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.end();
  }

  /** The connection of the transaction running now; refused outside one. */
  client(): pg.PoolClient {
    const client = this.#client.getStore();
    if (client === undefined) throw new DurableError("DURABLE_OUTSIDE_WORKFLOW", "no durable transaction is running here");
    return client;
  }

  /**
   * Runs a unit in its transaction. When the connection to the database is lost (a restart, a
   * failover), the transaction rolled back: the unit runs again on a new connection, after a wait that
   * doubles each time, for up to `reconnectMs` (each wait one DBOS warning), as a recovering worker
   * would run it; past that, the loss is the unit's failure.
   */
  async invokeTransactionFunction<This, Args extends unknown[], Return>(
    _config: unknown,
    target: This,
    func: (this: This, ...args: Args) => Promise<Return>,
    ...args: Args
  ): Promise<Return> {
    const workflowId = DBOS.workflowID;
    const stepId = DBOS.stepID;
    if (workflowId === undefined || stepId === undefined) throw new DurableError("DURABLE_OUTSIDE_WORKFLOW", "a durable turn's unit runs only inside its DBOS workflow");
    const pool = this.#pool;
    if (pool === undefined) throw new DurableError("DURABLE_INVALID_OPTIONS", `data source ${this.name} is not initialized: launch DBOS first`);
    const started = Date.now();
    for (let wait = RECONNECT_FIRST_MS; ; wait = Math.min(wait * 2, RECONNECT_MAX_WAIT_MS)) {
      try {
        return await this.#once(pool, workflowId, stepId, () => func.call(target, ...args));
      } catch (error) {
        if (!connectionLost(error) || Date.now() - started + wait > this.#reconnectMs) throw error;
        DBOS.logger.warn(`lost the sessions' database while running a unit of workflow ${workflowId} (${(error as Error).message}): running it again in ${wait} ms`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** One attempt: a unit already recorded is replayed; otherwise it runs and its record is inserted in one transaction. */
  async #once<Return>(pool: pg.Pool, workflowId: string, stepId: number, run: () => Promise<Return>): Promise<Return> {
    const earlier = await recorded(pool, workflowId, stepId);
    if (earlier !== undefined) return replayRecordedStep<Return>(earlier);
    const client = await pool.connect();
    // A connection the server drops mid-transaction fails the query it was running; its 'error' event
    // must not also crash the process (a checked-out client has no listener of the pool's).
    let broken = false;
    const onError = () => void (broken = true);
    client.on("error", onError);
    try {
      await client.query("BEGIN");
      const result = await this.#client.run(client, run);
      await insertRecord(client, workflowId, stepId, SuperJSON.stringify(result));
      await assertStillOwnsWorkflow(workflowId);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      if (!(error instanceof DBOSStepAlreadyRecordedError)) throw error;
      return replayRecordedStep<Return>((await recorded(pool, workflowId, stepId))!);
    } finally {
      client.off("error", onError);
      client.release(broken || undefined);
    }
  }
}

/** The first wait before a unit runs again after its connection was lost, and the longest. */
const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_WAIT_MS = 5_000;

/** The network errors and server states of a database that went away or is not back yet. */
const LOST = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "57P01", "57P02", "57P03", "08000", "08003", "08006"]);

/** Whether `error`, or an error it was caused by, says the connection to the database was lost. */
function connectionLost(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === "string" && LOST.has(code)) return true;
    if (/Connection terminated|connection error and is not queryable|Client was closed/.test(at.message)) return true;
  }
  return false;
}

async function recorded(pool: pg.Pool, workflowId: string, stepId: number): Promise<Recorded | undefined> {
  const { rows } = await pool.query<Recorded>(`SELECT output, error FROM ${SCHEMA}.transaction_completion WHERE workflow_id = $1 AND function_num = $2`, [workflowId, stepId]);
  return rows[0];
}

/** The unit's completion record, in its transaction; a duplicate execution's insert conflicts and replays the first. */
async function insertRecord(client: pg.PoolClient, workflowId: string, stepId: number, output: string): Promise<void> {
  try {
    await client.query(`INSERT INTO ${SCHEMA}.transaction_completion (workflow_id, function_num, output) VALUES ($1, $2, $3)`, [workflowId, stepId, output]);
  } catch (error) {
    if (isPGKeyConflictError(error)) throw new DBOSStepAlreadyRecordedError(workflowId, stepId);
    throw error;
  }
}
