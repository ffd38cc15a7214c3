import { requestHeaderEvent } from "dsh-header";
import { LogError, type AdmissionRule, type LogEvent } from "dsh-log";
import { assistantMessageEvent, isSurfaceEvent, surfaceEventTypes } from "dsh-surface";
import {
  agentEventDefinitions,
  compactionEndEvent,
  compactionStartEvent,
  compactionSummaryEvent,
  requestDispatchEvent,
  requestRetryEvent,
  stepEndEvent,
  stepRejectEvent,
  stepStartEvent,
  turnEndEvent,
  turnStartEvent,
  toolIntentEvent,
} from "./events.js";

/** The open step: whether it dispatched its request, and whether the answer to it is logged. */
export interface OpenStep {
  readonly step: number;
  readonly dispatched: boolean;
  readonly answered: boolean;
}

/**
 * Where the loop stands in the log: turns begun, the open turn and step, the next step number,
 * and whether a compaction is under way.
 */
export interface LoopState {
  readonly turns: number;
  readonly openTurn: number | undefined;
  readonly openStep: OpenStep | undefined;
  readonly nextStep: number;
  readonly compacting: boolean;
  /** Whether a `request/header` snapshot was logged yet; a dispatch needs one. */
  readonly hasHeader: boolean;
}

// States are built as whole literals, never spread: admission runs once per event of a loaded log,
// and Node 20 copies a spread object about forty times slower than it builds a literal.

/** `state` with another open step (and next step number). */
function withStep(state: LoopState, openStep: OpenStep | undefined, nextStep = state.nextStep): LoopState {
  return { turns: state.turns, openTurn: state.openTurn, openStep, nextStep, compacting: state.compacting, hasHeader: state.hasHeader };
}

/** `state` with turn `openTurn` open (or none), `turns` begun, and no step open. */
function withTurn(state: LoopState, turns: number, openTurn: number | undefined, nextStep: number): LoopState {
  return { turns, openTurn, openStep: undefined, nextStep, compacting: state.compacting, hasHeader: state.hasHeader };
}

/** `state` with a compaction under way or not, and whether a header was logged. */
function withFlags(state: LoopState, compacting: boolean, hasHeader: boolean): LoopState {
  return { turns: state.turns, openTurn: state.openTurn, openStep: state.openStep, nextStep: state.nextStep, compacting, hasHeader };
}

function refuse(event: LogEvent, message: string): never {
  throw new LogError("LOG_RULE_VIOLATION", `loop: ${event.type} at seq ${event.seq}: ${message}`);
}

function checkTurn(event: LogEvent, state: LoopState, turn: number): void {
  if (state.openTurn !== turn) refuse(event, `turn ${turn} is not open`);
}

/**
 * Between a step's `request/dispatch` and its answer, the request is in flight: nothing it could
 * contain may be logged, so the request stays exactly the fold of the log at its dispatch. Called for
 * the surface events and headers logged meanwhile.
 */
function admitInFlight(state: LoopState, step: OpenStep, event: LogEvent): LoopState {
  if (requestHeaderEvent.is(event)) refuse(event, `step ${step.step} dispatched its request; a header change joins a later request`);
  if (!assistantMessageEvent.is(event) || event.data.replaces !== undefined) {
    refuse(event, `step ${step.step} dispatched its request and awaits the answer; model-visible input joins a later request (use agent.inject())`);
  }
  return withStep(state, { step: step.step, dispatched: step.dispatched, answered: true });
}

function admitCompaction(state: LoopState, event: LogEvent): LoopState {
  if (compactionStartEvent.is(event)) {
    if (state.compacting) refuse(event, "a compaction is already under way");
    if (state.openStep !== undefined) refuse(event, `step ${state.openStep.step} is open; compaction runs between steps`);
    return withFlags(state, true, state.hasHeader);
  }
  if (!state.compacting) refuse(event, "no compaction is under way");
  return compactionEndEvent.is(event) ? withFlags(state, false, state.hasHeader) : state;
}

function admitStepEvent(state: LoopState, event: LogEvent, turn: number, step: number): LoopState {
  checkTurn(event, state, turn);
  const open = state.openStep;
  if (open?.step !== step) refuse(event, `step ${step} is not open`);
  if (requestDispatchEvent.is(event)) {
    if (open.dispatched) refuse(event, `step ${step} already dispatched its request`);
    if (!state.hasHeader) refuse(event, "a request needs a request/header snapshot before it");
    return withStep(state, { step: open.step, dispatched: true, answered: open.answered });
  }
  if (requestRetryEvent.is(event) && (!open.dispatched || open.answered)) refuse(event, "a retry needs a dispatched request that has no answer yet");
  if (toolIntentEvent.is(event) && !open.answered) refuse(event, `step ${step} has no answer whose calls could run`);
  return stepEndEvent.is(event) ? withStep(state, undefined) : state;
}

/**
 * The admission rule of the loop's structure: turns and steps open and close in order, a step
 * dispatches at most once and, until its answer, admits nothing model-visible; retries happen inside
 * a dispatched step; a compaction runs between steps, from start to end.
 */
export const loopAdmission: AdmissionRule<LoopState> = {
  name: "dsh-agent/loop",
  types: new Set([...agentEventDefinitions.map((definition) => definition.type), ...surfaceEventTypes, requestHeaderEvent.type]),
  initial: () => ({ turns: 0, openTurn: undefined, openStep: undefined, nextStep: 0, compacting: false, hasHeader: false }),
  admit(state, event) {
    const open = state.openStep;
    if (open !== undefined && open.dispatched && !open.answered) {
      if (isSurfaceEvent(event) || requestHeaderEvent.is(event)) return admitInFlight(state, open, event);
    } else if (open?.answered === true && assistantMessageEvent.is(event)) {
      refuse(event, `step ${open.step} already logged its answer`);
    }
    if (requestHeaderEvent.is(event)) return state.hasHeader ? state : withFlags(state, state.compacting, true);
    if (compactionStartEvent.is(event) || compactionSummaryEvent.is(event) || compactionEndEvent.is(event)) return admitCompaction(state, event);
    if (state.compacting && (turnStartEvent.is(event) || turnEndEvent.is(event) || stepStartEvent.is(event) || stepRejectEvent.is(event))) {
      refuse(event, "a compaction is under way");
    }
    if (turnStartEvent.is(event)) {
      if (state.openTurn !== undefined) refuse(event, `turn ${state.openTurn} is still open`);
      if (event.data.turn !== state.turns) refuse(event, `the next turn is ${state.turns}`);
      return withTurn(state, state.turns + 1, event.data.turn, 0);
    }
    if (turnEndEvent.is(event)) {
      checkTurn(event, state, event.data.turn);
      if (open !== undefined) refuse(event, `step ${open.step} is still open`);
      return withTurn(state, state.turns, undefined, state.nextStep);
    }
    if (stepStartEvent.is(event) || stepRejectEvent.is(event)) {
      checkTurn(event, state, event.data.turn);
      if (open !== undefined) refuse(event, `step ${open.step} is still open`);
      if (event.data.step !== state.nextStep) refuse(event, `the next step is ${state.nextStep}`);
      if (stepRejectEvent.is(event)) return state;
      return withStep(state, { step: event.data.step, dispatched: false, answered: false }, state.nextStep + 1);
    }
    if (requestDispatchEvent.is(event) || requestRetryEvent.is(event) || stepEndEvent.is(event) || toolIntentEvent.is(event)) {
      return admitStepEvent(state, event, event.data.turn, event.data.step);
    }
    return state;
  },
};
