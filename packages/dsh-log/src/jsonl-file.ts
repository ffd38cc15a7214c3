import { randomUUID } from "node:crypto";
import { open, readFile, truncate } from "node:fs/promises";
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
  const lock = await acquireLock(path);
  try {
    const text = serializeHeaderLine(header) + seeded.slice().map(serializeEventLine).join("");
    if ((await createFileDurably(path, text)) === "exists") throw new LogError("LOG_EXISTS", `${path} already exists`);
    return await attach(path, header, seeded.slice(), undefined, lock, options);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * Opens an existing JSONL log for appending: every event is re-admitted, a torn final line is
 * truncated away and reported in `recovered`, any other damage throws naming the line.
 */
export async function openJsonlLog(path: string, options: JsonlLogOptions): Promise<JsonlLog> {
  const lock = await acquireLock(path);
  try {
    const { header, events, tornTail } = parseJsonl(await readLogFile(path));
    if (tornTail !== undefined) {
      await truncate(path, tornTail.offset);
      await syncPath(path);
    }
    return await attach(path, header, events, tornTail, lock, options);
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

async function attach(
  path: string,
  header: JsonlHeader,
  events: readonly LogEvent[],
  recovered: TornTail | undefined,
  lock: FileLock,
  options: JsonlLogOptions,
): Promise<JsonlLog> {
  const handle = await open(path, "a", 0o600);
  try {
    const log = new EventLog({ ...options, sink: new JsonlFileSink(handle, lock), events, lineOf: lineOfSeq });
    return { path, header, log, recovered };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function readLogFile(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new LogError("LOG_NOT_FOUND", `${path} does not exist`);
    throw error;
  }
}
