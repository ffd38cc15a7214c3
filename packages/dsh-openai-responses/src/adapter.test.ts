import { LlmRuntime, freezeRequest, type AssistantContent, type GenerateOptions, type Message } from "dsh-llm";
import { startSimulator, type Scenario, type Simulator } from "dsh-simulator";
import { afterEach, describe, expect, it } from "vitest";
import { ResponsesAdapter } from "./adapter.js";
import { serializeRequest } from "./serialize.js";

const API_KEY = "sk-responses-test-0123456789abcdef";
let simulator: Simulator | undefined;
afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

async function setup(scenario: Scenario, options: { idleTimeoutMs?: number; apiKey?: string } = {}) {
  simulator = await startSimulator({ scenario, apiKey: API_KEY, stallMs: 2000 });
  const adapter = new ResponsesAdapter({ baseUrl: simulator.url, apiKey: options.apiKey ?? API_KEY, ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }) });
  return { adapter, runtime: new LlmRuntime({ adapters: [adapter] }) };
}

const system: Message = { role: "system", content: "You are terse and careful. ".repeat(200), source: "system-prompt" };
const user: Message = { role: "user", content: [{ type: "text", text: "What is here?" }], source: "user" };
const tools = [{ name: "list_dir", description: "Lists a directory.", parameters: { type: "object", properties: { path: { type: "string" } } } }];
const config = { provider: "openai-responses", model: "gpt-5.6", reasoningEffort: "medium", cachePolicy: "rolling-v1" } as const;

function followUp(answer: readonly AssistantContent[], callId: string): GenerateOptions {
  return {
    config,
    tools,
    messages: [system, user, { role: "assistant", content: answer, source: "model" }, { role: "tool", callId, toolName: "list_dir", content: [{ type: "text", text: "README.md\nsrc/" }], isError: false, source: "tool" }],
  };
}

