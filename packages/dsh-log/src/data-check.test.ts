import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { schemaCheck } from "./data-check.js";

const runs = { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) };

const keys = ["type", "text", "callId", "n", "items", "tag", "extra"] as const;
const leaf = fc.constantFrom<unknown>(0, 1, -1, 2.5, -0, 2 ** 53, "", "a", "text", "call", "ok", "\ud800", null, true, false);
/** Values near the shapes below: their keys, their literals and their edge numbers, nested a little. */
const nearby = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("value"), { maxLength: 3 }), fc.dictionary(fc.constantFrom(...keys), tie("value"), { maxKeys: 4 })),
})).value;

/** Every object and array in `value`, depth first. */
function containers(value: unknown): object[] {
  if (typeof value !== "object" || value === null) return [];
  return [value, ...Object.values(value).flatMap(containers)];
}

/** `example` with one change: a field replaced by `leaf`, a field removed or a field added, or none. */
function mutated(example: unknown): fc.Arbitrary<unknown> {
  return fc.tuple(fc.nat(), fc.nat(), fc.constantFrom("replace", "remove", "add", "keep"), fc.constantFrom(...keys), nearby).map(([at, field, change, key, value]) => {
    const copy: unknown = structuredClone(example);
    const targets = containers(copy);
    if (change === "keep" || targets.length === 0) return change === "keep" ? copy : value;
    const target = targets[at % targets.length] as Record<string, unknown>;
    const names = Object.keys(target);
    const name = Array.isArray(target) ? String(field % (target.length + 1)) : names.length === 0 || change === "add" ? key : names[field % names.length]!;
    if (change === "remove" && !Array.isArray(target)) delete target[name];
    else target[name] = value;
    return copy;
  });
}

const text = z.string().check((context) => {
  if (context.value.includes("\ud800")) context.issues.push({ code: "custom", input: context.value, message: "lone surrogate" });
});
const block = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text"), text }),
  z.strictObject({ type: z.literal("call"), callId: z.string().min(1), n: z.number().int().nonnegative().exactOptional() }),
]);
const call = { type: "call", callId: "c", n: 1 };
/** Each schema with values it accepts, which the property changes one field at a time. */
const schemas: Record<string, readonly [z.ZodType, readonly unknown[]]> = {
  "a strict object with checked fields": [z.strictObject({ type: z.string().regex(/^[a-z]+$/), n: z.number().int().positive() }), [{ type: "text", n: 1 }]],
  "a discriminated union of strict objects": [block, [{ type: "text", text: "a" }, call]],
  "an array of blocks, at least one": [z.strictObject({ items: z.array(block).min(1), tag: z.enum(["ok", "a"]).optional() }), [{ items: [call, { type: "text", text: "" }], tag: "ok" }]],
  "a loose object": [z.looseObject({ type: z.literal("text") }), [{ type: "text", extra: [1] }]],
  "a stripping object with a nullable field": [z.object({ text: z.string().nullable() }), [{ text: null, extra: 1 }, { text: "a" }]],
  "a union and a tuple": [z.union([z.tuple([z.number(), z.string()]), z.boolean(), z.null()]), [[1, "a"], true, null]],
  "a record with a refinement": [z.record(z.string(), z.number()).refine((record) => Object.keys(record).length < 3), [{ n: 1, tag: 2 }]],
  "a custom check on the whole value": [
    z.custom<unknown>().check((context) => {
      if (JSON.stringify(context.value)?.includes('"extra"') === true) context.issues.push({ code: "custom", input: context.value, message: "extra" });
    }),
    [{ n: [1] }],
  ],
};

describe("schemaCheck", () => {
  it.each(Object.entries(schemas))("answers as safeParse does for %s", (_what, [schema, examples]) => {
    for (const example of examples) expect(schemaCheck(schema)(example)).toBe(true);
    fc.assert(
      fc.property(fc.oneof(nearby, fc.constantFrom(...examples).chain(mutated)), (value) => {
        expect(schemaCheck(schema)(value)).toBe(schema.safeParse(value).success);
      }),
      runs,
    );
  });

  it("accepts and refuses through a schema zod cannot compile (a recursive one)", () => {
    type Tree = { readonly n: number; readonly items: readonly Tree[] };
    const tree: z.ZodType<Tree> = z.lazy(() => z.strictObject({ n: z.number(), items: z.array(tree) }));
    expect(() => z.compile(tree, { strict: true })).toThrow();
    expect(schemaCheck(tree)({ n: 1, items: [{ n: 2, items: [] }] })).toBe(true);
    expect(schemaCheck(tree)({ n: 1, items: [{ n: "2", items: [] }] })).toBe(false);
  });

  it("is made once per schema and reused", () => {
    const schema = z.strictObject({ n: z.number() });
    const check = schemaCheck(schema);
    expect(schemaCheck(schema)).toBe(check);
    expect([check({ n: 1 }), check({ n: "1" })]).toEqual([true, false]);
  });
});
