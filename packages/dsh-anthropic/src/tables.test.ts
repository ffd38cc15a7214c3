import { LlmRuntime, freezeRequest, isDeepFrozen } from "dsh-llm";
import { startSimulator } from "dsh-simulator";
import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "./adapter.js";
import { BREAKPOINT_POLICIES, rollingPolicy } from "./breakpoints.js";
import { CLAUDE_MODELS, claudePriceOf, type ClaudeCatalog } from "./catalog.js";
import { serializeRequest } from "./serialize.js";
import { messagesWireProfile, serializeOptionsOfWire } from "./wire-profile.js";
import { toolSessionRequest } from "./test-support/session.js";

describe("the tables the serializer consults", () => {
  it("are frozen: code running in the process cannot swap a policy or a model mid-session", () => {
    expect(isDeepFrozen(CLAUDE_MODELS)).toBe(true);
    expect(Object.isFrozen(BREAKPOINT_POLICIES)).toBe(true);
    expect(() => {
      (BREAKPOINT_POLICIES as Record<string, unknown>)["rolling-v1"] = () => [];
    }).toThrow(TypeError);
    expect(() => {
      (CLAUDE_MODELS.models["claude-sonnet-4-6"] as { thinking: string }).thinking = "budget";
    }).toThrow(TypeError);
    expect(BREAKPOINT_POLICIES["rolling-v1"]).toBe(rollingPolicy);
  });

  it("are held by value: a caller's catalog changed after the adapter was made changes nothing sent", async () => {
    const sim = await startSimulator({ scenario: { responses: [{ text: "one" }, { text: "two" }] } });
    try {
      const catalog = structuredClone(CLAUDE_MODELS) as { models: Record<string, { thinking: string }> };
      const adapter = new AnthropicAdapter({ baseUrl: sim.origin, catalog: catalog as unknown as ClaudeCatalog });
      const runtime = new LlmRuntime({ adapters: [adapter] });
      const request = freezeRequest({ ...toolSessionRequest([]), config: { ...toolSessionRequest([]).config, reasoningEffort: "low" } });
      await runtime.generate(request);
      catalog.models["claude-sonnet-4-6"]!.thinking = "budget";
      await runtime.generate(request);
      const [first, second] = sim.exchanges;
      expect(second!.body).toBe(first!.body);
      expect(first!.body).toBe(await serializeRequest(request));
    } finally {
      await sim.close();
    }
  });
});

