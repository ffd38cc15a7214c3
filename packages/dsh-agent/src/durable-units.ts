import type { FrozenGenerateOptions, GenerateResult, StreamChunk, ToolCallBlock } from "dsh-llm";
import { eventLine } from "dsh-log/store";
import { assistantMessageEvent, toolResultEvent } from "dsh-surface";
import { answerFacts, invoke, lastAnswer, type AnswerFacts } from "./answer.js";
import { generateWithRetries } from "./attempts.js";
import { dispatchRequest, requestAt } from "./dispatch.js";
import { lastDispatchOf, type DurableTurnOptions } from "./durable-loop.js";
import { nextAction, sha256Hex, type StepReceipt } from "./durable-receipt.js";
import { ToolError } from "./errors.js";
import { stepEndEvent, toolIntentEvent, turnStartEvent, type TurnEndReason } from "./events.js";
import type { InboxItem } from "./inbox.js";
import { loggedError } from "./logged-error.js";
import type { Loop } from "./loop.js";
import { loopAdmission } from "./loop-rule.js";
import { relievePressure } from "./pressure.js";
import { endFailedStep, openStep } from "./step.js";
import { childOf, toContent, toolErrorOutcome, type ToolOutcome } from "./tools.js";
import { turnEnd } from "./turn.js";

/** Where a unit runs: its turn and the signal that aborts it. */
interface UnitAt {
  readonly turn: number;
  readonly signal: AbortSignal;
}

/** A request as JSON without its signal: what its hash covers. */
function requestJson(request: FrozenGenerateOptions): string {
  const { signal: _signal, ...body } = request;
  return JSON.stringify(body);
}

/** The hash of the request the `request/dispatch` at `seq` sent, rebuilt from the log. */
export function requestHashAt(loop: Loop, seq: number): Promise<string> {
  return sha256Hex(requestJson(requestAt(loop, seq, new AbortController().signal)));
}

function receipt(loop: Loop, turn: number, from: number, fields: Omit<StepReceipt, "turn" | "from" | "to" | "next">): StepReceipt {
  return { turn, from, to: loop.log.length, ...fields, next: nextAction(loop.log, loop.surface, turn) };
}

async function endTurn(loop: Loop, turn: number, from: number, reason: TurnEndReason, fields: Omit<StepReceipt, "turn" | "from" | "to" | "next"> = {}): Promise<StepReceipt> {
  await loop.log.append(turnEnd(loop, { turn, reason }));
  return receipt(loop, turn, from, fields);
}

/** Opens the step (or takes up the open one) and returns its number and request: dispatched now, or rebuilt from its logged dispatch. */
async function stepRequest(loop: Loop, at: UnitAt): Promise<{ step: number; request: FrozenGenerateOptions } | TurnEndReason> {
  const { turn, signal } = at;
  const state = loop.log.ruleState(loopAdmission);
  const open = state.openStep;
  if (open?.dispatched === true) return { step: open.step, request: requestAt(loop, lastDispatchOf(loop.log, turn)!, signal) };
  if (open !== undefined) {
    // A durable turn has no pre-step listeners, so none of its steps starts a request series.
    const tools = loop.tools.list().map((tool) => tool.schema);
    return { step: open.step, request: await dispatchRequest(loop, { turn, step: open.step, tools, startsRequestSeries: false, signal }) };
  }
  if (state.nextStep >= loop.settings.maxSteps) return "max-steps";
  await relievePressure(loop, loop.settings.compaction, signal);
  const step = state.nextStep;
  const opened = await openStep(loop, turn, step);
  if (opened === "blocked") return "blocked";
  const tools = opened.tools.map((tool) => tool.schema);
  return { step, request: await dispatchRequest(loop, { turn, step, tools, startsRequestSeries: opened.startsRequestSeries, signal }) };
}

/**
 * The model unit: starts the turn if it has not started, opens a step (or takes up the open one),
 * sends its request and logs the answer. Everything up to the request's dispatch is committed apart
 * before a byte is sent, so a unit that dies after sending leaves a log that rebuilds what it sent,
 * and its recovery sends that logged request again, whatever agent recovers it. An answer without
 * tool calls (or cut off) also ends the step and the turn; a failure is logged with both ends and
 * reported in the receipt, not thrown.
 */
