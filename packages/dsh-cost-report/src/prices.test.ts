import { AnthropicAdapter } from "dsh-anthropic";
import type { LlmAdapter, ModelPrice } from "dsh-llm";
import { ResponsesAdapter } from "dsh-openai-responses";
import { describe, expect, it } from "vitest";
import { CostReportError } from "./errors.js";
import { catalogPrices, describePrice, priceTable } from "./prices.js";

const anthropic = new AnthropicAdapter({ apiKey: "sk-test" });

describe("priceTable", () => {
  it("reads each model's rates, write prices only where given, as yours from the source named", () => {
    const table = priceTable({ "my-model": { input: 1, cacheRead: 0.1, output: 4 }, other: { input: 2, cacheRead: 0.2, cacheWrite5m: 2.5, cacheWrite1h: 4, output: 8 } }, "prices.json");
    expect(Object.fromEntries(table)).toStrictEqual({
      "my-model": { input: 1, cacheRead: 0.1, output: 4, checked: "(yours)", source: "prices.json" },
      other: { input: 2, cacheRead: 0.2, cacheWrite5m: 2.5, cacheWrite1h: 4, output: 8, checked: "(yours)", source: "prices.json" },
    });
    expect(priceTable({}).size).toBe(0);
    expect(priceTable({ m: { input: 0, cacheRead: 0, output: 0 } }).get("m")?.source).toBe("(your table)");
  });

  it("refuses anything else with COST_BAD_PRICES naming the first wrong field", () => {
    const refusal = (value: unknown) => {
      try {
        priceTable(value);
      } catch (error) {
        expect(error).toBeInstanceOf(CostReportError);
        return `${(error as CostReportError).code} ${(error as Error).message}`;
      }
      throw new Error("accepted");
    };
    expect(refusal({ m: { input: -1, cacheRead: 0, output: 0 } })).toMatch(/^COST_BAD_PRICES m\.input: .*>=0/);
    expect(refusal({ m: { input: 1, cacheRead: 0, output: 0, cacheWrite5m: Infinity } })).toMatch(/^COST_BAD_PRICES m\.cacheWrite5m: /);
    expect(refusal({ m: { input: 1, cacheRead: 0 } })).toMatch(/^COST_BAD_PRICES m\.output: [^;]*$/);
    expect(refusal({ m: { cacheRead: 0 } })).toMatch(/^COST_BAD_PRICES m\.input: [^;]*$/);
    expect(refusal({ m: { input: 1, cacheRead: 0, output: 0, extra: 1 } })).toMatch(/^COST_BAD_PRICES m: .*extra/);
    expect(refusal({ "": { input: 1, cacheRead: 0, output: 0 } })).toMatch(/^COST_BAD_PRICES /);
    expect(refusal([1])).toMatch(/^COST_BAD_PRICES .*record/);
    expect(refusal("prices")).toMatch(/^COST_BAD_PRICES /);
  });
});

describe("catalogPrices", () => {
  const mine: ModelPrice = { input: 9, cacheRead: 1, output: 9, checked: "(yours)", source: "t" };

  it("takes your table first, then the provider's catalog, asking for each provider's adapter once", () => {
    const asked: string[] = [];
    const prices = catalogPrices((provider) => {
      asked.push(provider);
      return provider === "anthropic" ? anthropic : undefined;
    }, new Map([["claude-sonnet-4-6", mine]]));
    expect(prices("anthropic", "claude-sonnet-4-6")).toBe(mine);
    expect(prices("anthropic", "claude-opus-4-8")).toEqual(anthropic.price!("claude-opus-4-8"));
    expect(prices("anthropic", "claude-haiku-4-5")?.input).toBeGreaterThan(0);
    expect(prices("elsewhere", "m")).toBeUndefined();
    expect(prices("elsewhere", "n")).toBeUndefined();
    expect(asked).toEqual(["anthropic", "elsewhere"]);
  });

  it("gives no price for a model the catalog refuses (a retired name), nor for an adapter without prices", () => {
    const responses = new ResponsesAdapter({ baseUrl: "http://127.0.0.1:9", apiKey: "sk-test" });
    expect(() => responses.price("gpt-4.5-preview")).toThrow(/retired/);
    expect(catalogPrices(() => responses)("openai-responses", "gpt-4.5-preview")).toBeUndefined();
    expect(catalogPrices(() => responses)("openai-responses", "gpt-5.5")).toEqual(responses.price("gpt-5.5"));
    const unpriced: LlmAdapter = Object.assign(Object.create(anthropic) as LlmAdapter, { price: undefined });
    expect(catalogPrices(() => unpriced)("anthropic", "claude-sonnet-4-6")).toBeUndefined();
    // Any other failure of a catalog is not hidden as a missing price.
    const broken: LlmAdapter = Object.assign(Object.create(anthropic) as LlmAdapter, { price: () => { throw new Error("catalog unreadable"); } });
    expect(() => catalogPrices(() => broken)("anthropic", "claude-sonnet-4-6")).toThrow("catalog unreadable");
  });
});

describe("describePrice", () => {
  it("says each rate per million tokens, writes apart or as input, peak hours, and where the price was read", () => {
    expect(describePrice("m", { input: 3, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6, output: 15, checked: "2026-12-04", source: "page" })).toBe("m: $3 input, $0.3 cache read, $3.75 5m write, $6 1h write, $15 output per 1M tokens (checked 2026-12-04, page)");
    expect(describePrice("m", { input: 1 / 3, cacheRead: 0, cacheWrite1h: 2, output: 1, checked: "c", source: "s" })).toBe("m: $0.333333 input, $0 cache read, $2 1h write, $1 output per 1M tokens (checked c, s)");
    const peak = { factor: 2, hoursUtc: [{ from: 1, to: 4 }, { from: 6, to: 10 }], weekdaysOnly: true };
    expect(describePrice("d", { input: 0.28, cacheRead: 0.028, output: 0.42, checked: "c", source: "s", peak })).toBe("d: $0.28 input, $0.028 cache read, writes as input, $0.42 output per 1M tokens, x2 at UTC hours 1-4, 6-10 on weekdays (checked c, s)");
    expect(describePrice("d", { input: 1, cacheRead: 1, output: 1, checked: "c", source: "s", peak: { ...peak, weekdaysOnly: false } })).toMatch(/6-10 \(checked/);
  });
});
