import { assertSha256Digest, computeDigest, verifyDigest, type Sha256Digest } from "./digest.js";
import { AttachmentError } from "./errors.js";
import type { AttachmentStore } from "./store.js";

/** An in-process {@link AttachmentStore}; bytes are copied in and out so callers cannot alter them. */
export class MemoryAttachmentStore implements AttachmentStore {
  readonly #objects = new Map<Sha256Digest, Uint8Array>();

  async put(bytes: Uint8Array): Promise<Sha256Digest> {
    const digest = computeDigest(bytes);
    if (!this.#objects.has(digest)) this.#objects.set(digest, Uint8Array.from(bytes));
    return digest;
  }

  async get(digest: Sha256Digest): Promise<Uint8Array> {
    const stored = this.#objects.get(assertSha256Digest(digest));
    if (stored === undefined) {
      throw new AttachmentError("ATTACHMENT_MISSING", `object ${digest} is not in the store`, { digest });
    }
    return verifyDigest(digest, Uint8Array.from(stored));
  }

  async has(digest: Sha256Digest): Promise<boolean> {
    return this.#objects.has(assertSha256Digest(digest));
  }
}
