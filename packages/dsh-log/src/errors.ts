import { DshError } from "dsh-base";

/** Stable codes of every error the log throws. */
export type LogErrorCode =
  | "LOG_INVALID_EVENT"
  | "LOG_UNKNOWN_TYPE"
  | "LOG_LEGACY_EVENT"
  | "LOG_RULE_VIOLATION"
  | "LOG_DUPLICATE_DEFINITION"
  | "LOG_CORRUPT"
  | "LOG_UNSUPPORTED_FORMAT"
  | "LOG_NOT_FOUND"
  | "LOG_EXISTS"
  | "LOG_LOCKED"
  | "LOG_SINK_FAILED"
  | "LOG_CLOSED"
  | "LOG_LOAD_REFUSED"
  | "LOG_CONFLICT"
  | "LOG_STORE_UNAVAILABLE"
  | "LOG_BAD_SESSION_ID"
  | "LOG_BAD_KEY"
  | "LOG_WITNESS_FAILED";

/** A log operation failed; `code` says why and `line` (1-based, header = 1) locates a persisted problem. */
export class LogError extends DshError<LogErrorCode> {
  override name = "LogError";
  readonly line: number | undefined;

  constructor(code: LogErrorCode, message: string, options: { cause?: unknown; line?: number } = {}) {
    super(code, options.line === undefined ? message : `line ${options.line}: ${message}`, options);
    this.line = options.line;
  }
}
