import { describeIssues } from "dsh-base";
import type { PriceOf } from "dsh-agent";
import { LlmError, type LlmAdapter, type ModelPrice } from "dsh-llm";
import { z } from "zod";
import { CostReportError } from "./errors.js";

const perMillion = z.number().finite().nonnegative();
const priceTableSchema = z.record(
  z.string().min(1),
  z.strictObject({ input: perMillion, cacheRead: perMillion, cacheWrite5m: perMillion.optional(), cacheWrite1h: perMillion.optional(), output: perMillion }),
);

/**
 * Your own prices, from parsed JSON: an object from model name to `{ input, cacheRead, cacheWrite5m?,
 * cacheWrite1h?, output }` in US dollars per million tokens, each said to come from `source`.
 * Anything else throws `COST_BAD_PRICES` naming the first field that is wrong.
 */
export function priceTable(value: unknown, source = "(your table)"): ReadonlyMap<string, ModelPrice> {
  const result = priceTableSchema.safeParse(value);
  if (!result.success) throw new CostReportError("COST_BAD_PRICES", describeIssues(result.error.issues.slice(0, 1)));
  const prices = new Map<string, ModelPrice>();
  for (const [model, { cacheWrite5m, cacheWrite1h, ...rates }] of Object.entries(result.data)) {
    prices.set(model, { ...rates, ...(cacheWrite5m === undefined ? {} : { cacheWrite5m }), ...(cacheWrite1h === undefined ? {} : { cacheWrite1h }), checked: "(yours)", source });
  }
  return prices;
}

/**
 * Where prices come from: `table` first (by model name), then the catalog of the adapter
 * `adapterOf(provider)` gives. A model neither knows has no price, nor has a retired one (whose
 * catalog refuses it with `LLM_MODEL_RETIRED`); each provider's adapter is asked for once.
 */
export function catalogPrices(adapterOf: (provider: string) => LlmAdapter | undefined, table?: ReadonlyMap<string, ModelPrice>): PriceOf {
  const adapters = new Map<string, LlmAdapter | undefined>();
  return (provider, model) => {
    const own = table?.get(model);
    if (own !== undefined) return own;
    if (!adapters.has(provider)) adapters.set(provider, adapterOf(provider));
    const adapter = adapters.get(provider);
    if (adapter?.price === undefined) return undefined;
    try {
      return adapter.price(model);
    } catch (error) {
      if (error instanceof LlmError && error.code === "LLM_MODEL_RETIRED") return undefined;
      throw error;
    }
  };
}

/** A price in one line: the rates per million tokens, the peak hours, and when and where they were read. */
export function describePrice(model: string, price: ModelPrice): string {
  const usd = (value: number) => `$${Number(value.toPrecision(6))}`;
  const writes = [price.cacheWrite5m === undefined ? [] : [`${usd(price.cacheWrite5m)} 5m write`], price.cacheWrite1h === undefined ? [] : [`${usd(price.cacheWrite1h)} 1h write`]].flat();
  const peak = price.peak === undefined ? "" : `, x${price.peak.factor} at UTC hours ${price.peak.hoursUtc.map(({ from, to }) => `${from}-${to}`).join(", ")}${price.peak.weekdaysOnly ? " on weekdays" : ""}`;
  return `${model}: ${usd(price.input)} input, ${usd(price.cacheRead)} cache read, ${writes.length === 0 ? "writes as input" : writes.join(", ")}, ${usd(price.output)} output per 1M tokens${peak} (checked ${price.checked}, ${price.source})`;
}
