import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OpenCalls } from "./open-calls.js";

const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ callId: `c${i}`, name: `tool${i % 3}` }));

describe("OpenCalls", () => {
  it("answers calls in any order like a list the answered calls are removed from, never changing an earlier value", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 12 }).chain((n) => fc.tuple(fc.constant(n), fc.shuffledSubarray(calls(n).map((call) => call.callId), { minLength: n, maxLength: n }))), ([n, order]) => {
        let open = OpenCalls.of(calls(n));
        let model = calls(n);
        const history: [OpenCalls, string[]][] = [];
        for (const id of order) {
          expect(open.find(id)).toEqual(model.find((call) => call.callId === id));
          history.push([open, model.map((call) => call.callId)]);
          open = open.answer(id);
          model = model.filter((call) => call.callId !== id);
          expect(open.length).toBe(model.length);
          expect(open.toArray()).toEqual(model);
          expect(open.find(id)).toBeUndefined();
          for (const call of calls(n)) expect(open.find(call.callId)).toEqual(model.find((open) => open.callId === call.callId));
        }
        for (const [value, ids] of history) expect(value.toArray().map((call) => call.callId)).toEqual(ids);
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) },
    );
  });

  it("finds nothing for an unknown id, and starts empty", () => {
    const open = OpenCalls.of(calls(3)).answer("c1");
    expect(open.find("c9")).toBeUndefined();
    expect(open.find("c1")).toBeUndefined();
    expect(open.find("c2")).toEqual({ callId: "c2", name: "tool2" });
    expect([OpenCalls.none.length, OpenCalls.of([]).length, OpenCalls.of([]) === OpenCalls.none]).toEqual([0, 0, true]);
    // Answering the first call after a later one moves past both.
    expect(open.answer("c0").toArray()).toEqual([{ callId: "c2", name: "tool2" }]);
    expect(open.answer("c0").answer("c2").length).toBe(0);
    // Answering the last open call gives back the shared empty value, not a new one.
    expect(open.answer("c0").answer("c2")).toBe(OpenCalls.none);
    expect(OpenCalls.of(calls(1)).answer("c0")).toBe(OpenCalls.none);
  });
});
