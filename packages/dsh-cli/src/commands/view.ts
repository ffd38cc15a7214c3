import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { sessionHtml } from "dsh-web-store";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { attachmentStore } from "../session.js";
import { readSessionRef, sessionRef } from "../store.js";

export const VIEW_USAGE = "dsh view LOG -o FILE [--objects DIR] [--store URL]";

/** `dsh view`: the session page as one self-contained HTML file (script, styles, data and verified images inline), to attach to a bug report. */
export async function viewCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { output: { type: "string", short: "o" }, objects: { type: "string" }, store: { type: "string" } },
  });
  const [reference] = positionals;
  if (reference === undefined || positionals.length > 1 || values.output === undefined) throw new CliError(`usage: ${VIEW_USAGE}`, EXIT.usage);
  const session = await readSessionRef(sessionRef(reference, values.store, io), io);
  await session.close();
  const html = await sessionHtml(session, attachmentStore(io.cwd, values.objects));
  const path = resolve(io.cwd, values.output);
  await writeFile(path, html, { mode: 0o600 });
  io.stderr.write(`dsh: wrote ${path} (${Buffer.byteLength(html)} bytes; opens offline)\n`);
  return EXIT.ok;
}
