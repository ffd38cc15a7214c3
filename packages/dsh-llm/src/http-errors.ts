import { truncateText } from "dsh-base";
import { LlmError } from "./errors.js";

const OVERFLOW = /context[ _-]?length|maximum context|too many tokens|context window|prompt is too long|exceeds the maximum number of tokens/i;

/** Maps a non-2xx HTTP response to a typed error; the provider's own message is kept, truncated. */
export function httpError(status: number, bodyText: string, retryAfter: string | null): LlmError {
  const message = providerMessage(bodyText);
  const wait = retryAfterSeconds(retryAfter);
  const options = { status, ...(wait === undefined ? {} : { retryAfterSeconds: wait }) };
  const detail = `HTTP ${status}${message === "" ? "" : `: ${message}`}`;
  if (status === 401 || status === 403) return new LlmError("LLM_AUTH", `the provider refused the credentials (${detail})`, options);
  if (status === 429) return new LlmError("LLM_RATE_LIMITED", `rate limited (${detail})`, options);
  if (status >= 500) return new LlmError("LLM_SERVER_ERROR", `provider error (${detail})`, options);
  if ((status === 400 || status === 413) && OVERFLOW.test(message)) {
    return new LlmError("LLM_CONTEXT_OVERFLOW", `the request exceeds the model's context (${detail})`, options);
  }
  return new LlmError("LLM_BAD_REQUEST", `the provider rejected the request (${detail})`, options);
}

function providerMessage(bodyText: string): string {
  let message = bodyText;
  try {
    // Either `{"error":{"message":"..."}}` or `{"error":"..."}`; anything else keeps the text.
    const error: unknown = (JSON.parse(bodyText) as { error?: unknown } | null)?.error;
    const said: unknown = typeof error === "string" ? error : (error as { message?: unknown } | null | undefined)?.message;
    if (typeof said === "string") message = said;
  } catch {
    // Not JSON: keep the text.
  }
  return truncateText(message.replace(/\s+/g, " ").trim(), 300);
}

/** Seconds to wait from a `Retry-After` header: a number of seconds or an HTTP date (in the past: 0). */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds : undefined;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
