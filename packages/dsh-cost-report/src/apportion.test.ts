import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apportion, billParts } from "./apportion.js";

const runs = { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 300) };

describe("apportion", () => {
  it("splits a total into whole parts that add up to it, each within one token of its exact share", () => {
    fc.assert(
      fc.property(fc.nat({ max: 1_000_000 }), fc.array(fc.nat({ max: 50_000 }), { minLength: 1, maxLength: 40 }), (total, weights) => {
        const parts = apportion(total, weights);
        expect(parts).toHaveLength(weights.length);
        expect(parts.reduce((sum, part) => sum + part, 0)).toBe(total);
        const sum = weights.reduce((a, b) => a + b, 0);
        parts.forEach((part, index) => {
          expect(Number.isInteger(part) && part >= 0).toBe(true);
          const exact = sum === 0 ? total / weights.length : (total * weights[index]!) / sum;
          expect(Math.abs(part - exact)).toBeLessThan(1);
        });
      }),
      runs,
    );
  });

  it("gives a part without weight nothing, shares equally when nothing weighs, and has no parts for none", () => {
    expect(apportion(10, [1, 0, 1])).toEqual([5, 0, 5]);
    expect(apportion(9, [0, 0, 0])).toEqual([3, 3, 3]);
    expect(apportion(7, [2, 1])).toEqual([4, 3]);
    expect(apportion(5, [])).toEqual([]);
  });
});

describe("billParts", () => {
  it("reads from the start, then writes for an hour, then for five minutes, then bills the rest in full", () => {
    expect(billParts([4, 3, 5, 2], { read: 5, write1h: 1, write5m: 3, uncached: 5 })).toEqual([
      { read: 4, write1h: 0, write5m: 0, uncached: 0 },
      { read: 1, write1h: 1, write5m: 1, uncached: 0 },
      { read: 0, write1h: 0, write5m: 2, uncached: 3 },
      { read: 0, write1h: 0, write5m: 0, uncached: 2 },
    ]);
    expect(billParts([3, 0, 2], { read: 0, write1h: 0, write5m: 0, uncached: 5 })).toEqual([
      { read: 0, write1h: 0, write5m: 0, uncached: 3 },
      { read: 0, write1h: 0, write5m: 0, uncached: 0 },
      { read: 0, write1h: 0, write5m: 0, uncached: 2 },
    ]);
  });

  it("bills every token of the parts once, kind by kind, when the kinds add up to the parts", () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 500 }), { minLength: 1, maxLength: 20 }), fc.tuple(fc.nat(), fc.nat(), fc.nat()), (parts, cuts) => {
        const total = parts.reduce((a, b) => a + b, 0);
        const [a, b, c] = cuts.map((cut) => (total === 0 ? 0 : cut % (total + 1))).sort((x, y) => x - y) as [number, number, number];
        const billing = { read: a, write1h: b - a, write5m: c - b, uncached: total - c };
        const billed = billParts(parts, billing);
        for (const kind of ["read", "write1h", "write5m", "uncached"] as const) expect(billed.reduce((sum, part) => sum + part[kind], 0)).toBe(billing[kind]);
        billed.forEach((part, index) => expect(part.read + part.write1h + part.write5m + part.uncached).toBe(parts[index]));
      }),
      runs,
    );
  });
});
