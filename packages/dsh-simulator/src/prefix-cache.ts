import { createHash } from "node:crypto";

/** DeepSeek's cache granularity: prefixes are matched from token 0 in units of 64 tokens. */
export const CACHE_UNIT = 64;

/** Which prefix lengths a cache stores: the first at `first` tokens, then one every `unit` tokens. */
export interface Granularity {
  readonly first: number;
  readonly unit: number;
}

/** DeepSeek's: every whole 64 tokens. */
const DEEPSEEK: Granularity = { first: CACHE_UNIT, unit: CACHE_UNIT };
/** OpenAI's documented rule: prompts of 1024 tokens or more, matched in 128-token increments. */
export const OPENAI_GRANULARITY: Granularity = Object.freeze({ first: 1024, unit: 128 });

type Tokens = ArrayLike<number>;

/** How many starts (models and granularities) keep their last prompt: a client naming ever new models cannot grow the cache past its entries. */
const LAST_STARTS = 16;

/** The last prompt hashed from one start: its tokens, the ends it was hashed at and the key of each. */
interface Hashed {
  readonly tokens: Uint32Array;
  readonly ends: readonly number[];
  readonly keys: readonly string[];
}

/**
 * A prefix cache over token sequences, one namespace per model. Every whole 64-token prefix of a
 * served prompt is stored under a hash chain (each unit's hash covers the model and all units
 * before it), so a hit is always an exact prefix from token 0 on the same model.
 */
export class PrefixCache {
  readonly #entries = new Set<string>();
  readonly #maxEntries: number;
  /** Per start, the last prompt hashed in units and the last hashed at marked segments' ends: a prompt that repeats its start reuses their keys. */
  readonly #lastUnits = new Map<string, Hashed>();
  readonly #lastSegments = new Map<string, Hashed>();

  constructor(maxEntries = 1_000_000) {
    this.#maxEntries = maxEntries;
  }

  /**
   * Serves one prompt: returns how many of its leading tokens were cached (one of the lengths
   * `grain` stores, by default a multiple of {@link CACHE_UNIT}), then stores every such prefix of it.
   * The oldest entries go first when full.
   */
  serve(model: string, tokens: Tokens, grain: Granularity = DEEPSEEK): number {
    let hit = 0;
    let missed = false;
    const keys = this.#chain(model, tokens, grain);
    keys.forEach((key, i) => {
      if (!missed && this.#entries.has(key)) hit = grain.first + i * grain.unit;
      else missed = true;
      this.#refresh(key);
    });
    this.#evict();
    return hit;
  }

  /**
   * Serves a prompt at explicit breakpoints: `ends` are the token lengths at which its segments end,
   * and `marked` says which of them a breakpoint marks. Returns the longest segment end whose exact
   * prefix an earlier prompt marked (0 if none), then stores this prompt's marked prefixes; prefixes
   * shorter than `minimum` tokens are neither read nor stored.
   */
  serveMarked(model: string, tokens: Tokens, ends: readonly number[], marked: readonly boolean[], minimum: number): number {
    let hit = 0;
    // The ends are kept for the next prompt to compare with: a copy, as the caller's list may change.
    this.#keysAt(this.#lastSegments, `marked:${model}`, tokens, [...ends]).forEach((key, i) => {
      const end = ends[i]!;
      if (end < minimum) return;
      if (this.#entries.has(key)) hit = end;
      if (marked[i] === true) this.#refresh(key);
    });
    this.#evict();
    return hit;
  }

  /**
   * The key of each end of `ends` in `tokens`: a hash of the key before it and the tokens since, from
   * a key of `start` alone. Ends the last prompt of the same start (kept in `lasts`) had at the same
   * places, within the tokens the two share, keep that prompt's keys; only the rest is hashed. `ends`
   * is kept as it is, so it must be the cache's own.
   */
  #keysAt(lasts: Map<string, Hashed>, start: string, tokens: Tokens, ends: readonly number[]): string[] {
    const current = Uint32Array.from(tokens);
    const last = lasts.get(start);
    const shared = last === undefined ? 0 : commonPrefix(last.tokens, current);
    const keys: string[] = [];
    // Past the last prompt's ends is `undefined`, which no end equals and which is no length.
    while (last !== undefined && ends[keys.length] === last.ends[keys.length] && ends[keys.length]! <= shared) keys.push(last.keys[keys.length]!);
    let previous = keys.at(-1) ?? createHash("sha256").update(start).digest("hex");
    for (let i = keys.length; i < ends.length; i++) {
      previous = createHash("sha256").update(previous).update(current.subarray(ends[i - 1] ?? 0, ends[i])).digest("hex");
      keys.push(previous);
    }
    if (!lasts.has(start) && lasts.size >= LAST_STARTS) lasts.clear();
    lasts.set(start, { tokens: current, ends, keys });
    return keys;
  }

  /** The key of each whole prefix of `tokens` that `grain` stores, shortest first. */
  #chain(model: string, tokens: Tokens, grain: Granularity): string[] {
    // DeepSeek's chain starts from the model alone, as it did before other granularities existed.
    const start = grain === DEEPSEEK ? model : `${grain.first}/${grain.unit}:${model}`;
    const ends: number[] = [];
    for (let end = grain.first; end <= tokens.length; end += grain.unit) ends.push(end);
    return this.#keysAt(this.#lastUnits, start, tokens, ends);
  }

  #refresh(key: string): void {
    this.#entries.delete(key);
    this.#entries.add(key);
  }

  #evict(): void {
    for (const key of this.#entries) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(key);
    }
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

/** How many leading tokens two prompts share. */
function commonPrefix(a: Uint32Array, b: Uint32Array): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a[i] === b[i]) i++;
  return i;
}
