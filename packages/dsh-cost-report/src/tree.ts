import { costTotals, walkSessionTree, type CostTotals, type TreePlace } from "dsh-agent";
import type { SessionStore } from "dsh-log";
import { costReport, type CostReport, type CostReportOptions } from "./report.js";

/** One session of a tree, priced: the parent that linked it (and the seq of the result that did), and its report. */
export interface SessionCost extends TreePlace {
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
  for await (const { log, ...place } of walkSessionTree(store, sessionId)) sessions.push({ ...place, report: costReport(log.slice(), options) });
  return { sessions, total: costTotals(sessions.flatMap((session) => session.report.steps)) };
}
