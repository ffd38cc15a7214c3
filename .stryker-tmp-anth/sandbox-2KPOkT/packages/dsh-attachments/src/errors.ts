import { DshError } from "dsh-base";

/** Stable codes of every error the attachments package throws. */
export type AttachmentErrorCode =
  | "ATTACHMENT_INVALID_DIGEST"
  | "ATTACHMENT_INVALID_REF"
  | "ATTACHMENT_MISSING"
  | "ATTACHMENT_CORRUPT"
  | "ATTACHMENT_METADATA_MISMATCH"
  | "ATTACHMENT_UNSUPPORTED_MEDIA";

/** An attachment could not be named, stored, found or verified; `code` says which, `digest` which object. */
export class AttachmentError extends DshError<AttachmentErrorCode> {
  override name = "AttachmentError";
  /** The object concerned, when the failure is about a stored object. */
  readonly digest: string | undefined;

  constructor(code: AttachmentErrorCode, message: string, options: { cause?: unknown; digest?: string } = {}) {
    super(code, message, options);
    this.digest = options.digest;
  }
}
