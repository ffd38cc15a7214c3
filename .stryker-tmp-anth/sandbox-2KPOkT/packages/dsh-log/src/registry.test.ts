import { z } from "zod";
import { describe, expect, it } from "vitest";
import { EventLog } from "./log.js";
import { EventRegistry, defineEvent, type AdmissionRule } from "./registry.js";
import { noteAdded, noteVersioned, testRegistry, turnOpened } from "./test-support/registry.js";

describe("defineEvent", () => {
  it.each(["", "Note/added", "note", "note/", "/added", "note/added!"])("refuses the type name %j", (type) => {
    expect(() => defineEvent(type, z.null())).toThrow(expect.objectContaining({ code: "LOG_INVALID_EVENT", message: `invalid event type name ${JSON.stringify(type)}` }));
  });

  it("builds inputs with and without a time, and recognizes its own events", async () => {
    expect(noteAdded.input({ text: "a" })).toStrictEqual({ type: "note/added", data: { text: "a" } });
    expect(noteAdded.input({ text: "a" }, 5)).toEqual({ type: "note/added", data: { text: "a" }, time: 5 });
    const log = new EventLog({ registry: testRegistry() });
    const [note, turn] = await log.append([noteAdded.input({ text: "a" }), turnOpened.input({ turn: 0 })]);
    expect([noteAdded.is(note!), noteAdded.is(turn!), turnOpened.is(turn!)]).toEqual([true, false, true]);
  });
});

describe("EventRegistry", () => {
  it("defines a type once", () => {
    expect(() => testRegistry().define(noteAdded)).toThrow(expect.objectContaining({ code: "LOG_DUPLICATE_DEFINITION", message: "event type note/added is already defined" }));
    expect(testRegistry().definition("note/added")).toBe(noteAdded);
    expect(testRegistry().definition("note/none")).toBeUndefined();
  });

  it("registers a rule once, by name", () => {
    const again: AdmissionRule<undefined> = { name: "test/turn-pairing", initial: () => undefined, admit: () => undefined };
    expect(() => testRegistry().rule(again)).toThrow(expect.objectContaining({ code: "LOG_DUPLICATE_DEFINITION", message: "admission rule test/turn-pairing is already registered" }));
  });

  it("refuses an empty ignorable prefix", () => {
    expect(() => new EventRegistry().ignore("")).toThrow(expect.objectContaining({ code: "LOG_INVALID_EVENT", message: "an ignorable prefix cannot be empty" }));
  });

  it("says why a representation is retired, only for the data its retirement matches", () => {
    const registry = testRegistry();
    expect(registry.retirement("note/legacy", { anything: 1 })).toBe("a retired type: write note/added");
    expect(registry.retirement("note/versioned", { version: 1 })).toBe("version 1 is retired: write version 2");
    expect(registry.retirement("note/versioned", { version: 2 })).toBeUndefined();
    expect(registry.retirement("note/added", { text: "a" })).toBeUndefined();
  });

  it("refuses a retired representation on append, naming why", async () => {
    const log = new EventLog({ registry: testRegistry() });
    await expect(log.append(noteVersioned.input({ version: 1 }))).rejects.toMatchObject({ code: "LOG_LEGACY_EVENT", message: "note/versioned: version 1 is retired: write version 2" });
    await expect(log.append(noteVersioned.input({ version: 2 }))).resolves.toHaveLength(1);
  });

  it("takes registrations made after a type was looked up into account", async () => {
    const registry = new EventRegistry();
    expect(registry.isIgnorable("ui/progress")).toBe(false);
    registry.ignore("ui/");
    expect(registry.isIgnorable("ui/progress")).toBe(true);
    expect(registry.entry("note/added").definition).toBeUndefined();
    registry.define(noteAdded);
    expect(registry.entry("note/added").definition).toBe(noteAdded);
    registry.retire("note/added", "gone");
    expect(registry.retirement("note/added", {})).toBe("gone");
    registry.rule({ name: "test/seen", types: new Set(["note/added"]), initial: () => undefined, admit: (state) => state });
    expect(registry.entry("note/added").rules).toEqual([0]);
    expect(registry.entry("ui/progress").rules).toEqual([]);
  });

  it("gives a rule that names its types only events of those types", async () => {
    const seen: string[] = [];
    const registry = new EventRegistry().define(noteAdded, turnOpened).rule({ name: "test/notes", types: new Set(["note/added"]), initial: () => 0, admit: (count: number, event) => (seen.push(event.type), count + 1) });
    const log = new EventLog({ registry });
    await log.append([noteAdded.input({ text: "a" }), turnOpened.input({ turn: 0 }), noteAdded.input({ text: "b" })]);
    expect(seen).toEqual(["note/added", "note/added"]);
    expect(log.ruleState(registry.rules[0] as AdmissionRule<number>)).toBe(2);
  });
});
