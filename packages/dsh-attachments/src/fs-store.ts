import { mkdir, readFile, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createFileDurably } from "dsh-base";
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

  async get(digest: Sha256Digest): Promise<Uint8Array> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.pathOf(digest));
    } catch (error) {
      if (isErrno(error, "ENOENT")) {
        throw new AttachmentError("ATTACHMENT_MISSING", `object ${digest} is not in the store at ${this.root}`, { digest });
      }
      throw error;
    }
    return verifyDigest(digest, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
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
