import { stepStartEvent, turnEndEvent } from "dsh-agent";
import type { LogEvent } from "dsh-log";
import { WhatIfError } from "./errors.js";

/** The step limit an `Agent` runs a turn under when it is given none. */
export const AGENT_MAX_STEPS = 32;

/** A turn and how many steps it ran. */
interface TurnSteps {
  readonly turn: number;
  readonly steps: number;
}

/**
 * The step limit under which the turns of `events` replay as they were recorded; the limit itself is
 * not logged. A turn that stopped at its limit ran with exactly its steps; a turn that ended otherwise
 * needs at least its steps, and `defaultLimit` (the harness's, the agent's by default) is assumed when
 * every turn fits in it. `WHAT_IF_STEP_LIMITS` when no one limit fits the turns (a turn stopped at a
 * limit another turn ran past).
 */
export function recordedStepLimit(events: readonly LogEvent[], defaultLimit = AGENT_MAX_STEPS): number {
  const steps = new Map<number, number>();
  for (const event of events) if (stepStartEvent.is(event)) steps.set(event.data.turn, Math.max(steps.get(event.data.turn) ?? 0, event.data.step + 1));
  let longest: TurnSteps | undefined;
  for (const [turn, count] of steps) if (longest === undefined || count > longest.steps) longest = { turn, steps: count };
  // A turn stopped at its limit ran a step at least, so `longest` is set wherever `stopped` is.
  let stopped: TurnSteps | undefined;
  for (const event of events) {
    if (!turnEndEvent.is(event) || event.data.reason !== "max-steps") continue;
    const turn = { turn: event.data.turn, steps: steps.get(event.data.turn) ?? 0 };
    if (stopped !== undefined && stopped.steps !== turn.steps) throw differentLimits(stopped, `turn ${turn.turn} stopped at its limit after ${turn.steps}`);
    stopped = turn;
  }
  if (stopped === undefined) return Math.max(defaultLimit, longest?.steps ?? 0);
  if (longest!.steps > stopped.steps) throw differentLimits(stopped, `turn ${longest!.turn} ran ${longest!.steps}`);
  return stopped.steps;
}

function differentLimits(stopped: TurnSteps, other: string): WhatIfError {
  return new WhatIfError(
    "WHAT_IF_STEP_LIMITS",
    `the recorded turns ran under different step limits (turn ${stopped.turn} stopped at its limit after ${stopped.steps} step(s), ${other}): no one step limit replays them as recorded`,
  );
}

/** `agent` with a step limit: its own, else the one {@link recordedStepLimit} reads off `events` (with `defaultLimit`). */
export function withRecordedStepLimit<A extends { readonly maxSteps?: number }>(agent: A, events: readonly LogEvent[], defaultLimit = AGENT_MAX_STEPS): A & { readonly maxSteps: number } {
  return { ...agent, maxSteps: agent.maxSteps ?? recordedStepLimit(events, defaultLimit) };
}
