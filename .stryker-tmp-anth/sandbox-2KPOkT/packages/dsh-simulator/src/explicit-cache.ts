import type { RenderedBlock } from "./messages-prompt.js";

/** How far back from a breakpoint a read looks for an earlier entry, in blocks. */
export const LOOKBACK_BLOCKS = 20;

/** How long an entry lives after its last use, per `cache_control.ttl`, in ms. */
export const CACHE_TTL_MS = { "5m": 5 * 60_000, "1h": 60 * 60_000 } as const;

/** What one request read from and wrote to the cache, in tokens. */
export interface CacheOutcome {
  readonly read: number;
  readonly written5m: number;
  readonly written1h: number;
  /** The prompt tokens neither read nor written: Anthropic's `input_tokens`. */
  readonly uncached: number;
}

/**
 * Anthropic's explicit prompt cache: only prefixes that end at a breakpoint are written, and only when
 * they reach the model's minimum length; a read takes the longest live entry at a breakpoint or up to
 * 20 blocks before it; entries live 5 minutes or 1 hour from their last use, on the caller's clock.
 */
export class ExplicitCache {
  readonly #expiry = new Map<string, number>();

  serve(blocks: readonly RenderedBlock[], minTokens: number, now: number): CacheOutcome {
    const total = blocks.at(-1)?.cumulativeTokens ?? 0;
    const alive = (key: string) => (this.#expiry.get(key) ?? -1) > now;
    const marks = blocks.flatMap((block, i) => (block.ttl === undefined ? [] : [i]));
    let hit = -1;
    for (const mark of marks) {
      for (let j = mark; j >= Math.max(0, mark - LOOKBACK_BLOCKS); j--) {
        if (alive(blocks[j]!.prefixKey)) {
          hit = Math.max(hit, j);
          break;
        }
      }
    }
    const read = hit < 0 ? 0 : blocks[hit]!.cumulativeTokens;
    if (hit >= 0) this.#refresh(blocks[hit]!, now, blocks[hit]!.ttl ?? "5m");
    const written = { "5m": 0, "1h": 0 };
    let covered = read;
    for (const mark of marks) {
      const block = blocks[mark]!;
      if (block.cumulativeTokens < minTokens) continue;
      this.#refresh(block, now, block.ttl!);
      if (block.cumulativeTokens > covered) {
        written[block.ttl!] += block.cumulativeTokens - covered;
        covered = block.cumulativeTokens;
      }
    }
    return { read, written5m: written["5m"], written1h: written["1h"], uncached: total - covered };
  }

  /** Every entry and the clock time it expires at, to save and {@link restore} elsewhere. */
  entries(): [string, number][] {
    return [...this.#expiry];
  }

  /** Adds saved entries, each with the clock time it expires at. */
  restore(entries: Iterable<readonly [string, number]>): void {
    for (const [key, expiry] of entries) this.#expiry.set(key, Math.max(this.#expiry.get(key) ?? 0, expiry));
  }

  #refresh(block: RenderedBlock, now: number, ttl: "5m" | "1h"): void {
    this.#expiry.set(block.prefixKey, Math.max(this.#expiry.get(block.prefixKey) ?? 0, now + CACHE_TTL_MS[ttl]));
  }
}
