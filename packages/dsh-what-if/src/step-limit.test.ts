import type { LogEvent } from "dsh-log";
import { describe, expect, it } from "vitest";
import { WhatIfError } from "./errors.js";
import { AGENT_MAX_STEPS, recordedStepLimit, withRecordedStepLimit } from "./step-limit.js";

/** The step and turn events of turns that ran `steps` steps each and ended for `reason`. */
function turns(...ran: readonly (readonly [steps: number, reason: string])[]): LogEvent[] {
  const events: LogEvent[] = [];
  const add = (type: string, data: object) => events.push({ seq: events.length, type, time: 0, data } as LogEvent);
  ran.forEach(([steps, reason], turn) => {
    add("turn/start", { turn });
    for (let step = 0; step < steps; step++) add("step/start", { turn, step });
    add("turn/end", { turn, reason });
  });
  return events;
}

function refusal(events: readonly LogEvent[]): WhatIfError {
  try {
    recordedStepLimit(events);
  } catch (error) {
    if (error instanceof WhatIfError) return error;
  }
  throw new Error("no refusal");
}

describe("recordedStepLimit", () => {
  it("is the default while every turn fits in it, and the longest turn beyond it", () => {
    expect(AGENT_MAX_STEPS).toBe(32);
    expect(recordedStepLimit([])).toBe(AGENT_MAX_STEPS);
    expect(recordedStepLimit(turns([3, "completed"], [AGENT_MAX_STEPS, "completed"]))).toBe(AGENT_MAX_STEPS);
    expect(recordedStepLimit(turns([3, "completed"], [40, "completed"], [5, "error"]))).toBe(40);
    // A harness with a default of its own.
    expect(recordedStepLimit(turns([3, "completed"], [12, "completed"]), 16)).toBe(16);
    expect(recordedStepLimit(turns([3, "completed"], [20, "completed"]), 16)).toBe(20);
    // A turn the log does not end (a crash) needs its steps too.
    expect(recordedStepLimit(turns([2, "completed"]).concat(turns([40, "completed"]).slice(0, -1)))).toBe(40);
  });

  it("is exactly the steps of a turn that stopped at its limit, below the default too", () => {
    expect(recordedStepLimit(turns([2, "completed"], [4, "max-steps"], [4, "completed"]))).toBe(4);
    expect(recordedStepLimit(turns([25, "max-steps"], [25, "max-steps"]))).toBe(25);
  });

  it("refuses turns no one limit replays, naming them", () => {
    const past = refusal(turns([4, "max-steps"], [6, "completed"]));
    expect(past.code).toBe("WHAT_IF_STEP_LIMITS");
    expect(past.message).toBe(
      "the recorded turns ran under different step limits (turn 0 stopped at its limit after 4 step(s), turn 1 ran 6): no one step limit replays them as recorded",
    );
    expect(refusal(turns([4, "max-steps"], [2, "completed"], [5, "max-steps"])).message).toContain("(turn 0 stopped at its limit after 4 step(s), turn 2 stopped at its limit after 5)");
    // Of two longest turns, the first is named.
    expect(refusal(turns([3, "max-steps"], [7, "completed"], [7, "completed"])).message).toContain("turn 1 ran 7)");
  });
});

describe("withRecordedStepLimit", () => {
  it("keeps a given limit and the other settings, and reads one off the log only when none is given", () => {
    const events = turns([3, "completed"], [40, "completed"]);
    const compaction = { contextWindow: 1000, threshold: 0.5 };
    expect(withRecordedStepLimit({ maxSteps: 5, compaction }, events)).toEqual({ maxSteps: 5, compaction });
    const unlimited: { readonly maxSteps?: number; readonly compaction: typeof compaction } = { compaction };
    expect(withRecordedStepLimit(unlimited, events)).toEqual({ maxSteps: 40, compaction });
    expect(withRecordedStepLimit({}, turns([3, "completed"]), 16)).toEqual({ maxSteps: 16 });
    // A given limit is kept even where the log's turns could not all replay under one.
    expect(withRecordedStepLimit({ maxSteps: 7 }, turns([4, "max-steps"], [6, "completed"]))).toEqual({ maxSteps: 7 });
  });
});
