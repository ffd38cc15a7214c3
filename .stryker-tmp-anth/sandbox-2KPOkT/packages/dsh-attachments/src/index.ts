export { AttachmentError, type AttachmentErrorCode } from "./errors.js";
export {
  assertSha256Digest,
  computeDigest,
  isSha256Digest,
  sha256DigestSchema,
  verifyDigest,
  type Sha256Digest,
} from "./digest.js";
export {
  IMAGE_MEDIA_TYPES,
  describeImage,
  imageAttachmentRefSchema,
  probeImage,
  verifyImageMetadata,
  type ImageAttachmentRef,
  type ImageMediaType,
} from "./image-ref.js";
export { putImage, readImage, type AttachmentStore } from "./store.js";
export { MemoryAttachmentStore } from "./memory-store.js";
export { FsAttachmentStore } from "./fs-store.js";
