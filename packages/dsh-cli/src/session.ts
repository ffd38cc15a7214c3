import { mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { createAgentRegistry } from "dsh-agent";
import { FsAttachmentStore } from "dsh-attachments";
import { parseArgs } from "node:util";
import { readJsonlLog, type EventLog, type JsonlHeader } from "dsh-log";
import { CliError, EXIT } from "./cli-error.js";
import type { CliIo } from "./io.js";

/** The attachment store the CLI uses: `--objects DIR`, else `.dsh/objects` under the working directory. */
export function attachmentStore(cwd: string, objects: string | undefined): FsAttachmentStore {
  return new FsAttachmentStore(resolve(cwd, objects ?? join(".dsh", "objects")));
}

/** Reads a session log for inspection, reporting a torn tail on stderr. */
export async function readSession(
  cwd: string,
  path: string,
  stderr: { write(text: string): unknown },
): Promise<{ header: JsonlHeader; log: EventLog }> {
  const { header, log, tornTail } = await readJsonlLog(resolve(cwd, path), createAgentRegistry());
  if (tornTail !== undefined) {
    stderr.write(`dsh: note: ignoring an unacknowledged torn last line (line ${tornTail.line}, ${tornTail.bytes} bytes)\n`);
  }
  return { header, log };
}

/** A fresh log path under `.dsh/sessions`, with its directory created. */
export async function defaultLogPath(cwd: string, now: Date): Promise<string> {
  const path = resolve(cwd, ".dsh", "sessions", `${now.toISOString().replace(/[:.]/g, "-")}.jsonl`);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  return path;
}

/** The arguments `dsh requests` and `dsh cache` share: one LOG, `--objects DIR`, and a boolean flag of their own. */
export async function readLogWithObjects(
  argv: readonly string[],
  io: CliIo,
  flag: "wire" | "json",
  usage: string,
): Promise<{ readonly log: EventLog; readonly attachments: FsAttachmentStore; readonly flag: boolean }> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { [flag]: { type: "boolean", default: false }, objects: { type: "string" } },
  });
  const [path] = positionals;
  if (path === undefined || positionals.length > 1) throw new CliError(`usage: ${usage}`, EXIT.usage);
  const { log } = await readSession(io.cwd, path, io.stderr);
  return { log, attachments: attachmentStore(io.cwd, values.objects as string | undefined), flag: values[flag] === true };
}

/** The prompt a command was given: its words joined, or all of standard input when it is a single `-`. */
export async function promptOf(words: readonly string[], io: CliIo): Promise<string> {
  if (words.length === 1 && words[0] === "-") {
    if (io.stdin === undefined) throw new CliError("PROMPT - reads standard input, which this caller does not provide", EXIT.usage);
    return (await io.stdin()).trim();
  }
  return words.join(" ").trim();
}
