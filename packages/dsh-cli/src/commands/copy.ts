import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { copySession, createJsonlLog, type CreateSessionOptions, type HeadSigning, type StoredSession } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { SIGNING_OPTIONS, SIGNING_USAGE, signingOf } from "../signing.js";
import { openStore, readSessionRef, sessionRef } from "../store.js";

export const COPY_USAGE = `dsh copy LOG STORE|FILE.jsonl [--store URL] ${SIGNING_USAGE}`;

/**
 * `dsh copy`: copies a session (a JSONL file, an id of the store in effect, or `STORE#ID`) into
 * another store, keeping its id, creation time, lineage and every event's line byte for byte (not its grouping into commits), so the copy
 * rebuilds the same wire bytes. The events are admitted on the way in, as on any load. A target
 * ending in `.jsonl` is a new JSONL file.
 */
export async function copyCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { store: { type: "string" }, ...SIGNING_OPTIONS } });
  const [reference, target] = positionals;
  if (reference === undefined || target === undefined || positionals.length > 2) throw new CliError(`usage: ${COPY_USAGE}`, EXIT.usage);
  const source = await readSessionRef(sessionRef(reference, values.store, io), io);
  await source.close();
  const signing = await signingOf(values, io);
  let where: string;
  try {
    where = await copyTo(source, target, io, signing);
  } finally {
    await signing?.witness.close();
  }
  io.stderr.write(`dsh: copied session ${source.info.sessionId} (${source.log.length} events) to ${where}\n`);
  return EXIT.ok;
}

/** Copies `source` to `target` and returns where the copy is: a new JSONL file for a name ending in `.jsonl`, else the store at that URL. */
async function copyTo(source: Pick<StoredSession, "info" | "log">, target: string, io: CliIo, signing: HeadSigning | undefined): Promise<string> {
  if (target.endsWith(".jsonl")) {
    // A file, never a directory of that name (a store is a directory, sqlite:PATH or a postgres:// URL).
    const path = resolve(io.cwd, target);
    const file = {
      create: async (options: CreateSessionOptions) => {
        const { header, log } = await createJsonlLog(path, options);
        return { info: header, log, location: path };
      },
    };
    await (await copySession(source, file, signing)).log.close();
    return path;
  }
  const store = await openStore(target, io.cwd);
  try {
    await (await copySession(source, store, signing)).log.close();
    return store.location;
  } finally {
    await store.close();
  }
}
