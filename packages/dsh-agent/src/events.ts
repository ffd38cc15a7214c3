import { registerHeaderEvents } from "dsh-header";
import { finishReasonSchema, tokenUsageSchema } from "dsh-llm";
import { EventRegistry, LogError, defineEvent, type AdmissionRule, type LogEvent } from "dsh-log";
import { registerSurfaceEvents } from "dsh-surface";
import { z } from "zod";

const turnNumber = z.number().int().nonnegative();
const stepNumber = z.number().int().nonnegative();

/** A failure as logged: a stable code and a message (never credentials). */
export const loggedErrorSchema = z.strictObject({
  code: z.string().min(1),
  message: z.string(),
  status: z.number().int().exactOptional(),
});

/** Why a turn ended. */
export const turnEndReasonSchema = z.enum(["completed", "aborted", "blocked", "error", "max-tokens", "max-steps", "interrupted"]);
export type TurnEndReason = z.output<typeof turnEndReasonSchema>;

/** Why a step ended. */
export const stepEndReasonSchema = z.enum(["completed", "aborted", "error", "max-tokens", "interrupted"]);
export type StepEndReason = z.output<typeof stepEndReasonSchema>;

/** A turn begins: one user input run until the model stops calling tools. */
export const turnStartEvent = defineEvent("turn/start", z.strictObject({ turn: turnNumber }));

/** A turn ends, with its reason (and the error, when it failed). */
export const turnEndEvent = defineEvent(
  "turn/end",
  z.strictObject({ turn: turnNumber, reason: turnEndReasonSchema, error: loggedErrorSchema.exactOptional() }),
);

/** A step opens; the events up to its `request/dispatch` are exactly what its request contains. */
export const stepStartEvent = defineEvent(
  "step/start",
  z.strictObject({ turn: turnNumber, step: stepNumber, startsRequestSeries: z.literal(true).exactOptional() }),
);

/** The reconstruction boundary: the step's request is the fold of the log up to this event. */
export const requestDispatchEvent = defineEvent("request/dispatch", z.strictObject({ turn: turnNumber, step: stepNumber }));

/** A retryable failure of an attempt; the same frozen request is sent again after `delayMs`. */
export const requestRetryEvent = defineEvent(
  "request/retry",
  z.strictObject({
    turn: turnNumber,
    step: stepNumber,
    attempt: z.number().int().positive(),
    delayMs: z.number().int().nonnegative(),
    error: loggedErrorSchema,
  }),
);

/** A step ends, with the provider's finish reason and usage when the request completed. */
export const stepEndEvent = defineEvent(
  "step/end",
  z.strictObject({
    turn: turnNumber,
    step: stepNumber,
    reason: stepEndReasonSchema,
    finishReason: finishReasonSchema.exactOptional(),
    usage: tokenUsageSchema.exactOptional(),
    error: loggedErrorSchema.exactOptional(),
  }),
);

const surfaceRange = z.strictObject({ start: z.number().int().nonnegative(), end: z.number().int().nonnegative() });

/** Why a compaction ran. */
export const compactionReasonSchema = z.enum(["threshold", "overflow", "manual"]);
export type CompactionReason = z.output<typeof compactionReasonSchema>;

/** A compaction begins: which surface nodes (seqs) it will summarize, and the token pressure that triggered it. */
export const compactionStartEvent = defineEvent(
  "compaction/start",
  z.strictObject({
    reason: compactionReasonSchema,
    range: surfaceRange,
    measuredTokens: z.number().int().nonnegative().exactOptional(),
  }),
);

/** The one-shot summary call's envelope scalars and result; its input is deterministic code over `range`. */
export const compactionSummaryEvent = defineEvent(
  "compaction/summary",
  z.strictObject({
    provider: z.string().min(1),
    model: z.string().min(1),
    maxTokens: z.number().int().positive(),
    range: surfaceRange,
    summary: z.string().min(1),
  }),
);

/** A compaction ends: `completed` (the surface replace is logged just before) or `failed` (surface untouched). */
export const compactionEndEvent = defineEvent(
  "compaction/end",
  z.strictObject({
    outcome: z.enum(["completed", "failed"]),
    generation: z.number().int().positive().exactOptional(),
    error: loggedErrorSchema.exactOptional(),
  }),
);

/**
 * A proposal to recover from an unreadable attachment: the surface nodes (seqs) that reference it
 * could be replaced by placeholders. Logging it changes nothing; accepting it is a logged replace.
 */
