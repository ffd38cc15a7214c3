import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { CACHE_UNIT, OPENAI_GRANULARITY, PrefixCache, type Granularity } from "./prefix-cache.js";

/** Counts the hashes the cache makes: a prompt that repeats the last one's start must not hash it again. */
const hashes = vi.hoisted(() => ({ made: 0 }));
vi.mock("node:crypto", async (original) => {
  const crypto = await original<typeof import("node:crypto")>();
  return { ...crypto, createHash: (algorithm: string) => (hashes.made++, crypto.createHash(algorithm)) };
});

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

  it("forgets the oldest entries beyond its capacity, and reads nothing past a prefix it forgot", () => {
    const cache = new PrefixCache(2);
    cache.serve("m", tokens(128, 1));
    cache.serve("m", tokens(128, 2));
    expect(cache.keys()).toHaveLength(2);
    expect(cache.serve("m", tokens(128, 2))).toBe(128);
    expect(cache.serve("m", tokens(128, 1))).toBe(0);
    // Three units in a cache of two keeps the last two: the first is gone, so nothing is read.
    cache.serve("m", tokens(192, 3));
    expect(cache.serve("m", tokens(192, 3))).toBe(0);
  });
});

/** The keys of a prompt's whole prefixes, hashed from scratch: what a saved cache file holds. */
function chainKeys(start: string, prompt: readonly number[], grain: Granularity): string[] {
  const keys: string[] = [];
  let previous = createHash("sha256").update(start).digest("hex");
  for (let end = grain.first, from = 0; end <= prompt.length; from = end, end += grain.unit) {
    previous = createHash("sha256").update(previous).update(Uint32Array.from(prompt.slice(from, end))).digest("hex");
    keys.push(previous);
  }
  return keys;
}

describe("PrefixCache keys", () => {
  const small: Granularity = { first: 8, unit: 4 };
  /** A prompt from the one before: cut, grown, changed at one place, or new. */
  const edit = fc.record({ keep: fc.nat(), change: fc.option(fc.nat()), grow: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 40 }) });

  it("are the chain of every whole prefix however the prompts before it started, and hits are unchanged", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(edit, fc.boolean(), fc.constantFrom("m", "n")), { minLength: 1, maxLength: 12 }), (edits) => {
        const cache = new PrefixCache();
        const entries = new Set<string>();
        let prompt: number[] = [];
        for (const [{ keep, change, grow }, useSmall, model] of edits) {
          prompt = [...prompt.slice(0, keep % (prompt.length + 1)), ...grow];
          if (change !== null && prompt.length > 0) prompt[change % prompt.length] = 7;
          const grain = useSmall ? small : undefined;
          const keys = chainKeys(useSmall ? `8/4:${model}` : model, prompt, grain ?? { first: CACHE_UNIT, unit: CACHE_UNIT });
          const hits = keys.findIndex((key) => !entries.has(key));
          const expected = hits === -1 ? keys.length : hits;
          const unit = useSmall ? small : { first: CACHE_UNIT, unit: CACHE_UNIT };
          expect(cache.serve(model, prompt, grain)).toBe(expected === 0 ? 0 : unit.first + (expected - 1) * unit.unit);
          for (const key of keys) entries.delete(key), entries.add(key);
          expect(cache.keys()).toEqual([...entries]);
        }
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) },
    );
  });

  it("start DeepSeek's chain from the model alone and other granularities' from theirs, as saved cache files hold them", () => {
    const cache = new PrefixCache();
    cache.serve("m", tokens(130));
    cache.serve("m", tokens(1024 + 128), OPENAI_GRANULARITY);
    expect(cache.keys()).toEqual([...chainKeys("m", tokens(130), { first: CACHE_UNIT, unit: CACHE_UNIT }), ...chainKeys("1024/128:m", tokens(1024 + 128), OPENAI_GRANULARITY)]);
  });

  it("hash only the prefixes a prompt does not share with the last one served from the same start", () => {
    const cache = new PrefixCache();
    const base = tokens(1024 + 128 * 3);
    cache.serve("m", base, OPENAI_GRANULARITY);
    hashes.made = 0;
    cache.serve("m", tokens(1024 + 128 * 5), OPENAI_GRANULARITY);
    expect(hashes.made).toBe(2);
    hashes.made = 0;
    const changed = tokens(1024 + 128 * 5);
    changed[1024 + 130] = 1;
    cache.serve("m", changed, OPENAI_GRANULARITY);
    expect(hashes.made).toBe(4);
    const start = "1024/128:m";
    expect(new Set(cache.keys())).toEqual(new Set([...chainKeys(start, base, OPENAI_GRANULARITY), ...chainKeys(start, tokens(1024 + 128 * 5), OPENAI_GRANULARITY), ...chainKeys(start, changed, OPENAI_GRANULARITY)]));
    // One prefix shared, the next hashed from its key.
    const one = new PrefixCache();
    one.serve("m", tokens(1024 + 10), OPENAI_GRANULARITY);
    one.serve("m", tokens(1024 + 256), OPENAI_GRANULARITY);
    expect(one.keys()).toEqual(chainKeys(start, tokens(1024 + 256), OPENAI_GRANULARITY));
    // The last prompts of a few starts only are kept.
    const many = new PrefixCache();
    many.serve("first", tokens(128));
    for (let i = 0; i < 16; i++) many.serve(`model ${i}`, tokens(128));
    hashes.made = 0;
    many.serve("first", tokens(128));
    expect(hashes.made).toBe(3);
    // A start seen before, or a new one while there is room, drops none.
    const few = new PrefixCache();
    few.serve("a", tokens(128));
    few.serve("b", tokens(128));
    few.serve("a", tokens(128));
    hashes.made = 0;
    few.serve("a", tokens(128));
    few.serve("b", tokens(128));
    expect(hashes.made).toBe(0);
    // Another start (the default grain) hashes its own chain; its start key is one hash more.
    hashes.made = 0;
    cache.serve("m", tokens(128));
    expect(hashes.made).toBe(3);
    hashes.made = 0;
    cache.serve("m", tokens(192));
    expect(hashes.made).toBe(1);
  });
});

