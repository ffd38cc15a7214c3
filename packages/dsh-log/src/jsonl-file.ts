import { randomUUID } from "node:crypto";
import { open, readdir, readFile, truncate, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { createFileDurably, syncPath } from "dsh-base";
import { LogError } from "./errors.js";
import type { LogEvent } from "./event.js";
import { acquireLock, type FileLock } from "./file-lock.js";
import { lineOfSeq, parseJsonl, serializeEventLine, serializeHeaderLine, type JsonlHeader, type TornTail } from "./jsonl-format.js";
import { JsonlFileSink } from "./jsonl-sink.js";
import { EventLog, type EventLogOptions } from "./log.js";
import type { EventRegistry } from "./registry.js";

/** Options shared by the JSONL entry points. */
export type JsonlLogOptions = Omit<EventLogOptions, "sink">;

/** A JSONL-backed log open for appending. Call `log.close()` to release the file. */
export interface JsonlLog {
  readonly path: string;
  readonly header: JsonlHeader;
  readonly log: EventLog;
  /** The torn final line dropped (and truncated away) while opening, if there was one. */
  readonly recovered: TornTail | undefined;
}

/** Options of {@link createJsonlLog}. */
export interface CreateJsonlLogOptions extends JsonlLogOptions {
  readonly sessionId?: string;
  readonly createdAt?: number;
  /** For a fork: the parent session and the events copied from it (they become seq 0..n-1). */
  readonly fork?: { readonly parentSessionId: string; readonly seed: readonly LogEvent[] };
}

/**
 * Creates a new JSONL log at `path` (refusing to overwrite: `LOG_EXISTS`). The header and any fork
 * seed are written to a temporary file, fsynced and linked into place, so a log is never half-created.
 */
export async function createJsonlLog(path: string, options: CreateJsonlLogOptions): Promise<JsonlLog> {
  const seed = options.fork?.seed ?? [];
  const header: JsonlHeader = {
    format: "dsh-log",
    version: 1,
    sessionId: options.sessionId ?? randomUUID(),
    createdAt: options.createdAt ?? Date.now(),
    ...(options.fork === undefined
      ? {}
      : { parent: { sessionId: options.fork.parentSessionId, seedLength: seed.length } }),
  };
  const seeded = EventLog.from(options.registry, seed);
  const text = serializeHeaderLine(header) + seeded.slice().map(serializeEventLine).join("");
  let lock: FileLock | undefined;
  try {
    // The lock is keyed by the file's identity: take it on the complete temporary file, which becomes the log.
    const created = await createFileDurably(path, text, { beforeLink: async (temp) => void (lock = await acquireLock(temp)) });
    if (created === "exists") throw new LogError("LOG_EXISTS", `${path} already exists`);
    return { path, header, log: new EventLog({ ...options, sink: new JsonlFileSink(path, lock!), events: seeded.slice(), lineOf: lineOfSeq }), recovered: undefined };
  } catch (error) {
    await lock?.release();
    throw error;
  }
}

/**
 * Opens an existing JSONL log for appending: every event is re-admitted, and only then is a torn
 * final line truncated away (reported in `recovered`); any other damage throws naming the line and
 * leaves the file byte-identical. Temporary files a crashed creation left beside it are removed.
 */
export async function openJsonlLog(path: string, options: JsonlLogOptions): Promise<JsonlLog> {
  await readLogFile(path, 0);
  const lock = await acquireLock(path);
  try {
    const { header, events, tornTail } = parseJsonl(await readLogFile(path));
    const log = new EventLog({ ...options, sink: new JsonlFileSink(path, lock), events, lineOf: lineOfSeq });
    if (tornTail !== undefined) {
      await truncate(path, tornTail.offset);
      await syncPath(path);
    }
    await removeLeftovers(path);
    return { path, header, log, recovered: tornTail };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** Reads a JSONL log without changing the file; a torn final line is reported, not removed. */
export async function readJsonlLog(
  path: string,
  registry: EventRegistry,
): Promise<{ readonly header: JsonlHeader; readonly log: EventLog; readonly tornTail: TornTail | undefined }> {
  const { header, events, tornTail } = parseJsonl(await readLogFile(path));
  return { header, log: new EventLog({ registry, events, lineOf: lineOfSeq }), tornTail };
}

/** The bytes of the log at `path` (the first `limit` only, when given); a missing file or a directory is `LOG_NOT_FOUND`. */
async function readLogFile(path: string, limit?: number): Promise<Buffer> {
  try {
    if (limit === undefined) return await readFile(path);
    const handle = await open(path, "r");
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(limit), 0, limit, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new LogError("LOG_NOT_FOUND", `${path} does not exist`);
    if (code === "EISDIR") throw new LogError("LOG_NOT_FOUND", `${path} is a directory, not a log file`);
    throw error;
  }
}

/** Removes the `.<name>.*.tmp` files a creation of `path` killed before its link left behind. */
async function removeLeftovers(path: string): Promise<void> {
  const prefix = `.${basename(path)}.`;
  for (const name of await readdir(dirname(path))) {
    if (name.startsWith(prefix) && name.endsWith(".tmp")) await unlink(join(dirname(path), name)).catch(() => undefined);
  }
}
