import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deepFreeze, freezeParsedJson, isDeepFrozen } from "./freeze.js";

const nested = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small" },
    fc.jsonValue(),
    fc.array(tie("node"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie("node"), { maxKeys: 4 }),
  ),
})).node;

function objectsIn(value: unknown, out: object[] = []): object[] {
  if (typeof value === "object" && value !== null && !out.includes(value)) {
    out.push(value);
    for (const child of Object.values(value)) objectsIn(child, out);
  }
  return out;
}

describe("deepFreeze", () => {
  it("freezes every reachable object and returns the same reference", () => {
    fc.assert(
      fc.property(nested, (value) => {
        const result = deepFreeze(value);
        expect(result).toBe(value);
        for (const object of objectsIn(value)) expect(Object.isFrozen(object)).toBe(true);
        expect(isDeepFrozen(value)).toBe(true);
      }),
    );
  });

  it("makes mutation throw at any depth", () => {
    const value = deepFreeze({ a: { b: [{ c: 1 }] } });
    expect(() => {
      (value.a.b[0] as { c: number }).c = 2;
    }).toThrow(TypeError);
    expect(() => {
      (value.a.b as unknown as unknown[]).push(1);
    }).toThrow(TypeError);
  });

  it("handles cycles and very deep structures without recursion", () => {
    const cyclic: { self?: unknown; list: unknown[] } = { list: [] };
    cyclic.self = cyclic;
    cyclic.list.push(cyclic);
    deepFreeze(cyclic);
    expect(Object.isFrozen(cyclic.list)).toBe(true);

    let deep: { next?: unknown } = {};
    const head = deep;
    for (let i = 0; i < 100_000; i++) {
      const next = {};
      deep.next = next;
      deep = next;
    }
    deepFreeze(head);
    expect(Object.isFrozen(deep)).toBe(true);
  });

  it("leaves an AbortSignal live so a frozen request can still be cancelled", () => {
    const controller = new AbortController();
    const request = deepFreeze({ signal: controller.signal, messages: [] });
    expect(Object.isFrozen(request)).toBe(true);
    expect(Object.isFrozen(controller.signal)).toBe(false);
    controller.abort();
    expect(request.signal.aborted).toBe(true);
  });

  it("freezes new parts of a structure that shares an already frozen subtree", () => {
    const shared = deepFreeze({ text: "history" });
    const next = deepFreeze({ messages: [shared, { text: "new" }] });
    expect(isDeepFrozen(next)).toBe(true);
    expect(next.messages[0]).toBe(shared);
  });

  it("reports a structure with a mutable leaf as not deep-frozen", () => {
    expect(isDeepFrozen(Object.freeze({ inner: {} }))).toBe(false);
    expect(isDeepFrozen(Object.freeze([Object.freeze({}), []]))).toBe(false);
    expect(isDeepFrozen({})).toBe(false);
    expect(isDeepFrozen(Object.freeze({ n: 1, s: "x" }))).toBe(true);
    expect(isDeepFrozen(3)).toBe(true);
  });

  it("freezes functions reachable from the value, and their properties", () => {
    const fn = Object.assign(() => 1, { meta: { a: 1 } });
    deepFreeze({ fn });
    expect(Object.isFrozen(fn)).toBe(true);
    expect(Object.isFrozen(fn.meta)).toBe(true);
  });

  it("never calls a getter: an accessor is frozen as a property, what it would return is not walked", () => {
    let calls = 0;
    const inner = { mutable: true };
    const value = Object.defineProperty({ plain: { a: 1 } }, "computed", { get: () => (calls++, inner), enumerable: true });
    deepFreeze(value);
    expect(isDeepFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.plain) && !Object.isFrozen(inner)).toBe(true);
    expect(calls).toBe(0);
  });

  it("freezes objects held under symbol keys and inside arrays of arrays", () => {
    const key = Symbol("k");
    const value = { [key]: { a: 1 }, list: [[{ b: 2 }]] };
    deepFreeze(value);
    expect(Object.isFrozen(value[key])).toBe(true);
    expect(Object.isFrozen(value.list[0]![0])).toBe(true);
  });
});

describe("freezeParsedJson", () => {
  it("freezes every object of a parsed tree and counts its object keys (array indices are not keys)", () => {
    const value = JSON.parse('{"a":{"b":[1,{"c":null,"d":"x"}],"e":true},"f":[[],[{}]]}') as { a: { b: [number, object] }; f: unknown[][] };
    expect(freezeParsedJson(value, 512)).toBe(6);
    expect(isDeepFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
    expect(Object.isFrozen(value.f[1]![0])).toBe(true);
  });

  it("reports a repeated key as fewer keys than the text spelled out", () => {
    expect(freezeParsedJson(JSON.parse('{"a":1,"a":2}'), 512)).toBe(1);
  });

  it("takes primitives as they are and refuses the numbers JSON cannot carry back", () => {
    expect(freezeParsedJson("text", 512)).toBe(0);
    expect(freezeParsedJson(null, 512)).toBe(0);
    expect(freezeParsedJson(3, 512)).toBe(0);
    expect(freezeParsedJson(JSON.parse("-0"), 512)).toBe("-0 does not survive JSON");
    expect(freezeParsedJson(JSON.parse("1e400"), 512)).toBe("Infinity does not survive JSON");
    expect(freezeParsedJson(JSON.parse('{"a":[1,{"b":-0}]}'), 512)).toBe("-0 does not survive JSON");
    expect(freezeParsedJson(JSON.parse('{"a":[-1e999]}'), 512)).toBe("-Infinity does not survive JSON");
    expect(freezeParsedJson(JSON.parse('{"a":[0,-1.5]}'), 512)).toBe(1);
  });

  it("refuses nesting deeper than the limit, counting the top as level 1", () => {
    const nested = (levels: number) => JSON.parse(`${"[".repeat(levels)}${"]".repeat(levels)}`) as unknown;
    expect(freezeParsedJson(nested(3), 3)).toBe(0);
    expect(freezeParsedJson(nested(4), 3)).toBe("nests deeper than 3 levels");
    expect(freezeParsedJson(JSON.parse('{"a":{"b":{}}}'), 3)).toBe(2);
    expect(freezeParsedJson(JSON.parse('{"a":{"b":{"c":1}}}'), 2)).toBe("nests deeper than 2 levels");
    // A null is a value, not a level.
    expect(freezeParsedJson(JSON.parse('[[null],{"n":null}]'), 2)).toBe(1);
  });

  it("leaves nothing behind after a refusal: the next walk starts clean", () => {
    expect(freezeParsedJson(JSON.parse('[{"x":[[1]]}]'), 2)).toBe("nests deeper than 2 levels");
    expect(freezeParsedJson(JSON.parse('{"k":1}'), 1)).toBe(1);
  });
});
