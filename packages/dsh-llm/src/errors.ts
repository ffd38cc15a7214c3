import { DshError } from "dsh-base";

/** Stable codes of every error the llm layer throws or maps provider failures to. */
export type LlmErrorCode =
  | "LLM_INVALID_REQUEST"
  | "LLM_NO_ADAPTER"
  | "LLM_AUTH"
  | "LLM_BAD_REQUEST"
  | "LLM_CONTEXT_OVERFLOW"
  | "LLM_RATE_LIMITED"
  | "LLM_SERVER_ERROR"
  | "LLM_NETWORK"
  | "LLM_STREAM_INTERRUPTED"
  | "LLM_MALFORMED_STREAM"
  | "LLM_TIMEOUT"
  | "LLM_ABORTED"
  | "LLM_ATTACHMENT"
  | "LLM_MODEL_RETIRED"
  | "LLM_RESPONSE_TOO_LARGE";

const RETRYABLE: ReadonlySet<LlmErrorCode> = new Set([
  "LLM_RATE_LIMITED",
  "LLM_SERVER_ERROR",
  "LLM_NETWORK",
  "LLM_STREAM_INTERRUPTED",
  "LLM_MALFORMED_STREAM",
  "LLM_TIMEOUT",
]);

/** A failed model call. `retryable` says whether the same request may simply be sent again. */
export class LlmError extends DshError<LlmErrorCode> {
  override name = "LlmError";
  readonly retryable: boolean;
  /** The HTTP status, when the failure came from one. */
  readonly status: number | undefined;
  /** Seconds the provider asked us to wait before retrying, when it said so. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: LlmErrorCode,
    message: string,
    options: { cause?: unknown; status?: number; retryAfterSeconds?: number; retryable?: boolean } = {},
  ) {
    super(code, message, options);
    this.retryable = options.retryable ?? RETRYABLE.has(code);
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** Whether `error` is an {@link LlmError} that may be retried with the same request. */
export function isRetryableLlmError(error: unknown): error is LlmError {
  return error instanceof LlmError && error.retryable;
}
