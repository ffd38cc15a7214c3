/**
 * `total` split into whole numbers in proportion to `weights`, in order, adding up to `total`
 * exactly: each part is the rounding down of its share of the running total, less what came before
 * (so no part is off by more than one from its exact share). Without any weight, equal weights.
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  const count = weights.length;
  if (count === 0) return [];
  let sum = 0;
  for (const weight of weights) sum += weight;
  const parts: number[] = [];
  let before = 0;
  let running = 0;
  for (let index = 0; index < count; index++) {
    running += sum === 0 ? 1 : weights[index]!;
    const upTo = index === count - 1 ? total : Math.floor((total * running) / (sum === 0 ? count : sum));
    parts.push(upTo - before);
    before = upTo;
  }
  return parts;
}

/** How a request's prompt tokens were billed, in the order they lie in the prompt. */
export interface PromptBilling {
  /** The leading tokens read from the cache. */
  readonly read: number;
  /** Then the tokens written to the cache for an hour. */
  readonly write1h: number;
  /** Then the tokens written for five minutes. */
  readonly write5m: number;
  /** Then the rest, billed in full. */
  readonly uncached: number;
}

/**
 * Each part's tokens (`parts`, in prompt order) billed by where they lie: a prompt is read from the
 * cache from its start, then written (hour-long writes before five-minute ones, as a cache's
 * breakpoints must be laid out), then the rest is billed in full.
 */
export function billParts(parts: readonly number[], billing: PromptBilling): PromptBilling[] {
  const left = [billing.read, billing.write1h, billing.write5m, billing.uncached];
  let kind = 0;
  return parts.map((size) => {
    const got = [0, 0, 0, 0];
    let rest = size;
    while (rest > 0 && kind < 4) {
      const take = Math.min(rest, left[kind]!);
      got[kind]! += take;
      left[kind]! -= take;
      rest -= take;
      if (left[kind] === 0) kind++;
    }
    return { read: got[0]!, write1h: got[1]!, write5m: got[2]!, uncached: got[3]! };
  });
}
