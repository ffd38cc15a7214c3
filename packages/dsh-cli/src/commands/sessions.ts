import { parseArgs } from "node:util";
import { brokenLineage } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { printable } from "../printable.js";
import { openStore, storeUrl } from "../store.js";

export const SESSIONS_USAGE = "dsh sessions [--store URL] [--json]";

/** `dsh sessions`: the sessions of a store, oldest first: id, created, events, parent (and a lineage that points nowhere, named). */
export async function sessionsCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { store: { type: "string" }, json: { type: "boolean", default: false } } });
  if (positionals.length > 0) throw new CliError(`usage: ${SESSIONS_USAGE}`, EXIT.usage);
  const store = await openStore(storeUrl(values.store, io), io.cwd);
  try {
    const sessions = await store.list();
    const broken = brokenLineage(sessions);
    if (values.json === true) {
      for (const session of sessions) {
        const problem = broken.get(session.sessionId);
        io.stdout.write(`${JSON.stringify(problem === undefined ? session : { ...session, brokenLineage: problem })}\n`);
      }
      return EXIT.ok;
    }
    const rows = [["session", "created", "events", "parent"], ...sessions.map((session) => [
      session.sessionId,
      new Date(session.createdAt).toISOString(),
      String(session.events),
      session.parent === undefined ? "" : `${session.parent.sessionId} @ ${session.parent.seedLength}${broken.has(session.sessionId) ? ` (broken: ${broken.get(session.sessionId)})` : ""}`,
    ])];
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    for (const row of rows) io.stdout.write(`${printable(row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd())}\n`);
    io.stdout.write(`${sessions.length} session(s) in ${store.location}\n`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
