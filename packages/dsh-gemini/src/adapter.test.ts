import { LlmRuntime, freezeRequest, type AssistantContent, type GenerateOptions, type Message } from "dsh-llm";
import { startSimulator, type Scenario, type Simulator } from "dsh-simulator";
import { afterEach, describe, expect, it } from "vitest";
import { GeminiAdapter } from "./adapter.js";
import { serializeRequest } from "./serialize.js";

const API_KEY = "AIza-gemini-test-0123456789abcdef";
let simulator: Simulator | undefined;
afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

/** A real fetch that also notes each URL and its headers. */
function noting(seen: { url: string; headers: Record<string, string> }[]): typeof fetch {
  return (input, init) => {
    seen.push({ url: String(input), headers: init?.headers as Record<string, string> });
    return fetch(input, init);
  };
}

async function setup(scenario: Scenario, options: { apiKey?: string; idleTimeoutMs?: number } = {}) {
  simulator = await startSimulator({ scenario, apiKey: API_KEY, stallMs: 2000 });
  const seen: { url: string; headers: Record<string, string> }[] = [];
  const adapter = new GeminiAdapter({ baseUrl: `${simulator.origin}/v1beta`, apiKey: options.apiKey ?? API_KEY, fetch: noting(seen), ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }) });
  return { adapter, seen, runtime: new LlmRuntime({ adapters: [adapter] }) };
}

const system: Message = { role: "system", content: "You are terse and careful. ".repeat(900), source: "system-prompt" };
const user: Message = { role: "user", content: [{ type: "text", text: "What is here?" }], source: "user" };
const tools = [{ name: "list_dir", description: "Lists a directory.", parameters: { type: "object", properties: { path: { type: "string" } } } }];
const config = { provider: "gemini", model: "gemini-3.8-flash", reasoningEffort: "high" } as const;

function followUp(answer: readonly AssistantContent[], callId: string): GenerateOptions {
  return {
    config,
    tools,
    messages: [system, user, { role: "assistant", content: answer, source: "model" }, { role: "tool", callId, toolName: "list_dir", content: [{ type: "text", text: "README.md\nsrc/" }], isError: false, source: "tool" }],
  };
}

