import { describe, expect, it } from "vitest";
import { LlmRuntime } from "./runtime.js";
import { NO_COST, addCosts, cacheReadShare, priceFactorAt, tokenRates, uncachedInputTokens, usageCost, type ModelPrice } from "./price.js";

const claude: ModelPrice = { input: 3, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6, output: 15, checked: "2026-12-04", source: "test" };
const peaky: ModelPrice = { input: 0.15, cacheRead: 0.003, output: 0.6, checked: "2026-12-04", source: "test", peak: { factor: 2, hoursUtc: [{ from: 1, to: 4 }, { from: 6, to: 10 }], weekdaysOnly: true } };
// 2026-12-04 is a Friday, 2026-12-05 a Saturday.
const at = (iso: string) => Date.parse(iso);

describe("usageCost", () => {
  it("prices uncached input, reads, writes by lifetime and output separately, per million tokens", () => {
    const cost = usageCost({ inputTokens: 1_000_000, cacheReadTokens: 500_000, cacheWriteTokens: 300_000, cacheWrite5mTokens: 100_000, cacheWrite1hTokens: 200_000, outputTokens: 10_000 }, claude);
    expect(cost.inputUsd).toBeCloseTo(0.2 * 3, 10);
    expect(cost.cacheReadUsd).toBeCloseTo(0.5 * 0.3, 10);
    expect(cost.cacheWriteUsd).toBeCloseTo(0.1 * 3.75 + 0.2 * 6, 10);
    expect(cost.outputUsd).toBeCloseTo(0.01 * 15, 10);
    expect(cost.totalUsd).toBeCloseTo(cost.inputUsd + cost.cacheReadUsd + cost.cacheWriteUsd + cost.outputUsd, 12);
  });

  it("prices unsplit writes as 5-minute writes, and writes without a write price as input", () => {
    expect(usageCost({ inputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 1_000_000, outputTokens: 0 }, claude).cacheWriteUsd).toBeCloseTo(3.75, 10);
    expect(usageCost({ inputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 1_000_000, outputTokens: 0 }, { ...claude, cacheWrite5m: undefined as never, cacheWrite1h: undefined as never }).cacheWriteUsd).toBeCloseTo(3, 10);
    expect(usageCost({ inputTokens: 2_000_000, cacheReadTokens: 0, cacheWriteTokens: 2_000_000, cacheWrite1hTokens: 2_000_000, outputTokens: 0 }, { ...claude, cacheWrite1h: undefined as never }).cacheWriteUsd).toBeCloseTo(7.5, 10);
  });

  it("doubles every price in DeepSeek's weekday peak hours and nowhere else", () => {
    const usage = { inputTokens: 1_000_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 0, outputTokens: 1_000_000 };
    const offPeak = usageCost(usage, peaky, at("2026-12-04T05:30:00Z")).totalUsd;
    expect(offPeak).toBeCloseTo(0.603, 10);
    expect(usageCost(usage, peaky, at("2026-12-04T01:00:00Z")).totalUsd).toBeCloseTo(1.206, 10);
    expect(usageCost(usage, peaky, at("2026-12-04T09:59:59Z")).totalUsd).toBeCloseTo(1.206, 10);
    expect(usageCost(usage, peaky, at("2026-12-04T04:00:00Z")).totalUsd).toBeCloseTo(offPeak, 10);
    expect(usageCost(usage, peaky, at("2026-12-04T10:00:00Z")).totalUsd).toBeCloseTo(offPeak, 10);
    expect(usageCost(usage, peaky, at("2026-12-05T02:00:00Z")).totalUsd).toBeCloseTo(offPeak, 10); // Saturday
    expect(usageCost(usage, peaky, at("2026-12-06T02:00:00Z")).totalUsd).toBeCloseTo(offPeak, 10); // Sunday
    expect(priceFactorAt({ ...peaky, peak: { ...peaky.peak!, weekdaysOnly: false } }, at("2026-12-05T02:00:00Z"))).toBe(2);
    expect(priceFactorAt(claude, at("2026-12-04T02:00:00Z"))).toBe(1);
  });
});

describe("uncachedInputTokens and addCosts", () => {
  it("counts the prompt neither read nor written, never below zero", () => {
    expect(uncachedInputTokens({ inputTokens: 100, cacheReadTokens: 30, cacheWriteTokens: 20 })).toBe(50);
    expect(uncachedInputTokens({ inputTokens: 10, cacheReadTokens: 30, cacheWriteTokens: 0 })).toBe(0);
  });

  it("adds kind by kind", () => {
    const one = { inputUsd: 1, cacheReadUsd: 2, cacheWriteUsd: 3, outputUsd: 4, totalUsd: 10 };
    expect(addCosts(one, addCosts(one, NO_COST))).toEqual({ inputUsd: 2, cacheReadUsd: 4, cacheWriteUsd: 6, outputUsd: 8, totalUsd: 20 });
    expect(Object.isFrozen(NO_COST)).toBe(true);
  });
});

describe("LlmRuntime.price", () => {
  it("asks the provider's adapter, and knows no price without one", () => {
    const runtime = new LlmRuntime({
      adapters: [
        { provider: "priced", stream: async function* () {}, price: (model) => (model === "m" ? claude : undefined) },
        { provider: "plain", stream: async function* () {} },
      ],
    });
    expect(runtime.price("priced", "m")).toBe(claude);
    expect(runtime.price("priced", "other")).toBeUndefined();
    expect(runtime.price("plain", "m")).toBeUndefined();
    expect(runtime.price("nobody", "m")).toBeUndefined();
  });
});

describe("cacheReadShare", () => {
  it("divides the cache reads by the prompt tokens of all the usage given, and has no share without prompt tokens", () => {
    expect(cacheReadShare([{ inputTokens: 1000, cacheReadTokens: 0 }, { inputTokens: 3000, cacheReadTokens: 1500 }])).toBe(1500 / 4000);
    expect(cacheReadShare([])).toBeNull();
    expect(cacheReadShare([{ inputTokens: 0, cacheReadTokens: 0 }])).toBeNull();
    expect(cacheReadShare(new Set([{ inputTokens: 10, cacheReadTokens: 10 }]))).toBe(1);
  });
});

describe("tokenRates", () => {
  /** Dollars per million as dollars per token, at a peak factor. */
  const per = (usd: number, factor = 1) => usd * (factor / 1_000_000);

  it("is each kind's price per token at the time, writes without a rate of their own priced as input, hour-long ones as 5-minute ones", () => {
    expect(tokenRates(claude)).toEqual({ input: per(3), cacheRead: per(0.3), cacheWrite5m: per(3.75), cacheWrite1h: per(6), output: per(15) });
    expect(tokenRates({ ...claude, cacheWrite1h: undefined as never })).toMatchObject({ cacheWrite5m: per(3.75), cacheWrite1h: per(3.75) });
    expect(tokenRates({ input: 2, cacheRead: 0.5, output: 8, checked: "2026-12-07", source: "test" })).toMatchObject({ cacheWrite5m: per(2), cacheWrite1h: per(2) });
    // Peak hours double every rate on a weekday morning (UTC), and none on a Saturday.
    expect(tokenRates(peaky, at("2026-12-04T07:00:00Z"))).toEqual({ input: per(0.15, 2), cacheRead: per(0.003, 2), cacheWrite5m: per(0.15, 2), cacheWrite1h: per(0.15, 2), output: per(0.6, 2) });
    expect(tokenRates(peaky, at("2026-12-05T07:00:00Z")).input).toBe(per(0.15));
  });
});
