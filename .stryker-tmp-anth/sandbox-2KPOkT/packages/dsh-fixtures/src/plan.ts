import { compactionEndEvent, compactionStartEvent, stepRejectEvent, stepStartEvent, turnEndEvent, turnStartEvent, type ContentInput } from "dsh-agent";
import { requestHeaderEvent } from "dsh-header";
import type { DeepReadonly, UserContent } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { toolResultEvent, userMessageEvent } from "dsh-surface";
import { FixtureError } from "./errors.js";
import { stepKey } from "./revisions.js";

/** One thing the harness did to the session, in log order. */
export type Operation =
  /** Runs a turn; `newInstance` when the turn's first snapshot was `initial` or `resume` (a new process). */
  | { readonly kind: "turn"; readonly turn: number; readonly newInstance: boolean; readonly input: ContentInput; readonly source: string }
  /** `agent.compact()` between turns. */
  | { readonly kind: "compact"; readonly seq: number }
  /** `agent.trimToolResults()` between turns. */
  | { readonly kind: "trim"; readonly seq: number };

/** A message that entered a step besides the turn's input, with the source it was logged with. */
export interface StepMessage {
  readonly content: ContentInput;
  readonly source: string;
}

/** How the harness drove the session after the fork seed: the operations and, per step (`turn.step`), what the listeners added. */
export interface ReplayPlan {
  readonly operations: readonly Operation[];
  /** Messages that entered each step besides the turn's input, in log order. */
  readonly stepMessages: ReadonlyMap<string, readonly StepMessage[]>;
  /** Steps that declared `startsRequestSeries`. */
  readonly seriesSteps: ReadonlySet<string>;
}

const asInput = (content: DeepReadonly<UserContent[]>): ContentInput => content;

/**
 * Reads the harness's actions off the log from `fromSeq` on: turns (with their input and whether a
 * new loop instance ran them), manual compactions and trims between turns, and what entered each
 * step besides the input. Rejected steps and replacements of other kinds between turns are refused as
 * unreplayable: their effect on later turns is not in the log.
 */
export function replayPlan(events: readonly LogEvent[], fromSeq: number): ReplayPlan {
  const operations: Operation[] = [];
  const stepMessages = new Map<string, StepMessage[]>();
  const seriesSteps = new Set<string>();
  let turn: { turn: number; index: number; step: number | undefined; inputSeen: boolean } | undefined;
  let compacting = false;
  for (const event of events.slice(fromSeq)) {
    if (turnStartEvent.is(event)) {
      operations.push({ kind: "turn", turn: event.data.turn, newInstance: false, input: "", source: "user" });
      turn = { turn: event.data.turn, index: operations.length - 1, step: undefined, inputSeen: false };
    } else if (turnEndEvent.is(event)) {
      if (turn !== undefined && !turn.inputSeen) throw new FixtureError("FIXTURE_UNREPLAYABLE", `turn ${turn.turn} has no input message (seq ${event.seq})`);
      turn = undefined;
    } else if (stepRejectEvent.is(event)) {
      throw new FixtureError("FIXTURE_UNREPLAYABLE", `a pre-step listener rejected turn ${event.data.turn} step ${event.data.step} (seq ${event.seq}): the batch it returned to the inbox is not in the log`);
    } else if (stepStartEvent.is(event)) {
      if (turn !== undefined) turn.step = event.data.step;
      if (event.data.startsRequestSeries === true) seriesSteps.add(stepKey(event.data.turn, event.data.step));
    } else if (requestHeaderEvent.is(event) && turn !== undefined && (event.data.reason === "initial" || event.data.reason === "resume")) {
      const operation = operations[turn.index] as Extract<Operation, { kind: "turn" }>;
      operations[turn.index] = { ...operation, newInstance: true };
    } else if (userMessageEvent.is(event) && turn !== undefined && event.data.replaces === undefined) {
      const message = { content: asInput(event.data.content), source: event.data.source };
      if (!turn.inputSeen && turn.step === 0) {
        const operation = operations[turn.index] as Extract<Operation, { kind: "turn" }>;
        operations[turn.index] = { ...operation, input: message.content, source: message.source };
        turn.inputSeen = true;
      } else {
        const key = stepKey(turn.turn, turn.step ?? 0);
        stepMessages.set(key, [...(stepMessages.get(key) ?? []), message]);
      }
    } else if (compactionStartEvent.is(event)) {
      compacting = true;
      if (turn === undefined) operations.push({ kind: "compact", seq: event.seq });
    } else if (compactionEndEvent.is(event)) {
      compacting = false;
    } else if (turn === undefined && !compacting && "replaces" in (event.data as object) && (event.data as { replaces?: unknown }).replaces !== undefined) {
      if (!toolResultEvent.is(event)) throw new FixtureError("FIXTURE_UNREPLAYABLE", `seq ${event.seq} replaces surface nodes between turns in a way no agent method reproduces`);
      if (operations.at(-1)?.kind !== "trim") operations.push({ kind: "trim", seq: event.seq });
    }
  }
  if (turn !== undefined) throw new FixtureError("FIXTURE_UNREPLAYABLE", `turn ${turn.turn} never ended: the log stops inside it`);
  return { operations, stepMessages, seriesSteps };
}
