import { describe, expect, it } from "vitest";
import type { LogEvent } from "./event.js";
import { flatEvents } from "./flat-events.js";

const event = (seq: number): LogEvent => ({ seq, type: "note/added", time: 1, data: {} });

describe("flatEvents", () => {
  it("yields the events of every chunk in order, past empty chunks", () => {
    const chunks = [[event(0), event(1)], [], [event(2)], []];
    expect([...flatEvents(chunks[Symbol.iterator]())].map((e) => e.seq)).toEqual([0, 1, 2]);
    expect([...flatEvents([][Symbol.iterator]())]).toEqual([]);
  });

  it("takes the next chunk only once the one before is used up, so a fault behind it comes no sooner", () => {
    const taken: number[] = [];
    function* chunks(): Generator<LogEvent[]> {
      taken.push(0);
      yield [event(0), event(1)];
      taken.push(1);
      throw new Error("the second chunk is corrupt");
    }
    const events = flatEvents(chunks());
    expect(events[Symbol.iterator]()).toBe(events);
    expect(events.next().value).toEqual(event(0));
    expect(events.next().value).toEqual(event(1));
    expect(taken).toEqual([0]);
    expect(() => events.next()).toThrow("the second chunk is corrupt");
  });

  it("closes the chunks when a for…of stops early, as yield* would", () => {
    let closed = false;
    function* chunks(): Generator<LogEvent[]> {
      try {
        yield [event(0), event(1)];
        yield [event(2)];
      } finally {
        closed = true;
      }
    }
    const events = flatEvents(chunks());
    for (const seen of events) if (seen.seq === 0) break;
    expect(closed).toBe(true);
    expect(events.next()).toEqual({ done: true, value: undefined });
  });

  it("stays done once done", () => {
    const events = flatEvents([[event(0)]][Symbol.iterator]());
    expect(events.next().done).toBe(false);
    expect(events.next()).toEqual({ done: true, value: undefined });
    expect(events.next()).toEqual({ done: true, value: undefined });
  });
});
