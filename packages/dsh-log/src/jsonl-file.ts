import { randomUUID } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { open, readdir, truncate, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { createFileDurably, syncPath } from "dsh-base";
import { LogError } from "./errors.js";
import type { LogEvent } from "./event.js";
import { acquireLock, type FileLock } from "./file-lock.js";
import { SessionChain } from "./chain.js";
import { JSONL_VERSION, committedEnd, lineOfSeq, serializeHeaderLine, type JsonlHeader, type TornTail } from "./jsonl-format.js";
import { flatEvents } from "./flat-events.js";
import { JsonlParser } from "./jsonl-parse.js";
import { markParsedBatch } from "./verified.js";
import { JsonlFileSink, commitText } from "./jsonl-sink.js";
import { EventLog, type EventLogOptions } from "./log.js";
import type { EventRegistry } from "./registry.js";
import { firstCommit } from "./store-sink.js";
import type { HeadSigning } from "./witness.js";

/** Options of a session's writer: its log's options and, to sign its chain heads, a key and a witness. */
export interface JsonlLogOptions extends Omit<EventLogOptions, "sink"> {
  /** Signs the chain head after each commit and appends it to a witness (see `dsh verify`). */
  readonly signing?: HeadSigning | undefined;
}

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
  /** For a copy of a session: the events it starts with and its lineage, kept as they are (instead of `fork`). */
  readonly copy?: { readonly events: readonly LogEvent[]; readonly parent?: { readonly sessionId: string; readonly seedLength: number } | undefined };
}

/** The events a new log starts with and its parent, from a fork or a copy. */
export function initialContent(options: Pick<CreateJsonlLogOptions, "fork" | "copy">): { readonly seed: readonly LogEvent[]; readonly parent: { readonly sessionId: string; readonly seedLength: number } | undefined } {
  if (options.fork !== undefined && options.copy !== undefined) throw new LogError("LOG_INVALID_EVENT", "a new session is either a fork or a copy, not both");
  if (options.fork !== undefined) return { seed: options.fork.seed, parent: { sessionId: options.fork.parentSessionId, seedLength: options.fork.seed.length } };
  return { seed: options.copy?.events ?? [], parent: options.copy?.parent };
}

/**
 * Creates a new JSONL log at `path` (refusing to overwrite: `LOG_EXISTS`). The header and any fork
 * seed are written to a temporary file, fsynced and linked into place, so a log is never half-created.
 */
export async function createJsonlLog(path: string, options: CreateJsonlLogOptions): Promise<JsonlLog> {
  const { seed, parent } = initialContent(options);
  const header: JsonlHeader = {
    format: "dsh-log",
    version: JSONL_VERSION,
    sessionId: options.sessionId ?? randomUUID(),
    createdAt: options.createdAt ?? Date.now(),
    ...(parent === undefined ? {} : { parent: { sessionId: parent.sessionId, seedLength: parent.seedLength } }),
  };
  const seeded = EventLog.from(options.registry, seed);
  const { chain, batch } = firstCommit(header, seeded.slice());
  const text = serializeHeaderLine(header) + commitText(batch);
  let lock: FileLock | undefined;
  try {
    // The lock is keyed by the file's identity: take it on the complete temporary file, which becomes the log.
    const created = await createFileDurably(path, text, { beforeLink: async (temp) => void (lock = await acquireLock(temp)) });
    if (created === "exists") throw new LogError("LOG_EXISTS", `${path} already exists`);
    const sink = new JsonlFileSink(path, lock!);
    const log = new EventLog({ ...options, sink, events: seeded.slice(), lineOf: lineOfSeq });
    sink.begin({ chain, signing: options.signing }, true);
    return { path, header, log, recovered: undefined };
  } catch (error) {
    await lock?.release();
    throw error;
  }
}

/**
 * Opens an existing JSONL log for appending: every event is re-admitted, and only then is a torn
 * tail (a final line cut short, or the lines of a commit a crash cut off) truncated away (reported in
 * `recovered`); any other damage throws naming the line and leaves the file byte-identical. The
 * temporary name a creation killed between its link and its cleanup left on the file is removed.
 */
