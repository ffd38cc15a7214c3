import { setFlagsFromString } from "node:v8";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_KEPT_SHAPES, MAX_SHAPE_KEYS, keepEventShapes, keptEventShapes, shapeOf } from "./event-shapes.js";
import { parseJsonl } from "./jsonl-parse.js";
import { serializeHeaderLine } from "./jsonl-format.js";

// V8's own answer to "do these two objects share a hidden class", compiled after the flag is set.
setFlagsFromString("--allow-natives-syntax");
const sameHiddenClass = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;

const header = serializeHeaderLine({ format: "dsh-log", version: 1, sessionId: "s-1", createdAt: 0 });
const runs = { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) };
const line = (seq: number, type: string, data: unknown) => `${JSON.stringify({ seq, type, time: 1_796_530_510_930 + seq, data })}\n`;

describe("shapeOf", () => {
  it("keeps keys in order and the kinds of values, and none of the values", () => {
    const value = { text: "secret", n: 3, big: 2 ** 31, low: -(2 ** 31), lower: -(2 ** 31) - 1, x: 1.5, time: 1_796_530_510_930, ok: true, none: null, list: ["a", "b", "c", "d", "e", "f"], nested: { deeper: { s: "t" } } };
    const shape = shapeOf(value) as typeof value;
    expect(Object.keys(shape)).toEqual(Object.keys(value));
    // Integers V8 keeps unboxed stand as 0, every other number as a double.
    expect(shape).toEqual({ text: "", n: 0, big: 0.5, low: 0, lower: 0.5, x: 0.5, time: 0.5, ok: false, none: null, list: ["", "", "", ""], nested: { deeper: { s: "" } } });
    expect(shapeOf("top")).toBe("");
    expect(shapeOf(7)).toBe(0);
    expect(shapeOf(false)).toBe(false);
  });

  it(`keeps no shape of a value with more than ${MAX_SHAPE_KEYS} keys`, () => {
    const wide = (keys: number) => Object.fromEntries(Array.from({ length: keys }, (_, index) => [`k${index}`, index]));
    expect(Object.keys(shapeOf(wide(MAX_SHAPE_KEYS)) as object)).toHaveLength(MAX_SHAPE_KEYS);
    expect(shapeOf(wide(MAX_SHAPE_KEYS + 1))).toBeUndefined();
    expect(shapeOf({ a: wide(MAX_SHAPE_KEYS - 1), b: [{ c: 1 }] })).toBeUndefined();
    expect(shapeOf([wide(MAX_SHAPE_KEYS / 2), wide(MAX_SHAPE_KEYS / 2)])).toBeDefined();
  });

  it.each([
    ["objects", (inner: unknown) => ({ level: inner }), (outer: unknown) => (outer as { level: unknown }).level],
    ["arrays", (inner: unknown) => [inner], (outer: unknown) => (outer as unknown[])[0]],
  ])("cuts nesting of %s deeper than sixteen levels", (_what, wrap, unwrap) => {
    let deep: unknown = "leaf";
    for (let level = 0; level < 20; level++) deep = wrap(deep);
    let shape = shapeOf(deep);
    let levels = 0;
    while (typeof shape === "object" && shape !== null) {
      shape = unwrap(shape);
      levels++;
    }
    expect(levels).toBe(16);
    expect(shape).toBeNull();
  });
});

