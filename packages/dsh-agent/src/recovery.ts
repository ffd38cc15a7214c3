import type { EventInput, EventLog } from "dsh-log";
import { toolResultEvent, type SurfaceManager } from "dsh-surface";
import { ToolError } from "./errors.js";
import { compactionEndEvent, stepEndEvent, turnEndEvent, turnStartEvent } from "./events.js";
import type { InboxItem } from "./inbox.js";
import type { Loop } from "./loop.js";
import { loopAdmission } from "./loop-rule.js";
import { invoke, lastAnswer } from "./answer.js";
import { childOf, isSubagentTool, toolErrorOutcome } from "./tools.js";

const CLOSED_BY_INTERRUPTION = "not run: the session was interrupted before this call completed";

/** Error results for the tool calls still awaiting results, so the surface stays sendable. */
export function closeOpenCalls(surface: SurfaceManager, why: string): EventInput[] {
  return surface.state.openCalls.toArray().map((call) => {
    const outcome = toolErrorOutcome(new ToolError("TOOL_NOT_RUN", why));
    return toolResultEvent.input({ callId: call.callId, toolName: call.name, content: outcome.content, isError: true, source: "recovery" });
  });
}

/**
 * Runs again each open call of a subagent tool in the open step, logging its result: the call's
 * child session goes on (the answer it already gave is returned without a request; an interrupted
 * turn is closed and its task run again), so the subagent's work is not lost with the parent's turn.
 */
async function resumeSubagentCalls(loop: Pick<Loop, "log" | "surface" | "tools">, turn: number, step: number, signal: AbortSignal): Promise<void> {
  const answer = lastAnswer(loop.log);
  for (const [index, call] of (answer?.calls ?? []).entries()) {
    if (loop.surface.state.openCalls.find(call.callId) === undefined || !isSubagentTool(loop.tools.get(call.name))) continue;
    const outcome = await invoke(call, loop.tools.list(), { callId: call.callId, turn, step, index, answerSeq: answer!.seq, signal });
    await loop.log.append(toolResultEvent.input({ callId: call.callId, toolName: call.name, content: outcome.content, isError: outcome.isError, source: "tool", ...childOf(outcome) }));
  }
}

/**
 * Closes a turn (and a compaction) a crashed process left open, with logged closers, before new work
 * starts. A subagent's call left open is run again first (its child session resumed), so its result
 * is the subagent's answer; any other open call is closed as not run.
 */
export async function closeOrphanedTurn(loop: Pick<Loop, "log" | "surface" | "tools">, signal: AbortSignal): Promise<void> {
  const open = loop.log.ruleState(loopAdmission);
  if (open.openTurn !== undefined && open.openStep !== undefined) await resumeSubagentCalls(loop, open.openTurn, open.openStep.step, signal);
  const state = loop.log.ruleState(loopAdmission);
  const closers: EventInput[] = [];
  if (state.compacting) {
    closers.push(compactionEndEvent.input({ outcome: "failed", error: { code: "INTERRUPTED", message: "the session ended during the compaction" } }));
  }
  const turn = state.openTurn;
  if (turn !== undefined) {
    closers.push(...closeOpenCalls(loop.surface, CLOSED_BY_INTERRUPTION));
    if (state.openStep !== undefined) closers.push(stepEndEvent.input({ turn, step: state.openStep.step, reason: "interrupted" }));
    closers.push(turnEndEvent.input({ turn, reason: "interrupted" }));
  }
  if (closers.length > 0) await loop.log.append(closers);
}

/**
 * The values the last turn left queued for the model (its `turn/end`'s `pending`), when no turn has
 * started since: a new agent over the log queues them again, so they reach the next request.
 */
export function pendingAfterLastTurn(log: EventLog): InboxItem[] {
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.get(seq)!;
    if (turnStartEvent.is(event)) return [];
    if (turnEndEvent.is(event)) return (event.data.pending ?? []).map(({ content, source }) => ({ content, source }));
  }
  return [];
}
