import { childLinks, costTotals, createAgentRegistry, type CostTotals } from "dsh-agent";
import type { SessionStore } from "dsh-log";
import { costReport, type CostReport, type CostReportOptions } from "./report.js";

/** One session of a tree, priced: the parent that linked it (and the seq of the result that did), and its report. */
export interface SessionCost {
  readonly sessionId: string;
  readonly parent?: { readonly sessionId: string; readonly seq: number };
  readonly report: CostReport;
}

/** A session and the subagent sessions it links, recursively, each priced, and all of them added up. */
export interface TreeCost {
  readonly sessions: readonly SessionCost[];
  readonly total: CostTotals;
}

/**
 * What a session and every subagent session its tool results link (recursively, in `store`) cost:
 * each session's {@link costReport} under the same options, parent first, and the steps of all of
 * them added up. A linked session missing from the store throws the store's `LOG_NOT_FOUND`.
 */
export async function treeCost(store: SessionStore, sessionId: string, options: CostReportOptions = {}): Promise<TreeCost> {
  const sessions: SessionCost[] = [];
  const queue: Omit<SessionCost, "report">[] = [{ sessionId }];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { log } = await store.read(next.sessionId, createAgentRegistry());
    const events = log.slice();
    await log.close();
    sessions.push({ ...next, report: costReport(events, options) });
    for (const link of childLinks(events)) queue.push({ sessionId: link.child.sessionId, parent: { sessionId: next.sessionId, seq: link.seq } });
  }
  return { sessions, total: costTotals(sessions.flatMap((session) => session.report.steps)) };
}
