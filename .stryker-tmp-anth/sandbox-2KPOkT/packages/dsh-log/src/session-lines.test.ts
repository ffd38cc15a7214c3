import { describe, expect, it } from "vitest";
import { EventLog } from "./log.js";
import { eventLine, loadSessionLines, parseSessionLines } from "./session-lines.js";
import { noteAdded, testRegistry, turnClosed, turnOpened } from "./test-support/registry.js";

const info = { sessionId: "stored", createdAt: 7 };

async function linesOf(count: number, text: (i: number) => string): Promise<string[]> {
  const log = new EventLog({ registry: testRegistry() });
  await log.append(Array.from({ length: count }, (_, i) => noteAdded.input({ text: text(i) }, i)));
  return log.slice().map(eventLine);
}

describe("loadSessionLines", () => {
  it("rebuilds a log from its stored lines across many parser buffers, each event equal to the one written", async () => {
    // About 700 KB: the lines reach the parser in several buffers.
    const lines = await linesOf(3000, (i) => `${i} é€ ${"x".repeat(220)}`);
    const log = loadSessionLines(info, lines, { registry: testRegistry() });
    expect(log.length).toBe(3000);
    expect(log.slice().map(eventLine)).toEqual(lines);
    expect(Object.isFrozen(log.get(2999)?.data)).toBe(true);
  });

  it("checks the rows against the head a store recorded: fewer or more is LOG_CORRUPT naming both counts", async () => {
    const lines = await linesOf(3, (i) => `note ${i}`);
    expect(loadSessionLines(info, lines, { registry: testRegistry() }, 3).length).toBe(3);
    for (const head of [2, 4]) {
      expect(() => loadSessionLines(info, lines, { registry: testRegistry() }, head)).toThrow(
        expect.objectContaining({ code: "LOG_CORRUPT", message: `session stored: its head says ${head} events, but its rows hold 3` }),
      );
    }
  });

  it("refuses a bad event naming the session and the seq, after the admission of every event before it", async () => {
    const lines = await linesOf(13, (i) => `note ${i}`);
    const broken = [...lines.slice(0, 12), lines[12]!.replace('"note/added"', '"note/unknown"')];
    let refusal: unknown;
    try {
      loadSessionLines(info, broken, { registry: testRegistry() });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ code: "LOG_UNKNOWN_TYPE", message: expect.stringMatching(/^session stored, seq 12: unknown event type note\/unknown/) });
    // The cause is the parser's own refusal, naming the line as if the lines were a file.
    expect((refusal as Error).cause).toMatchObject({ code: "LOG_UNKNOWN_TYPE", line: 14 });
    const log = new EventLog({ registry: testRegistry() });
    await log.append([turnOpened.input({ turn: 1 }, 0), turnClosed.input({ turn: 1 }, 1)]);
    const unpaired = log.slice().map(eventLine).slice(1).map((line) => line.replace('"seq":1', '"seq":0'));
    expect(() => loadSessionLines(info, unpaired, { registry: testRegistry() })).toThrow(
      expect.objectContaining({ code: "LOG_RULE_VIOLATION", message: "session stored, seq 0: turn 1 is not open" }),
    );
  });

  it("refuses a stored line holding a newline instead of reading it as two events", async () => {
    const [first, second] = await linesOf(2, (i) => `note ${i}`);
    expect(() => loadSessionLines(info, [`${first}\n${second}`], { registry: testRegistry() })).toThrow(
      expect.objectContaining({ code: "LOG_CORRUPT", message: expect.stringMatching(/^session stored, seq 0: /) }),
    );
  });
});

describe("parseSessionLines", () => {
  it("parses lines into deep-frozen events without admission (a follower admits them into its own log)", async () => {
    const log = new EventLog({ registry: testRegistry() });
    await log.append([turnOpened.input({ turn: 1 }, 0), turnClosed.input({ turn: 1 }, 1)]);
    const closing = eventLine(log.get(1)!);
    const events = parseSessionLines(info, [closing]);
    expect(events.map(eventLine)).toEqual([closing]);
    expect(Object.isFrozen(events[0]) && Object.isFrozen(events[0]!.data)).toBe(true);
    expect(parseSessionLines(info, [])).toEqual([]);
  });
});
