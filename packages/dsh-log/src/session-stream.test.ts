import { describe, expect, it } from "vitest";
import { EventLog } from "./log.js";
import { eventLine } from "./session-lines.js";
import { streamSessionEvents } from "./session-stream.js";
import type { StoredLines } from "./store.js";
import { noteAdded, noteQuota, testRegistry, turnClosed, turnOpened } from "./test-support/registry.js";

const info = { sessionId: "streamed", createdAt: 7 };
const stored = (lines: readonly string[]): StoredLines => ({ info, chained: false, lines: lines.map((line) => ({ line, link: undefined })) });

async function collect(lines: readonly string[], batch: number): Promise<(readonly unknown[])[]> {
  const out: (readonly unknown[])[] = [];
  for await (const events of streamSessionEvents(stored(lines), testRegistry(), batch)) out.push(events);
  return out;
}

describe("streamSessionEvents", () => {
  it("yields the events a load would hold, in batches of the size asked, frozen and admitted", async () => {
    const log = new EventLog({ registry: testRegistry() });
    await log.append(Array.from({ length: 10 }, (_, i) => noteAdded.input({ text: `note ${i}` }, i)));
    const lines = log.slice().map(eventLine);
    const batches = await collect(lines, 4);
    expect(batches.map((events) => events.length)).toEqual([4, 4, 2]);
    expect(batches.flat()).toEqual(log.slice());
    expect(batches.flat().every((event) => Object.isFrozen(event))).toBe(true);
    expect(await collect([], 4)).toEqual([]);
  });

  it("carries the admission rules' state across batches, and names the seq of a refused event", async () => {
    const log = new EventLog({ registry: testRegistry() });
    await log.append([turnOpened.input({ turn: 1 }, 0), noteAdded.input({ text: "x" }, 1), turnClosed.input({ turn: 1 }, 2)]);
    const lines = log.slice().map(eventLine);
    // The turn opened in the first batch closes in the second: the rule's state went along.
    expect((await collect(lines, 2)).flat()).toEqual(log.slice());
    // Closed twice: the second close is refused, named by its seq across batches.
    const twice = [...lines, lines[2]!.replace('"seq":2', '"seq":3')];
    await expect(collect(twice, 2)).rejects.toMatchObject({ code: "LOG_RULE_VIOLATION", message: "session streamed, seq 3: turn 1 is not open" });
    const unknown = [...lines.slice(0, 2), lines[2]!.replace('"turn/closed"', '"turn/unknown"')];
    await expect(collect(unknown, 2)).rejects.toMatchObject({ code: "LOG_UNKNOWN_TYPE", message: expect.stringMatching(/^session streamed, seq 2: unknown event type turn\/unknown/) });
    await expect(collect(["{not json"], 2)).rejects.toMatchObject({ code: "LOG_CORRUPT", message: expect.stringMatching(/^session streamed, seq 0: /) });
  });

  it("refuses rows that disagree with the head the store records, once every batch is read", async () => {
    const log = new EventLog({ registry: testRegistry() });
    await log.append(Array.from({ length: 3 }, (_, i) => noteAdded.input({ text: `note ${i}` }, i)));
    const lines = log.slice().map((event) => ({ line: eventLine(event), link: undefined }));
    const read = async (recorded: number) => {
      const batches: (readonly unknown[])[] = [];
      for await (const events of streamSessionEvents({ info, chained: false, recorded, lines }, testRegistry(), 2)) batches.push(events);
      return batches;
    };
    expect((await read(3)).flat()).toEqual(log.slice());
    for (const recorded of [2, 4]) await expect(read(recorded)).rejects.toMatchObject({ code: "LOG_CORRUPT", message: `session streamed: its head says ${recorded} events, but its rows hold 3` });
  });

  it("names a refusal deep in a batch by its seq alone, keeping the parser's refusal (and its line in the batch) as the cause", async () => {
    const log = new EventLog({ registry: testRegistry() });
    await log.append(Array.from({ length: 14 }, (_, i) => noteAdded.input({ text: `note ${i}` }, i)));
    const lines = log.slice().map(eventLine);
    const broken = [...lines.slice(0, 13), lines[13]!.replace('"note/added"', '"note/unknown"')];
    const refusal = await collect(broken, 100).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: "LOG_UNKNOWN_TYPE", message: expect.stringMatching(/^session streamed, seq 13: unknown event type note\/unknown/) });
    expect((refusal as Error).message).not.toMatch(/line \d+/);
    expect((refusal as Error).cause).toMatchObject({ code: "LOG_UNKNOWN_TYPE", line: 15 });
  });

  it("starts every rule from its initial state", async () => {
    // A quota of notes: its initial state is what lets the first ones through.
    const registry = testRegistry().rule(noteQuota(11));
    const log = new EventLog({ registry: testRegistry() });
    await log.append(Array.from({ length: 12 }, (_, i) => noteAdded.input({ text: `note ${i}` }, i)));
    const lines = log.slice().map(eventLine);
    const admitted = async (count: number) => {
      let total = 0;
      for await (const batch of streamSessionEvents(stored(lines.slice(0, count)), registry, 5)) total += batch.length;
      return total;
    };
    expect(await admitted(11)).toBe(11);
    // A rule that fails in a way of its own (a bug, not a refusal) fails the stream with its own error.
    const boom = new TypeError("boom");
    const failing = testRegistry().rule({ name: "test/failing", initial: () => undefined, admit: () => { throw boom; } });
    const failed = streamSessionEvents(stored(lines.slice(0, 1)), failing, 5).next();
    await expect(failed).rejects.toBe(boom);
    await expect(admitted(12)).rejects.toMatchObject({ code: "LOG_RULE_VIOLATION", message: "session streamed, seq 11: no notes left" });
  });
});
