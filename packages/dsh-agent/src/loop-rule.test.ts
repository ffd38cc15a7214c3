import { EventLog } from "dsh-log";
import { describe, expect, it } from "vitest";
import {
  createAgentRegistry,
  requestDispatchEvent,
  requestRetryEvent,
  stepEndEvent,
  stepStartEvent,
  turnEndEvent,
  turnStartEvent,
} from "./events.js";

const log = () => new EventLog({ registry: createAgentRegistry() });

describe("loop admission", () => {
  it.each([
    ["a turn out of order", [turnStartEvent.input({ turn: 1 })], /the next turn is 0/],
    ["a second open turn", [turnStartEvent.input({ turn: 0 }), turnStartEvent.input({ turn: 1 })], /turn 0 is still open/],
    ["a step outside a turn", [stepStartEvent.input({ turn: 0, step: 0 })], /turn 0 is not open/],
    [
      "a skipped step number",
      [turnStartEvent.input({ turn: 0 }), stepStartEvent.input({ turn: 0, step: 1 })],
      /the next step is 0/,
    ],
    [
      "a second dispatch in one step",
      [
        turnStartEvent.input({ turn: 0 }),
        stepStartEvent.input({ turn: 0, step: 0 }),
        requestDispatchEvent.input({ turn: 0, step: 0 }),
        requestDispatchEvent.input({ turn: 0, step: 0 }),
      ],
      /already dispatched its request/,
    ],
    [
      "a retry before dispatch",
      [
        turnStartEvent.input({ turn: 0 }),
        stepStartEvent.input({ turn: 0, step: 0 }),
        requestRetryEvent.input({ turn: 0, step: 0, attempt: 1, delayMs: 0, error: { code: "X", message: "" } }),
      ],
      /a retry needs a dispatched request/,
    ],
    [
      "a turn end with a step still open",
      [turnStartEvent.input({ turn: 0 }), stepStartEvent.input({ turn: 0, step: 0 }), turnEndEvent.input({ turn: 0, reason: "completed" })],
      /step 0 is still open/,
    ],
    ["a step end for a step that is not open", [turnStartEvent.input({ turn: 0 }), stepEndEvent.input({ turn: 0, step: 0, reason: "completed" })], /step 0 is not open/],
  ])("refuses %s", async (_what, inputs, message) => {
    await expect(log().append(inputs)).rejects.toThrow(message);
  });

  it("numbers steps per turn from 0", async () => {
    const events = log();
    await events.append([
      turnStartEvent.input({ turn: 0 }),
      stepStartEvent.input({ turn: 0, step: 0 }),
      stepEndEvent.input({ turn: 0, step: 0, reason: "completed" }),
      turnEndEvent.input({ turn: 0, reason: "completed" }),
      turnStartEvent.input({ turn: 1 }),
      stepStartEvent.input({ turn: 1, step: 0 }),
    ]);
    expect(events.length).toBe(6);
  });
});
