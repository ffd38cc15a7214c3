import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CACHE_UNIT, PrefixCache } from "./prefix-cache.js";

const tokens = (length: number, salt = 0) => Array.from({ length }, (_, i) => (i * 7 + salt) % 50_000);

describe("PrefixCache", () => {
  it("hits nothing on first sight and whole units of the shared prefix afterwards", () => {
    const cache = new PrefixCache();
    expect(cache.serve("m", tokens(300))).toBe(0);
    expect(cache.serve("m", tokens(300))).toBe(4 * CACHE_UNIT);
    expect(cache.serve("m", tokens(500))).toBe(4 * CACHE_UNIT);
    expect(cache.serve("m", tokens(63))).toBe(0);
  });

  it("matches from token 0 only: a change early invalidates everything after it", () => {
    const cache = new PrefixCache();
    cache.serve("m", tokens(640));
    const changed = tokens(640);
    changed[100] = 1;
    expect(cache.serve("m", changed)).toBe(CACHE_UNIT);
  });

  it("never reports more than the longest common prefix with anything served before", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 400 }), { minLength: 1, maxLength: 6 }), (prompts) => {
        const cache = new PrefixCache();
        prompts.forEach((prompt, i) => {
          const hit = cache.serve("m", prompt);
          const best = Math.max(0, ...prompts.slice(0, i).map((before) => commonPrefix(before, prompt)));
          expect(hit % CACHE_UNIT).toBe(0);
          expect(hit).toBe(Math.floor(best / CACHE_UNIT) * CACHE_UNIT);
        });
      }),
    );
  });

  it("keeps one namespace per model", () => {
    const cache = new PrefixCache();
    cache.serve("a", tokens(256));
    expect(cache.serve("b", tokens(256))).toBe(0);
    expect(cache.serve("a", tokens(256))).toBe(256);
  });

  it("forgets the oldest entries beyond its capacity", () => {
    const cache = new PrefixCache(2);
    cache.serve("m", tokens(128, 1));
    cache.serve("m", tokens(128, 2));
    expect(cache.serve("m", tokens(128, 1))).toBe(0);
  });
});

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
