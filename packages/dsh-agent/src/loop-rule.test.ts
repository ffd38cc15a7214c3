import { requestHeaderEvent } from "dsh-header";
import { assistantMessageEvent, systemMessageEvent, userMessageEvent } from "dsh-surface";
import { EventLog } from "dsh-log";
import { describe, expect, it } from "vitest";
import { createAgentRegistry } from "./register.js";
import {
  compactionEndEvent,
  compactionStartEvent,
  stepRejectEvent,
  requestDispatchEvent,
  requestRetryEvent,
  stepEndEvent,
  stepStartEvent,
  turnEndEvent,
  toolIntentEvent,
  turnStartEvent,
} from "./events.js";

const log = () => new EventLog({ registry: createAgentRegistry() });

const header = requestHeaderEvent.input({ reason: "initial", header: { config: { provider: "p", model: "m" } } });
const text = (value: string) => [{ type: "text" as const, text: value }];
/** A turn whose step 0 dispatched its request over a system prompt and one user message. */
const inFlight = () => [
  turnStartEvent.input({ turn: 0 }),
  stepStartEvent.input({ turn: 0, step: 0 }),
  systemMessageEvent.input({ content: "s", source: "system-prompt" }),
  userMessageEvent.input({ content: text("q"), source: "user" }),
  header,
  requestDispatchEvent.input({ turn: 0, step: 0 }),
];
const answer = assistantMessageEvent.input({ content: text("a"), source: "model" });
const compaction = compactionStartEvent.input({ reason: "manual", range: { start: 0, end: 0 } });

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
        requestHeaderEvent.input({ reason: "initial", header: { config: { provider: "p", model: "m" } } }),
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
    ["a dispatch with no header before it", [turnStartEvent.input({ turn: 0 }), stepStartEvent.input({ turn: 0, step: 0 }), requestDispatchEvent.input({ turn: 0, step: 0 })], /needs a request\/header snapshot before it/],
    ["a user message between a dispatch and its answer", [...inFlight(), userMessageEvent.input({ content: text("late"), source: "late" })], /step 0 dispatched its request and awaits the answer/],
    ["a replace between a dispatch and its answer", [...inFlight(), systemMessageEvent.input({ content: "t", source: "x", replaces: { start: 2, end: 2, generation: 1 } })], /awaits the answer/],
    ["a replacing answer", [...inFlight(), assistantMessageEvent.input({ content: text("a"), source: "model", replaces: { start: 3, end: 3, generation: 1 } })], /awaits the answer/],
    ["a header between a dispatch and its answer", [...inFlight(), requestHeaderEvent.input({ reason: "change", header: { config: { provider: "p", model: "n" } } })], /a header change joins a later request/],
    ["a second answer in one step", [...inFlight(), answer, answer], /step 0 already logged its answer/],
    ["a retry after the answer", [...inFlight(), answer, requestRetryEvent.input({ turn: 0, step: 0, attempt: 1, delayMs: 0, error: { code: "X", message: "" } })], /no answer yet/],
    ["a reject while a step is open", [turnStartEvent.input({ turn: 0 }), stepStartEvent.input({ turn: 0, step: 0 }), stepRejectEvent.input({ turn: 0, step: 1 })], /step 0 is still open/],
    ["a reject with the wrong step number", [turnStartEvent.input({ turn: 0 }), stepRejectEvent.input({ turn: 0, step: 3 })], /the next step is 0/],
    ["a reject outside a turn", [stepRejectEvent.input({ turn: 0, step: 0 })], /turn 0 is not open/],
    ["a tool intent before the step's answer", [...inFlight(), toolIntentEvent.input({ turn: 0, step: 0, callId: "c", toolName: "t" })], /step 0 has no answer whose calls could run/],
    ["a compaction while a step is open", [turnStartEvent.input({ turn: 0 }), stepStartEvent.input({ turn: 0, step: 0 }), compaction], /step 0 is open; compaction runs between steps/],
    ["a compaction while another is under way", [compaction, compaction], /a compaction is already under way/],
    ["a compaction end with none under way", [compactionEndEvent.input({ outcome: "failed" })], /no compaction is under way/],
    ["a turn start during a compaction", [compaction, turnStartEvent.input({ turn: 0 })], /a compaction is under way/],
    ["a turn end during a compaction", [turnStartEvent.input({ turn: 0 }), compaction, turnEndEvent.input({ turn: 0, reason: "completed" })], /a compaction is under way/],
    ["a step start during a compaction", [turnStartEvent.input({ turn: 0 }), compaction, stepStartEvent.input({ turn: 0, step: 0 })], /a compaction is under way/],
    ["a reject during a compaction", [turnStartEvent.input({ turn: 0 }), compaction, stepRejectEvent.input({ turn: 0, step: 0 })], /a compaction is under way/],
  ])("refuses %s", async (_what, inputs, message) => {
    await expect(log().append(inputs)).rejects.toThrow(message);
  });

  it("admits the answer, non-surface events and retries while a request is in flight, and anything after the answer", async () => {
    const admitted = new EventLog({ registry: createAgentRegistry().ignore("ui/") });
    await admitted.append([
      ...inFlight(),
      { type: "ui/progress", data: { percent: 50 } },
      requestRetryEvent.input({ turn: 0, step: 0, attempt: 1, delayMs: 0, error: { code: "X", message: "" } }),
      answer,
      userMessageEvent.input({ content: text("after the answer"), source: "user" }),
      stepEndEvent.input({ turn: 0, step: 0, reason: "completed" }),
      stepRejectEvent.input({ turn: 0, step: 1, reason: "enough" }),
      stepStartEvent.input({ turn: 0, step: 1 }),
    ]);
    expect(admitted.length).toBe(13);
  });

  it("admits model-visible messages outside any step (a conversation seeded before the loop ran)", async () => {
    const events = log();
    await events.append([systemMessageEvent.input({ content: "s", source: "system-prompt" }), userMessageEvent.input({ content: text("q"), source: "user" }), answer]);
    expect(events.length).toBe(3);
  });

  it("closes a step whose request failed after its dispatch, so the next step can start", async () => {
    const events = log();
    await events.append([...inFlight(), stepEndEvent.input({ turn: 0, step: 0, reason: "error" }), stepStartEvent.input({ turn: 0, step: 1 })]);
    expect(events.length).toBe(8);
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
