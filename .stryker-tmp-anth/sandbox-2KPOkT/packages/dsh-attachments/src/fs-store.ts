import { mkdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ConfinedFileError, createFileDurably, openConfined, readHead } from "dsh-base";
import { assertSha256Digest, computeDigest, verifyDigest, type Sha256Digest } from "./digest.js";
import { AttachmentError } from "./errors.js";
import type { AttachmentStore } from "./store.js";

/**
 * An {@link AttachmentStore} on the local filesystem. Objects live at
 * `<root>/sha256/<first two hex digits>/<remaining hex digits>`, are written through a temporary
 * file that is fsynced and then hard-linked into place (never overwriting), and are created 0600.
 */
export class FsAttachmentStore implements AttachmentStore {
  constructor(readonly root: string) {}

  /** Where the object named `digest` lives; the digest format is validated first, so no path escapes `root`. */
  pathOf(digest: Sha256Digest): string {
    const hex = assertSha256Digest(digest).slice("sha256:".length);
    return join(this.root, "sha256", hex.slice(0, 2), hex.slice(2));
  }

  async put(bytes: Uint8Array): Promise<Sha256Digest> {
    const digest = computeDigest(bytes);
    const target = this.pathOf(digest);
    if (await exists(target)) return digest;
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await createFileDurably(target, bytes);
    return digest;
  }

  /**
   * Reads only a regular file inside the store (never through a symlink or a swapped directory, never
   * a FIFO or device), no more than `maxBytes` of it, and verifies its digest.
   */
  async get(digest: Sha256Digest, options: { readonly maxBytes?: number } = {}): Promise<Uint8Array> {
    let handle;
    try {
      handle = await openConfined(this.root, this.pathOf(digest));
    } catch (error) {
      if (!(error instanceof ConfinedFileError)) throw error;
      if (error.code === "FILE_MISSING") {
        throw new AttachmentError("ATTACHMENT_MISSING", `object ${digest} is not in the store at ${this.root}`, { digest, cause: error });
      }
      throw new AttachmentError("ATTACHMENT_CORRUPT", `object ${digest} is not a regular file inside the store at ${this.root}`, { digest, cause: error });
    }
    try {
      const { size } = await handle.stat();
      if (options.maxBytes !== undefined && size > options.maxBytes) {
        throw new AttachmentError("ATTACHMENT_CORRUPT", `object ${digest} holds ${size} bytes, more than the ${options.maxBytes} recorded`, { digest });
      }
      const bytes = await readHead(handle, size);
      return verifyDigest(digest, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    } finally {
      await handle.close();
    }
  }

  async has(digest: Sha256Digest): Promise<boolean> {
    return exists(this.pathOf(digest));
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (isErrno(error, "ENOENT")) return false;
    throw error;
  }
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
