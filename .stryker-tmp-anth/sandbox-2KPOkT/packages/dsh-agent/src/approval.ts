import type { ToolCallBlock } from "dsh-llm";
import { toolApprovalEvent } from "./events.js";
import type { Loop } from "./loop.js";

/** A tool call about to run, as the approval hook sees it. */
export interface ApprovalRequest {
  readonly callId: string;
  readonly toolName: string;
  /** The model's raw argument text. */
  readonly arguments: string;
  readonly turn: number;
  readonly step: number;
  readonly signal: AbortSignal;
}

/** Allow or deny one call, and who decided (a person's or a policy's name, logged); a denial may say why. */
export type ApprovalDecision = { readonly allow: true; readonly by: string } | { readonly allow: false; readonly by: string; readonly reason?: string };

/** Decides whether each tool call may run; it sees every call before it runs, in the model's order. */
export type ToolApprover = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

/** What was decided for one call. */
export interface Approval {
  readonly allowed: boolean;
  readonly by: string;
  readonly reason?: string;
}

/**
 * Asks `approve` about each call, one after another in the model's order, and logs each decision as a
 * `tool/approval` before any call runs. A hook that throws, or answers with something else, denies the
 * call (the error is the logged reason): a broken policy never lets a call through.
 */
export async function approveCalls(loop: Loop, approve: ToolApprover, calls: readonly ToolCallBlock[], at: { readonly turn: number; readonly step: number; readonly signal: AbortSignal }): Promise<Approval[]> {
  const approvals: Approval[] = [];
  for (const call of calls) {
    let approval: Approval;
    try {
      const decision = await approve({ callId: call.callId, toolName: call.name, arguments: call.arguments, turn: at.turn, step: at.step, signal: at.signal });
      if (typeof decision?.by !== "string" || decision.by === "" || typeof decision.allow !== "boolean") throw new Error("the approval hook answered without allow and by");
      approval = decision.allow ? { allowed: true, by: decision.by } : { allowed: false, by: decision.by, ...(decision.reason === undefined ? {} : { reason: decision.reason }) };
    } catch (error) {
      approval = { allowed: false, by: "approval hook", reason: `the hook failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    await loop.log.append(toolApprovalEvent.input({ turn: at.turn, step: at.step, callId: call.callId, toolName: call.name, ...approval }));
    approvals.push(approval);
  }
  return approvals;
}
