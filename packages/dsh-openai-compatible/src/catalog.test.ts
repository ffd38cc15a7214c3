import { LlmError, LlmRuntime, freezeRequest } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { ChatCompletionsAdapter } from "./adapter.js";
import { DEEPSEEK_MODELS, OPENAI_MODELS, catalogDefaults, catalogPrice, lookupModel } from "./catalog.js";
import { mapUsage } from "./stream.js";

describe("model catalogs", () => {
  it("price DeepSeek at its off-peak rates, doubled in its weekday peak hours, and OpenAI at its standard rates", () => {
    expect(catalogPrice(DEEPSEEK_MODELS, "deepseek-v4-flash")).toMatchObject({ input: 0.15, cacheRead: 0.003, output: 0.6, checked: "2026-12-04", peak: { factor: 2, weekdaysOnly: true } });
    expect(catalogPrice(DEEPSEEK_MODELS, "deepseek-v4-pro")).toMatchObject({ input: 0.66, cacheRead: 0.022, output: 1.98 });
    expect(catalogPrice(DEEPSEEK_MODELS, "deepseek-v4-pro")?.peak?.hoursUtc).toEqual([{ from: 1, to: 4 }, { from: 6, to: 10 }]);
    expect(catalogPrice(OPENAI_MODELS, "gpt-5.5")).toMatchObject({ input: 5, cacheRead: 0.5, output: 30 });
    expect(catalogPrice(OPENAI_MODELS, "gpt-5.2")).toMatchObject({ input: 1.75, cacheRead: 0.175, output: 14 });
    expect(catalogPrice(OPENAI_MODELS, "gpt-5-mini")).toMatchObject({ input: 0.25, cacheRead: 0.025, output: 2 });
    expect(catalogPrice(OPENAI_MODELS, "gpt-5.5")?.cacheWrite5m).toBeUndefined(); // no write surcharge
    expect(catalogPrice(DEEPSEEK_MODELS, "deepseek-v5-preview")).toBeUndefined();
    expect(() => catalogPrice(DEEPSEEK_MODELS, "deepseek-chat")).toThrow(expect.objectContaining({ code: "LLM_MODEL_RETIRED" }));
    const adapter = (catalog?: typeof DEEPSEEK_MODELS) => new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: "http://127.0.0.1:9", ...(catalog === undefined ? {} : { catalog }) });
    expect(adapter(DEEPSEEK_MODELS).price("deepseek-v4-flash")).toBe(catalogPrice(DEEPSEEK_MODELS, "deepseek-v4-flash"));
    expect(adapter().price("deepseek-v4-flash")).toBeUndefined();
  });

  it("describe DeepSeek V4: a 1M-token window, thinking on by default at effort high, text only", () => {
    for (const model of ["deepseek-v4-flash", "deepseek-v4-pro"]) {
      expect(lookupModel(DEEPSEEK_MODELS, model)).toMatchObject({ contextWindow: 1_048_576, thinkingByDefault: true, defaultReasoningEffort: "high", imageInput: false });
      expect(catalogDefaults(DEEPSEEK_MODELS, model)).toEqual({ reasoningEffort: "high" });
    }
  });

  it("refuse a retired name with one line naming its replacement", () => {
    for (const model of ["deepseek-chat", "deepseek-reasoner"]) {
      const attempt = () => lookupModel(DEEPSEEK_MODELS, model);
      expect(attempt).toThrow(LlmError);
      expect(attempt).toThrow(`deepseek retired ${model} on 2026-07-24: use deepseek-v4-flash`);
      expect(() => catalogDefaults(DEEPSEEK_MODELS, model)).toThrow(expect.objectContaining({ code: "LLM_MODEL_RETIRED", retryable: false }));
    }
  });

  it("pass an unknown name through without defaults, and do not read inherited keys as models", () => {
    expect(lookupModel(DEEPSEEK_MODELS, "deepseek-v5-preview")).toBeUndefined();
    expect(catalogDefaults(DEEPSEEK_MODELS, "deepseek-v5-preview")).toEqual({});
    expect(lookupModel(OPENAI_MODELS, "toString")).toBeUndefined();
    expect(catalogDefaults(OPENAI_MODELS, "constructor")).toEqual({});
  });

  it("give OpenAI's reasoning models no effort default the provider does not document", () => {
    expect(lookupModel(OPENAI_MODELS, "gpt-5.5")).toMatchObject({ contextWindow: 1_050_000, maxOutputTokens: 128_000, imageInput: true });
    expect(catalogDefaults(OPENAI_MODELS, "gpt-5.5")).toEqual({});
  });
});

describe("ChatCompletionsAdapter with a catalog", () => {
  it("supplies the catalog's defaults, unless modelDefaults is given", () => {
    const adapter = new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: "http://127.0.0.1:1", catalog: DEEPSEEK_MODELS });
    expect(adapter.modelDefaults("deepseek-v4-pro")).toEqual({ reasoningEffort: "high" });
    const own = new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: "http://127.0.0.1:1", catalog: DEEPSEEK_MODELS, modelDefaults: () => ({ maxTokens: 9 }) });
    expect(own.modelDefaults("deepseek-v4-pro")).toEqual({ maxTokens: 9 });
    expect(() => own.modelDefaults("deepseek-chat")).toThrow(expect.objectContaining({ code: "LLM_MODEL_RETIRED" }));
  });

  it("refuses a retired model before sending anything", async () => {
    let sent = 0;
    const fetchCounting: typeof fetch = () => {
      sent++;
      return Promise.reject(new Error("unreachable"));
    };
    const adapter = new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: "http://127.0.0.1:1", catalog: DEEPSEEK_MODELS, fetch: fetchCounting });
    const runtime = new LlmRuntime({ adapters: [adapter] });
    const request = freezeRequest({ config: { provider: "deepseek", model: "deepseek-reasoner" }, messages: [{ role: "user", content: [{ type: "text", text: "hi" }], source: "user" }] });
    await expect(runtime.generate(request)).rejects.toMatchObject({ code: "LLM_MODEL_RETIRED", message: "deepseek retired deepseek-reasoner on 2026-07-24: use deepseek-v4-flash" });
    expect(sent).toBe(0);
  });
});

describe("mapUsage", () => {
  it("reads DeepSeek's cache hits and reasoning tokens", () => {
    expect(mapUsage({ prompt_tokens: 100, completion_tokens: 30, prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36, completion_tokens_details: { reasoning_tokens: 20 } })).toEqual({
      inputTokens: 100,
      outputTokens: 30,
      cacheReadTokens: 64,
      cacheWriteTokens: 0,
      reasoningTokens: 20,
    });
  });

  it("reads OpenAI's cached and cache-write tokens", () => {
    expect(mapUsage({ prompt_tokens: 2048, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 1024, cache_write_tokens: 512 } })).toEqual({
      inputTokens: 2048,
      outputTokens: 5,
      cacheReadTokens: 1024,
      cacheWriteTokens: 512,
    });
  });
});
