import { isDeepFrozen } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { GeminiAdapter } from "./adapter.js";
import { DEFAULT_GEMINI_MODEL, GEMINI_MODELS, geminiDefaults, geminiPrice, lookupGeminiModel, thinkingLevelOf, type GeminiCatalog } from "./catalog.js";
import { assertGeminiWire, geminiWireProfile } from "./wire-profile.js";

describe("the Gemini catalog", () => {
  it("gives every Gemini 3 model a 1M context, the high thinking level by default and a 4,096-token cache minimum; unknown models nothing", () => {
    for (const [name, info] of Object.entries(GEMINI_MODELS.models)) {
      expect(info, name).toMatchObject({ contextWindow: 1_048_576, maxOutputTokens: 65_536, defaultThinkingLevel: "high", minCacheTokens: 4096 });
      expect(info.thinkingLevels, name).toContain("high");
      expect(geminiDefaults(GEMINI_MODELS, name)).toEqual({ reasoningEffort: "high" });
    }
    expect(lookupGeminiModel(GEMINI_MODELS, DEFAULT_GEMINI_MODEL)?.thinkingLevels).toEqual(["low", "medium", "high"]);
    expect(geminiDefaults(GEMINI_MODELS, "my-tuned-model")).toEqual({});
    expect(isDeepFrozen(GEMINI_MODELS)).toBe(true);
  });

  it("prices the models it has a checked price for, cache reads at a tenth of input, and no others", () => {
    expect(geminiPrice(GEMINI_MODELS, "gemini-3.8-flash")).toMatchObject({ input: 0.75, cacheRead: 0.075, output: 3.75, checked: "2026-12-04", source: expect.stringContaining("through 2026-12-31") });
    expect(geminiPrice(GEMINI_MODELS, "gemini-3.5-flash")).toMatchObject({ input: 1.5, cacheRead: 0.15, output: 9 });
    expect(geminiPrice(GEMINI_MODELS, "gemini-3.5-flash-lite")).toMatchObject({ input: 0.3, cacheRead: 0.03, output: 2.5 });
    expect(geminiPrice(GEMINI_MODELS, "gemini-3.1-pro-preview")).toMatchObject({ input: 2, cacheRead: 0.2, output: 12, source: expect.stringContaining("above 200k") });
    expect(geminiPrice(GEMINI_MODELS, "gemini-3.7-flash")).toBeUndefined();
    expect(geminiPrice(GEMINI_MODELS, "my-tuned-model")).toBeUndefined();
    expect(new GeminiAdapter({ baseUrl: "http://127.0.0.1:9" }).price("gemini-3.5-flash")).toEqual(geminiPrice(GEMINI_MODELS, "gemini-3.5-flash"));
  });

  it("refuses a retired name with its replacement, and does not mistake inherited names for models", () => {
    expect(() => lookupGeminiModel(GEMINI_MODELS, "gemini-2.5-flash")).toThrowError(expect.objectContaining({ code: "LLM_MODEL_RETIRED", message: "google retired gemini-2.5-flash on 2026-12-01: use gemini-3.5-flash-lite" }));
    expect(() => new GeminiAdapter({ baseUrl: "http://127.0.0.1:9" }).modelDefaults("gemini-3-pro-preview")).toThrowError(expect.objectContaining({ code: "LLM_MODEL_RETIRED" }));
    expect(lookupGeminiModel(GEMINI_MODELS, "toString")).toBeUndefined();
  });

  it("maps efforts to thinking levels, by the model's list when the catalog knows it", () => {
    expect(thinkingLevelOf("minimal", "unknown-model")).toBe("minimal");
    expect(thinkingLevelOf("medium", "gemini-3.8-flash", GEMINI_MODELS)).toBe("medium");
    expect(thinkingLevelOf("minimal", "gemini-3.5-flash", GEMINI_MODELS)).toBe("minimal");
    expect(() => thinkingLevelOf("minimal", "gemini-3.8-flash", GEMINI_MODELS)).toThrowError(expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false }));
    expect(() => thinkingLevelOf("none", "gemini-3.8-flash")).toThrowError(expect.objectContaining({ message: "gemini-3.8-flash takes the thinking levels minimal, low, medium, high: reasoningEffort none has no counterpart" }));
    expect(thinkingLevelOf("minimal", "my-tuned-model", GEMINI_MODELS)).toBe("minimal");
  });

  it("holds a private frozen copy of a caller's catalog, so changing it later changes nothing", () => {
    const catalog: GeminiCatalog = { models: { "my-model": { contextWindow: 1000, maxOutputTokens: 100, thinkingLevels: ["low"], defaultThinkingLevel: "low" } }, retired: {} };
    const adapter = new GeminiAdapter({ baseUrl: "http://127.0.0.1:9", catalog });
    (catalog.models as Record<string, unknown>)["my-model"] = { contextWindow: 1, maxOutputTokens: 1, thinkingLevels: ["high"], defaultThinkingLevel: "high" };
    expect(adapter.modelDefaults("my-model")).toEqual({ reasoningEffort: "low" });
  });
});

describe("the Gemini wire profile and URL", () => {
  it("logs one profile for every model and accepts only that one back", () => {
    expect(geminiWireProfile()).toEqual({ api: "gemini" });
    expect(new GeminiAdapter({ baseUrl: "http://127.0.0.1:9" }).wireProfile()).toEqual({ api: "gemini" });
    expect(() => assertGeminiWire({ api: "gemini" })).not.toThrow();
    expect(() => assertGeminiWire({ api: "responses", breakpoints: true })).toThrowError(expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false, message: 'the header\'s wire profile {"api":"responses","breakpoints":true} is not a Gemini profile' }));
    expect(() => assertGeminiWire(undefined)).toThrowError(expect.objectContaining({ message: "the header's wire profile (none) is not a Gemini profile" }));
  });

  it("puts the model in the path and never a key in the URL; a base URL with credentials or a key is refused", () => {
    const adapter = new GeminiAdapter({ baseUrl: "https://generativelanguage.googleapis.com/v1beta/", apiKey: "AIza-secret" });
    expect(adapter.url("gemini-3.8-flash")).toBe("https://generativelanguage.googleapis.com/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse");
    expect(adapter.url("tuned/x")).toBe("https://generativelanguage.googleapis.com/v1beta/models/tuned%2Fx:streamGenerateContent?alt=sse");
    expect(adapter.redact("key AIza-secret")).not.toContain("AIza-secret");
    expect(() => new GeminiAdapter({ baseUrl: "https://generativelanguage.googleapis.com/v1beta?key=AIza-secret" })).toThrowError(
      expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false, message: "baseUrl carries a key in its query: give the key as apiKey, which goes in a header" }),
    );
    expect(new GeminiAdapter({ baseUrl: "https://proxy.example.test/gemini/v1beta?tenant=a" }).url("m")).toBe("https://proxy.example.test/gemini/v1beta/models/m:streamGenerateContent?tenant=a&alt=sse");
    expect(() => new GeminiAdapter({ baseUrl: "https://user:pw@example.com" })).toThrowError(expect.objectContaining({ code: "LLM_INVALID_REQUEST" }));
    expect(() => new GeminiAdapter({ baseUrl: "not a url" })).toThrowError(expect.objectContaining({ code: "LLM_INVALID_REQUEST", message: "baseUrl is not a URL" }));
    expect(new GeminiAdapter({ baseUrl: "http://127.0.0.1:9" }).provider).toBe("gemini");
    expect(new GeminiAdapter({ baseUrl: "http://127.0.0.1:9", provider: "sim-gemini" }).provider).toBe("sim-gemini");
  });
});
