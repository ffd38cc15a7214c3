import { DshError } from "dsh-base";

/** Stable codes of the errors the web server answers with. */
export type WebErrorCode = "WEB_NOT_FOUND" | "WEB_BAD_REQUEST" | "WEB_FORBIDDEN";

const STATUS: Readonly<Record<WebErrorCode, number>> = { WEB_NOT_FOUND: 404, WEB_BAD_REQUEST: 400, WEB_FORBIDDEN: 403 };

/** A request the web server refuses, with the HTTP status it answers. */
export class WebError extends DshError<WebErrorCode> {
  override name = "WebError";

  /** The HTTP status this error is answered with. */
  get status(): number {
    return STATUS[this.code];
  }
}