describe("ResponsesAdapter on the simulator", () => {
  it("runs a tool session with reasoning: the reasoning item goes back verbatim, each body extends the last and reads the cache", async () => {
    const { runtime } = await setup({ responses: [{ reasoning: "List first.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "A README and src." }] });
    const first = freezeRequest({ config, tools, messages: [system, user] });
    const answer = await runtime.generate(first);
    const firstBody = await serializeRequest(first, { breakpoints: true });
    expect(simulator!.exchanges[0]!.body).toBe(firstBody);
    expect(answer.finishReason).toBe("tool-calls");
    const [reasoning, call] = answer.content;
    expect(reasoning).toMatchObject({ type: "provider-item", api: "openai-responses", item: { type: "reasoning", id: expect.stringMatching(/^rs_/), encrypted_content: expect.any(String) } });
    expect(call).toEqual({ type: "tool-call", callId: expect.stringMatching(/^call_/), name: "list_dir", arguments: '{"path":"."}', itemId: expect.stringMatching(/^fc_.*_rs$/) });
    if (call?.type !== "tool-call" || reasoning?.type !== "provider-item") throw new Error("unexpected answer");

    const second = freezeRequest(followUp(answer.content, call.callId));
    const result = await runtime.generate(second);
    const body = simulator!.exchanges[1]!.body;
    expect(body).toBe(await serializeRequest(second, { breakpoints: true }));
    expect(body.startsWith(firstBody.slice(0, -2))).toBe(true);
    expect(body).toContain(JSON.stringify(reasoning.item));
    expect(JSON.parse(body)).toMatchObject({ store: false, include: ["reasoning.encrypted_content"] });
    expect(body).not.toContain("previous_response_id");
    expect(result.content).toEqual([
      { type: "provider-item", api: "openai-responses", item: expect.objectContaining({ type: "reasoning" }) },
      { type: "text", text: "A README and src.", itemId: expect.stringMatching(/^msg_/) },
    ]);
    expect(result.usage?.cacheReadTokens).toBeGreaterThanOrEqual(1024);
    expect(result.usage?.inputTokens).toBe(simulator!.exchanges[1]!.promptTokens);
  });

  it("is refused, as the real API refuses it, when a function call comes back without its reasoning item or with altered reasoning", async () => {
    const { runtime } = await setup({ responses: [{ reasoning: "List first.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "never" }, { text: "never" }] });
    const answer = await runtime.generate({ config, tools, messages: [system, user] });
    const call = answer.content.find((block) => block.type === "tool-call");
    if (call?.type !== "tool-call") throw new Error("no call");
    const withoutReasoning = answer.content.filter((block) => block.type !== "provider-item");
    await expect(runtime.generate(followUp(withoutReasoning, call.callId))).rejects.toMatchObject({ code: "LLM_BAD_REQUEST", status: 400, message: expect.stringContaining("without its required 'reasoning' item") });
    const altered = answer.content.map((block) => (block.type === "provider-item" ? { ...block, item: { ...block.item, encrypted_content: "bm90IGl0.x" } } : block));
    await expect(runtime.generate(followUp(altered, call.callId))).rejects.toMatchObject({ code: "LLM_BAD_REQUEST", message: expect.stringContaining("could not be verified") });
  });

  it.each([
    ["HTTP 429", { fault: "http-429" as const }, { code: "LLM_RATE_LIMITED", retryable: true, status: 429 }],
    ["HTTP 500", { fault: "http-500" as const }, { code: "LLM_SERVER_ERROR", retryable: true, status: 500 }],
    ["a truncated stream", { fault: "truncate" as const }, { code: "LLM_STREAM_INTERRUPTED", retryable: true }],
    ["a malformed event", { fault: "malformed" as const }, { code: "LLM_MALFORMED_STREAM", retryable: true }],
    ["a stalled stream", { fault: "stall" as const }, { code: "LLM_TIMEOUT", retryable: true }],
    ["an error event", { text: "partial", fault: "overloaded" as const }, { code: "LLM_SERVER_ERROR", message: expect.stringContaining("overloaded") }],
  ])("maps %s to a typed error", async (_what, response, expected) => {
    const { runtime } = await setup({ responses: [response] }, { idleTimeoutMs: 300 });
    await expect(runtime.generate({ config, messages: [system, user] })).rejects.toMatchObject(expected);
  });

  it("reports a response cut at the output limit as finish reason length, its text kept", async () => {
    const { runtime } = await setup({ responses: [{ text: "Cut sho", finishReason: "length" }] });
    const result = await runtime.generate({ config, messages: [system, user] });
    // The message was cut off: it is kept whole, status and all, beside its text.
    expect(result).toMatchObject({
      finishReason: "length",
      content: [expect.objectContaining({ type: "provider-item" }), { type: "text", text: "Cut sho", itemId: expect.any(String) }, { type: "provider-item", item: expect.objectContaining({ type: "message", status: "incomplete" }) }],
    });
  });

  it("never sends back reasoning that ended an answer cut off before what it reasoned toward, which the API refuses", async () => {
    const { runtime } = await setup({ responses: [{ reasoning: "Thinking long.", finishReason: "length" }, { text: "Done." }] });
    const cut = await runtime.generate({ config, messages: [system, user] });
    expect(cut).toMatchObject({ finishReason: "length", content: [{ type: "provider-item", item: expect.objectContaining({ type: "reasoning" }) }] });
    const next = freezeRequest({ config, messages: [system, user, { role: "assistant", content: cut.content, source: "model" }, { role: "user", content: [{ type: "text", text: "Go on." }], source: "user" }] });
    await expect(runtime.generate(next)).resolves.toMatchObject({ finishReason: "stop" });
    expect(simulator!.exchanges[1]!.body).not.toContain('"type":"reasoning"');
  });

  it("refuses a retired model before sending, and never echoes the key", async () => {
    const { runtime } = await setup({ responses: [{ text: "x" }] }, { apiKey: "sk-wrong-key-should-not-appear" });
    await expect(runtime.generate({ config: { provider: "openai-responses", model: "gpt-4.5-preview" }, messages: [user] })).rejects.toMatchObject({ code: "LLM_MODEL_RETIRED" });
    expect(simulator!.exchanges).toHaveLength(0);
    const failure = await runtime.generate({ config, messages: [user] }).then(() => new Error("expected a failure"), (error: unknown) => error as Error);
    expect(failure).toMatchObject({ code: "LLM_AUTH", status: 401 });
    expect(`${failure.message} ${String(failure.stack)}`).not.toContain("sk-wrong-key-should-not-appear");
  });
});
