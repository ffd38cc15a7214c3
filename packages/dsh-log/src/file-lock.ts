import { open, readFile, unlink } from "node:fs/promises";
import { LogError } from "./errors.js";

/** An exclusive claim on a log file by this process, held through `<path>.lock`. */
export interface FileLock {
  release(): Promise<void>;
}

/**
 * Claims `<path>.lock` for this process. A lock left by a process that no longer runs (a crash)
 * is taken over; one held by a live process, this one included, throws `LOG_LOCKED`.
 */
export async function acquireLock(path: string): Promise<FileLock> {
  const lockPath = `${path}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, "wx", 0o600);
      try {
        await handle.writeFile(`${process.pid}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          await unlink(lockPath).catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number.parseInt(await readFile(lockPath, "utf8").catch(() => ""), 10);
      if (Number.isSafeInteger(holder) && holder > 0 && isAlive(holder)) {
        throw new LogError("LOG_LOCKED", `${path} is open for writing by process ${holder}`);
      }
      await unlink(lockPath).catch(() => undefined);
    }
  }
  throw new LogError("LOG_LOCKED", `${path} could not be locked`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