describe("keepEventShapes", () => {
  it("keeps, frozen, the shape of the first event of each type the reader parses, with the hidden classes of the reader's events", () => {
    const text = header + line(0, "test/a", { content: [{ type: "text", text: "secret one" }] }) + line(1, "test/a", { other: "secret two" }) + line(2, "test/b", { n: 1234567, isError: true });
    const { events } = parseJsonl(new TextEncoder().encode(text));
    const kept = keptEventShapes();
    const a = kept.get("test/a") as { data: { content: { type: string; text: string }[] } };
    expect(a).toEqual({ seq: 0, type: "", time: 0.5, data: { content: [{ type: "", text: "" }] } });
    expect(kept.get("test/b")).toEqual({ seq: 0, type: "", time: 0.5, data: { n: 0, isError: false } });
    expect(JSON.stringify([...kept.values()])).not.toMatch(/secret|1234567|true|1796530510930/);
    expect(Object.isFrozen(a) && Object.isFrozen(a.data) && Object.isFrozen(a.data.content) && Object.isFrozen(a.data.content[0])).toBe(true);
    // What the shapes are for: the same hidden classes as the events, at every level.
    const first = events[0] as unknown as typeof a;
    expect(sameHiddenClass(first, a)).toBe(true);
    expect(sameHiddenClass(first.data, a.data)).toBe(true);
    expect(sameHiddenClass(first.data.content[0]!, a.data.content[0]!)).toBe(true);
  });

  it("replaces a type's shape with the one a later load sees first", () => {
    keepEventShapes([{ seq: 0, type: "test/c", time: 0, data: { first: 1 } }]);
    keepEventShapes([{ seq: 0, type: "test/c", time: 0, data: { second: 2 } }, { seq: 1, type: "test/c", time: 0, data: { third: 3 } }]);
    expect(keptEventShapes().get("test/c")).toEqual({ seq: 0, type: "", time: 0, data: { second: 0 } });
  });

  it("keeps the shape it holds when a later load sees the same one", () => {
    keepEventShapes([{ seq: 0, type: "test/d", time: 0, data: { same: "one" } }]);
    const kept = keptEventShapes().get("test/d");
    keepEventShapes([{ seq: 5, type: "test/d", time: 9, data: { same: "two" } }]);
    expect(keptEventShapes().get("test/d")).toBe(kept);
  });

  // Values from a small space, so that two of them often have one shape: few keys (in any order), short arrays, every kind of number.
  const leaf = fc.oneof(fc.constantFrom("", "x"), fc.constantFrom(0, 7, -1, 2 ** 31, -(2 ** 31), 0.5, 1_796_530_510_930), fc.boolean(), fc.constant(null));
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("value"), { maxLength: 6 }), fc.dictionary(fc.constantFrom("a", "b", "c"), tie("value"), { maxKeys: 3 })),
  }));
  /**
   * `data` with every value replaced by another of its kind, and the elements of an array past its
   * fourth by anything; with `reversed`, every object's keys in the opposite order too.
   */
  const sameKind = (data: unknown, reversed: boolean): unknown => {
    if (typeof data === "string") return `other ${data}`;
    if (typeof data === "boolean") return !data;
    if (typeof data === "number") return Number.isInteger(data) && Math.abs(data) < 2 ** 31 ? (data === 3 ? 4 : 3) : data + 0.25;
    if (Array.isArray(data)) return data.map((item: unknown, at) => (at >= 4 ? "past the fourth" : sameKind(item, reversed)));
    if (typeof data !== "object" || data === null) return data;
    const entries = Object.entries(data).map(([key, item]) => [key, sameKind(item, reversed)] as const);
    return Object.fromEntries(reversed ? entries.reverse() : entries);
  };
  const keepsKept = (first: unknown, second: unknown) => {
    keepEventShapes([{ seq: 0, type: "test/property", time: 0, data: first }]);
    const kept = keptEventShapes().get("test/property");
    keepEventShapes([{ seq: 1, type: "test/property", time: 0, data: second }]);
    return keptEventShapes().get("test/property") === kept;
  };

  it("keeps the shape it holds exactly when a later load's has the same keys in the same order and values of the same kinds", () => {
    fc.assert(
      fc.property(value, value, fc.constantFrom("another value", "its kinds", "its kinds, keys reversed"), (first, other, made) => {
        const second = made === "another value" ? other : sameKind(first, made !== "its kinds");
        expect(keepsKept(first, second)).toBe(JSON.stringify(shapeOf(first)) === JSON.stringify(shapeOf(second)));
      }),
      runs,
    );
  });

  it("reads a later load's values no deeper than the shape keeps them", () => {
    const nested = (levels: number, leafValue: unknown) => {
      let data = leafValue;
      for (let level = 0; level < levels; level++) data = level % 2 === 0 ? { level: data } : [data];
      return data;
    };
    // The event is level 0 and its data level 1: an object or array at level 16 or below is kept as null, whatever it holds.
    expect(keepsKept(nested(16, "leaf"), nested(16, 5))).toBe(true);
    expect(keepsKept(nested(15, "leaf"), nested(15, 5))).toBe(false);
    expect(keepsKept(nested(15, {}), nested(15, []))).toBe(true);
    expect(keepsKept(nested(14, {}), nested(14, []))).toBe(false);
  });

  it(`keeps at most ${MAX_KEPT_SHAPES} types, and skips values that are not events`, () => {
    const many = Array.from({ length: MAX_KEPT_SHAPES + 10 }, (_, index) => ({ seq: index, type: `test/many-${index}`, time: 0, data: {} }));
    keepEventShapes([null, 3, { type: 4 }, { type: "test/wide", data: Object.fromEntries(Array.from({ length: MAX_SHAPE_KEYS }, (_, index) => [`k${index}`, 0])) }, ...many]);
    expect(keptEventShapes().has("test/wide")).toBe(false);
    expect([...keptEventShapes().keys()].every((type) => typeof type === "string")).toBe(true);
    expect(keptEventShapes().size).toBe(MAX_KEPT_SHAPES);
    expect(keptEventShapes().has(`test/many-${MAX_KEPT_SHAPES + 9}`)).toBe(false);
  });
});
