import { LlmError } from "dsh-llm";

/** How retryable provider errors are retried within a step. */
export interface RetryPolicy {
  /** Retries after the first attempt; 0 disables retrying. */
  readonly maxRetries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/** Two retries, 500 ms then 1 s, at most 8 s (or what the provider asks for, capped). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8000 };

/** The delay before retry number `attempt` (1-based): exponential, or the provider's Retry-After, capped. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, error: LlmError): number {
  const requested = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
  const backoff = policy.baseDelayMs * 2 ** (attempt - 1);
  return Math.round(Math.min(policy.maxDelayMs, requested ?? backoff));
}

/** Resolves after `ms`, or rejects with `LLM_ABORTED` as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new LlmError("LLM_ABORTED", "aborted while waiting to retry"));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LlmError("LLM_ABORTED", "aborted while waiting to retry"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
