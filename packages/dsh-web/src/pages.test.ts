import fc from "fast-check";
import type { LogEvent } from "dsh-log";
import { describe, expect, it } from "vitest";
import { choosePage, timelinePages } from "./pages.js";

/** A session of turns with the given numbers of events each (the first a `turn/start`), after `before` events outside any turn. */
function session(turns: readonly number[], before = 0): LogEvent[] {
  const events: LogEvent[] = [];
  const add = (type: string, data: object) => events.push({ seq: events.length, type, time: 0, data });
  for (let index = 0; index < before; index++) add("session/note", {});
  turns.forEach((length, turn) => {
    add("turn/start", { turn });
    for (let index = 1; index < length; index++) add(index % 2 === 0 ? "step/start" : "assistant/message", index % 2 === 0 ? { turn, step: index } : { content: [] });
  });
  return events;
}

const seqs = (events: readonly LogEvent[], pages: ReturnType<typeof timelinePages>) => pages.map(({ from, to }) => events.filter((event) => event.seq >= from && event.seq <= to).length);

describe("timelinePages", () => {
  it("holds the whole session in one page by default, and no page for no events", () => {
    const events = session([3, 4]);
    expect(timelinePages(events)).toEqual([{ from: 0, to: 6, firstTurn: 0, lastTurn: 1 }]);
    expect(timelinePages([], 5)).toEqual([]);
  });

  it("ends a page where a turn starts, so it holds whole turns, and cuts a turn longer than a page", () => {
    const events = session([3, 4, 2, 9, 1]);
    const pages = timelinePages(events, 5);
    // Turns 0 and 1 (3 + 4) do not fit in 5, nor 1 and 2 (4 + 2); turn 3 (9) is cut after 5, and its last 4 events share a page with turn 4.
    expect(seqs(events, pages)).toEqual([3, 4, 2, 5, 5]);
    expect(pages.map((page) => [page.firstTurn, page.lastTurn])).toEqual([[0, 0], [1, 1], [2, 2], [3, 3], [3, 4]]);
    expect(seqs(events, timelinePages(events, 7))).toEqual([7, 2, 7, 3]);
  });

  it("names no turn for a page whose events name none", () => {
    const events = session([2], 3);
    expect(timelinePages(events, 3)).toStrictEqual([{ from: 0, to: 2 }, { from: 3, to: 4, firstTurn: 0, lastTurn: 0 }]);
  });

  it("refuses a page size below one event", () => {
    expect(() => timelinePages(session([2]), 0)).toThrow("pageEvents must be at least 1, not 0");
    expect(() => timelinePages(session([2]), Number.NaN)).toThrow(RangeError);
  });

  it("covers every event once, in order, in as few pages of whole turns as fit", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 30 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 15 }), (turns, before, size) => {
        const events = session(turns, before);
        const pages = timelinePages(events, size);
        const covered = pages.flatMap(({ from, to }) => Array.from({ length: to - from + 1 }, (_, index) => from + index));
        expect(covered).toEqual(events.map((event) => event.seq));
        for (const [index, page] of pages.entries()) {
          expect(page.to - page.from + 1).toBeLessThanOrEqual(size);
          const next = pages[index + 1];
          if (next === undefined) continue;
          const nextStartsTurn = events[next.from]!.type === "turn/start";
          // A page ends at a turn start, or is full because one turn is longer than it.
          expect(nextStartsTurn || page.to - page.from + 1 === size).toBe(true);
          // Ending at a turn start, it could not also hold that turn (or the page of it that follows).
          if (nextStartsTurn) expect(page.to - page.from + 1 + (next.to - next.from + 1)).toBeGreaterThan(size);
        }
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) },
    );
  });
});

describe("choosePage", () => {
  const pages = timelinePages(session([3, 4, 2, 9, 1]), 5);

  it("gives the last page by default, the page numbered, or the page holding a seq", () => {
    expect(choosePage(pages)).toBe(5);
    expect(choosePage([])).toBe(1);
    expect(choosePage(pages, { page: 1 })).toBe(1);
    expect(choosePage(pages, { page: 5 })).toBe(5);
    const holding = Array.from({ length: 19 }, (_, seq) => choosePage(pages, { seq }));
    expect(holding).toEqual([1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5]);
  });

  it("answers WEB_NOT_FOUND for a page or seq the session does not have", () => {
    for (const page of [0, 6, 1.5]) expect(() => choosePage(pages, { page })).toThrow(expect.objectContaining({ code: "WEB_NOT_FOUND", message: `no page ${page}: the session has 5` }));
    for (const seq of [-1, 19]) expect(() => choosePage(pages, { seq })).toThrow(expect.objectContaining({ code: "WEB_NOT_FOUND", message: `no event at seq ${seq} in this session` }));
  });
});
