import { mkdir, open, readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { LogError } from "./errors.js";
import type { LogEvent } from "./event.js";
import { createJsonlLog, openJsonlLog, readJsonlLog, type JsonlLogOptions } from "./jsonl-file.js";
import { followJsonlFile } from "./jsonl-follow.js";
import { checkSessionId, type CreateSessionOptions, type FollowOptions, type ReadLinesOptions, type SessionStore, type SessionSummary, type StoredLines, type StoredSession } from "./store.js";
import type { EventRegistry } from "./registry.js";
import { HEADER_BYTES, headerAt, infoOfHeader, type JsonlHeader } from "./jsonl-format.js";
import { readJsonlLines } from "./jsonl-lines.js";

/** How many files `list()` summarizes, or a lookup by header reads, at once. */
const FILES_AT_ONCE = 16;
/** Bytes read at a time when counting a file's lines. */
const COUNT_BYTES = 1 << 18;

/** The first line of `bytes` (a file's start), parsed as a log header, or `undefined` when it is not one. */
function headerOf(bytes: Buffer): JsonlHeader | undefined {
  return headerAt(bytes)?.header;
}

/** The header of the file at `path`, or `undefined` when it is not a log. */
async function headerOfFile(path: string): Promise<JsonlHeader | undefined> {
  // A file removed since the directory was listed is not a log either.
  const handle = await open(path, "r").catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return headerOf(buffer.subarray(0, bytesRead));
  } catch {
    return undefined; // unreadable (a directory, say): not a log
  } finally {
    await handle.close();
  }
}

/**
 * `work` on each of `items`, {@link FILES_AT_ONCE} at a time (the file system's thread pool works on
 * several while one is counted), each item with its result, in order.
 */
async function* atOnce<T, R>(items: readonly T[], work: (item: T) => Promise<R>): AsyncGenerator<readonly [T, R]> {
  for (let start = 0; start < items.length; start += FILES_AT_ONCE) {
    const group = items.slice(start, start + FILES_AT_ONCE);
    const results = await Promise.all(group.map(work));
    for (let i = 0; i < group.length; i++) yield [group[i]!, results[i]!];
  }
}

/** A file's summary as counted when the file had this identity, size and modification time. */
interface CountedFile {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly summary: SessionSummary | undefined;
}

/** Whether `now` is the file `known` counted, unchanged: the same inode, size and modification time. */
function sameFile(known: CountedFile, now: Pick<CountedFile, "ino" | "size" | "mtimeMs"> | undefined): boolean {
  return now !== undefined && known.ino === now.ino && known.size === now.size && known.mtimeMs === now.mtimeMs;
}

/**
 * The session a file holds and how many complete event lines follow its header, in one read;
 * `undefined` when it is not a log. A file unchanged since `known` was counted is not read again.
 */
async function summaryOfFile(path: string, known: CountedFile | undefined): Promise<CountedFile | undefined> {
  // One call for a file counted before, where opening it would take three.
  if (known !== undefined && sameFile(known, await stat(path).catch(() => undefined))) return known;
  const handle = await open(path, "r").catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const { ino, size, mtimeMs } = await handle.stat();
    // No larger than the file: listing a directory of small sessions allocates little.
    const buffer = Buffer.allocUnsafe(Math.min(COUNT_BYTES, Math.max(HEADER_BYTES, size + 1)));
    let header: JsonlHeader | undefined;
    let lines = 0;
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      const bytes = buffer.subarray(0, bytesRead);
      if (position === 0 && (header = headerOf(bytes)) === undefined) break;
      for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) lines++;
      position += bytesRead;
    }
    return { ino, size, mtimeMs, summary: header === undefined ? undefined : { ...infoOfHeader(header), events: lines - 1 } };
  } catch {
    return undefined; // unreadable (a directory, say): not a log
  } finally {
    await handle.close();
  }
}

/**
 * The default store: a directory of JSONL session logs, `<sessionId>.jsonl` each. A session is found
 * by file name, or else by the session id in a file's header (logs written under other names).
 */
export class JsonlStore implements SessionStore {
  readonly location: string;
  /** What each file held when last counted, so listing a directory of long logs again reads only those that changed. */
  readonly #counted = new Map<string, CountedFile>();

  constructor(directory: string) {
    this.location = resolve(directory);
  }

  async create(options: CreateSessionOptions): Promise<StoredSession> {
    await mkdir(this.location, { recursive: true, mode: 0o700 });
    const sessionId = checkSessionId(options.sessionId ?? crypto.randomUUID());
    const path = join(this.location, `${sessionId}.jsonl`);
    const { header, log } = await createJsonlLog(path, { ...options, sessionId });
    return { info: infoOfHeader(header), log, location: path };
  }

  async open(sessionId: string, options: JsonlLogOptions): Promise<StoredSession> {
    const path = await this.#pathOf(sessionId);
    const { header, log } = await openJsonlLog(path, options);
    return { info: infoOfHeader(header), log, location: path };
  }

  async read(sessionId: string, registry: EventRegistry): Promise<StoredSession> {
    const path = await this.#pathOf(sessionId);
    const { header, log } = await readJsonlLog(path, registry);
    return { info: infoOfHeader(header), log, location: path };
  }

  async readLines(sessionId: string, options?: ReadLinesOptions): Promise<StoredLines> {
    return readJsonlLines(await this.#pathOf(sessionId), options);
  }

  async list(): Promise<SessionSummary[]> {
    const out: SessionSummary[] = [];
    for await (const [, summary] of atOnce(await this.#paths(), (path) => this.#summaryOf(path))) if (summary !== undefined) out.push(summary);
    return out.sort((a, b) => a.createdAt - b.createdAt || a.sessionId.localeCompare(b.sessionId));
  }

  async *follow(sessionId: string, options: FollowOptions): AsyncGenerator<readonly LogEvent[]> {
    yield* followJsonlFile(await this.#pathOf(sessionId), options);
  }

  async close(): Promise<void> {}

  async summary(sessionId: string): Promise<SessionSummary> {
    const path = await this.#pathOf(sessionId);
    const summary = await this.#summaryOf(path);
    if (summary?.sessionId !== sessionId) throw new LogError("LOG_NOT_FOUND", `no session ${sessionId} in ${this.location}`);
    return summary;
  }

  /** The summary of the file at `path`, counted again only when the file changed since it was last counted. */
  async #summaryOf(path: string): Promise<SessionSummary | undefined> {
    const counted = await summaryOfFile(path, this.#counted.get(path));
    if (counted === undefined) this.#counted.delete(path);
    else this.#counted.set(path, counted);
    return counted?.summary;
  }

  /** The visible `.jsonl` files of the directory, by name. */
  async #paths(): Promise<string[]> {
    try {
      const names = (await readdir(this.location)).filter((name) => name.endsWith(".jsonl") && !name.startsWith(".")).sort();
      return names.map((name) => join(this.location, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  }

  /** The file of `sessionId`: `<id>.jsonl`, else the file whose header names it. */
  async #pathOf(sessionId: string): Promise<string> {
    const named = join(this.location, `${checkSessionId(sessionId)}.jsonl`);
    if (await stat(named).then(() => true, () => false)) return named;
    for await (const [path, header] of atOnce(await this.#paths(), headerOfFile)) if (header?.sessionId === sessionId) return path;
    throw new LogError("LOG_NOT_FOUND", `no session ${sessionId} in ${this.location}`);
  }
}
