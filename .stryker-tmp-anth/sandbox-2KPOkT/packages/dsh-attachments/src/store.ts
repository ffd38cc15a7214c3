import { describeIssues } from "dsh-base";
import type { Sha256Digest } from "./digest.js";
import { AttachmentError } from "./errors.js";
import { describeImage, imageAttachmentRefSchema, verifyImageMetadata, type ImageAttachmentRef } from "./image-ref.js";

/**
 * Immutable, content-addressed object storage. `get` returns only bytes that hash to the digest
 * asked for and throws `ATTACHMENT_MISSING` or `ATTACHMENT_CORRUPT` otherwise.
 */
export interface AttachmentStore {
  /** Stores `bytes` (idempotently) and returns their digest. */
  put(bytes: Uint8Array): Promise<Sha256Digest>;
  /**
   * Returns a private copy of the verified bytes stored under `digest`. With `maxBytes` (the recorded
   * length), an object that holds more is refused without being read.
   */
  get(digest: Sha256Digest, options?: { readonly maxBytes?: number }): Promise<Uint8Array>;
  /** Whether an object is stored under `digest` (without verifying it). */
  has(digest: Sha256Digest): Promise<boolean>;
}

/** Stores image bytes and returns the reference to record in the log. */
export async function putImage(store: AttachmentStore, bytes: Uint8Array): Promise<ImageAttachmentRef> {
  const ref = describeImage(bytes);
  await store.put(bytes);
  return ref;
}

/**
 * Resolves the bytes behind `ref`, verifying digest and every recorded piece of metadata;
 * this is the only read path adapters use while serializing a request.
 */
export async function readImage(store: AttachmentStore, ref: ImageAttachmentRef): Promise<Uint8Array> {
  const parsed = imageAttachmentRefSchema.safeParse(ref);
  if (!parsed.success) {
    throw new AttachmentError("ATTACHMENT_INVALID_REF", `invalid image reference: ${describeIssues(parsed.error.issues)}`);
  }
  const bytes = await store.get(parsed.data.digest, { maxBytes: parsed.data.byteLength });
  verifyImageMetadata(parsed.data, bytes);
  return bytes;
}
