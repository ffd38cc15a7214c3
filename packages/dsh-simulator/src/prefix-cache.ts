import { createHash } from "node:crypto";

/** DeepSeek's cache granularity: prefixes are matched from token 0 in units of 64 tokens. */
export const CACHE_UNIT = 64;

/**
 * A prefix cache over token sequences. Every whole 64-token prefix of a served prompt is stored
 * under a hash chain (each unit's hash covers all units before it), so a hit is always an exact
 * prefix from token 0. A lookup returns the longest cached prefix, in whole units.
 */
export class PrefixCache {
  readonly #entries = new Set<string>();
  readonly #maxEntries: number;

  constructor(maxEntries = 1_000_000) {
    this.#maxEntries = maxEntries;
  }

  /**
   * Serves one prompt: returns how many of its leading tokens were cached (a multiple of
   * {@link CACHE_UNIT}), then stores every whole-unit prefix of it. The oldest entries go first when full.
   */
  serve(tokens: readonly number[]): number {
    let hit = 0;
    let missed = false;
    for (const [length, key] of chain(tokens)) {
      if (!missed && this.#entries.has(key)) hit = length;
      else missed = true;
      this.#entries.delete(key);
      this.#entries.add(key);
    }
    for (const key of this.#entries) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(key);
    }
    return hit;
  }
}

function* chain(tokens: readonly number[]): Generator<[number, string]> {
  let previous = "";
  for (let end = CACHE_UNIT; end <= tokens.length; end += CACHE_UNIT) {
    previous = createHash("sha256")
      .update(previous)
      .update(Uint32Array.from(tokens.slice(end - CACHE_UNIT, end)))
      .digest("hex");
    yield [end, previous];
  }
}
