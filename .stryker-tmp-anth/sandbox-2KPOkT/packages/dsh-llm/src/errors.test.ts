import { isDshError } from "dsh-base";
import { describe, expect, it } from "vitest";
import { LlmError, isRetryableLlmError, type LlmErrorCode } from "./errors.js";

describe("LlmError", () => {
  it.each<[LlmErrorCode, boolean]>([
    ["LLM_RATE_LIMITED", true],
    ["LLM_SERVER_ERROR", true],
    ["LLM_NETWORK", true],
    ["LLM_STREAM_INTERRUPTED", true],
    ["LLM_MALFORMED_STREAM", true],
    ["LLM_TIMEOUT", true],
    ["LLM_AUTH", false],
    ["LLM_BAD_REQUEST", false],
    ["LLM_CONTEXT_OVERFLOW", false],
    ["LLM_ABORTED", false],
    ["LLM_INVALID_REQUEST", false],
  ])("%s is retryable: %s", (code, retryable) => {
    const error = new LlmError(code, "x");
    expect(error.retryable).toBe(retryable);
    expect(isRetryableLlmError(error)).toBe(retryable);
  });

  it("carries its status, Retry-After and cause, and lets the caller decide retryability", () => {
    const cause = new Error("socket");
    const error = new LlmError("LLM_BAD_REQUEST", "no", { status: 400, retryAfterSeconds: 3, retryable: true, cause });
    expect(error).toMatchObject({ name: "LlmError", code: "LLM_BAD_REQUEST", status: 400, retryAfterSeconds: 3, retryable: true, cause });
    expect(isDshError(error, "LLM_BAD_REQUEST")).toBe(true);
    expect(new LlmError("LLM_RATE_LIMITED", "x", { retryable: false }).retryable).toBe(false);
    expect(new LlmError("LLM_AUTH", "x")).toMatchObject({ status: undefined, retryAfterSeconds: undefined });
  });

  it("is the only retryable kind of error", () => {
    expect(isRetryableLlmError(Object.assign(new Error("x"), { retryable: true }))).toBe(false);
    expect(isRetryableLlmError(undefined)).toBe(false);
  });
});
