import type { LlmCallConfig, ModelDefaults } from "dsh-llm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { epochHeaderSchema, headerEquals } from "./header.js";
import { buildEpochHeader, selectionFromHeader } from "./provenance.js";

const effort = fc.constantFrom("low" as const, "medium" as const, "high" as const);
const defaultable = {
  maxTokens: fc.integer({ min: 1, max: 9000 }),
  reasoningEffort: effort,
  cachePolicy: fc.constantFrom("rolling-v1", "system-and-last-user-v1"),
  cacheTtl: fc.constantFrom("5m" as const, "1h" as const),
};
const DEFAULTABLE = ["maxTokens", "reasoningEffort", "cachePolicy", "cacheTtl"] as const;
const selection: fc.Arbitrary<LlmCallConfig> = fc.record(
  { provider: fc.constant("deepseek"), model: fc.constantFrom("chat", "reasoner"), ...defaultable },
  { requiredKeys: ["provider", "model"] },
);
const defaults: fc.Arbitrary<ModelDefaults> = fc.record(defaultable, { requiredKeys: [] });

describe("adapter-default provenance", () => {
  it("marks exactly the values the adapter filled in, in a header admission accepts", () => {
    fc.assert(
      fc.property(selection, defaults, (chosen, modelDefaults) => {
        const header = buildEpochHeader(chosen, modelDefaults);
        expect(epochHeaderSchema.safeParse(header).success).toBe(true);
        for (const key of DEFAULTABLE) {
          const defaulted = chosen[key] === undefined && modelDefaults[key] !== undefined;
          expect(header.adapterDefaults?.[key]).toBe(defaulted ? modelDefaults[key] : undefined);
          expect(header.config[key]).toBe(chosen[key] ?? modelDefaults[key]);
        }
      }),
    );
  });

  it("restoring a selection from the log rebuilds the same header: no spurious change", () => {
    fc.assert(
      fc.property(selection, defaults, (chosen, modelDefaults) => {
        const logged = buildEpochHeader(chosen, modelDefaults);
        expect(headerEquals(buildEpochHeader(selectionFromHeader(logged), modelDefaults), logged)).toBe(true);
      }),
    );
  });

  it("shows the trap it avoids: taking the effective config as the selection reclassifies defaults", () => {
    const logged = buildEpochHeader({ provider: "deepseek", model: "chat" }, { maxTokens: 8192 });
    expect(logged).toEqual({ config: { provider: "deepseek", model: "chat", maxTokens: 8192 }, adapterDefaults: { maxTokens: 8192 } });
    expect(headerEquals(buildEpochHeader(logged.config, { maxTokens: 8192 }), logged)).toBe(false);
  });

  it("omits empty tools and empty adapterDefaults", () => {
    expect(buildEpochHeader({ provider: "p", model: "m" }, {}, [])).toEqual({ config: { provider: "p", model: "m" } });
  });
});
