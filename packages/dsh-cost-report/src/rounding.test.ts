import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { roundToTotal } from "./rounding.js";

describe("roundToTotal", () => {
  it("rounds shares to whole numbers that add up to their total, each within one of its share", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 50 }), (shares) => {
        // The total a kind of token is known to have: the shares' sum, which floating point misses by a little.
        const total = Math.round(shares.reduce((sum, share) => sum + share, 0));
        const scaled = shares.map((share) => (share * total) / Math.max(1e-12, shares.reduce((sum, part) => sum + part, 0)));
        const whole = roundToTotal(scaled, total);
        expect(whole.reduce((sum, part) => sum + part, 0)).toBe(total);
        whole.forEach((part, index) => {
          expect(Number.isInteger(part) && part >= 0).toBe(true);
          expect(Math.abs(part - scaled[index]!)).toBeLessThan(1 + 1e-6);
        });
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 300) },
    );
  });

  it("gives the ones left over to the largest remainders, the first of equal ones, and never to a share of nothing", () => {
    expect(roundToTotal([1.5, 2.7, 0.8], 5)).toEqual([1, 3, 1]);
    expect(roundToTotal([0.5, 0.5, 0], 1)).toEqual([1, 0, 0]);
    expect(roundToTotal([2.9999999999, 1], 4)).toEqual([3, 1]);
    expect(roundToTotal([], 0)).toEqual([]);
  });
});
