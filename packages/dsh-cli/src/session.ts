import { dirname, join, resolve } from "node:path";
import { createAgentRegistry } from "dsh-agent";
import { FsAttachmentStore } from "dsh-attachments";
import { parseArgs } from "node:util";
import { JsonlStore, createJsonlLog, type CreateSessionOptions, type EventLog } from "dsh-log";
import { CliError, EXIT } from "./cli-error.js";
import type { CliIo } from "./io.js";
import type { CliSigning } from "./signing.js";
import { readSessionRef, releasingWitness, sessionInStore, sessionRef, storeUrl, type OpenedSession, type SessionRef } from "./store.js";

/** The attachment store the CLI uses: `--objects DIR`, else `.dsh/objects` under the working directory. */
export function attachmentStore(cwd: string, objects: string | undefined): FsAttachmentStore {
  return new FsAttachmentStore(resolve(cwd, objects ?? join(".dsh", "objects")));
}

/**
 * A new session for `dsh run` or `dsh fork`: the JSONL file `--log PATH` (never overwritten), else a
 * session of the store in effect (`--store`, `DSH_STORE`, or `.dsh/sessions`).
 */
export async function createSession(
  values: { readonly log?: string | undefined; readonly store?: string | undefined },
  io: CliIo,
  content: Pick<CreateSessionOptions, "sessionId" | "fork">,
  signing?: CliSigning,
): Promise<OpenedSession> {
  const options = { registry: createAgentRegistry(), signing, ...content };
  if (values.log !== undefined) {
    const path = resolve(io.cwd, values.log);
    const { header, log } = await createJsonlLog(path, options);
    return releasingWitness({ info: header, log, location: path, store: new JsonlStore(dirname(path)), close: () => log.close() }, signing);
  }
  // A JSONL session is shown by its file path, any other by `STORE#ID`.
  const created = await sessionInStore(storeUrl(values.store, io), io, (store) => store.create(options), {
    closeLog: true,
    location: (stored, store) => (store instanceof JsonlStore ? stored.location : undefined),
  });
  return releasingWitness(created, signing);
}

/** The arguments `dsh cache` takes: one LOG, `--objects DIR`, `--store URL`, and a boolean flag of its own. */
export async function readLogWithObjects(
  argv: readonly string[],
  io: CliIo,
  flag: "wire" | "json",
  usage: string,
): Promise<{ readonly log: EventLog; readonly attachments: FsAttachmentStore; readonly flag: boolean; readonly ref: SessionRef }> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { [flag]: { type: "boolean", default: false }, objects: { type: "string" }, store: { type: "string" } },
  });
  const [reference] = positionals;
  if (reference === undefined || positionals.length > 1) throw new CliError(`usage: ${usage}`, EXIT.usage);
  return { ...(await loadLogWithObjects(reference, values as LogLocation, io)), flag: values[flag] === true };
}

/** Where a reading command's LOG and its attachment objects are: `--store URL` and `--objects DIR`. */
export interface LogLocation {
  readonly store?: string | undefined;
  readonly objects?: string | undefined;
}

/** The session `reference` names, read whole (and its lock released), with the attachment store beside it. */
export async function loadLogWithObjects(reference: string, where: LogLocation, io: CliIo): Promise<{ readonly log: EventLog; readonly attachments: FsAttachmentStore; readonly ref: SessionRef }> {
  const ref = sessionRef(reference, where.store, io);
  const session = await readSessionRef(ref, io);
  await session.close();
  return { log: session.log, attachments: attachmentStore(io.cwd, where.objects), ref };
}

/** The seq a `--seq` flag names: where a request was dispatched, a whole number; anything else is a usage error. */
export function dispatchSeqFlag(value: string): number {
  const seq = Number(value);
  if (!Number.isSafeInteger(seq) || seq < 0) throw new CliError("--seq takes the seq of a request's dispatch (dsh requests LOG lists them)", EXIT.usage);
  return seq;
}

/** The prompt a command was given: its words joined, or all of standard input when it is a single `-`. */
export async function promptOf(words: readonly string[], io: CliIo): Promise<string> {
  if (words.length === 1 && words[0] === "-") {
    if (io.stdin === undefined) throw new CliError("PROMPT - reads standard input, which this caller does not provide", EXIT.usage);
    return (await io.stdin()).trim();
  }
  return words.join(" ").trim();
}
