import { describe, expect, it } from "vitest";
import type { LogEvent } from "./event.js";
import { LogError } from "./errors.js";
import { EventLog, type LogSink } from "./log.js";
import { noteAdded, testRegistry, turnPairing } from "./test-support/registry.js";

const note = (seq: number, text: string, tags: string[] = []): LogEvent => ({ seq, type: "note/added", time: 1, data: { text, tags } });

describe("EventLog.load", () => {
  it("admits the events, continuing the seqs, as private frozen copies, and delivers them like an append", async () => {
    const log = new EventLog({ registry: testRegistry() });
    await log.append(noteAdded.input({ text: "first" }));
    const batches: number[][] = [];
    log.subscribe((events) => batches.push(events.map((event) => event.seq)));
    const mine = [note(1, "a", ["x"]), note(2, "b")];
    log.load(mine);
    (mine[0]!.data as { tags: string[] }).tags.push("y");
    expect(log.length).toBe(3);
    expect(log.get(1)!.data).toEqual({ text: "a", tags: ["x"] });
    expect(Object.isFrozen(log.get(1)!.data)).toBe(true);
    expect(batches).toEqual([[1, 2]]);
    log.load([]);
    expect(batches).toEqual([[1, 2]]);
  });

  it("is all or nothing, and names the line it was given for a refused event", () => {
    const log = new EventLog({ registry: testRegistry() });
    expect(() => log.load([note(0, "a"), { seq: 1, type: "note/added", time: 1, data: { text: 5 } }], (seq) => seq + 10)).toThrow(
      expect.objectContaining({ code: "LOG_INVALID_EVENT", line: 11 }),
    );
    expect(log.length).toBe(0);
    expect(() => log.load([note(1, "a")])).toThrow(expect.objectContaining({ code: "LOG_INVALID_EVENT", message: "seq must be 0, the next in the log, not 1" }));
  });

  it("folds loaded events into the admission rules", () => {
    const log = new EventLog({ registry: testRegistry() });
    log.load([{ seq: 0, type: "turn/opened", time: 1, data: { turn: 4 } }]);
    expect(log.ruleState(turnPairing)).toBe(4);
  });

  it("is refused on a log with a sink, which loaded events would never reach", async () => {
    const sink: LogSink = { write: () => Promise.resolve(), close: () => Promise.resolve() };
    const log = new EventLog({ registry: testRegistry(), sink });
    expect(() => log.load([note(0, "a")])).toThrow(
      expect.objectContaining({ code: "LOG_LOAD_REFUSED", message: "load() is for in-memory logs: this log persists to a sink that loaded events would never reach" }),
    );
    expect(log.length).toBe(0);
  });

  it("is refused after close", async () => {
    const log = new EventLog({ registry: testRegistry() });
    await log.close();
    expect(() => log.load([note(0, "a")])).toThrow(expect.objectContaining({ code: "LOG_CLOSED" }));
  });
});

describe("a failing sink", () => {
  it("fails the append with LOG_SINK_FAILED, keeps the cause, and leaves the log read-only", async () => {
    const cause = new Error("disk full");
    let writes = 0;
    const sink: LogSink = { write: () => (writes++, Promise.reject(cause)), close: () => Promise.resolve() };
    const log = new EventLog({ registry: testRegistry(), sink });
    const failure = await log.append(noteAdded.input({ text: "a" })).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "LOG_SINK_FAILED", message: "the log could not be made durable (disk full); it is now read-only", cause });
    await expect(log.append(noteAdded.input({ text: "b" }))).rejects.toBe(failure);
    await expect(log.whenDurable()).rejects.toBe(failure);
    expect(writes).toBe(1);
  });

  it("says LOG_CONFLICT, not a durability failure, when another writer took the session over; likewise a witness, a store's lock or the store itself", async () => {
    const cause = new LogError("LOG_CONFLICT", "session s-1 was opened by another writer; this one may no longer append");
    const sink: LogSink = { write: () => Promise.reject(cause), close: () => Promise.resolve() };
    const log = new EventLog({ registry: testRegistry(), sink });
    const failure = await log.append(noteAdded.input({ text: "a" })).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "LOG_CONFLICT", message: "session s-1 was opened by another writer; this one may no longer append; this log is now read-only", cause });
    await expect(log.append(noteAdded.input({ text: "b" }))).rejects.toBe(failure);
    for (const code of ["LOG_WITNESS_FAILED", "LOG_LOCKED", "LOG_STORE_UNAVAILABLE"] as const) {
      const kept = new LogError(code, "why");
      const other = new EventLog({ registry: testRegistry(), sink: { write: () => Promise.reject(kept), close: () => Promise.resolve() } });
      await expect(other.append(noteAdded.input({ text: "a" }))).rejects.toMatchObject({ code, message: "why; this log is now read-only", cause: kept });
    }
  });

  it("calls any other failure of the sink a durability failure, a log error of another kind or an error merely coded like a conflict", async () => {
    for (const cause of [new LogError("LOG_CORRUPT", "a row is damaged"), Object.assign(new Error("not ours"), { code: "LOG_CONFLICT" })]) {
      const sink: LogSink = { write: () => Promise.reject(cause), close: () => Promise.resolve() };
      const log = new EventLog({ registry: testRegistry(), sink });
      await expect(log.append(noteAdded.input({ text: "a" }))).rejects.toMatchObject({ code: "LOG_SINK_FAILED", cause });
    }
  });
});

