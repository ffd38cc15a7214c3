import type { TokenUsage } from "./usage.js";

/** Hours (UTC) at which a provider charges a multiple of its prices, as DeepSeek does at its peak. */
export interface PeakHours {
  /** What every price is multiplied by inside the hours. */
  readonly factor: number;
  /** Hour ranges of the UTC day, each from `from` up to (not including) `to`. */
  readonly hoursUtc: readonly { readonly from: number; readonly to: number }[];
  /** Whether the peak applies Monday to Friday only. */
  readonly weekdaysOnly: boolean;
}

/**
 * What one model costs, in US dollars per million tokens, with the date the price was checked and
 * where. Without a write price a cache write costs what uncached input does (no surcharge).
 */
export interface ModelPrice {
  /** Uncached prompt tokens. */
  readonly input: number;
  /** Prompt tokens read from the provider's cache. */
  readonly cacheRead: number;
  /** Prompt tokens written to the cache with a 5-minute (or the provider's only) lifetime. */
  readonly cacheWrite5m?: number;
  /** Prompt tokens written to the cache with a 1-hour lifetime. */
  readonly cacheWrite1h?: number;
  /** Output tokens, reasoning included. */
  readonly output: number;
  /** When the price was read, as an ISO 8601 date. */
  readonly checked: string;
  /** Where it was read. */
  readonly source: string;
  readonly peak?: PeakHours;
}

/** The dollars one call cost, by kind of token. */
export interface UsageCost {
  readonly inputUsd: number;
  readonly cacheReadUsd: number;
  readonly cacheWriteUsd: number;
  readonly outputUsd: number;
  readonly totalUsd: number;
}

/** The prompt tokens neither read from nor written to the cache. */
export function uncachedInputTokens(usage: Pick<TokenUsage, "inputTokens" | "cacheReadTokens" | "cacheWriteTokens">): number {
  return Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
}

/**
 * The cache-read share of some requests' usage: their cache-read tokens over their prompt tokens as
 * the provider counted them; `null` when there is no usage or no prompt token. dsh's one definition
 * of the figure: `dsh cache`, the web app and the cache report all show it.
 */
export function cacheReadShare(usages: Iterable<Pick<TokenUsage, "inputTokens" | "cacheReadTokens">>): number | null {
  let prompt = 0;
  let read = 0;
  for (const usage of usages) {
    prompt += usage.inputTokens;
    read += usage.cacheReadTokens;
  }
  return prompt === 0 ? null : read / prompt;
}

/** The factor `price` applies at `time` (epoch ms): its peak factor inside the peak hours, else 1. */
export function priceFactorAt(price: ModelPrice, time: number): number {
  const peak = price.peak;
  if (peak === undefined) return 1;
  const date = new Date(time);
  const day = date.getUTCDay();
  if (peak.weekdaysOnly && (day === 0 || day === 6)) return 1;
  const hour = date.getUTCHours();
  return peak.hoursUtc.some(({ from, to }) => hour >= from && hour < to) ? peak.factor : 1;
}

/** Dollars per token of each kind. */
export interface TokenRates {
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  readonly output: number;
}

/**
 * What one token of each kind costs at `price` at `time` (epoch ms; it matters only for a price with
 * peak hours): a 5-minute write without a rate of its own costs as input, an hour-long one as a
 * 5-minute one.
 */
export function tokenRates(price: ModelPrice, time = 0): TokenRates {
  const factor = priceFactorAt(price, time) / 1_000_000;
  const write5m = price.cacheWrite5m ?? price.input;
  return { input: price.input * factor, cacheRead: price.cacheRead * factor, cacheWrite5m: write5m * factor, cacheWrite1h: (price.cacheWrite1h ?? write5m) * factor, output: price.output * factor };
}

/**
 * What `usage` cost at `price`, at the time the call was made (epoch ms; it matters only for a
 * price with peak hours). Writes split by lifetime are priced by lifetime; an unsplit write count
 * is priced as 5-minute writes.
 */
export function usageCost(usage: TokenUsage, price: ModelPrice, time = 0): UsageCost {
  const rates = tokenRates(price, time);
  const hourWrites = usage.cacheWrite1hTokens ?? 0;
  const shortWrites = usage.cacheWriteTokens - hourWrites;
  const inputUsd = uncachedInputTokens(usage) * rates.input;
  const cacheReadUsd = usage.cacheReadTokens * rates.cacheRead;
  const cacheWriteUsd = shortWrites * rates.cacheWrite5m + hourWrites * rates.cacheWrite1h;
  const outputUsd = usage.outputTokens * rates.output;
  return { inputUsd, cacheReadUsd, cacheWriteUsd, outputUsd, totalUsd: inputUsd + cacheReadUsd + cacheWriteUsd + outputUsd };
}

/** Two costs added up, kind by kind. */
export function addCosts(a: UsageCost, b: UsageCost): UsageCost {
  return {
    inputUsd: a.inputUsd + b.inputUsd,
    cacheReadUsd: a.cacheReadUsd + b.cacheReadUsd,
    cacheWriteUsd: a.cacheWriteUsd + b.cacheWriteUsd,
    outputUsd: a.outputUsd + b.outputUsd,
    totalUsd: a.totalUsd + b.totalUsd,
  };
}

/** A cost of nothing. */
export const NO_COST: UsageCost = Object.freeze({ inputUsd: 0, cacheReadUsd: 0, cacheWriteUsd: 0, outputUsd: 0, totalUsd: 0 });
