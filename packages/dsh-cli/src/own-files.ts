import { resolve } from "node:path";
import type { CliIo } from "./io.js";

/** The flags of a command that name files of dsh's own. */
export interface OwnFileFlags {
  /** The session's JSONL log (`--log`, or the LOG a command continues); `STORE#ID` names no file. */
  readonly log?: string | undefined;
  readonly store?: string | undefined;
  readonly "signing-key"?: string | undefined;
  readonly witness?: string | undefined;
  readonly "record-wire"?: string | undefined;
}

/**
 * The files of dsh's own a command uses, as absolute paths: its JSONL log, its SQLite store with the
 * journal, WAL and shared-memory files SQLite keeps beside it, its signing key, its witness and the
 * wire record. The workspace tools never list nor read them.
 */
export function ownFiles(flags: OwnFileFlags, io: CliIo): string[] {
  const at = (path: string) => resolve(io.cwd, path);
  const files: string[] = [];
  const log = flags.log;
  if (log !== undefined && !log.includes("#")) files.push(at(log));
  const store = flags.store ?? io.env.DSH_STORE;
  if (store?.startsWith("sqlite:") === true) {
    const database = at(store.slice("sqlite:".length));
    files.push(database, `${database}-journal`, `${database}-wal`, `${database}-shm`);
  }
  for (const path of [flags["signing-key"], flags.witness, flags["record-wire"]]) if (path !== undefined) files.push(at(path));
  return files;
}
