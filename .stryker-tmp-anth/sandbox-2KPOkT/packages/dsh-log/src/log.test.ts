import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EventLog } from "./log.js";
import { noteAdded, testRegistry, turnClosed, turnOpened, turnPairing, validInputs } from "./test-support/registry.js";

function memoryLog() {
  let now = 1000;
  return new EventLog({ registry: testRegistry(), clock: () => now++ });
}

describe("EventLog.append", () => {
  it("assigns dense seqs from 0, stamps time and deep-freezes events", async () => {
    const log = memoryLog();
    const [first] = await log.append(noteAdded.input({ text: "a" }));
    const [second, third] = await log.append([noteAdded.input({ text: "b" }), noteAdded.input({ text: "c" }, 7)]);
    expect([first, second, third].map((event) => [event?.seq, event?.time])).toEqual([
      [0, 1000],
      [1, 1001],
      [2, 7],
    ]);
    expect(log.length).toBe(3);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first?.data)).toBe(true);
  });

  it("stores a private copy, so the caller's object stays its own", async () => {
    const data = { text: "a", tags: ["x"] };
    const log = memoryLog();
    const [event] = await log.append(noteAdded.input(data));
    data.tags.push("y");
    expect(event?.data).toEqual({ text: "a", tags: ["x"] });
    expect(Object.isFrozen(data)).toBe(false);
  });

  it("checks exactly the data it stores, when a getter answers differently each time it is read", async () => {
    // The first read of `version` says 2 (valid), every later read 1 (retired): one copy decides both.
    let reads = 0;
    const shifty = {
      get version() {
        return reads++ === 0 ? 2 : 1;
      },
    };
    const log = memoryLog();
    const [event] = await log.append({ type: "note/versioned", data: shifty });
    expect(event?.data).toEqual({ version: 2 });
    expect(reads).toBe(1);
    // The other order: a value that reads invalid after the check is refused, never stored.
    let seen = 0;
    const late = {
      get text() {
        return seen++ === 0 ? 7 : "fine";
      },
    };
    await expect(log.append({ type: "note/added", data: late })).rejects.toMatchObject({ code: "LOG_INVALID_EVENT" });
    expect(log.length).toBe(1);
  });

  it("reads an input's type once, so a getter cannot pass one type's schema and log another", async () => {
    let reads = 0;
    const input = {
      get type() {
        return reads++ === 0 ? "ui/anything" : "note/added";
      },
      data: { not: "a note" },
    };
    const [event] = await memoryLog().append(input);
    expect(event?.type).toBe("ui/anything");
    expect(reads).toBe(1);
  });

  it.each([
    ["an unknown type", { type: "mystery/event", data: {} }, "LOG_UNKNOWN_TYPE", /unknown event type mystery\/event/],
    ["a malformed type", { type: "Not A Type", data: {} }, "LOG_INVALID_EVENT", /invalid event type/],
    ["a schema violation", { type: "note/added", data: { text: 1 } }, "LOG_INVALID_EVENT", /note\/added/],
    ["an unknown key", { type: "note/added", data: { text: "a", extra: true } }, "LOG_INVALID_EVENT", /extra/],
    ["undefined inside data", { type: "note/added", data: { text: "a", tags: undefined } }, "LOG_INVALID_EVENT", /undefined is not JSON/],
    ["a non-finite number", { type: "ui/x", data: { n: Number.NaN } }, "LOG_INVALID_EVENT", /not a finite number/],
    ["a fractional time", { type: "note/added", data: { text: "a" }, time: 1.5 }, "LOG_INVALID_EVENT", /time/],
    ["a retired type", { type: "note/legacy", data: {} }, "LOG_LEGACY_EVENT", /^note\/legacy: a retired type: write note\/added$/],
    ["a retired representation", { type: "note/versioned", data: { version: 1 } }, "LOG_LEGACY_EVENT", /version 1 is retired/],
    ["a retired type even under an ignorable prefix", { type: "ui/x", data: null, retiredPrefix: true }, "LOG_LEGACY_EVENT", /ui\/x: gone/],
  ])("refuses %s", async (_what, input, code, message) => {
    const log = "retiredPrefix" in input ? new EventLog({ registry: testRegistry().retire("ui/x", "gone") }) : memoryLog();
    const rejection = log.append(input);
    await expect(rejection).rejects.toMatchObject({ code });
    await expect(rejection).rejects.toThrow(message);
    expect(log.length).toBe(0);
  });

  it("admits unknown types under an ignorable prefix as opaque JSON", async () => {
    const log = memoryLog();
    await log.append({ type: "ui/panel-opened", data: { any: ["shape"] } });
    expect(log.get(0)?.data).toEqual({ any: ["shape"] });
  });

  it("is all-or-nothing: one bad event in a batch commits none", async () => {
    const log = memoryLog();
    await expect(log.append([noteAdded.input({ text: "ok" }), { type: "nope/nope", data: 1 }])).rejects.toThrow();
    expect(log.length).toBe(0);
    await log.append(turnOpened.input({ turn: 0 }));
    await expect(log.append([turnClosed.input({ turn: 0 }), turnClosed.input({ turn: 0 })])).rejects.toMatchObject({
      code: "LOG_RULE_VIOLATION",
    });
    expect(log.length).toBe(1);
    expect(log.ruleState(turnPairing)).toBe(0);
  });

  it("notifies subscribers in commit order, even when a listener appends", async () => {
    const log = memoryLog();
    const seen: number[][] = [];
    log.subscribe((events) => {
      seen.push(events.map((event) => event.seq));
      if (events[0]?.seq === 0) void log.append(noteAdded.input({ text: "from listener" }));
    });
    await log.append(noteAdded.input({ text: "first" }));
    expect(seen).toEqual([[0], [1]]);
  });

  it("delivers a batch loaded from inside a listener after the current batch, to every listener in order", () => {
    const log = memoryLog();
    const first: number[][] = [];
    const second: number[][] = [];
    log.subscribe((events) => {
      first.push(events.map((event) => event.seq));
      if (events[0]?.seq === 0) log.load([{ seq: 1, type: "note/added", time: 5, data: { text: "nested" } }]);
    });
    log.subscribe((events) => second.push(events.map((event) => event.seq)));
    log.load([{ seq: 0, type: "note/added", time: 4, data: { text: "outer" } }]);
    expect(first).toEqual([[0], [1]]);
    expect(second).toEqual([[0], [1]]);
  });

  it("stops delivering to a listener once it unsubscribed", async () => {
    const log = memoryLog();
    const seen: number[] = [];
    const unsubscribe = log.subscribe((events) => seen.push(events.length));
    await log.append(noteAdded.input({ text: "a" }));
    unsubscribe();
    await log.append(noteAdded.input({ text: "b" }));
    expect(seen).toEqual([1]);
  });

  it("hands a listener's error to onListenerError without failing the append", async () => {
    const errors: unknown[] = [];
    const log = new EventLog({ registry: testRegistry(), onListenerError: (error) => errors.push(error) });
    log.subscribe(() => {
      throw new Error("listener broke");
    });
    await expect(log.append(noteAdded.input({ text: "a" }))).resolves.toHaveLength(1);
    expect(errors).toHaveLength(1);
  });

  it("refuses appends after close, and closes its sink once however often it is closed", async () => {
    let closes = 0;
    const log = new EventLog({ registry: testRegistry(), sink: { write: async () => undefined, close: async () => void closes++ } });
    await log.close();
    await log.close();
    expect(closes).toBe(1);
    await expect(log.append(noteAdded.input({ text: "a" }))).rejects.toMatchObject({ code: "LOG_CLOSED", message: "the log is closed" });
  });
});

describe("admission round trip", () => {
  it("re-admits every appended log unchanged, and refuses it with any event's seq shifted", async () => {
    await fc.assert(
      fc.asyncProperty(validInputs, fc.nat(), async (inputs, pick) => {
        const log = memoryLog();
        for (const input of inputs) await log.append(input);
        const events = log.slice();
        expect(EventLog.from(testRegistry(), events).slice()).toEqual(events);
        if (events.length > 0) {
          const index = pick % events.length;
          const shifted = events.map((event, i) => (i === index ? { ...event, seq: event.seq + 1 } : event));
          expect(() => EventLog.from(testRegistry(), shifted)).toThrowError(`seq must be ${index}, the next in the log, not ${index + 1}`);
        }
      }),
      { numRuns: 100 },
    );
  });
});
