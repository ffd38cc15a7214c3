import type { EventInput, EventLog } from "dsh-log";
import { toolResultEvent, type SurfaceManager } from "dsh-surface";
import { ToolError } from "./errors.js";
import { compactionEndEvent, stepEndEvent, turnEndEvent, turnStartEvent } from "./events.js";
import type { InboxItem } from "./inbox.js";
import type { Loop } from "./loop.js";
import { loopAdmission } from "./loop-rule.js";
import { toolErrorOutcome } from "./tools.js";

const CLOSED_BY_INTERRUPTION = "not run: the session was interrupted before this call completed";

/** Error results for the tool calls still awaiting results, so the surface stays sendable. */
export function closeOpenCalls(surface: SurfaceManager, why: string): EventInput[] {
  return surface.state.openCalls.toArray().map((call) => {
    const outcome = toolErrorOutcome(new ToolError("TOOL_NOT_RUN", why));
    return toolResultEvent.input({ callId: call.callId, toolName: call.name, content: outcome.content, isError: true, source: "recovery" });
  });
}

/** Closes a turn (and a compaction) a crashed process left open, with logged closers, before new work starts. */
export async function closeOrphanedTurn(loop: Pick<Loop, "log" | "surface">): Promise<void> {
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