export const attachmentQuarantineEvent = defineEvent(
  "attachment/quarantine",
  z.strictObject({
    digest: z.string().min(1),
    code: z.string().min(1),
    message: z.string(),
    nodes: z.array(z.number().int().nonnegative()).min(1),
  }),
);

/** The agent's event definitions. */
export const agentEventDefinitions = [
  turnStartEvent,
  turnEndEvent,
  stepStartEvent,
  requestDispatchEvent,
  requestRetryEvent,
  stepEndEvent,
  compactionStartEvent,
  compactionSummaryEvent,
  compactionEndEvent,
  attachmentQuarantineEvent,
];

/**
 * Where the loop stands in the log: turns begun, the open turn and step, whether the step
 * dispatched, and whether a compaction is under way.
 */
export interface LoopState {
  readonly turns: number;
  readonly openTurn: number | undefined;
  readonly openStep: { readonly step: number; readonly dispatched: boolean } | undefined;
  readonly nextStep: number;
  readonly compacting: boolean;
}

function refuse(event: LogEvent, message: string): never {
  throw new LogError("LOG_RULE_VIOLATION", `loop: ${event.type} at seq ${event.seq}: ${message}`);
}

function checkTurn(event: LogEvent, state: LoopState, turn: number): void {
  if (state.openTurn !== turn) refuse(event, `turn ${turn} is not open`);
}

/**
 * The admission rule of the loop's structure: turns and steps open and close in order, a step
 * dispatches at most once, retries and dispatches happen inside an open step, and a compaction
 * runs between steps, from start to end.
 */
export const loopAdmission: AdmissionRule<LoopState> = {
  name: "dsh-agent/loop",
  initial: () => ({ turns: 0, openTurn: undefined, openStep: undefined, nextStep: 0, compacting: false }),
  admit(state, event) {
    if (compactionStartEvent.is(event)) {
      if (state.compacting) refuse(event, "a compaction is already under way");
      if (state.openStep !== undefined) refuse(event, `step ${state.openStep.step} is open; compaction runs between steps`);
      return { ...state, compacting: true };
    }
    if (compactionSummaryEvent.is(event) || compactionEndEvent.is(event)) {
      if (!state.compacting) refuse(event, "no compaction is under way");
      return compactionEndEvent.is(event) ? { ...state, compacting: false } : state;
    }
    if (state.compacting && (turnStartEvent.is(event) || turnEndEvent.is(event) || stepStartEvent.is(event))) {
      refuse(event, "a compaction is under way");
    }
    if (turnStartEvent.is(event)) {
      if (state.openTurn !== undefined) refuse(event, `turn ${state.openTurn} is still open`);
      if (event.data.turn !== state.turns) refuse(event, `the next turn is ${state.turns}`);
      return { ...state, turns: state.turns + 1, openTurn: event.data.turn, openStep: undefined, nextStep: 0 };
    }
    if (turnEndEvent.is(event)) {
      checkTurn(event, state, event.data.turn);
      if (state.openStep !== undefined) refuse(event, `step ${state.openStep.step} is still open`);
      return { ...state, openTurn: undefined };
    }
    if (stepStartEvent.is(event)) {
      checkTurn(event, state, event.data.turn);
      if (state.openStep !== undefined) refuse(event, `step ${state.openStep.step} is still open`);
      if (event.data.step !== state.nextStep) refuse(event, `the next step is ${state.nextStep}`);
      return { ...state, openStep: { step: event.data.step, dispatched: false }, nextStep: state.nextStep + 1 };
    }
    if (requestDispatchEvent.is(event) || requestRetryEvent.is(event) || stepEndEvent.is(event)) {
      checkTurn(event, state, event.data.turn);
      if (state.openStep?.step !== event.data.step) refuse(event, `step ${event.data.step} is not open`);
      if (requestDispatchEvent.is(event)) {
        if (state.openStep.dispatched) refuse(event, `step ${event.data.step} already dispatched its request`);
        return { ...state, openStep: { step: event.data.step, dispatched: true } };
      }
      if (requestRetryEvent.is(event) && !state.openStep.dispatched) refuse(event, "a retry needs a dispatched request");
      return stepEndEvent.is(event) ? { ...state, openStep: undefined } : state;
    }
    return state;
  },
};

/** Registers the agent's event types and loop rule. */
export function registerAgentEvents(registry: EventRegistry): EventRegistry {
  return registry.define(...agentEventDefinitions).rule(loopAdmission);
}

/** A registry with everything a dsh agent session logs: surface, header and loop events. */
export function createAgentRegistry(): EventRegistry {
  return registerAgentEvents(registerHeaderEvents(registerSurfaceEvents(new EventRegistry())));
}
