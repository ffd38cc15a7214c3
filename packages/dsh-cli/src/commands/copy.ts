import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { createAgentRegistry } from "dsh-agent";
import { copySession, createJsonlLog } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { openStore, readSessionRef, sessionRef } from "../store.js";

export const COPY_USAGE = "dsh copy LOG STORE|FILE.jsonl [--store URL]";

/**
 * `dsh copy`: copies a session (a JSONL file, an id of the store in effect, or `STORE#ID`) into
 * another store, keeping its id, creation time, lineage and every event byte for byte, so the copy
 * rebuilds the same wire bytes. The events are admitted on the way in, as on any load. A target
 * ending in `.jsonl` is a new JSONL file.
 */
export async function copyCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { store: { type: "string" } } });
  const [reference, target] = positionals;
  if (reference === undefined || target === undefined || positionals.length > 2) throw new CliError(`usage: ${COPY_USAGE}`, EXIT.usage);
  // A target ending in .jsonl is a file (a store is a directory, sqlite:PATH or a postgres:// URL).
  if (target.endsWith(".jsonl")) return copyToFile(reference, target, values.store, io);
  const source = await readSessionRef(sessionRef(reference, values.store, io), io);
  await source.close();
  const store = await openStore(target, io.cwd);
  try {
    const { info, log } = source;
    const copy = await copySession(source, store);
    await copy.log.close();
    io.stderr.write(`dsh: copied session ${info.sessionId} (${log.length} events) to ${store.location}\n`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/** Copies a session into a new JSONL file at `path` (never over an existing one), byte for byte. */
async function copyToFile(reference: string, path: string, storeOption: string | undefined, io: CliIo): Promise<number> {
  const source = await readSessionRef(sessionRef(reference, storeOption, io), io);
  await source.close();
  const { info, log } = source;
  const target = resolve(io.cwd, path);
  const copy = await createJsonlLog(target, { registry: createAgentRegistry(), sessionId: info.sessionId, createdAt: info.createdAt, copy: { events: log.slice(), parent: info.parent } });
  await copy.log.close();
  io.stderr.write(`dsh: copied session ${info.sessionId} (${log.length} events) to ${target}\n`);
  return EXIT.ok;
}
