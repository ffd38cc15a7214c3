import type { LogEvent } from "dsh-log";
import { describe, expect, it } from "vitest";
import { advanceSurface, deriveMessagesFromEvents, emptySurface } from "./projection.js";
import { assistant, surfaceLog, user } from "./test-support/session.js";

describe("advanceSurface", () => {
  it("passes over an event that is not a surface event, and extends the message list on an append", async () => {
    const { log } = surfaceLog();
    await log.append([user("hi"), assistant("hello")]);
    const [first, second] = log.slice();
    const other: LogEvent = Object.freeze({ seq: 2, type: "step/start", time: 0, data: Object.freeze({ turn: 0, step: 0 }) });
    const one = advanceSurface(emptySurface, first!);
    expect(advanceSurface(one, other)).toBe(one);
    const two = advanceSurface(one, second!);
    // An append extends the list the view before holds: a reader can tell the prefix without reading it.
    expect(two.messages.startsWith(one.messages)).toBe(true);
    expect(deriveMessagesFromEvents([first!, other, second!]).map((message) => message.role)).toEqual(["user", "assistant"]);
  });
});
