import { createHash } from "node:crypto";
import { z } from "zod";
import { AttachmentError } from "./errors.js";

const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** A content address: `sha256:` followed by 64 lowercase hex digits of the object's bytes. */
export type Sha256Digest = `sha256:${string}`;

/** Zod schema of a well-formed {@link Sha256Digest}. */
export const sha256DigestSchema = z
  .string()
  .regex(DIGEST_PATTERN, "expected sha256:<64 lowercase hex digits>")
  .transform((value) => value as Sha256Digest);

/** Whether `value` is a well-formed digest; only such strings may ever become paths. */
export function isSha256Digest(value: unknown): value is Sha256Digest {
  return typeof value === "string" && DIGEST_PATTERN.test(value);
}

/** Returns `value` as a digest or throws `ATTACHMENT_INVALID_DIGEST`. */
export function assertSha256Digest(value: unknown): Sha256Digest {
  if (!isSha256Digest(value)) {
    throw new AttachmentError(
      "ATTACHMENT_INVALID_DIGEST",
      `not a sha256 digest: ${JSON.stringify(value)?.slice(0, 80)}`,
    );
  }
  return value;
}

/** Computes the content address of `bytes`. */
export function computeDigest(bytes: Uint8Array): Sha256Digest {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** Returns `bytes` if they hash to `digest`, else throws `ATTACHMENT_CORRUPT`. */
export function verifyDigest(digest: Sha256Digest, bytes: Uint8Array): Uint8Array {
  const actual = computeDigest(bytes);
  if (actual !== digest) {
    throw new AttachmentError(
      "ATTACHMENT_CORRUPT",
      `object ${digest} is corrupt: its bytes hash to ${actual}`,
      { digest },
    );
  }
  return bytes;
}
