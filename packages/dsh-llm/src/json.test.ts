import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isDeepFrozen } from "./freeze.js";
import { MAX_JSON_DEPTH, canonicalJson, findNonJson, frozenJsonCopy, jsonEquals, jsonObjectSchema, jsonTextDepth, jsonValueSchema, type JsonValue } from "./json.js";
import { StreamAssembler } from "./stream.js";

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
    ["undefined", { a: undefined }, /^\$\.a: undefined is not JSON$/],
    ["a deep undefined", { a: [{ b: { c: undefined } }] }, /^\$\.a\[0\]\.b\.c: undefined is not JSON$/],
    ["Infinity", { n: [Number.POSITIVE_INFINITY] }, /^\$\.n\[0\]: Infinity is not a finite number$/],
    ["a class instance", [new (class Point {})()], /^\$\[0\]: not a plain object$/],
    ["a symbol", { s: Symbol("x") }, /^\$\.s: symbol is not JSON$/],
    ["NaN", [1, Number.NaN], /\$\[1\]: NaN is not a finite number/],
    ["-0", { n: -0 }, /-0 does not survive JSON/],
    ["a hole", [1, , 3], /sparse array hole/],
    ["a Date", { when: new Date(0) }, /not a plain object/],
    ["a function", { f: () => 1 }, /function is not JSON/],
    ["a bigint", { n: 1n }, /bigint is not JSON/],
  ])("names the path of %s", (_what, value, message) => {
    expect(findNonJson(value)).toMatch(message);
  });

  it("accepts objects without a prototype and top-level primitives", () => {
    expect(findNonJson(Object.assign(Object.create(null) as object, { a: 1 }))).toBeUndefined();
    expect(findNonJson("text")).toBeUndefined();
    expect(findNonJson(null)).toBeUndefined();
    expect(findNonJson(undefined)).toBe("$: undefined is not JSON");
  });

  it("refuses nesting deeper than MAX_JSON_DEPTH, at any depth, without overflowing the stack", () => {
    const nest = (depth: number): unknown => {
      let value: unknown = 1;
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    };
    expect(findNonJson(nest(MAX_JSON_DEPTH))).toBeUndefined();
    expect(findNonJson(nest(MAX_JSON_DEPTH + 1))).toMatch(/nests deeper than 512 levels$/);
    expect(findNonJson(nest(100_000))).toMatch(/nests deeper than 512 levels$/);
    // A deep place is named by the start and the end of its path, a line a person can read.
    const path = `$.a${"[0]".repeat(MAX_JSON_DEPTH - 1)}`;
    expect(findNonJson({ a: nest(MAX_JSON_DEPTH) })).toBe(`${path.slice(0, 60)}…${path.slice(-60)}: nests deeper than 512 levels`);
    expect(findNonJson({ a: [1, [2, Number.NaN]] })).toBe("$.a[1][1]: NaN is not a finite number");
    const long = "k".repeat(120);
    expect(findNonJson({ [long]: Number.NaN })).toBe(`$.${long.slice(0, 58)}…${long.slice(-60)}: NaN is not a finite number`);
  });

  it("detects a cycle", () => {
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    expect(findNonJson(cyclic)).toMatch(/cycle/);
  });
});

describe("jsonEquals", () => {
  it.each<[string, unknown, unknown, boolean]>([
    ["null and an object", null, {}, false],
    ["an object and null", {}, null, false],
    ["undefined and null", undefined, null, false],
    ["null and undefined", null, undefined, false],
    ["undefined and undefined", undefined, undefined, true],
    ["an array and an object with its indexes", [1], { 0: 1 }, false],
    ["an object and an array", { 0: 1 }, [1], false],
    ["arrays of different lengths", [1], [1, 2], false],
    ["equal nested arrays", [[1, { a: [2] }]], [[1, { a: [2] }]], true],
    ["a number and its string", 1, "1", false],
    ["a string and an object", "a", { a: 1 }, false],
    ["objects whose keys differ", { a: 1 }, { b: 1 }, false],
    ["objects with an undefined key on one side", { a: 1, b: undefined }, { a: 1, c: 2 }, false],
    ["a number and an empty object", 1, {}, false],
    ["an empty object and a number", {}, 1, false],
    ["an array and an object that looks like it", [1], { length: 1, 0: 1 }, false],
    ["an object that looks like an array and the array", { length: 1, 0: 1 }, [1], false],
  ])("compares %s", (_what, a, b, expected) => {
    expect(jsonEquals(a as never, b as never)).toBe(expected);
  });

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

describe("frozenJsonCopy", () => {
  it("keeps an own __proto__ key a key, never a prototype", () => {
    const parsed = JSON.parse('{"a":1,"__proto__":[2],"b":{"__proto__":{"x":1}}}') as Record<string, unknown>;
    const copy = frozenJsonCopy(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["a", "__proto__", "b"]);
    expect(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value).toEqual([2]);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed));
    expect(Object.getPrototypeOf(copy.b)).toBe(Object.prototype);
    expect(Object.isFrozen(copy)).toBe(true);
  });

  it("copies exact JSON deep-frozen, keeping key order, and shares nothing with the source", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const source = JSON.parse(JSON.stringify(value)) as unknown;
        const copy = frozenJsonCopy(source);
        expect(JSON.stringify(copy)).toBe(JSON.stringify(source));
        expect(isDeepFrozen(copy)).toBe(true);
        if (typeof source === "object" && source !== null) expect(copy).not.toBe(source);
      }),
    );
  });

  it("refuses exactly what findNonJson refuses", () => {
    const deep: unknown[] = [];
    let cursor = deep;
    for (let i = 0; i < MAX_JSON_DEPTH + 2; i++) cursor = (cursor[0] = []) as unknown[];
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    for (const bad of [{ a: undefined }, [Number.NaN], { n: -0 }, [1, , 2], new Date(0), () => 1, 1n, Symbol("s"), deep, cyclic, [Number.POSITIVE_INFINITY]]) {
      expect(frozenJsonCopy(bad)).toBeUndefined();
      expect(findNonJson(bad)).toBeDefined();
    }
    expect(frozenJsonCopy(Object.assign(Object.create(null) as object, { a: [1, "x", null, true] }))).toEqual({ a: [1, "x", null, true] });
  });
});

