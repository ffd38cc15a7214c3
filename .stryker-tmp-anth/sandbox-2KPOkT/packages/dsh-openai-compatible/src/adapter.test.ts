import { LlmRuntime, freezeRequest, type GenerateOptions } from "dsh-llm";
import { startSimulator, type Scenario, type Simulator } from "dsh-simulator";
import { afterEach, describe, expect, it } from "vitest";
import { ChatCompletionsAdapter } from "./adapter.js";
import { serializeRequest } from "./serialize.js";

const API_KEY = "sk-adapter-test-0123456789abcdef";
let simulator: Simulator | undefined;
afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

async function setup(scenario: Scenario, options: { idleTimeoutMs?: number; apiKey?: string } = {}) {
  simulator = await startSimulator({ scenario, apiKey: API_KEY, stallMs: 2000 });
  const adapter = new ChatCompletionsAdapter({
    provider: "sim",
    dialect: "deepseek",
    baseUrl: simulator.url,
    apiKey: options.apiKey ?? API_KEY,
    ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
  });
  return { adapter, runtime: new LlmRuntime({ adapters: [adapter] }) };
}

const request = (text = "hello"): GenerateOptions => ({
  config: { provider: "sim", model: "sim-1" },
  messages: [
    { role: "system", content: "You are terse. ".repeat(30), source: "system-prompt" },
    { role: "user", content: [{ type: "text", text }], source: "user" },
  ],
});

describe("ChatCompletionsAdapter", () => {
  it("sends exactly serializeRequest's bytes and assembles text, reasoning, tool calls and cache usage", async () => {
    const { runtime } = await setup({
      responses: [
        { reasoning: "thinking it over", text: "Sure.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }, { name: "read_file", arguments: { path: "README.md" } }] },
        { text: "again" },
      ],
    });
    const first = freezeRequest(request());
    const result = await runtime.generate(first);
    expect(simulator!.exchanges[0]!.body).toBe(await serializeRequest(first, { dialect: "deepseek" }));
    expect(result.finishReason).toBe("tool-calls");
    expect(result.content).toEqual([
      { type: "reasoning", text: "thinking it over" },
      { type: "text", text: "Sure." },
      { type: "tool-call", callId: expect.stringMatching(/^call_[0-9a-f]{12}_0$/), name: "list_dir", arguments: '{"path":"."}' },
      { type: "tool-call", callId: expect.stringMatching(/^call_[0-9a-f]{12}_1$/), name: "read_file", arguments: '{"path":"README.md"}' },
    ]);
    expect(result.usage?.cacheReadTokens).toBe(0);
    const second = await runtime.generate(request("hello again"));
    expect(second.usage?.cacheReadTokens).toBeGreaterThan(0);
    expect(second.usage?.inputTokens).toBe(simulator!.exchanges[1]!.promptTokens);
  });

  it.each([
    ["HTTP 429", { fault: "http-429" as const }, { code: "LLM_RATE_LIMITED", retryable: true, status: 429, retryAfterSeconds: 0 }],
    ["HTTP 500", { fault: "http-500" as const }, { code: "LLM_SERVER_ERROR", retryable: true, status: 500 }],
    ["a truncated stream", { fault: "truncate" as const }, { code: "LLM_STREAM_INTERRUPTED", retryable: true }],
    ["a malformed chunk", { fault: "malformed" as const }, { code: "LLM_MALFORMED_STREAM", retryable: true }],
    ["a stalled stream", { fault: "stall" as const }, { code: "LLM_TIMEOUT", retryable: true }],
  ])("maps %s to a typed error", async (_what, response, expected) => {
    const { runtime } = await setup({ responses: [{ text: "before" }, response] }, { idleTimeoutMs: 300 });
    await runtime.generate(request());
    await expect(runtime.generate(request())).rejects.toMatchObject(expected);
  });

  it("maps a refused key to LLM_AUTH without ever echoing the key", async () => {
    const { runtime } = await setup({ policy: "explore" }, { apiKey: "sk-wrong-key-should-not-appear" });
    const failure = (await runtime.generate(request()).then(
      () => new Error("expected a failure"),
      (error: unknown) => error as Error,
    ));
    expect(failure).toMatchObject({ code: "LLM_AUTH", retryable: false, status: 401 });
    expect(`${failure.message} ${String(failure.stack)}`).not.toContain("sk-wrong-key-should-not-appear");
  });

  it("maps an unreachable server to LLM_NETWORK", async () => {
    const adapter = new ChatCompletionsAdapter({ provider: "sim", dialect: "deepseek", baseUrl: "http://127.0.0.1:9/v1" });
    const runtime = new LlmRuntime({ adapters: [adapter] });
    await expect(runtime.generate(request())).rejects.toMatchObject({ code: "LLM_NETWORK", retryable: true });
  });

  it("aborts an in-flight stream through the request's signal", async () => {
    const { runtime } = await setup({ responses: [{ fault: "stall" }] });
    const controller = new AbortController();
    const pending = runtime.generate({ ...request(), signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toMatchObject({ code: "LLM_ABORTED" });
  });
});
