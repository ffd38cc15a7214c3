import { LlmRuntime, freezeRequest, type AssistantContent, type GenerateOptions, type Message } from "dsh-llm";
import { startSimulator, type Simulator } from "dsh-simulator";
import { afterEach, describe, expect, it } from "vitest";
import { AnthropicAdapter } from "./adapter.js";
import { serializeRequest } from "./serialize.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const system = "You are a careful coding agent working in a small repository. ".repeat(150);
const config = { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 4096, reasoningEffort: "high", cachePolicy: "rolling-v1", cacheTtl: "5m" } as const;
const tools = [{ name: "list_dir", description: "List a directory", parameters: { type: "object", properties: { path: { type: "string" } } } }];

function request(messages: Message[]): GenerateOptions {
  return structuredClone({ config, messages, tools });
}

describe("AnthropicAdapter against the simulator's Messages API", () => {
  it("sends exactly serializeRequest's bytes, sends signed thinking back, and reads on the next request what the first wrote", async () => {
    sim = await startSimulator({ scenario: { responses: [{ reasoning: "List first.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "Two files." }] } });
    const runtime = new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: sim.origin })] });
    const messages: Message[] = [
      { role: "system", content: system, source: "system-prompt" },
      { role: "user", content: [{ type: "text", text: "What is here?" }], source: "user" },
    ];
    const first = freezeRequest(request(messages));
    const answer = await runtime.generate(first);
    expect(answer.content.map((block) => block.type)).toEqual(["reasoning", "tool-call"]);
    expect(answer.content[0]).toMatchObject({ type: "reasoning", text: "List first.", signature: expect.any(String) });
    const call = answer.content[1] as Extract<AssistantContent, { type: "tool-call" }>;
    expect(call.arguments).toBe('{"path":"."}');
    messages.push({ role: "assistant", content: answer.content, source: "model" });
    messages.push({ role: "tool", callId: call.callId, toolName: "list_dir", content: [{ type: "text", text: "a.ts\nb.ts" }], isError: false, source: "tool" });
    const second = freezeRequest(request(messages));
    const final = await runtime.generate(second);
    expect(final.content).toEqual([{ type: "reasoning", text: "Let me work out the next step.", signature: expect.any(String) }, { type: "text", text: "Two files." }]);

    const [one, two] = sim.exchanges;
    expect(one!.body).toBe(await serializeRequest(first));
    expect(two!.body).toBe(await serializeRequest(second));
    expect(answer.usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: one!.promptTokens, inputTokens: one!.promptTokens });
    // The second request reads the whole first prompt (marked at its end) and writes its own tail.
    expect(final.usage).toMatchObject({ cacheReadTokens: one!.promptTokens, inputTokens: two!.promptTokens });
    expect(final.usage!.cacheWriteTokens).toBe(two!.promptTokens - one!.promptTokens);
  });

  it("keeps a session sendable after an empty answer and after one of only whitespace, each left out of later bodies", async () => {
    sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, {}, { text: "\n\n" }, { text: "Two files." }] } });
    const runtime = new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: sim.origin })] });
    const plain = { ...config, reasoningEffort: "none" } as const;
    const messages: Message[] = [
      { role: "system", content: system, source: "system-prompt" },
      { role: "user", content: [{ type: "text", text: "What is here?" }], source: "user" },
    ];
    const step = async () => {
      const answer = await runtime.generate(freezeRequest(structuredClone({ config: plain, messages, tools })));
      messages.push({ role: "assistant", content: answer.content, source: "model" });
      return answer;
    };
    const call = (await step()).content[0] as Extract<AssistantContent, { type: "tool-call" }>;
    messages.push({ role: "tool", callId: call.callId, toolName: "list_dir", content: [{ type: "text", text: "a.ts\nb.ts" }], isError: false, source: "tool" });
    // Anthropic documents empty answers right after tool results; the log keeps them as they came.
    expect((await step()).content).toEqual([]);
    messages.push({ role: "user", content: [{ type: "text", text: "Go on." }], source: "user" });
    expect((await step()).content).toEqual([{ type: "text", text: "\n\n" }]);
    messages.push({ role: "user", content: [{ type: "text", text: "Well?" }], source: "user" });
    expect((await step()).content).toEqual([{ type: "text", text: "Two files." }]);
    // Each later body leaves the empty answers out, so the user blocks around them share one message.
    const last = JSON.parse(sim.exchanges.at(-1)!.body) as { messages: { role: string; content: { type: string }[] }[] };
    expect(last.messages.map((message) => `${message.role}:${message.content.map((block) => block.type).join("+")}`)).toEqual([
      "user:text",
      "assistant:tool_use",
      "user:tool_result+text+text",
    ]);
    expect(sim.exchanges.every((exchange, i) => i === 0 || exchange.cacheHitTokens > 0)).toBe(true);
  });

  it("is refused like the real API when a thinking block was altered or dropped on a tool-use follow-up", async () => {
    sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "list_dir", arguments: {} }] }, { text: "unused" }] } });
    const runtime = new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: sim.origin })] });
    const messages: Message[] = [
      { role: "system", content: "Be brief.", source: "system-prompt" },
      { role: "user", content: [{ type: "text", text: "go" }], source: "user" },
    ];
    const answer = await runtime.generate(freezeRequest(request(messages)));
    const [thinking, call] = answer.content as [Extract<AssistantContent, { type: "reasoning" }>, Extract<AssistantContent, { type: "tool-call" }>];
    const result: Message = { role: "tool", callId: call.callId, toolName: "list_dir", content: [{ type: "text", text: "x" }], isError: false, source: "tool" };
    const altered = [...messages, { role: "assistant", content: [{ ...thinking, text: "edited" }, call], source: "model" } as Message, result];
    await expect(runtime.generate(freezeRequest(request(altered)))).rejects.toMatchObject({ code: "LLM_BAD_REQUEST", message: expect.stringContaining("Invalid `signature` in `thinking` block") });
    const dropped = [...messages, { role: "assistant", content: [call], source: "model" } as Message, result];
    await expect(runtime.generate(freezeRequest(request(dropped)))).rejects.toMatchObject({ code: "LLM_BAD_REQUEST", message: expect.stringContaining("must start with a thinking block") });
  });

  it("maps faults and refusals to typed errors, sends the key as x-api-key, and refuses a retired model before sending", async () => {
    sim = await startSimulator({ apiKey: "sk-ant-test-key", scenario: { responses: [{ fault: "overloaded", text: "partial" }, { fault: "http-429" }, { text: "fine" }] } });
    const adapter = new AnthropicAdapter({ baseUrl: sim.origin, apiKey: "sk-ant-test-key" });
    const runtime = new LlmRuntime({ adapters: [adapter] });
    const hello = freezeRequest({ config: { provider: "anthropic", model: "claude-haiku-4-5", maxTokens: 64 }, messages: [{ role: "user", content: [{ type: "text", text: "hi" }], source: "user" }] });
    await expect(runtime.generate(hello)).rejects.toMatchObject({ code: "LLM_SERVER_ERROR", retryable: true, message: "the provider reported an error mid-stream: overloaded_error: Overloaded" });
    await expect(runtime.generate(hello)).rejects.toMatchObject({ code: "LLM_RATE_LIMITED", retryAfterSeconds: 0, message: "rate limited (HTTP 429: rate limited)" });
    expect((await runtime.generate(hello)).content).toEqual([{ type: "text", text: "fine" }]);
    const wrongKey = new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: sim.origin, apiKey: "sk-ant-wrong-key" })] });
    await expect(wrongKey.generate(hello)).rejects.toMatchObject({ code: "LLM_AUTH" });
    const seen = sim.exchanges.length;
    await expect(runtime.generate(freezeRequest({ ...hello, config: { ...hello.config, model: "claude-3-opus-20240229" } }))).rejects.toMatchObject({ code: "LLM_MODEL_RETIRED" });
    expect(sim.exchanges.length).toBe(seen);
  });

  it("supplies the output limit, the breakpoint policy and the cache lifetime as adapter defaults", () => {
    const adapter = new AnthropicAdapter();
    expect(adapter.modelDefaults("claude-opus-4-8")).toEqual({ maxTokens: 16_384, cachePolicy: "rolling-v1", cacheTtl: "5m" });
    expect(new AnthropicAdapter({ modelDefaults: () => ({ cacheTtl: "1h" }) }).modelDefaults("claude-opus-4-8")).toEqual({ cacheTtl: "1h" });
    expect(() => adapter.modelDefaults("claude-3-5-sonnet-20241022")).toThrowError(
      expect.objectContaining({ code: "LLM_MODEL_RETIRED", retryable: false, message: "anthropic retired claude-3-5-sonnet-20241022 on 2025-10-22: use claude-sonnet-4-6" }),
    );
    // A model the catalog does not know (another Anthropic-format endpoint's) gets the same defaults.
    expect(adapter.modelDefaults("deepseek-v4-pro")).toEqual({ maxTokens: 16_384, cachePolicy: "rolling-v1", cacheTtl: "5m" });
    expect(() => new AnthropicAdapter({ baseUrl: "https://user:pw@example.test" })).toThrowError(expect.objectContaining({ code: "LLM_INVALID_REQUEST" }));
  });
});