describe("GeminiAdapter on the simulator", () => {
  it("runs a tool session with thinking: signatures go back in place, arguments as written, each body extends the last and reads the cache", async () => {
    const { runtime, seen } = await setup({ responses: [{ reasoning: "List first.", toolCalls: [{ name: "list_dir", arguments: '{"path": ".", "2": 0, "1": 1}' }] }, { text: "A README and src." }] });
    const first = freezeRequest({ config, tools, messages: [system, user] });
    const answer = await runtime.generate(first);
    const firstBody = await serializeRequest(first);
    expect(simulator!.exchanges[0]!.body).toBe(firstBody);
    expect(seen[0]!.url).toBe(`${simulator!.origin}/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse`);
    expect(seen[0]!.headers).toEqual({ "content-type": "application/json", accept: "text/event-stream", "x-goog-api-key": API_KEY });
    expect(answer.finishReason).toBe("tool-calls");
    const [thought, call] = answer.content;
    expect(thought).toEqual({ type: "reasoning", text: "List first." });
    // Gemini named no id: the call has one of dsh's, and the arguments are the model's text, keys in its order.
    expect(call).toEqual({ type: "tool-call", callId: expect.stringMatching(/^sim_.*-0$/), name: "list_dir", arguments: '{"path": ".", "2": 0, "1": 1}', thoughtSignature: expect.any(String) });
    if (call?.type !== "tool-call") throw new Error("unexpected answer");

    const second = freezeRequest(followUp(answer.content, call.callId));
    const result = await runtime.generate(second);
    const body = simulator!.exchanges[1]!.body;
    expect(body).toBe(await serializeRequest(second));
    expect(body.startsWith(firstBody.slice(0, -2))).toBe(true);
    expect(body).toContain(`{"functionCall":{"name":"list_dir","args":{"path": ".", "2": 0, "1": 1}},"thoughtSignature":${JSON.stringify(call.thoughtSignature)}}`);
    expect(body).toContain('{"functionResponse":{"name":"list_dir","response":{"output":"README.md\\nsrc/"}}}');
    // The thought had no signature: it stays in the log and is not sent back.
    expect(body).not.toContain("List first.");
    expect(result.content).toEqual([
      { type: "reasoning", text: "Let me work out the next step." },
      { type: "text", text: "A README and src.", thoughtSignature: expect.any(String) },
    ]);
    expect(result.usage?.cacheReadTokens).toBeGreaterThanOrEqual(4096);
    expect(result.usage?.inputTokens).toBe(simulator!.exchanges[1]!.promptTokens);
    expect(result.usage?.reasoningTokens).toBeGreaterThan(0);
    expect(seen.every(({ url }) => !url.includes(API_KEY))).toBe(true);
  });

  it("is refused by the provider when a signature is dropped or altered, and sends a text answer's signature back", async () => {
    // A refused request takes no reply from the scenario.
    const { runtime } = await setup({ responses: [{ toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "Done." }, { text: "next" }] });
    const answer = await runtime.generate(freezeRequest({ config, tools, messages: [system, user] }));
    const call = answer.content.find((block) => block.type === "tool-call");
    if (call?.type !== "tool-call") throw new Error("no call");
    const { thoughtSignature, ...unsigned } = call;
    const dropped = answer.content.map((block) => (block === call ? unsigned : block));
    await expect(runtime.generate(freezeRequest(followUp(dropped, call.callId)))).rejects.toMatchObject({ code: "LLM_BAD_REQUEST", message: expect.stringContaining("missing a thought_signature") });
    const altered = answer.content.map((block) => (block === call ? { ...call, thoughtSignature: `${thoughtSignature}x` } : block));
    await expect(runtime.generate(freezeRequest(followUp(altered, call.callId)))).rejects.toMatchObject({ code: "LLM_BAD_REQUEST", message: expect.stringContaining("Corrupted thought signature") });
    const done = await runtime.generate(freezeRequest(followUp(answer.content, call.callId)));
    const next = freezeRequest({ ...followUp(answer.content, call.callId), messages: [...followUp(answer.content, call.callId).messages, { role: "assistant", content: done.content, source: "model" }, { role: "user", content: [{ type: "text", text: "And?" }], source: "user" }] });
    expect((await runtime.generate(next)).content.at(-1)).toMatchObject({ type: "text", text: "next" });
    expect(simulator!.exchanges.at(-1)!.body).toContain(`{"text":"Done.","thoughtSignature":`);
  });

  it("refuses a retired model, a thinking level the model does not take, and an empty text part before sending anything", async () => {
    const { runtime } = await setup({ responses: [{ text: "unused" }] });
    await expect(runtime.generate(freezeRequest({ config: { ...config, model: "gemini-2.5-pro" }, messages: [user] }))).rejects.toMatchObject({ code: "LLM_MODEL_RETIRED", message: expect.stringContaining("gemini-3.8-flash") });
    await expect(runtime.generate(freezeRequest({ config: { ...config, reasoningEffort: "minimal" }, messages: [user] }))).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: "gemini-3.8-flash takes the thinking levels low, medium, high: reasoningEffort minimal has no counterpart" });
    await expect(runtime.generate(freezeRequest({ config, messages: [{ role: "user", content: [{ type: "text", text: "" }], source: "user" }] }))).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST" });
    expect(simulator!.exchanges).toHaveLength(0);
    // Were the catalog wrong, the provider (here its simulator) would refuse the level after the bytes went out.
    const lax = new LlmRuntime({ adapters: [new GeminiAdapter({ baseUrl: `${simulator!.origin}/v1beta`, apiKey: API_KEY, catalog: { models: {}, retired: {} } })] });
    await expect(lax.generate(freezeRequest({ config: { ...config, reasoningEffort: "minimal" }, messages: [user] }))).rejects.toMatchObject({ code: "LLM_BAD_REQUEST", message: expect.stringContaining("MINIMAL is not supported") });
  });

  it("maps the provider's errors and faults: a wrong key, quota, a mid-stream error, a cut stream", async () => {
    simulator = await startSimulator({ scenario: { responses: [{ text: "unused" }] }, apiKey: API_KEY });
    const seen: { url: string; headers: Record<string, string> }[] = [];
    const keyless = new LlmRuntime({ adapters: [new GeminiAdapter({ baseUrl: `${simulator.origin}/v1beta`, fetch: noting(seen) })] });
    await expect(keyless.generate(freezeRequest({ config, messages: [user] }))).rejects.toMatchObject({ code: "LLM_AUTH" });
    expect(seen[0]!.headers).toEqual({ "content-type": "application/json", accept: "text/event-stream" });
    await simulator.close();
    const wrong = await setup({ responses: [{ text: "unused" }] }, { apiKey: "AIza-wrong-key-000000000000" });
    const refused = await wrong.runtime.generate(freezeRequest({ config, messages: [user] })).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "LLM_AUTH" });
    expect(String((refused as Error).message)).not.toContain("AIza-wrong-key-000000000000");
    await simulator!.close();
    const faults = await setup({ responses: [{ text: "x", fault: "http-429" }, { text: "x", fault: "overloaded" }, { text: "a long enough answer to be cut in half", fault: "truncate" }] });
    const request = freezeRequest({ config, messages: [user] });
    await expect(faults.runtime.generate(request)).rejects.toMatchObject({ code: "LLM_RATE_LIMITED", retryable: true });
    await expect(faults.runtime.generate(request)).rejects.toMatchObject({ code: "LLM_SERVER_ERROR", retryable: true, message: expect.stringContaining("UNAVAILABLE") });
    await expect(faults.runtime.generate(request)).rejects.toMatchObject({ code: "LLM_STREAM_INTERRUPTED", retryable: true });
  });
});
