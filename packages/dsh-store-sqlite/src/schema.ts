import type { Database } from "better-sqlite3";
import { LogError } from "dsh-log";

/** The schema version this code reads and writes (`PRAGMA user_version`). */
export const SCHEMA_VERSION = 2;

const SCHEMA = `
CREATE TABLE dsh_sessions (
  id TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  parent_id TEXT,
  seed_length INTEGER,
  head INTEGER NOT NULL,
  writer_epoch INTEGER NOT NULL DEFAULT 0,
  chained INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE TABLE dsh_events (
  session_id TEXT NOT NULL REFERENCES dsh_sessions (id),
  seq INTEGER NOT NULL,
  line TEXT NOT NULL,
  chain BLOB,
  PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;
`;

/** From version 1: sessions gain whether they are chained (those already there are not), events their chain link. */
const CHAIN_COLUMNS = `
ALTER TABLE dsh_sessions ADD COLUMN chained INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dsh_events ADD COLUMN chain BLOB;
`;

/**
 * Prepares a database: WAL with full fsync on commit, and the schema (created in one transaction when
 * absent, version 1 given the chain columns; a newer version is refused, never rewritten). Another
 * process holding the lock is `SQLITE_BUSY`, for the caller to wait out.
 */
export function prepareDatabase(db: Database): void {
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  db.transaction(() => {
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version === SCHEMA_VERSION) return;
    if (version === 1) {
      db.exec(CHAIN_COLUMNS);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
      return;
    }
    if (version !== 0) throw new LogError("LOG_UNSUPPORTED_FORMAT", `the database has dsh schema version ${version}; this code knows ${SCHEMA_VERSION}`);
    db.exec(SCHEMA);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
