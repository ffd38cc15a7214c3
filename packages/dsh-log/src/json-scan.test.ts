import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countKeys, findDuplicateKey, restoreNewlines, scanChunk } from "./json-scan.js";

const runs = { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) };
const bytesOf = (text: string) => Buffer.from(text, "utf8");

/** How many object keys a JSON value holds, at every depth. */
function keysIn(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + keysIn(item), 0);
  if (typeof value === "object" && value !== null) return Object.entries(value).reduce((sum, [, item]) => sum + 1 + keysIn(item), 0);
  return 0;
}

describe("scanChunk", () => {
  it("counts lines and keys of one-value lines and turns the newlines between them into commas", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { minLength: 1, maxLength: 8 }), (values) => {
        const lines = values.map((value) => JSON.stringify(value));
        const bytes = bytesOf(`#${lines.join("\n")}#`);
        expect(scanChunk(bytes, 1, bytes.length - 1)).toEqual({ lines: values.length, keys: values.reduce((sum: number, value) => sum + keysIn(value), 0) });
        expect(bytes.toString("utf8")).toBe(`#${lines.join(",")}#`);
        restoreNewlines(bytes, 1, bytes.length - 1);
        expect(bytes.toString("utf8")).toBe(`#${lines.join("\n")}#`);
      }),
      runs,
    );
  });

  it.each([
    ["a comma between top-level values", '{"a":1}\n1,2', 9],
    ["a raw newline inside a string", '"ab\ncd"', 3],
    ["a newline inside an object", '{"a":\n1}', 5],
    ["an unterminated string", '{"a":"b', 7],
    ["an unclosed object", '{"a":[1]', 8],
  ])("stops at %s, where the caller falls back to reading line by line", (_what, text, stop) => {
    const bytes = bytesOf(text);
    expect(scanChunk(bytes, 0, bytes.length)).toBe(-(stop + 1));
    restoreNewlines(bytes, 0, stop);
    expect(bytes.toString("utf8")).toBe(text);
  });

  it("skips escaped quotes and backslashes inside strings, and counts only colons outside them", () => {
    const bytes = bytesOf('{"a\\":b":"c:\\\\"}\n["x,y",{"k":{}}]');
    expect(scanChunk(bytes, 0, bytes.length)).toEqual({ lines: 2, keys: 2 });
    expect(bytes.toString("utf8")).toBe('{"a\\":b":"c:\\\\"},["x,y",{"k":{}}]');
  });

  it("scans lines after a blanked prefix as the same lines scanned whole", () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 8 }), (objects, prefix) => {
        // A line whose chain link was blanked: "{", spaces, then the rest of the object.
        const text = objects.map((object) => `{${" ".repeat(prefix - 1)}${JSON.stringify(object).slice(1)}`).join("\n");
        const whole = bytesOf(text);
        const skipped = bytesOf(text);
        expect(scanChunk(skipped, 0, skipped.length, prefix)).toEqual(scanChunk(whole, 0, whole.length));
        expect(skipped).toEqual(whole);
      }),
      runs,
    );
    const split = bytesOf('{   "a":[1,\n{   2]}');
    expect(scanChunk(split, 0, split.length, 4)).toBe(-(11 + 1));
  });

  it("scans only between start and end", () => {
    const bytes = bytesOf('xx{"a":1}\n{"b":2}yy');
    expect(scanChunk(bytes, 2, 17)).toEqual({ lines: 2, keys: 2 });
    expect(bytes.toString("utf8")).toBe('xx{"a":1},{"b":2}yy');
  });
});

describe("restoreNewlines", () => {
  it("turns back only top-level commas, never commas in strings or nested values", () => {
    const bytes = bytesOf('[1,2],{"a":"x,\\"y,",b:[3,4]},"q\\\\",5');
    restoreNewlines(bytes, 0, bytes.length);
    expect(bytes.toString("utf8")).toBe('[1,2]\n{"a":"x,\\"y,",b:[3,4]}\n"q\\\\"\n5');
  });

  it("stops where it is told", () => {
    const bytes = bytesOf("1,2,3");
    restoreNewlines(bytes, 0, 2);
    expect(bytes.toString("utf8")).toBe("1\n2,3");
  });
});

describe("countKeys", () => {
  it("counts the keys JSON.stringify writes", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
        expect(countKeys(JSON.stringify(value))).toBe(keysIn(value));
      }), runs);
  });

  it("counts a repeated key every time it is spelled, and no colon inside a string", () => {
    expect(countKeys('{"a":1,"a":2,"s":"x:y\\":z"}')).toBe(3);
  });
});

describe("findDuplicateKey", () => {
  it.each([
    ['{"a":1,"a":2}', "a"],
    ['{"a":{"b":1,"c":2,"b":3}}', "b"],
    ['[{"x":1},{"x":2},{"y":1,"y":2}]', "y"],
    ['{"a\\"b":1,"a\\"b":2}', 'a"b'],
    ['{"a":[{"k":1}],"b":{"k":2},"a":0}', "a"],
  ])("finds the repeated key in %s", (text, key) => {
    expect(findDuplicateKey(text)).toBe(key);
  });

  it.each(['{"a":1,"b":{"a":2}}', '[{"a":1},{"a":2}]', '{"a":["a","a"],"b":"a"}', '{"a":{},"b":[]}', '"a"', "[1,2]", '{"k":"v,\\"k\\":1"}'])("finds none in %s", (text) => {
    expect(findDuplicateKey(text)).toBeUndefined();
  });

  it("never finds one in what JSON.stringify writes", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
        expect(findDuplicateKey(JSON.stringify(value))).toBeUndefined();
      }), runs);
  });
});
