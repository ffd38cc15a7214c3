import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findNonJson, jsonEquals } from "./json.js";

describe("findNonJson", () => {
  it("accepts every value that round-trips through JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(findNonJson(JSON.parse(JSON.stringify(value)))).toBeUndefined();
      }),
    );
  });

  it("accepts a shared (non-cyclic) sub-object", () => {
    const shared = { a: 1 };
    expect(findNonJson({ x: shared, y: [shared, shared] })).toBeUndefined();
  });

  it.each<[string, unknown, RegExp]>([
    ["undefined", { a: undefined }, /\$\.a: undefined/],
    ["NaN", [1, Number.NaN], /\$\[1\]: NaN is not a finite number/],
    ["-0", { n: -0 }, /-0 does not survive JSON/],
    ["a hole", [1, , 3], /sparse array hole/],
    ["a Date", { when: new Date(0) }, /not a plain object/],
    ["a function", { f: () => 1 }, /function is not JSON/],
    ["a bigint", { n: 1n }, /bigint is not JSON/],
  ])("names the path of %s", (_what, value, message) => {
    expect(findNonJson(value)).toMatch(message);
  });

  it("detects a cycle", () => {
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    expect(findNonJson(cyclic)).toMatch(/cycle/);
  });
});

describe("jsonEquals", () => {
  it("agrees with canonical comparison and ignores key order", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const canonical = (v: unknown): string =>
          JSON.stringify(v, (_k, x: unknown) =>
            x !== null && typeof x === "object" && !Array.isArray(x)
              ? Object.fromEntries(Object.entries(x).sort(([p], [q]) => (p < q ? -1 : 1)))
              : x,
          );
        const [x, y] = [JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b))];
        expect(jsonEquals(x, y)).toBe(canonical(x) === canonical(y));
        expect(jsonEquals(x, JSON.parse(JSON.stringify(x)))).toBe(true);
      }),
    );
  });
});