describe("whenDurable", () => {
  it("resolves once every batch appended so far is durable, and rejects with the failure of the latest", async () => {
    const pending: (() => void)[] = [];
    const failures: ((error: Error) => void)[] = [];
    const sink: LogSink = {
      write: () => new Promise<void>((resolve, reject) => (pending.push(resolve), failures.push(reject))),
      close: () => Promise.resolve(),
    };
    const log = new EventLog({ registry: testRegistry(), sink });
    await log.whenDurable(); // nothing appended yet
    const appended = log.append(noteAdded.input({ text: "a" }));
    let durable = false;
    const waiting = log.whenDurable().then(() => (durable = true));
    await Promise.resolve();
    expect(durable).toBe(false);
    pending[0]!();
    await waiting;
    await appended;
    void log.append(noteAdded.input({ text: "b" })).catch(() => undefined);
    const refused = log.whenDurable().catch((error: unknown) => error);
    failures[1]!(new Error("disk gone"));
    expect(await refused).toMatchObject({ code: "LOG_SINK_FAILED", cause: new Error("disk gone") });
  });
});

describe("EventLog.from", () => {
  it("re-admits events into a new in-memory log as private frozen copies", () => {
    const events = [note(0, "a", ["x"])];
    const log = EventLog.from(testRegistry(), events);
    (events[0]!.data as { tags: string[] }).tags.push("y");
    expect(log.get(0)!.data).toEqual({ text: "a", tags: ["x"] });
    expect(Object.isFrozen(log.get(0))).toBe(true);
  });
});

describe("ruleState", () => {
  it("refuses a rule its registry does not hold", () => {
    const log = new EventLog({ registry: testRegistry() });
    expect(() => log.ruleState({ name: "test/stranger", initial: () => 0, admit: () => 0 })).toThrow(
      expect.objectContaining({ code: "LOG_RULE_VIOLATION", message: "admission rule test/stranger is not registered" }),
    );
  });
});

describe("envelope admission", () => {
  it.each([
    ["a negative time", -1],
    ["a fractional time", 1.5],
    ["a time past the safe integers", 2 ** 53],
    ["a string time", "1"],
    // JSON would write it as 0: the log held in memory would differ from the file it reloads from.
    ["-0 as the time", -0],
  ])("refuses %s", async (_what, time) => {
    const log = new EventLog({ registry: testRegistry() });
    await expect(log.append({ type: "note/added", data: { text: "a" }, time: time as number })).rejects.toMatchObject({
      code: "LOG_INVALID_EVENT",
      message: "note/added: time must be a non-negative integer of epoch ms",
    });
  });

  it("admits time 0", async () => {
    const log = new EventLog({ registry: testRegistry() });
    await expect(log.append(noteAdded.input({ text: "a" }, 0))).resolves.toMatchObject([{ time: 0 }]);
  });

  it.each([5, null, undefined])("refuses an event whose type is %j, naming its line", (type) => {
    const log = new EventLog({ registry: testRegistry() });
    const event = { seq: 0, type, time: 1, data: {} } as unknown as LogEvent;
    expect(() => log.load([event], (seq) => seq + 2)).toThrow(expect.objectContaining({ code: "LOG_INVALID_EVENT", line: 2, message: `line 2: invalid event type ${String(type)}` }));
  });

  it("passes an error that is not a LogError through unchanged, line or not", () => {
    const broken = new TypeError("a rule's own bug");
    const registry = testRegistry().rule({ name: "test/broken", initial: () => undefined, admit: () => { throw broken; } });
    const log = new EventLog({ registry });
    expect(() => log.load([note(0, "a")], (seq) => seq + 2)).toThrow(broken);
  });

  it("keeps the line a LogError already names", () => {
    const registry = testRegistry().rule({ name: "test/lined", initial: () => undefined, admit: () => { throw new LogError("LOG_RULE_VIOLATION", "bad", { line: 99 }); } });
    const log = new EventLog({ registry });
    expect(() => log.load([note(0, "a")], (seq) => seq + 2)).toThrow(expect.objectContaining({ line: 99, message: "line 99: bad" }));
  });
});

describe("a key named __proto__", () => {
  it("is stored as a key, as JSON.parse reads it, and survives the round trip", async () => {
    const log = new EventLog({ registry: testRegistry() });
    const meta = JSON.parse('{"__proto__":[1],"k":2}') as Record<string, never>;
    const [event] = await log.append(noteAdded.input({ text: "a", meta }));
    const stored = (event!.data as { meta: object }).meta;
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
    expect(JSON.stringify(stored)).toBe('{"__proto__":[1],"k":2}');
    expect(EventLog.from(testRegistry(), log.slice()).get(0)).toEqual(event);
  });
});
