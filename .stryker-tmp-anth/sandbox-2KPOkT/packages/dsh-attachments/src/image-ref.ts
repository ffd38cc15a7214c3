import { imageSize } from "image-size";
import { z } from "zod";
import { computeDigest, sha256DigestSchema } from "./digest.js";
import { AttachmentError } from "./errors.js";

/** Image media types that providers accept and that the probe recognises. */
export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/** One of {@link IMAGE_MEDIA_TYPES}. */
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/** Zod schema of {@link ImageAttachmentRef}; unknown keys are rejected, never stripped. */
export const imageAttachmentRefSchema = z.strictObject({
  digest: sha256DigestSchema,
  mediaType: z.enum(IMAGE_MEDIA_TYPES),
  byteLength: z.number().int().positive(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
});

/** A durable reference to immutable image bytes: their digest plus the metadata recorded at capture. */
export type ImageAttachmentRef = z.output<typeof imageAttachmentRefSchema>;

const MEDIA_TYPE_BY_PROBE: Readonly<Record<string, ImageMediaType>> = {
  png: "image/png",
  jpg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

/** Reads media type and dimensions from the image bytes themselves (never from a file name). */
export function probeImage(bytes: Uint8Array): Pick<ImageAttachmentRef, "mediaType" | "width" | "height"> {
  let probed: { type?: string | undefined; width?: number | undefined; height?: number | undefined };
  try {
    probed = imageSize(bytes);
  } catch (cause) {
    throw new AttachmentError("ATTACHMENT_UNSUPPORTED_MEDIA", "bytes are not a recognised image", { cause });
  }
  const mediaType = probed.type === undefined ? undefined : MEDIA_TYPE_BY_PROBE[probed.type];
  if (mediaType === undefined) {
    throw new AttachmentError(
      "ATTACHMENT_UNSUPPORTED_MEDIA",
      `unsupported image type ${probed.type ?? "unknown"}; expected one of ${IMAGE_MEDIA_TYPES.join(", ")}`,
    );
  }
  const { width, height } = probed;
  if (width === undefined || height === undefined || width <= 0 || height <= 0) {
    throw new AttachmentError("ATTACHMENT_UNSUPPORTED_MEDIA", "image dimensions could not be read");
  }
  return { mediaType, width, height };
}

/** Builds the reference that `bytes` would be recorded under. */
export function describeImage(bytes: Uint8Array): ImageAttachmentRef {
  return { digest: computeDigest(bytes), byteLength: bytes.byteLength, ...probeImage(bytes) };
}

/**
 * Throws `ATTACHMENT_METADATA_MISMATCH` unless `bytes` (already digest-verified) still match
 * every piece of metadata `ref` recorded.
 */
export function verifyImageMetadata(ref: ImageAttachmentRef, bytes: Uint8Array): void {
  const actual = { byteLength: bytes.byteLength, ...probeImageOrMismatch(ref, bytes) };
  for (const key of ["byteLength", "mediaType", "width", "height"] as const) {
    if (actual[key] !== ref[key]) {
      throw new AttachmentError(
        "ATTACHMENT_METADATA_MISMATCH",
        `object ${ref.digest}: recorded ${key} ${String(ref[key])} but the bytes have ${String(actual[key])}`,
        { digest: ref.digest },
      );
    }
  }
}

function probeImageOrMismatch(ref: ImageAttachmentRef, bytes: Uint8Array) {
  try {
    return probeImage(bytes);
  } catch (cause) {
    throw new AttachmentError(
      "ATTACHMENT_METADATA_MISMATCH",
      `object ${ref.digest} is recorded as ${ref.mediaType} but its bytes are not a readable image`,
      { cause, digest: ref.digest },
    );
  }
}
