import { describe, expect, it } from "vitest";
import { callConfigEquals, llmCallConfigSchema } from "./config.js";

describe("callConfigEquals", () => {
  it("ignores key order inside extensions", () => {
    expect(
      callConfigEquals(
        { provider: "p", model: "m", extensions: { a: 1, b: { c: [1, 2] } } },
        { provider: "p", model: "m", extensions: { b: { c: [1, 2] }, a: 1 } },
      ),
    ).toBe(true);
  });

  it("tells an absent stop list from an empty one", () => {
    expect(callConfigEquals({ provider: "p", model: "m" }, { provider: "p", model: "m", stop: [] })).toBe(false);
  });

  it.each([["model", "n"], ["provider", "q"], ["temperature", 0.5], ["maxTokens", 10], ["reasoningEffort", "high"], ["cachePolicy", "rolling-v1"], ["cacheTtl", "1h"], ["cacheDiagnostics", true]])(
    "sees a change of %s",
    (key, value) => {
      expect(callConfigEquals({ provider: "p", model: "m" }, { provider: "p", model: "m", [key]: value })).toBe(false);
    },
  );
});

describe("llmCallConfigSchema", () => {
  it("keeps stop: [] and nested extensions exactly", () => {
    const config = { provider: "p", model: "m", stop: [], extensions: { deep: { nested: [{}] } } };
    expect(llmCallConfigSchema.parse(config)).toEqual(config);
  });

  it("refuses a cache policy name with characters outside [a-z0-9.-] and a TTL other than 5m or 1h", () => {
    expect(llmCallConfigSchema.safeParse({ provider: "p", model: "m", cachePolicy: "Rolling V1" }).success).toBe(false);
    expect(llmCallConfigSchema.safeParse({ provider: "p", model: "m", cacheTtl: "10m" }).success).toBe(false);
    expect(llmCallConfigSchema.safeParse({ provider: "p", model: "m", cachePolicy: "rolling-v1", cacheTtl: "1h" }).success).toBe(true);
  });

  it("rejects unknown keys such as credentials", () => {
    expect(llmCallConfigSchema.safeParse({ provider: "p", model: "m", apiKey: "secret" }).success).toBe(false);
  });
});
