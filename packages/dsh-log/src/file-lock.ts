import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, fstatSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import { hostname, tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { LogError } from "./errors.js";

/** An exclusive claim on a log file by this process. */
export interface FileLock {
  release(): Promise<void>;
}

/** Who holds a lock: enough to tell a live holder from a crashed one, also across pid reuse. */
interface Holder {
  readonly pid: number;
  /** For a reader of the lock file; lock files are per host, so it is always this one. */
  readonly host: string;
  /** The holder process's start time (Linux `/proc/<pid>/stat` field 22), when the platform tells it. */
  readonly start: string | undefined;
  readonly path: string;
}

/** A takeover mutex older than this was abandoned by a crashed process (a takeover takes microseconds). */
const ABANDONED_TAKEOVER_MS = 30_000;

/** Where lock files live: one per host and user, keyed by the locked file's identity. */
function lockDirectory(): string {
  // `getuid` is a plain system call where it exists; `userInfo` also reads the user database.
  return join(tmpdir(), `dsh-locks-${process.getuid?.() ?? userInfo().uid}`);
}

/** The start time of process `pid` in clock ticks since boot, or `undefined` where `/proc` does not tell. */
function processStart(pid: number | "self"): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // Field 2 (the command) may contain spaces and parentheses; the fields after its last ")" are plain.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

/** This process's start time, read once. */
let selfStart: { readonly start: string | undefined } | undefined;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether `holder` certainly no longer holds its lock: its process is gone or its pid now names
 * another process. Lock files live in this host's temporary directory, so every holder is local.
 */
function isStale(holder: Holder): boolean {
  if (!isAlive(holder.pid)) return true;
  return holder.start !== undefined && processStart(holder.pid) !== holder.start;
}

function readHolder(lockPath: string): { readonly text: string; readonly holder: Holder } | undefined {
  let text: string;
  try {
    text = readFileSync(lockPath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return { text, holder: JSON.parse(text) as Holder };
}

/** Removes `path` if it is there. */
function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already, or never made.
  }
}

/** Creates `lockPath` with `text` in one step (temp file, then `link`), so nobody reads a lock without its holder. */
function createLockFile(lockPath: string, text: string): boolean {
  const temp = `${lockPath}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temp, text, { mode: 0o644, flag: "wx" });
  try {
    linkSync(temp, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    unlinkIfThere(temp);
  }
}

/**
 * Removes the lock whose content is `staleText`, under a takeover mutex so that two contenders cannot
 * both remove locks: one might otherwise delete the fresh lock the other just took.
 */
async function removeStale(lockPath: string, staleText: string): Promise<void> {
  const mutex = `${lockPath}.takeover`;
  let fd;
  try {
    fd = openSync(mutex, "wx", 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const age = Date.now() - (await stat(mutex).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
    if (age > ABANDONED_TAKEOVER_MS) unlinkIfThere(mutex);
    else await delay(5);
    return;
  }
  try {
    const current = readHolder(lockPath);
    if (current?.text === staleText) unlinkSync(lockPath);
  } finally {
    closeSync(fd);
    unlinkIfThere(mutex);
  }
}

/** The lock file of the file at `path`: per host and user, named by the file's device and inode. */
export async function lockFileOf(path: string): Promise<string> {
  return lockFileIn(lockDirectory(), await stat(path));
}

/** The lock file in `directory` of the file with this identity. */
function lockFileIn(directory: string, { dev, ino }: { readonly dev: number; readonly ino: number }): string {
  return join(directory, `${dev}-${ino}.lock`);
}

/**
 * Claims the file at `path` (following symlinks; hard links share the claim) for this process. The
 * lock is keyed by the file's identity, written atomically with the holder's pid, host and process
 * start time; a lock whose process is gone (or whose pid was reused) is taken over, one held by a live
 * process, this one included, throws `LOG_LOCKED`. Its files are small and in this host's temporary
 * directory, so they are read and written synchronously: a dozen thread-pool round trips were most
 * of what opening a small session for writing cost.
 */
export async function acquireLock(path: string): Promise<FileLock> {
  // Holding the file open pins its identity: while the lock exists, its inode cannot be freed and reused.
  const pin = openSync(path, "r");
  try {
    return await lockPinned(path, pin);
  } catch (error) {
    closeSync(pin);
    throw error;
  }
}

async function lockPinned(path: string, pin: number): Promise<FileLock> {
  const directory = lockDirectory();
  const lockPath = lockFileIn(directory, fstatSync(pin));
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  chmodSync(directory, 0o700);
  selfStart ??= { start: processStart("self") };
  const text = JSON.stringify({ pid: process.pid, host: hostname(), start: selfStart.start, path } satisfies Holder);
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createLockFile(lockPath, text)) return heldLock(lockPath, text, pin);
    const current = readHolder(lockPath);
    if (current === undefined) continue;
    const { holder } = current;
    if (!isStale(holder)) {
      throw new LogError("LOG_LOCKED", `${path} is open for writing by process ${holder.pid}`);
    }
    await removeStale(lockPath, current.text);
  }
  throw new LogError("LOG_LOCKED", `${path} could not be locked: other processes keep taking it over`);
}

function heldLock(lockPath: string, text: string, pin: number): FileLock {
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      let current;
      try {
        current = readHolder(lockPath);
      } catch {
        current = undefined;
      }
      if (current?.text === text) unlinkIfThere(lockPath);
      closeSync(pin);
    },
  };
}
