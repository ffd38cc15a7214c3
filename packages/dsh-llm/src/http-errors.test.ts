import { describe, expect, it } from "vitest";
import { httpError, retryAfterSeconds } from "./http-errors.js";
import { redactError, redactor } from "./redact.js";
import { LlmError } from "./errors.js";

describe("httpError", () => {
  it.each([
    [401, "LLM_AUTH", false],
    [403, "LLM_AUTH", false],
    [429, "LLM_RATE_LIMITED", true],
    [500, "LLM_SERVER_ERROR", true],
    [529, "LLM_SERVER_ERROR", true],
    [404, "LLM_BAD_REQUEST", false],
  ])("maps HTTP %i to %s (retryable: %s)", (status, code, retryable) => {
    expect(httpError(status, "", null)).toMatchObject({ code, retryable, status });
  });

  it("reads the provider's message from either error shape and tells a context overflow apart", () => {
    const anthropic = JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" } });
    expect(httpError(400, anthropic, null)).toMatchObject({ code: "LLM_CONTEXT_OVERFLOW", message: "the request exceeds the model's context (HTTP 400: prompt is too long: 210000 tokens > 200000 maximum)" });
    expect(httpError(400, JSON.stringify({ error: "bad   field\n here" }), null).message).toBe("the provider rejected the request (HTTP 400: bad field here)");
    expect(httpError(400, "plain text", "3")).toMatchObject({ message: "the provider rejected the request (HTTP 400: plain text)", retryAfterSeconds: 3 });
  });
});

describe("httpError, its wording", () => {
  it("says what each class of failure means, with the status and the provider's message when there is one", () => {
    expect(httpError(401, "", null).message).toBe("the provider refused the credentials (HTTP 401)");
    expect(httpError(429, "slow down", null).message).toBe("rate limited (HTTP 429: slow down)");
    expect(httpError(502, "", null).message).toBe("provider error (HTTP 502)");
    expect(httpError(404, "no such model", null).message).toBe("the provider rejected the request (HTTP 404: no such model)");
    expect(httpError(413, "maximum context length exceeded", null).code).toBe("LLM_CONTEXT_OVERFLOW");
    const google = JSON.stringify({ error: { code: 400, message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", status: "INVALID_ARGUMENT" } });
    expect(httpError(400, google, null)).toMatchObject({ code: "LLM_CONTEXT_OVERFLOW", message: expect.stringContaining("(1200000) exceeds") });
  });

  it("tells a context overflow only from a 400 or 413 that says so", () => {
    expect(httpError(400, "bad field", null).code).toBe("LLM_BAD_REQUEST");
    expect(httpError(404, "context length exceeded", null).code).toBe("LLM_BAD_REQUEST");
    expect(httpError(422, "too many tokens", null).code).toBe("LLM_BAD_REQUEST");
  });

  it("keeps the raw text of a JSON body without an error message, and cuts a long message to 300 characters", () => {
    for (const body of ["null", "5", '"quoted"', '{"error":null}', '{"error":{"code":7}}', '{"error":{"message":9}}', '{"detail":"x"}']) {
      expect(httpError(400, body, null).message).toBe(`the provider rejected the request (HTTP 400: ${body})`);
    }
    expect(httpError(400, `  ${"y".repeat(400)}  `, null).message).toBe(`the provider rejected the request (HTTP 400: ${"y".repeat(300)})`);
    expect(httpError(400, JSON.stringify({ error: { message: " spaced \t out " } }), null).message).toBe("the provider rejected the request (HTTP 400: spaced out)");
  });
});

describe("retryAfterSeconds", () => {
  it("is waited for as long as a Retry-After in seconds or as an HTTP date asks", () => {
    const now = Date.parse("2026-12-02T12:00:00Z");
    expect(retryAfterSeconds("7", now)).toBe(7);
    expect(retryAfterSeconds("Wed, 02 Dec 2026 12:00:30 GMT", now)).toBe(30);
    expect(retryAfterSeconds("Wed, 02 Dec 2026 11:00:00 GMT", now)).toBe(0);
    expect(retryAfterSeconds("soon", now)).toBeUndefined();
    expect(retryAfterSeconds("-1", now)).toBeUndefined();
    expect(retryAfterSeconds("0", now)).toBe(0);
    expect(retryAfterSeconds("  ", now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
  });
});

describe("redactor", () => {
  it("replaces a secret and its URL- and base64-encoded forms, longest first, and leaves short values alone", () => {
    const redact = redactor(["s3cr3t/key", "ab", undefined]);
    expect(redact(`a s3cr3t/key b ${encodeURIComponent("s3cr3t/key")} c ${Buffer.from("s3cr3t/key").toString("base64")} ab`)).toBe("a [redacted] b [redacted] c [redacted] ab");
  });

  it("replaces a secret of exactly 4 characters, and a longer secret before a shorter one inside it", () => {
    expect(redactor(["abc", "abcd"])("abcd abc")).toBe("[redacted] abc");
    expect(redactor(["key1", "prefix-key1-suffix"])("prefix-key1-suffix and key1")).toBe("[redacted] and [redacted]");
  });

  it("replaces what a cut left of a secret (a start of 12 characters or more), wherever the cut put it, and no shorter start", () => {
    const key = "sk-proj-0123456789abcdefghij";
    const redact = redactor([key]);
    expect(redact(`(bad key ${key.slice(0, 20)})`)).toBe("(bad key [redacted])");
    expect(redact(`cut: ${key.slice(0, 12)}…`)).toBe("cut: [redacted]…");
    expect(redact(`${key}${key.slice(0, 15)}`)).toBe("[redacted][redacted]");
    expect(redact(`keys look like ${key.slice(0, 11)}…`)).toBe(`keys look like ${key.slice(0, 11)}…`);
    expect(redact(`${key.slice(0, 13)}X${key.slice(14)}`)).toBe(`[redacted]X${key.slice(14)}`);
  });

  it("keeps code, status and retry hints when it rewrites an error, and returns an untouched error as is", () => {
    const error = new LlmError("LLM_RATE_LIMITED", "key s3cr3t/key over quota", { status: 429, retryAfterSeconds: 2 });
    expect(redactError(error, redactor(["s3cr3t/key"]))).toMatchObject({ code: "LLM_RATE_LIMITED", message: "key [redacted] over quota", status: 429, retryAfterSeconds: 2, retryable: true });
    expect(redactError(error, redactor(["other-secret"]))).toBe(error);
  });
});
