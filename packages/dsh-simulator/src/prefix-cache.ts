import { createHash } from "node:crypto";

/** DeepSeek's cache granularity: prefixes are matched from token 0 in units of 64 tokens. */
export const CACHE_UNIT = 64;

/**
 * A prefix cache over token sequences, one namespace per model. Every whole 64-token prefix of a
 * served prompt is stored under a hash chain (each unit's hash covers the model and all units
 * before it), so a hit is always an exact prefix from token 0 on the same model.
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
  serve(model: string, tokens: ArrayLike<number> & { slice(start: number, end: number): ArrayLike<number> }): number {
    let hit = 0;
    let missed = false;
    for (const [length, key] of chain(model, tokens)) {
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

  /** Every stored key, least recently used first, to save and {@link restore} elsewhere. */
  keys(): string[] {
    return [...this.#entries];
  }

  /** Adds saved keys (least recently used first) as if their prompts had been served. */
  restore(keys: Iterable<string>): void {
    for (const key of keys) this.#entries.add(key);
  }
}

function* chain(model: string, tokens: ArrayLike<number> & { slice(start: number, end: number): ArrayLike<number> }): Generator<[number, string]> {
  let previous = createHash("sha256").update(model).digest("hex");
  for (let end = CACHE_UNIT; end <= tokens.length; end += CACHE_UNIT) {
    previous = createHash("sha256")
      .update(previous)
      .update(Uint32Array.from(tokens.slice(end - CACHE_UNIT, end)))
      .digest("hex");
    yield [end, previous];
  }
}
