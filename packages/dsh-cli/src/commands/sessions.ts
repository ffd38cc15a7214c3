import { parseArgs } from "node:util";
import { listSessionTree, type ListedSession } from "dsh-agent";
import { brokenLineage } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { printable } from "../printable.js";
import { openStore, storeUrl } from "../store.js";

/** The parent column: the session a fork was seeded from (and how its lineage broke), or the call that made a subagent's. */
function parentCell({ parent, subagentOf }: ListedSession, broken: string | undefined): string {
  if (subagentOf !== undefined) return `subagent: call ${subagentOf.callId} of ${subagentOf.sessionId}`;
  return parent === undefined ? "" : `${parent.sessionId} @ ${parent.seedLength}${broken === undefined ? "" : ` (broken: ${broken})`}`;
}

export const SESSIONS_USAGE = "dsh sessions [--store URL] [--json]";

/** `dsh sessions`: the sessions of a store, oldest first, each subagent's under its parent: id, created, events, parent (and a lineage that points nowhere, named). */
export async function sessionsCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { store: { type: "string" }, json: { type: "boolean", default: false } } });
  if (positionals.length > 0) throw new CliError(`usage: ${SESSIONS_USAGE}`, EXIT.usage);
  const store = await openStore(storeUrl(values.store, io), io.cwd);
  try {
    const sessions = await listSessionTree(store);
    const broken = brokenLineage(sessions);
    if (values.json === true) {
      for (const session of sessions) io.stdout.write(`${JSON.stringify({ ...session, ...(broken.has(session.sessionId) ? { brokenLineage: broken.get(session.sessionId) } : {}) })}\n`);
      return EXIT.ok;
    }
    const rows = [["session", "created", "events", "parent"], ...sessions.map((session) => [
      `${"  ".repeat(session.depth)}${session.sessionId}`,
      new Date(session.createdAt).toISOString(),
      String(session.events),
      parentCell(session, broken.get(session.sessionId)),
    ])];
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    for (const row of rows) io.stdout.write(`${printable(row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd())}\n`);
    io.stdout.write(`${sessions.length} session(s) in ${store.location}\n`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
