import { LlmRuntime, freezeRequest, isDeepFrozen } from "dsh-llm";
import { startSimulator } from "dsh-simulator";
import { describe, expect, it } from "vitest";
import { ChatCompletionsAdapter } from "./adapter.js";
import { DEEPSEEK_MODELS, OPENAI_MODELS, type ModelCatalog } from "./catalog.js";
import { chatWireProfile, serializeOptionsOfWire } from "./wire-profile.js";

describe("the catalogs the adapter consults", () => {
  it("are frozen: nothing running in the process can change a model's defaults mid-session", () => {
    expect(isDeepFrozen(DEEPSEEK_MODELS)).toBe(true);
    expect(isDeepFrozen(OPENAI_MODELS)).toBe(true);
    expect(() => {
      (DEEPSEEK_MODELS.models["deepseek-v4-flash"] as { defaultReasoningEffort: string }).defaultReasoningEffort = "low";
    }).toThrow(TypeError);
  });

  it("are held by value: a caller's catalog changed after the adapter was made changes no default and no retirement", async () => {
    const catalog = structuredClone(DEEPSEEK_MODELS) as { models: Record<string, { defaultReasoningEffort: string }>; retired: Record<string, unknown> };
    const sim = await startSimulator({ scenario: { responses: [{ text: "one" }] } });
    try {
      const adapter = new ChatCompletionsAdapter({ provider: "deepseek", baseUrl: sim.origin, dialect: "deepseek", catalog: catalog as unknown as ModelCatalog });
      catalog.models["deepseek-v4-flash"]!.defaultReasoningEffort = "low";
      catalog.retired["deepseek-v4-flash"] = { replacement: "x", retiredAt: "2026-01-01T00:00:00Z" };
      expect(adapter.modelDefaults("deepseek-v4-flash")).toEqual({ reasoningEffort: "high" });
      const runtime = new LlmRuntime({ adapters: [adapter] });
      const request = freezeRequest({ config: { provider: adapter.provider, model: "deepseek-v4-flash" }, messages: [{ role: "user", content: [{ type: "text", text: "hi" }], source: "user" }] });
      expect((await runtime.generate(request)).content.at(-1)).toEqual({ type: "text", text: "one" });
    } finally {
      await sim.close();
    }
  });
});

describe("the wire profile the header logs", () => {
  it("names the dialect, the one setting that shapes the body, and turns back into it", () => {
    const adapter = new ChatCompletionsAdapter({ provider: "proxy", baseUrl: "http://127.0.0.1:9", dialect: "openai" });
    expect(adapter.wireProfile()).toEqual({ api: "chat-completions", dialect: "openai" });
    expect(serializeOptionsOfWire(adapter.wireProfile())).toEqual({ dialect: "openai" });
    expect(serializeOptionsOfWire(chatWireProfile("deepseek"))).toEqual({ dialect: "deepseek" });
  });

  it("refuses a profile that names no Chat Completions dialect, naming it", () => {
    expect(() => serializeOptionsOfWire({ api: "chat-completions", dialect: "other" })).toThrow('the header\'s wire profile {"api":"chat-completions","dialect":"other"} does not name a Chat Completions dialect (deepseek or openai)');
    expect(() => serializeOptionsOfWire({ api: "messages" })).toThrow(expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false }));
    expect(() => serializeOptionsOfWire({ dialect: "openai" })).toThrow(/does not name a Chat Completions dialect/);
    expect(() => serializeOptionsOfWire(undefined)).toThrow(/\(none\)/);
  });
});
