import { Agent, createAgentRegistry, defineTool, reconstructRequests } from "dsh-agent";
import { AnthropicAdapter } from "dsh-anthropic";
import { GeminiAdapter } from "dsh-gemini";
import type { RequestHeaderSnapshot } from "dsh-header";
import { LlmRuntime, type LlmAdapter, type LlmCallConfig } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { ResponsesAdapter } from "dsh-openai-responses";
import { startSimulator, type Simulator } from "dsh-simulator";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { LEGACY_WIRES, wireApiOf, wireBody, wireSha256 } from "./wire.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const clock = defineTool({ name: "clock", description: "The time", parameters: z.object({ zone: z.string() }), execute: () => "12:00" });

/** Two turns with a tool call against `adapter` on the simulator; the bodies it received, and the log's rebuilt ones. */
async function session(adapter: (sim: Simulator) => LlmAdapter, config: LlmCallConfig) {
  sim = await startSimulator({ scenario: { responses: [{ reasoning: "Look it up.", toolCalls: [{ name: "clock", arguments: { zone: "UTC" } }] }, { text: "Noon." }, { text: "Still noon." }] } });
  const log = new EventLog({ registry: createAgentRegistry() });
  const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [adapter(sim)] }), config, systemPrompt: "Be brief. ".repeat(300), tools: [clock] });
  await agent.run("What time is it?");
  await agent.run("And now?");
  const rebuilt = await Promise.all((await reconstructRequests(log)).map((request) => wireBody(request)));
  return { received: sim.exchanges.map((exchange) => exchange.body), rebuilt };
}

describe("wireBody", () => {
  it.each([
    ["Chat Completions, DeepSeek's dialect", (s: Simulator) => new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: s.url }), { provider: "deepseek", model: "deepseek-v4-flash" }],
    ["Chat Completions, OpenAI's dialect", (s: Simulator) => new ChatCompletionsAdapter({ provider: "openai", dialect: "openai", baseUrl: s.url }), { provider: "openai", model: "gpt-5.5" }],
    ["the Responses API", (s: Simulator) => new ResponsesAdapter({ baseUrl: s.url, apiKey: "sk-test" }), { provider: "openai-responses", model: "gpt-5.6", reasoningEffort: "medium" }],
    ["the Messages API", (s: Simulator) => new AnthropicAdapter({ baseUrl: s.origin, apiKey: "sk-test" }), { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 1024 }],
    ["the Gemini API", (s: Simulator) => new GeminiAdapter({ baseUrl: `${s.origin}/v1beta`, apiKey: "test" }), { provider: "gemini", model: "gemini-3.8-flash" }],
  ] as const)("rebuilds every body sent on %s, byte for byte, from the log alone", async (_name, adapter, config) => {
    const { received, rebuilt } = await session(adapter, config);
    expect(received).toHaveLength(3);
    expect(rebuilt).toEqual(received);
  });
});

describe("wireApiOf", () => {
  const snapshot = (provider: string, wire?: RequestHeaderSnapshot["header"]["wire"]): Pick<Parameters<typeof wireApiOf>[0], "snapshot"> => ({
    snapshot: { reason: "initial", header: { config: { provider, model: "m" }, ...(wire === undefined ? {} : { wire }) } } as RequestHeaderSnapshot,
  });

  it("reads the API, and a dialect, from the header's wire profile, whatever the provider is called", () => {
    expect(wireApiOf(snapshot("acme", { api: "messages" }))).toEqual({ api: "messages" });
    expect(wireApiOf(snapshot("acme", { api: "responses" }))).toEqual({ api: "responses" });
    expect(wireApiOf(snapshot("acme", { api: "gemini" }))).toEqual({ api: "gemini" });
    expect(wireApiOf(snapshot("acme", { api: "chat-completions", dialect: "openai" }))).toEqual({ api: "chat-completions", dialect: "openai" });
  });

  it("falls back, for a log written before headers carried a profile, on the providers dsh's CLI ran then, and names any other", () => {
    for (const [provider, wire] of Object.entries(LEGACY_WIRES)) expect(wireApiOf(snapshot(provider))).toEqual(wire);
    expect(Object.keys(LEGACY_WIRES).sort()).toEqual(["anthropic", "deepseek", "gemini", "openai", "openai-responses", "sim", "sim-anthropic", "sim-gemini", "sim-openai-responses"]);
    expect(() => wireApiOf(snapshot("acme"))).toThrow(expect.objectContaining({ code: "WIRE_UNKNOWN_PROVIDER", message: "the log names provider acme and no wire profile, so how its requests were serialized cannot be told" }));
    expect(() => wireApiOf(snapshot("toString"))).toThrow(expect.objectContaining({ code: "WIRE_UNKNOWN_PROVIDER" }));
  });
});

describe("wireSha256", () => {
  it("is the SHA-256 of the body's UTF-8 bytes, in hex", () => {
    expect(wireSha256("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(wireSha256("é")).toBe("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c");
  });
});
