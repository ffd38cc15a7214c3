import type { EventLog } from "dsh-log";
import { SurfaceManager } from "dsh-surface";
import { AgentError } from "./errors.js";
import { durableLoop, type DurableTurnOptions } from "./durable-loop.js";
import { loggedUnit, nextAction, sha256Hex, type StepReceipt } from "./durable-receipt.js";
import { closeStepUnit, modelUnit, requestHashAt, toolUnit } from "./durable-units.js";
import { loopAdmission } from "./loop-rule.js";
import type { InboxItem } from "./inbox.js";
import { toContent, type ContentInput } from "./tools.js";

/** Where a durable turn stands, as its engine knows it: the turn, the head the next unit expects, the input, and the last receipt. */
export interface TurnPosition {
  readonly turn: number;
  /** The log's length the unit expects: the previous receipt's `to`, or the log's length when the turn was asked for. */
  readonly head: number;
  /** The turn's input; it enters the turn's first step. */
  readonly input: ContentInput;
  /** The source recorded on the input's `user/message` (default `user`). */
  readonly source?: string;
  /** The previous unit's receipt: it carries the open step's answer to the step's end, and context queued by tools. */
  readonly previous?: StepReceipt;
}

/**
 * Runs the next unit of a durable turn on `log` and returns its receipt. A unit ends at a log
 * boundary: the model unit opens a step (or goes on with the open one), commits its dispatch apart,
 * sends its request (rebuilt from the log, so a retry sends the same bytes) and logs the answer; a
 * tool unit runs one call;
 * the close unit logs the step's end. When the log is already past `head` (the unit ran and its
 * receipt was lost), it returns the receipt of what the log holds and sends nothing.
 */
export async function advanceTurn(log: EventLog, options: DurableTurnOptions, position: TurnPosition): Promise<StepReceipt> {
  const { turn, head } = position;
  if (log.length < head) throw new AgentError("AGENT_TURN_CONFLICT", `the log has ${log.length} events; turn ${turn} expected at least ${head}`);
  const surface = new SurfaceManager(log);
  if (log.length > head) return loggedReceipt(log, surface, options, position);
  const next = nextAction(log, surface, turn);
  if (next.kind === "done") return { turn, from: head, to: head, next };
  const loop = durableLoop(log, surface, options, turn, stepInput(log, position));
  const signal = options.signal ?? new AbortController().signal;
  if (next.kind === "model") return modelUnit(loop, { turn, signal, onChunk: options.onChunk, commitApart: options.commitApart });
  if (next.kind === "tool") return toolUnit(loop, { turn, signal, callId: next.callId, previous: position.previous, options });
  return closeStepUnit(loop, { turn, signal, previous: position.previous });
}

/** What the step a model unit opens takes in: the turn's input at its first step, and context tools queued; nothing when a step is open already. */
function stepInput(log: EventLog, position: TurnPosition): InboxItem[] {
  const state = log.ruleState(loopAdmission);
  if (state.openStep !== undefined) return [];
  const first = state.openTurn === undefined || state.nextStep === 0;
  return [...(first ? [{ content: toContent(position.input), source: position.source ?? "user" }] : []), ...(position.previous?.queued ?? [])];
}

/** The receipt of the events a unit logged from `head` on, when the engine lost the one the unit returned. */
async function loggedReceipt(log: EventLog, surface: SurfaceManager, options: DurableTurnOptions, position: TurnPosition): Promise<StepReceipt> {
  const found = loggedUnit(log, position.head);
  const next = nextAction(log, surface, position.turn);
  // As a live receipt: the answer is carried while its step is open, context queued until a step takes it.
  const dispatched = found.dispatchSeq !== undefined;
  const answer = log.ruleState(loopAdmission).openStep?.answered === true ? position.previous?.answer : undefined;
  return {
    turn: position.turn,
    from: position.head,
    to: log.length,
    ...(found.dispatchSeq === undefined ? {} : { requestHash: await requestHashAt(durableLoop(log, surface, options, position.turn), found.dispatchSeq) }),
    ...(found.answerLine === undefined ? {} : { responseHash: await sha256Hex(found.answerLine) }),
    ...(answer === undefined ? {} : { answer }),
    ...(dispatched || position.previous?.queued === undefined ? {} : { queued: position.previous.queued }),
    next,
  };
}

/** The turn a durable run of `log` starts next and the head it starts at; a turn still open is refused (finish it first). */
export function turnToStart(log: EventLog): { readonly turn: number; readonly head: number } {
  const state = log.ruleState(loopAdmission);
  if (state.openTurn !== undefined) throw new AgentError("AGENT_TURN_CONFLICT", `turn ${state.openTurn} is still open in the log: finish it (recover) before starting another`);
  return { turn: state.turns, head: log.length };
}

/**
 * Drives a durable turn to its end through `unit`, the engine's step: it calls `unit` with each
 * position (which runs {@link advanceTurn} as a recorded step) until a receipt says the turn is done.
 * Returns every receipt; the last one's `next` is `done`.
 */
export async function driveTurn(start: Omit<TurnPosition, "previous">, unit: (position: TurnPosition) => Promise<StepReceipt>): Promise<StepReceipt[]> {
  const receipts: StepReceipt[] = [];
  let position: TurnPosition = start;
  for (;;) {
    const receipt = await unit(position);
    receipts.push(receipt);
    if (receipt.next.kind === "done") return receipts;
    position = { ...start, head: receipt.to, previous: receipt };
  }
}
