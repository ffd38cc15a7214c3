import { randomBytes } from "node:crypto";
import { chmod, link, mkdir, open, readFile, stat, unlink, writeFile, type FileHandle } from "node:fs/promises";
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
  return join(tmpdir(), `dsh-locks-${userInfo().uid}`);
}

/** The start time of process `pid` in clock ticks since boot, or `undefined` where `/proc` does not tell. */
async function processStart(pid: number | "self"): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  // Field 2 (the command) may contain spaces and parentheses; the fields after its last ")" are plain.
  return stat?.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

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
async function isStale(holder: Holder): Promise<boolean> {
  if (!isAlive(holder.pid)) return true;
  return holder.start !== undefined && (await processStart(holder.pid)) !== holder.start;
}

async function readHolder(lockPath: string): Promise<{ readonly text: string; readonly holder: Holder } | undefined> {
  const text = await readFile(lockPath, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  return text === undefined ? undefined : { text, holder: JSON.parse(text) as Holder };
}

/** Creates `lockPath` with `text` in one step (temp file, then `link`), so nobody reads a lock without its holder. */
async function createLockFile(lockPath: string, text: string): Promise<boolean> {
  const temp = `${lockPath}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(temp, text, { mode: 0o644, flag: "wx" });
  try {
    await link(temp, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/**
 * Removes the lock whose content is `staleText`, under a takeover mutex so that two contenders cannot
 * both remove locks: one might otherwise delete the fresh lock the other just took.
 */
async function removeStale(lockPath: string, staleText: string): Promise<void> {
  const mutex = `${lockPath}.takeover`;
  let handle;
  try {
    handle = await open(mutex, "wx", 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const age = Date.now() - (await stat(mutex).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
    if (age > ABANDONED_TAKEOVER_MS) await unlink(mutex).catch(() => undefined);
    else await delay(5);
    return;
  }
  try {
    const current = await readHolder(lockPath);
    if (current?.text === staleText) await unlink(lockPath);
  } finally {
    await handle.close();
    await unlink(mutex).catch(() => undefined);
  }
}

/** The lock file of the file at `path`: per host and user, named by the file's device and inode. */
export async function lockFileOf(path: string): Promise<string> {
  const { dev, ino } = await stat(path);
  return join(lockDirectory(), `${dev}-${ino}.lock`);
}

/**
 * Claims the file at `path` (following symlinks; hard links share the claim) for this process. The
 * lock is keyed by the file's identity, written atomically with the holder's pid, host and process
 * start time; a lock whose process is gone (or whose pid was reused) is taken over, one held by a live
 * process, this one included, throws `LOG_LOCKED`.
 */
export async function acquireLock(path: string): Promise<FileLock> {
  // Holding the file open pins its identity: while the lock exists, its inode cannot be freed and reused.
  const pin = await open(path, "r");
  try {
    return await lockPinned(path, pin);
  } catch (error) {
    await pin.close();
    throw error;
  }
}

async function lockPinned(path: string, pin: FileHandle): Promise<FileLock> {
  const { dev, ino } = await pin.stat();
  const lockPath = join(lockDirectory(), `${dev}-${ino}.lock`);
  await mkdir(lockDirectory(), { recursive: true, mode: 0o700 });
  await chmod(lockDirectory(), 0o700);
  const text = JSON.stringify({ pid: process.pid, host: hostname(), start: await processStart("self"), path } satisfies Holder);
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await createLockFile(lockPath, text)) return heldLock(lockPath, text, pin);
    const current = await readHolder(lockPath);
    if (current === undefined) continue;
    const { holder } = current;
    if (!(await isStale(holder))) {
      throw new LogError("LOG_LOCKED", `${path} is open for writing by process ${holder.pid}`);
    }
    await removeStale(lockPath, current.text);
  }
  throw new LogError("LOG_LOCKED", `${path} could not be locked: other processes keep taking it over`);
}

function heldLock(lockPath: string, text: string, pin: FileHandle): FileLock {
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      const current = await readHolder(lockPath).catch(() => undefined);
      if (current?.text === text) await unlink(lockPath).catch(() => undefined);
      await pin.close();
    },
  };
}