describe("the wire profile the header logs", () => {
  it("rebuilds with the sending adapter's rules for the model, whatever catalog the rebuilding process has", async () => {
    const { price: _price, ...sonnet } = CLAUDE_MODELS.models["claude-sonnet-4-6"]!;
    const custom: ClaudeCatalog = { models: { "claude-sonnet-4-6": { ...sonnet, thinking: "budget" } }, retired: {} };
    const adapter = new AnthropicAdapter({ catalog: custom });
    const request = freezeRequest({ ...toolSessionRequest([]), config: { ...toolSessionRequest([]).config, reasoningEffort: "low" } });
    const wire = adapter.wireProfile("claude-sonnet-4-6");
    expect(wire).toEqual({ api: "messages", model: { ...sonnet, thinking: "budget" } });
    const sent = await serializeRequest(request, { catalog: custom });
    expect(sent).toContain('"thinking":{"type":"enabled"');
    expect(await serializeRequest(request)).not.toBe(sent);
    expect(await serializeRequest(request, serializeOptionsOfWire("claude-sonnet-4-6", wire))).toBe(sent);
    expect(new AnthropicAdapter().wireProfile("a-model-no-catalog-knows")).toEqual({ api: "messages" });
  });

  it("records an endpoint that ignores cache_control (DeepSeek's, or as told), and rebuilds the same body from it", async () => {
    const { price, ...sonnet } = CLAUDE_MODELS.models["claude-sonnet-4-6"]!;
    expect(price).toBeDefined(); // a price the wire profile leaves out: it shapes no body
    expect(new AnthropicAdapter({ baseUrl: "https://api.deepseek.com/anthropic" }).wireProfile("claude-sonnet-4-6")).toEqual({ api: "messages", model: sonnet, automaticCache: true });
    expect(new AnthropicAdapter({ baseUrl: "https://api.deepseek.com/anthropic", automaticCache: false }).wireProfile("x")).toEqual({ api: "messages" });
    expect(new AnthropicAdapter({ baseUrl: "https://proxy.example/", automaticCache: true }).wireProfile("x")).toEqual({ api: "messages", automaticCache: true });
    expect(new AnthropicAdapter().wireProfile("claude-sonnet-4-6")).not.toHaveProperty("automaticCache");
    const request = freezeRequest(toolSessionRequest([]));
    expect(await serializeRequest(request, serializeOptionsOfWire("claude-sonnet-4-6", { api: "messages", model: { ...sonnet }, automaticCache: true }))).toBe(await serializeRequest(request));
  });

  it("refuses a profile that is not a Messages one, naming it", () => {
    expect(() => serializeOptionsOfWire("m", { api: "chat-completions", dialect: "deepseek" })).toThrow(/is not a Messages API profile/);
    expect(() => serializeOptionsOfWire("m", { api: "messages", model: { thinking: "adaptive" } })).toThrow(expect.objectContaining({ code: "LLM_INVALID_REQUEST" }));
    expect(() => serializeOptionsOfWire("m", undefined)).toThrow(/\(none\)/);
    const { price: _price, ...sonnet } = CLAUDE_MODELS.models["claude-sonnet-4-6"]!;
    for (const model of [null, [], "x", { ...sonnet, thinking: "sometimes" }, { ...sonnet, contextWindow: "big" }]) {
      expect(() => serializeOptionsOfWire("m", { api: "messages", model: model as never })).toThrow(expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false, message: expect.stringContaining("is not a Messages API profile") }));
    }
    expect(serializeOptionsOfWire("m", { api: "messages" })).toEqual({ catalog: { models: {}, retired: {} } });
    expect(serializeOptionsOfWire("m", { api: "messages", model: { ...sonnet } })).toEqual({ catalog: { models: { m: sonnet }, retired: {} } });
    expect(messagesWireProfile(undefined)).toEqual({ api: "messages" });
  });
});

describe("prices", () => {
  it("prices Claude models at Anthropic's rates (writes 1.25x and 2x input, reads 0.1x), and an unknown model at nothing", () => {
    const adapter = new AnthropicAdapter();
    expect(adapter.price("claude-opus-4-8")).toMatchObject({ input: 5, cacheWrite5m: 6.25, cacheWrite1h: 10, cacheRead: 0.5, output: 25, checked: "2026-12-04" });
    expect(adapter.price("claude-sonnet-4-5-20250929")).toMatchObject({ input: 3, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3, output: 15 });
    expect(adapter.price("claude-haiku-4-5")).toMatchObject({ input: 1, cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1, output: 5 });
    expect(adapter.price("claude-opus-4-5")?.input).toBe(5);
    expect(adapter.price("a-model-no-catalog-knows")).toBeUndefined();
    expect(claudePriceOf(CLAUDE_MODELS, "deepseek-v4-flash")).toBeUndefined();
    // A price is no rule for the body: changing it leaves the wire profile as it was.
    const { price: _price, ...rules } = CLAUDE_MODELS.models["claude-opus-4-8"]!;
    const repriced = new AnthropicAdapter({ catalog: { models: { "claude-opus-4-8": { ...rules, price: { ...adapter.price("claude-opus-4-8")!, input: 1 } } }, retired: {} } });
    expect(repriced.wireProfile("claude-opus-4-8")).toEqual(adapter.wireProfile("claude-opus-4-8"));
  });
});