export async function modelUnit(loop: Loop, at: UnitAt & { readonly onChunk: DurableTurnOptions["onChunk"] | undefined; readonly commitApart: DurableTurnOptions["commitApart"] | undefined }): Promise<StepReceipt> {
  const { log } = loop;
  const { turn, signal } = at;
  const from = log.length;
  const apart = at.commitApart ?? ((work) => work());
  const opened = await apart(async () => {
    if (log.ruleState(loopAdmission).openTurn === undefined) await log.append(turnStartEvent.input({ turn }));
    return stepRequest(loop, at);
  });
  if (typeof opened === "string") return endTurn(loop, turn, from, opened);
  const { step, request } = opened;
  const requestHash = await sha256Hex(requestJson(request));
  let result: GenerateResult;
  try {
    result = await generateWithRetries(loop, request, { turn, step, signal, onChunk: at.onChunk });
  } catch (error) {
    const { reason, failure } = await endFailedStep(loop, { turn, step, signal }, error, false);
    if (reason === "aborted") return endTurn(loop, turn, from, "aborted", { requestHash });
    await log.append(turnEnd(loop, { turn, reason: "error", error: loggedError(failure) }));
    return receipt(loop, turn, from, { requestHash });
  }
  const [answered] = await log.append(assistantMessageEvent.input({ content: result.content, source: "model" }));
  const hashes = { requestHash, responseHash: await sha256Hex(eventLine(answered!)) };
  const calls = result.content.filter((block): block is ToolCallBlock => block.type === "tool-call");
  const truncated = result.finishReason === "length";
  if (calls.length > 0 && !truncated) return receipt(loop, turn, from, { ...hashes, answer: answerFacts(result) });
  const cutOff = toolErrorOutcome(new ToolError("TOOL_NOT_RUN", "not run: the answer was cut off at the token limit"));
  const reason = signal.aborted ? "aborted" : truncated ? "max-tokens" : "completed";
  await log.append([
    ...calls.map((call) => toolResultEvent.input({ callId: call.callId, toolName: call.name, content: cutOff.content, isError: true, source: "tool" })),
    stepEndEvent.input({ turn, step, reason, ...answerFacts(result) }),
  ]);
  return endTurn(loop, turn, from, reason, hashes);
}

/** Whether the log ends with the intent of `callId`: the call started in a unit that never logged its result (its intent is the unit's first event, committed apart). */
function intentLogged(loop: Loop, callId: string): boolean {
  const last = loop.log.get(loop.log.length - 1);
  return last !== undefined && toolIntentEvent.is(last) && last.data.callId === callId;
}

/** What a call of a tool not safe to rerun gets when it may have run before a crash, unless `onUncertainCall` says to run it again. */
const UNCERTAIN = "not run again: the process stopped while this call was running, so it may have run; check its effect before calling it again";

/**
 * A tool unit: runs one call of the open step's answer and logs its result; the last call's unit
 * also ends the step. A call of a tool not safe to rerun logs its intent (committed apart) before it
 * runs; finding that intent without a result, it asks `onUncertainCall` and by default does not run.
 */
export async function toolUnit(
  loop: Loop,
  at: UnitAt & { readonly callId: string; readonly previous: StepReceipt | undefined; readonly options: DurableTurnOptions },
): Promise<StepReceipt> {
  const { log } = loop;
  const { turn, signal, callId, options } = at;
  const from = log.length;
  const step = log.ruleState(loopAdmission).openStep!.step;
  const { seq: answerSeq, calls } = lastAnswer(loop.log)!;
  const index = calls.findIndex((call) => call.callId === callId);
  const call = calls[index]!;
  const tool = loop.tools.get(call.name);
  let outcome: ToolOutcome | undefined;
  if (tool?.safeToRerun === false) {
    if (intentLogged(loop, callId)) {
      const uncertain = { turn, step, callId, toolName: call.name, arguments: call.arguments };
      if ((await options.onUncertainCall?.(uncertain)) !== "run-again") outcome = toolErrorOutcome(new ToolError("TOOL_UNCERTAIN", UNCERTAIN));
    } else {
      const apart = options.commitApart ?? ((work) => work());
      await apart(() => log.append(toolIntentEvent.input({ turn, step, callId, toolName: call.name })));
    }
  }
  outcome ??= await invoke(call, loop.tools.list(), { callId, turn, step, index, answerSeq, signal });
  await log.append(toolResultEvent.input({ callId, toolName: call.name, content: outcome.content, isError: outcome.isError, source: "tool", ...childOf(outcome) }));
  const queued: InboxItem[] = [...(at.previous?.queued ?? []), ...outcome.additionalContexts.map((context) => ({ content: toContent(context), source: "tool-context" }))];
  const carried = { ...(queued.length === 0 ? {} : { queued }) };
  if (loop.surface.state.openCalls.length > 0) return receipt(loop, turn, from, { ...carried, ...(at.previous?.answer === undefined ? {} : { answer: at.previous.answer }) });
  return closeStep(loop, { turn, signal }, from, step, at.previous?.answer, carried);
}

/** The close unit: every call has its result, the step's end is logged (with the carried answer's facts, when the engine kept them). */
export async function closeStepUnit(loop: Loop, at: UnitAt & { readonly previous: StepReceipt | undefined }): Promise<StepReceipt> {
  const step = loop.log.ruleState(loopAdmission).openStep!.step;
  const queued = at.previous?.queued;
  return closeStep(loop, at, loop.log.length, step, at.previous?.answer, queued === undefined ? {} : { queued });
}

async function closeStep(loop: Loop, at: UnitAt, from: number, step: number, answer: AnswerFacts | undefined, carried: Pick<StepReceipt, "queued">): Promise<StepReceipt> {
  const reason = at.signal.aborted ? "aborted" : "completed";
  await loop.log.append(stepEndEvent.input({ turn: at.turn, step, reason, ...answer }));
  if (reason === "aborted") return endTurn(loop, at.turn, from, "aborted");
  return receipt(loop, at.turn, from, carried);
}
