import { constants } from "node:fs";
import { open, readlink, realpath, stat, type FileHandle } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { DshError } from "./errors.js";

/** Why a confined open was refused. */
export type ConfinedFileErrorCode = "FILE_MISSING" | "FILE_OUTSIDE" | "FILE_NOT_REGULAR" | "FILE_NOT_DIRECTORY";

/** A confined open or read was refused; `code` says why. */
export class ConfinedFileError extends DshError<ConfinedFileErrorCode> {
  override name = "ConfinedFileError";
}

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return !(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

/**
 * Where the open file behind `handle` really is. On Linux the kernel names it (`/proc/self/fd`), which
 * no later swap of a path component can change; elsewhere, the path's real location, accepted only if
 * it is the very file the handle holds (same device and inode).
 */
async function locationOf(handle: FileHandle, path: string): Promise<string | undefined> {
  const named = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (named !== undefined) return named;
  const opened = await handle.stat();
  const target = await realpath(path).catch(() => undefined);
  const found = target === undefined ? undefined : await stat(target).catch(() => undefined);
  return found?.dev === opened.dev && found.ino === opened.ino ? target : undefined;
}

/**
 * Opens `path` (relative to `root`, or absolute) for reading and proves that what was opened is a
 * regular file (or, with `directory`, a directory) inside `root`: a symlink or a path component
 * swapped in between cannot lead outside, and a FIFO or device cannot hang or flood the reader (it is
 * opened without blocking and refused). Throws a {@link ConfinedFileError}.
 */
export async function openConfined(root: string, path: string, options: { readonly directory?: boolean } = {}): Promise<FileHandle> {
  const realRoot = await realpath(root).catch(() => {
    throw new ConfinedFileError("FILE_MISSING", `${root} does not exist`);
  });
  const target = resolve(realRoot, path);
  let handle: FileHandle;
  try {
    handle = await open(target, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new ConfinedFileError(code === "ENOENT" ? "FILE_MISSING" : "FILE_NOT_REGULAR", `${path} ${code === "ENOENT" ? "does not exist" : `cannot be opened (${String(code)})`}`, { cause });
  }
  try {
    const location = await locationOf(handle, target);
    if (location === undefined || !isInside(realRoot, location)) throw new ConfinedFileError("FILE_OUTSIDE", `${path} is outside ${root}`);
    const info = await handle.stat();
    if (options.directory === true ? !info.isDirectory() : !info.isFile()) {
      throw new ConfinedFileError(options.directory === true ? "FILE_NOT_DIRECTORY" : "FILE_NOT_REGULAR", `${path} is not ${options.directory === true ? "a directory" : "a regular file"}`);
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads at most `limit` bytes from the start of an open file: never more, whatever its size. */
export async function readHead(handle: FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit);
  let filled = 0;
  while (filled < limit) {
    const { bytesRead } = await handle.read(buffer, filled, limit - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
