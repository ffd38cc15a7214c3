import type { EventLog } from "dsh-log";
import { eventLine } from "dsh-log/store";
import { assistantMessageEvent, type SurfaceManager } from "dsh-surface";
import type { AnswerFacts } from "./answer.js";
import { AgentError } from "./errors.js";
import { requestDispatchEvent, turnEndEvent, type TurnEndReason } from "./events.js";
import type { InboxItem } from "./inbox.js";
import { loopAdmission } from "./loop-rule.js";

/** What a durable turn does next, read from the log alone. */
export type NextAction =
  /** Open the next step (or go on with the open one), send its request and log the answer. */
  | { readonly kind: "model" }
  /** Run this call of the open step's answer and log its result. */
  | { readonly kind: "tool"; readonly callId: string }
  /** Every call has its result: log the step's end. */
  | { readonly kind: "close" }
  /** The turn has ended, for `reason`. */
  | { readonly kind: "done"; readonly reason: TurnEndReason };

/**
 * What one unit of a durable turn left in the log, small enough for a workflow engine's journal: the
 * log holds the bytes, the receipt points into it. `to` is the head the next unit expects.
 */
export interface StepReceipt {
  readonly turn: number;
  /** The events the unit appended: seqs `from` (inclusive) to `to` (exclusive). */
  readonly from: number;
  readonly to: number;
  /** SHA-256 (hex) of the request the unit sent, as rebuilt from the log: the wire bytes are a pure function of it and the adapter. */
  readonly requestHash?: string;
  /** SHA-256 (hex) of the logged line of the answer the unit logged. */
  readonly responseHash?: string;
  /** The open step's answer (finish reason, usage, response id), carried to its end. */
  readonly answer?: AnswerFacts;
  /** Context the step's tools queued for the next request. */
  readonly queued?: readonly InboxItem[];
  readonly next: NextAction;
}

/** Hex SHA-256 of `text` (UTF-8), with the platform's Web Crypto. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function endReason(log: EventLog, turn: number): TurnEndReason {
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.get(seq)!;
    if (turnEndEvent.is(event) && event.data.turn === turn) return event.data.reason;
  }
  throw new AgentError("AGENT_INVALID_LOG", `turn ${turn} has no turn/end`);
}

/** What turn `turn` does next, from the log: a pure function of it, so any process that reads the log decides the same. */
export function nextAction(log: EventLog, surface: SurfaceManager, turn: number): NextAction {
  const state = log.ruleState(loopAdmission);
  if (state.openTurn === undefined) {
    if (state.turns > turn) return { kind: "done", reason: endReason(log, turn) };
    if (state.turns === turn) return { kind: "model" };
    throw new AgentError("AGENT_TURN_CONFLICT", `the log has ${state.turns} turns, so turn ${turn} cannot start yet`);
  }
  if (state.openTurn !== turn) throw new AgentError("AGENT_TURN_CONFLICT", `turn ${state.openTurn} is open in the log, not turn ${turn}`);
  const open = state.openStep;
  if (open === undefined || !open.answered) return { kind: "model" };
  const call = surface.state.openCalls.toArray()[0];
  return call === undefined ? { kind: "close" } : { kind: "tool", callId: call.callId };
}

/** What the events from `from` on hold: the seq of a dispatch, and the logged line of an answer. */
export interface LoggedUnit {
  readonly dispatchSeq?: number;
  readonly answerLine?: string;
}

/** What a receipt rebuilt from the log can say about the events from `from` on. */
export function loggedUnit(log: EventLog, from: number): LoggedUnit {
  let found: LoggedUnit = {};
  for (let seq = from; seq < log.length; seq++) {
    const event = log.get(seq)!;
    if (requestDispatchEvent.is(event)) found = { ...found, dispatchSeq: seq };
    else if (assistantMessageEvent.is(event)) found = { ...found, answerLine: eventLine(event) };
  }
  return found;
}