describe("canonicalJson", () => {
  it("sorts keys at every depth, so a parsed copy (integer-like keys first) writes the same bytes as the original", () => {
    const original = { b: 1, "10": { z: [{ y: 1, x: 2 }], a: null }, a: "x" };
    const reparsed = JSON.parse(JSON.stringify(original)) as typeof original;
    expect(JSON.stringify(canonicalJson(original))).toBe('{"10":{"a":null,"z":[{"x":2,"y":1}]},"a":"x","b":1}');
    expect(JSON.stringify(canonicalJson(reparsed))).toBe(JSON.stringify(canonicalJson(original)));
  });

  it("keeps a key named __proto__ as a key", () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as JsonValue;
    expect(JSON.stringify(canonicalJson(value))).toBe('{"__proto__":{"polluted":true},"a":1}');
  });
});

describe("jsonTextDepth and the depth of tool-call arguments", () => {
  it("measures nesting without parsing, brackets in strings left out", () => {
    expect(jsonTextDepth("1")).toBe(0);
    expect(jsonTextDepth('{"a":[1,{"b":"[[[{"}]}')).toBe(3);
    expect(jsonTextDepth('"\\\\"')).toBe(0);
    expect(jsonTextDepth('["\\"]"]')).toBe(1);
    expect(jsonTextDepth("[[[")).toBe(3);
  });

  it("refuses an answer whose tool-call arguments nest deeper than the one depth rule, as malformed, with one line", () => {
    const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
    const answer = (text: string) => {
      const assembler = new StreamAssembler();
      assembler.push({ type: "tool-call-delta", index: 0, callId: "c", name: "t", argumentsDelta: text });
      assembler.push({ type: "finish", reason: "tool-calls" });
      return () => assembler.result();
    };
    expect(answer(deep(MAX_JSON_DEPTH))()).toMatchObject({ content: [{ arguments: deep(MAX_JSON_DEPTH) }] });
    expect(answer(deep(5000))).toThrow(expect.objectContaining({ code: "LLM_MALFORMED_STREAM", message: `the provider's answer is malformed: content[0].arguments: nested deeper than ${MAX_JSON_DEPTH} levels` }));
    // The shortest text too deep: one bracket past the limit, and nothing else.
    expect(answer("[".repeat(MAX_JSON_DEPTH + 1))).toThrow(`nested deeper than ${MAX_JSON_DEPTH} levels`);
  });
});

describe("jsonValueSchema and jsonObjectSchema", () => {
  it.each<[string, unknown, string | undefined]>([
    ["a nested value", { a: [1, "b", null, { c: true }] }, undefined],
    ["-0", { a: -0 }, "$.a: -0 does not survive JSON"],
    ["an infinite number", { a: [Infinity] }, "$.a[0]: Infinity is not a finite number"],
    ["undefined", { a: undefined }, "$.a: undefined is not JSON"],
    ["a Map", { a: new Map() }, "$.a: not a plain object"],
  ])("refuses exactly what findNonJson refuses, with its reason: %s", (_what, value, reason) => {
    for (const schema of [jsonValueSchema, jsonObjectSchema]) {
      const parsed = schema.safeParse(value);
      expect(parsed.success).toBe(reason === undefined);
      if (reason !== undefined) expect(parsed.error?.issues.map((issue) => [issue.code, issue.message])).toEqual([["custom", reason]]);
    }
  });

  it("takes any JSON value, an object only when it is a plain object", () => {
    for (const value of [null, 1, "a", [1]]) {
      expect(jsonValueSchema.safeParse(value).success).toBe(true);
      expect(jsonObjectSchema.safeParse(value).success).toBe(false);
    }
    expect(jsonValueSchema.safeParse(undefined).success).toBe(false);
  });

  it("is not recursive, so zod compiles what holds it", () => {
    expect(() => z.compile(z.strictObject({ item: jsonObjectSchema, value: jsonValueSchema }), { strict: true })).not.toThrow();
  });
});
