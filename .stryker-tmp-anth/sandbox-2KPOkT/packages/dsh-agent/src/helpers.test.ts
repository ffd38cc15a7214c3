import { DshError } from "dsh-base";
import { LlmError } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { loggedError } from "./logged-error.js";
import { DEFAULT_RETRY_POLICY, retryDelayMs, sleep } from "./retry.js";
import { renderTranscript, summaryRequest } from "./summary.js";

describe("renderTranscript, the summary call's input", () => {
  it("renders every role in a fixed form: text, images by digest, calls with their raw arguments, tool errors marked", () => {
    const transcript = renderTranscript([
      { role: "system", content: "Be brief.", source: "system-prompt" },
      { role: "user", content: [{ type: "text", text: "look" }, { type: "image", image: { digest: `sha256:${"a".repeat(64)}`, mediaType: "image/png", byteLength: 1, width: 1, height: 1 } }], source: "user" },
      {
        role: "assistant",
        content: [{ type: "reasoning", text: "hidden" }, { type: "text", text: "reading" }, { type: "tool-call", callId: "c", name: "read_file", arguments: '{"path":"a"}' }],
        source: "model",
      },
      { role: "tool", callId: "c", toolName: "read_file", content: [{ type: "text", text: "no such file" }], isError: true, source: "tool" },
      { role: "tool", callId: "d", toolName: "list_dir", content: [{ type: "text", text: "a\nb" }], isError: false, source: "tool" },
    ]);
    expect(transcript).toBe(
      [
        "[system]\nBe brief.",
        `[user]\nlook\n[image sha256:${"a".repeat(64)}]`,
        '[assistant]\nreading\ncalled read_file({"path":"a"})',
        "[tool read_file error]\nno such file",
        "[tool list_dir]\na\nb",
      ].join("\n\n"),
    );
  });

  it("builds the summary call from the logged scalars and the region alone", () => {
    const request = summaryRequest([{ role: "user", content: [{ type: "text", text: "hi" }], source: "user" }], { provider: "p", model: "m", maxTokens: 9 });
    expect(request.config).toEqual({ provider: "p", model: "m", maxTokens: 9 });
    expect(request.messages[1]).toEqual({ role: "user", content: [{ type: "text", text: "[user]\nhi" }], source: "compaction" });
  });
});

describe("loggedError", () => {
  it("logs a stable code and message for every kind of failure, and the status of an HTTP one", () => {
    expect(loggedError(new LlmError("LLM_RATE_LIMITED", "slow", { status: 429 }))).toEqual({ code: "LLM_RATE_LIMITED", message: "slow", status: 429 });
    expect(loggedError(new LlmError("LLM_NETWORK", "down"))).toEqual({ code: "LLM_NETWORK", message: "down" });
    expect(loggedError(new DshError("X_CODE", "coded"))).toEqual({ code: "X_CODE", message: "coded" });
    expect(loggedError(Object.assign(new Error("no file"), { code: "ENOENT" }))).toEqual({ code: "ENOENT", message: "no file" });
    expect(loggedError(Object.assign(new Error("numeric"), { code: 7 }))).toEqual({ code: "UNKNOWN", message: "numeric" });
    expect(loggedError(new Error("plain"))).toEqual({ code: "UNKNOWN", message: "plain" });
    expect(loggedError("a string")).toEqual({ code: "UNKNOWN", message: "a string" });
  });
});

describe("retryDelayMs and sleep", () => {
  it("backs off exponentially, or waits what the provider asked for, never longer than the cap", () => {
    const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(policy, attempt, new LlmError("LLM_SERVER_ERROR", "x")))).toEqual([100, 200, 400, 800, 1000]);
    expect(retryDelayMs(policy, 1, new LlmError("LLM_RATE_LIMITED", "x", { retryAfterSeconds: 0.25 }))).toBe(250);
    expect(retryDelayMs(policy, 1, new LlmError("LLM_RATE_LIMITED", "x", { retryAfterSeconds: 60 }))).toBe(1000);
    expect(DEFAULT_RETRY_POLICY).toEqual({ maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8000 });
  });

  it("resolves after the delay, and rejects as aborted at once when the signal aborts, before or during the wait", async () => {
    await expect(sleep(1, new AbortController().signal)).resolves.toBeUndefined();
    const aborted = { code: "LLM_ABORTED", message: "aborted while waiting to retry" };
    await expect(sleep(60_000, AbortSignal.abort())).rejects.toMatchObject(aborted);
    const stop = new AbortController();
    const waiting = sleep(60_000, stop.signal);
    stop.abort();
    await expect(waiting).rejects.toMatchObject(aborted);
  });
});
