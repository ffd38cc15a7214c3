import type { PoolClient } from "pg";
import { LogError } from "dsh-log";

/** The schema version this code reads and writes (the row of `dsh_schema`). */
export const SCHEMA_VERSION = 2;

/** Any number, the same in every process: the advisory lock that serializes migrations. */
const MIGRATION_LOCK = 0x64736801;

const SCHEMA = `
CREATE TABLE dsh_schema (version integer NOT NULL);
CREATE TABLE dsh_sessions (
  id text PRIMARY KEY,
  created_at bigint NOT NULL,
  parent_id text,
  seed_length integer,
  head integer NOT NULL,
  writer_epoch integer NOT NULL DEFAULT 0,
  chained boolean NOT NULL DEFAULT false
);
CREATE TABLE dsh_events (
  session_id text NOT NULL REFERENCES dsh_sessions (id),
  seq integer NOT NULL,
  line text NOT NULL,
  chain bytea,
  PRIMARY KEY (session_id, seq)
);
INSERT INTO dsh_schema (version) VALUES (2);
`;

/** From version 1: sessions gain whether they are chained (those already there are not), events their chain link. */
const CHAIN_COLUMNS = `
ALTER TABLE dsh_sessions ADD COLUMN chained boolean NOT NULL DEFAULT false;
ALTER TABLE dsh_events ADD COLUMN chain bytea;
UPDATE dsh_schema SET version = 2;
`;

/** Creates the schema when absent (version 1 is given the chain columns), under an advisory lock so concurrent workers do not race; a newer version is refused. */
export async function migrate(client: PoolClient): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    const exists = await client.query<{ table: string | null }>("SELECT to_regclass('dsh_schema')::text AS table");
    if (exists.rows[0]?.table === null) {
      await client.query(SCHEMA);
    } else {
      const { rows } = await client.query<{ version: number }>("SELECT version FROM dsh_schema");
      const version = rows[0]?.version;
      if (version === 1) await client.query(CHAIN_COLUMNS);
      else if (version !== SCHEMA_VERSION) throw new LogError("LOG_UNSUPPORTED_FORMAT", `the database has dsh schema version ${String(version)}; this code knows ${SCHEMA_VERSION}`);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  }
}

/** The channel appends notify followers on; the payload is the session id. */
export const NOTIFY_CHANNEL = "dsh_events";