describe("PrefixCache marked keys", () => {
  /** The key of each segment end, hashed from scratch. */
  function segmentKeys(model: string, prompt: readonly number[], ends: readonly number[]): string[] {
    let previous = createHash("sha256").update(`marked:${model}`).digest("hex");
    return ends.map((end, i) => (previous = createHash("sha256").update(previous).update(Uint32Array.from(prompt.slice(ends[i - 1] ?? 0, end))).digest("hex")));
  }
  /** A prompt cut into segments, some marked: the one before with its tail cut, grown, or changed in one place. */
  const step = fc.record({ keep: fc.nat(), change: fc.option(fc.nat()), grow: fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 30 }), cuts: fc.array(fc.nat({ max: 6 }), { maxLength: 8 }), marks: fc.array(fc.boolean(), { maxLength: 8 }) });

  it("are the chain of every segment end however the prompts before it were cut, and hits are unchanged", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 10 }), fc.nat({ max: 12 }), (steps, minimum) => {
        const cache = new PrefixCache();
        const entries = new Set<string>();
        let prompt: number[] = [];
        let ends: number[] = [];
        for (const { keep, change, grow, cuts, marks } of steps) {
          const kept = keep % (ends.length + 1);
          prompt = [...prompt.slice(0, ends[kept - 1] ?? 0), ...grow];
          if (change !== null && prompt.length > 0) prompt[change % prompt.length] = 9;
          // The kept segments' ends, then new ends within what grew.
          ends = ends.slice(0, kept);
          for (const cut of cuts) ends.push(Math.min(prompt.length, (ends.at(-1) ?? 0) + cut));
          const keys = segmentKeys("m", prompt, ends);
          let expected = 0;
          keys.forEach((key, i) => {
            if (ends[i]! >= minimum && entries.has(key)) expected = ends[i]!;
          });
          expect(cache.serveMarked("m", prompt, ends, marks, minimum)).toBe(expected);
          keys.forEach((key, i) => {
            if (ends[i]! >= minimum && marks[i] === true) entries.delete(key), entries.add(key);
          });
          expect(cache.keys()).toEqual([...entries]);
        }
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) },
    );
  });

  it("hash only the segments past what a prompt shares with the last one from the same start", () => {
    const cache = new PrefixCache();
    cache.serveMarked("m", tokens(300), [100, 200, 300], [true, true, true], 0);
    hashes.made = 0;
    cache.serveMarked("m", tokens(400), [100, 200, 300, 400], [true, true, true, true], 0);
    expect(hashes.made).toBe(1);
    hashes.made = 0;
    // The same tokens cut elsewhere from the second segment on.
    cache.serveMarked("m", tokens(400), [100, 250, 400], [true, true, true], 0);
    expect(hashes.made).toBe(2);
    // Ends the caller changes afterwards are not the ones the cache compares with.
    const ends = [100, 200, 300];
    const prompt = tokens(300);
    const fresh = new PrefixCache();
    fresh.serveMarked("m", prompt, ends, [true, true, true], 0);
    ends[1] = 150;
    expect(fresh.serveMarked("m", prompt, [100, 150, 300], [true, true, true], 0)).toBe(100);
  });
});

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
