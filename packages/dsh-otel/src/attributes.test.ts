import { describe, expect, it } from "vitest";
import { addUsage, cacheReadAttributes, finishReasonName, providerName, requestAttributes, usageAttributes } from "./attributes.js";

describe("providerName", () => {
  it("maps dsh's provider ids to the conventions' names and keeps any other id", () => {
    expect(["gemini", "sim-gemini", "gemini-vertex"].map(providerName)).toEqual(["gcp.gemini", "sim-gemini", "gemini-vertex"]);
    expect(["openai", "openai-responses", "sim-openai-responses", "anthropic", "anthropic-vertex", "deepseek", "deepseek-chat", "sim"].map(providerName)).toEqual([
      "openai",
      "openai",
      "sim-openai-responses",
      "anthropic",
      "anthropic",
      "deepseek",
      "deepseek-chat",
      "sim",
    ]);
  });
});

describe("finishReasonName", () => {
  it("spells finish reasons as the conventions do", () => {
    expect(["stop", "length", "tool-calls", "content-filter", "other"].map((reason) => finishReasonName(reason as never))).toEqual(["stop", "length", "tool_calls", "content_filter", "other"]);
  });
});

describe("usageAttributes and addUsage", () => {
  const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 64, cacheWriteTokens: 8 };

  it("gives the conventions' usage attributes, cache writes under both names, reasoning only when logged", () => {
    expect(usageAttributes(usage)).toEqual({
      "gen_ai.usage.input_tokens": 100,
      "gen_ai.usage.output_tokens": 20,
      "gen_ai.usage.cache_read.input_tokens": 64,
      "gen_ai.usage.cache_creation.input_tokens": 8,
      "gen_ai.usage.cache_write.input_tokens": 8,
    });
    expect(usageAttributes({ ...usage, reasoningTokens: 5 })["gen_ai.usage.reasoning.output_tokens"]).toBe(5);
  });

  it("sums usages, keeping reasoning when either had it", () => {
    expect(addUsage(undefined, usage)).toBe(usage);
    expect(addUsage(usage, { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4 })).toEqual({ inputTokens: 101, outputTokens: 22, cacheReadTokens: 67, cacheWriteTokens: 12 });
    expect(addUsage({ ...usage, reasoningTokens: 3 }, usage)).toEqual({ inputTokens: 200, outputTokens: 40, cacheReadTokens: 128, cacheWriteTokens: 16, reasoningTokens: 3 });
    expect(addUsage(usage, { ...usage, reasoningTokens: 4 }).reasoningTokens).toBe(4);
    expect(addUsage({ ...usage, reasoningTokens: 3 }, { ...usage, reasoningTokens: 4 }).reasoningTokens).toBe(7);
  });
});

describe("requestAttributes", () => {
  it("names the settings the request had, given or defaulted by the adapter, and nothing it had not", () => {
    expect(requestAttributes({ config: { provider: "deepseek", model: "deepseek-v4-flash" } })).toEqual({
      "gen_ai.provider.name": "deepseek",
      "gen_ai.request.model": "deepseek-v4-flash",
      "gen_ai.request.stream": true,
    });
    expect(
      requestAttributes({
        config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 512, temperature: 0.2, stop: ["END"] },
        adapterDefaults: { maxTokens: 16_384, reasoningEffort: "high" },
      }),
    ).toEqual({
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": "claude-sonnet-4-6",
      "gen_ai.request.max_tokens": 512,
      "gen_ai.request.temperature": 0.2,
      "gen_ai.request.stop_sequences": ["END"],
      "dsh.request.reasoning_effort": "high",
      "gen_ai.request.stream": true,
    });
    expect(requestAttributes({ config: { provider: "openai", model: "gpt-5.6", reasoningEffort: "low" }, adapterDefaults: { maxTokens: 9, reasoningEffort: "medium" } })).toMatchObject({
      "gen_ai.request.max_tokens": 9,
      "dsh.request.reasoning_effort": "low",
    });
  });
});

describe("cacheReadAttributes", () => {
  it("sets the expected share beside the reported one, and in the provider's tokens, where the span carries usage", () => {
    expect(cacheReadAttributes(0.75, { "gen_ai.usage.input_tokens": 1001, "gen_ai.usage.cache_read.input_tokens": 250 })).toEqual({
      "dsh.cache.expected_read_share": 0.75,
      "dsh.cache.expected_read.input_tokens": 751,
      "dsh.cache.read_share": 250 / 1001,
    });
    for (const usage of [{}, { "gen_ai.usage.input_tokens": 0, "gen_ai.usage.cache_read.input_tokens": 0 }, { "gen_ai.usage.input_tokens": 10 }, { "gen_ai.usage.cache_read.input_tokens": 10 }]) {
      expect(cacheReadAttributes(0.5, usage)).toEqual({ "dsh.cache.expected_read_share": 0.5 });
    }
  });
});
