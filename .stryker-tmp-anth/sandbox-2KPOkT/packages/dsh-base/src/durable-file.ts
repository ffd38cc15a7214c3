import { randomBytes } from "node:crypto";
import { link, open, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Options of {@link createFileDurably}. */
export interface CreateFileOptions {
  /** The file mode (default 0600). */
  readonly mode?: number;
  /** Runs on the complete, fsynced temporary file just before it is linked into place (e.g. to lock its identity). */
  readonly beforeLink?: (temp: string) => Promise<void>;
}

/**
 * Creates `path` with `data`, all or nothing and durably: the bytes go to a temporary file beside
 * it (`.<name>.<random>.tmp`), which is fsynced and hard-linked into place (never replacing an
 * existing file), and the directory is fsynced. Resolves `"exists"` when `path` is already there.
 */
export async function createFileDurably(path: string, data: string | Uint8Array, options: CreateFileOptions = {}): Promise<"created" | "exists"> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, "wx", options.mode ?? 0o600);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeLink?.(temp);
    await link(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return "exists";
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  await syncPath(dirname(path));
  return "created";
}

/** fsyncs a file or a directory, making its changes durable. */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