export async function openJsonlLog(path: string, options: JsonlLogOptions): Promise<JsonlLog> {
  // A missing file or a directory is refused before anything is locked.
  const fd = openLogFile(path);
  const names = fstatSync(fd).nlink;
  closeSync(fd);
  const lock = await acquireLock(path);
  try {
    const sink = new JsonlFileSink(path, lock);
    const { header, log, tornTail, lastLink } = await loadLogFile(path, { ...options, sink });
    const chain = header.version === JSONL_VERSION ? SessionChain.after(header, lastLink, log.length) : undefined;
    sink.begin({ chain, signing: options.signing });
    if (tornTail !== undefined) {
      await truncate(path, tornTail.offset);
      await syncPath(path);
    }
    // Only a file with a second name can have one left by its creation: listing a directory of
    // thousands of sessions on every open would cost more than the open.
    if (names > 1) await removeLeftovers(path);
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
  return loadLogFile(path, { registry });
}

/** Bytes read from a log file at a time (small enough to keep peak memory near the parsed log's); lines longer than this grow the buffer. */
const READ_BYTES = 1 << 18;

/**
 * The events of the log file open as `fd`, parsed as it is read, 256 KB at a time into one reused
 * buffer (synchronously: parsing keeps the thread busy anyway, and a thread-pool round trip per
 * read costs more than it frees). Consumed by admission as it goes, so no array of all the parsed
 * events is ever built beside the log's own. Leaves the length of the unterminated rest in `tail`.
 */
export function parsedEvents(fd: number, parser: JsonlParser, tail: { bytes: number }): IterableIterator<LogEvent> {
  return flatEvents(parsedChunks(fd, parser, tail));
}

/** The events of {@link parsedEvents}, an array per read. */
function* parsedChunks(fd: number, parser: JsonlParser, tail: { bytes: number }): Generator<readonly LogEvent[]> {
  // Byte 0 stays free: the parser turns the byte before a chunk into "[".
  let buffer = Buffer.allocUnsafe(1 + READ_BYTES);
  let carried = 0;
  for (;;) {
    if (1 + carried === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)]);
    const bytesRead = readSync(fd, buffer, 1 + carried, buffer.length - 1 - carried, null);
    if (bytesRead === 0) break;
    const filled = 1 + carried + bytesRead;
    // Only whole commits: the lines of one not yet seen to end wait for the next read (or are the torn tail).
    const end = committedEnd(buffer, 1, filled);
    if (end === 1) {
      carried += bytesRead;
      continue;
    }
    yield parser.lines(buffer, 1, end);
    buffer.copy(buffer, 1, end, filled);
    carried = filled - end;
  }
  tail.bytes = carried;
}

/** Reads and admits the log at `path` into a new `EventLog` with `options`; a missing file or a directory is `LOG_NOT_FOUND`. */
async function loadLogFile(
  path: string,
  options: EventLogOptions,
): Promise<{ readonly header: JsonlHeader; readonly log: EventLog; readonly tornTail: TornTail | undefined; readonly lastLink: Buffer | undefined }> {
  const fd = openLogFile(path);
  try {
    const parser = new JsonlParser();
    const tail = { bytes: 0 };
    const events = parsedEvents(fd, parser, tail);
    markParsedBatch(events);
    const log = new EventLog({ ...options, events, lineOf: lineOfSeq });
    const { header, tornTail } = parser.end(tail.bytes);
    return { header, log, tornTail, lastLink: parser.lastLink };
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens the log file at `path` for reading and returns its descriptor; a missing file or a directory
 * is `LOG_NOT_FOUND`. Synchronous, as the reads are: three thread-pool round trips (open, stat, close)
 * were half of what opening a small session cost.
 */
export function openLogFile(path: string): number {
  try {
    const fd = openSync(path, "r");
    if (fstatSync(fd).isDirectory()) {
      closeSync(fd);
      throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    }
    return fd;
  } catch (error) {
    throw openFailure(path, error);
  }
}

/**
 * {@link openLogFile} as a handle, for a reader that keeps the file open across awaits: a handle a
 * caller abandons is closed when it is collected, where a descriptor would stay open.
 */
export async function openLogHandle(path: string): Promise<FileHandle> {
  try {
    const handle = await open(path, "r");
    if ((await handle.stat()).isDirectory()) {
      await handle.close();
      throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    }
    return handle;
  } catch (error) {
    throw openFailure(path, error);
  }
}

/** What a failure to open a log file means: `LOG_NOT_FOUND` for a missing file or a directory, else the error itself. */
function openFailure(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return new LogError("LOG_NOT_FOUND", `${path} does not exist`);
  if (code === "EISDIR") return new LogError("LOG_NOT_FOUND", `${path} is a directory, not a log file`);
  return error;
}

/** Removes the `.<name>.*.tmp` names a creation of `path` left behind (its temporary file, linked as the log, or not). */
async function removeLeftovers(path: string): Promise<void> {
  const prefix = `.${basename(path)}.`;
  for (const name of await readdir(dirname(path))) {
    if (name.startsWith(prefix) && name.endsWith(".tmp")) await unlink(join(dirname(path), name)).catch(() => undefined);
  }
}
