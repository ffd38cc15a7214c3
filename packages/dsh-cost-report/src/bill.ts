import { Channel, addTo, type Layout, type Totals } from "./parts.js";

/** How a request's prompt tokens were billed, in the order they lie in the prompt, and the price of each kind per token. */
export interface PromptBilling {
  /** The leading tokens read from the cache, then those written for an hour, then for five minutes, then the rest billed in full. */
  readonly tokens: readonly [read: number, write1h: number, write5m: number, uncached: number];
  /** Dollars per token of each kind (none without a price). */
  readonly usdPerToken: readonly [read: number, write1h: number, write5m: number, uncached: number];
}

/** The tokens of each kind, and the dollar channel each kind is added to. */
const KINDS = [
  [Channel.Read, Channel.ReadUsd],
  [Channel.Write1h, Channel.WriteUsd],
  [Channel.Write5m, Channel.WriteUsd],
  [Channel.Uncached, Channel.InputUsd],
] as const;

/** What lies before a request's messages: its tools, charged to the header event that listed them. */
export interface Lead {
  readonly seq: number;
  readonly weight: number;
}

/**
 * Shares a request's billed prompt tokens among its parts by weight (its tools, then its first
 * `count` surface parts) and bills each part as it lies: the reads cover the prompt's start, the
 * writes follow, the rest is billed in full. Whole runs of parts are added in constant time; only the
 * parts where one kind gives way to the next are added one by one. `fallback` takes everything when
 * the request has no weight at all.
 */
export function billRequest(layout: Layout, count: number, lead: Lead | undefined, billing: PromptBilling, totals: Totals, fallback: number): void {
  const leadWeight = lead?.weight ?? 0;
  const weight = leadWeight + (count === 0 ? 0 : layout.end(count - 1));
  const tokens = billing.tokens.reduce((sum, part) => sum + part, 0);
  if (lead !== undefined) addTo(totals, lead.seq, Channel.Requests, 1);
  layout.addRange(0, count, Channel.Requests, 1);
  if (weight === 0) {
    billing.tokens.forEach((amount, kind) => {
      addTo(totals, fallback, KINDS[kind]![0], amount);
      addTo(totals, fallback, KINDS[kind]![1], amount * billing.usdPerToken[kind]!);
    });
    return;
  }
  const perWeight = tokens / weight;
  let from = 0;
  billing.tokens.forEach((amount, kind) => {
    // This kind's stretch of the prompt, in weight.
    const start = from;
    const end = (from += amount / perWeight);
    const [channel, usd] = KINDS[kind]!;
    const price = billing.usdPerToken[kind]!;
    const add = (seq: number, overlap: number) => {
      if (overlap <= 0) return;
      addTo(totals, seq, channel, overlap * perWeight);
      addTo(totals, seq, usd, overlap * perWeight * price);
    };
    if (lead !== undefined) add(lead.seq, Math.min(end, leadWeight) - start);
    if (count === 0) return;
    const [low, high] = [Math.max(start, leadWeight) - leadWeight, end - leadWeight];
    const first = layout.partAt(low, count);
    // A stretch ending where a part starts gives that part nothing.
    const last = layout.partAt(high, count);
    if (first >= last) {
      add(layout.seq(first), high - low);
      return;
    }
    add(layout.seq(first), layout.end(first) - low);
    add(layout.seq(last), high - layout.start(last));
    layout.addRange(first + 1, last, channel, perWeight);
    layout.addRange(first + 1, last, usd, perWeight * price);
  });
}
