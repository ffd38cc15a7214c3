import { DshError } from "dsh-base";

/** Stable codes of the errors `dsh-otel` throws. */
export type OtelErrorCode =
  /** An option is out of range: an endpoint that is not an http(s) URL, a protocol other than OTLP over HTTP. */
  | "OTEL_INVALID_OPTIONS"
  /** The receiver refused the spans or could not be reached; the message says which. */
  | "OTEL_EXPORT_FAILED"
  /** A span's attribute source (a wire hash, an expected cache read) threw; the span went without that attribute. */
  | "OTEL_ATTRIBUTE_FAILED";

/** A failure to export spans; `code` says which. */
export class OtelError extends DshError<OtelErrorCode> {
  override name = "OtelError";
}
