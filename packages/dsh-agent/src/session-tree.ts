import { LogError, describeVerifyReport, verifyLines, type LogEvent, type SessionStore, type VerifyReport, type WitnessCheck } from "dsh-log";
import { childSessionSchema, toolResultEvent, type ChildSession } from "dsh-surface";
import type { SessionParent } from "./session-parent.js";
import { subagentParentOf } from "./session-list.js";
import { chainHeadAt } from "./subagent.js";

/** A subagent call's link in its parent's log: the seq of its result, the call, and the child session as it stood when the call returned. */
export interface ChildLink {
  readonly seq: number;
  readonly callId: string;
  readonly child: ChildSession;
}

/** The child sessions a session's tool results link, in seq order. */
export function childLinks(events: Iterable<LogEvent>): ChildLink[] {
  const links: ChildLink[] = [];
  for (const event of events) {
    if (toolResultEvent.is(event) && event.data.child !== undefined) links.push({ seq: event.seq, callId: event.data.callId, child: event.data.child });
  }
  return links;
}

/** The child links of a stored session, read from its lines as they are (no admission: this is a check, not a load). */
async function storedLinks(store: SessionStore, sessionId: string): Promise<ChildLink[]> {
  const links: ChildLink[] = [];
  for await (const { line } of (await store.readLines(sessionId)).lines) {
    if (!line.includes('"child"')) continue;
    const event = JSON.parse(line) as LogEvent<string, { readonly callId?: unknown; readonly child?: unknown }>;
    const child = childSessionSchema.safeParse(event.data?.child);
    if (event.type === toolResultEvent.type && child.success && typeof event.data.callId === "string") links.push({ seq: event.seq, callId: event.data.callId, child: child.data });
  }
  return links;
}

/** Where a session sits in a tree: its id, and the parent that linked it with the seq of the result that did. */
export interface TreePlace {
  readonly sessionId: string;
  readonly parent?: { readonly sessionId: string; readonly seq: number };
}

/** One session of a tree as verified: its own chain's report, and what is wrong with it or with its link to its parent. */
export interface TreeSession extends TreePlace {
  readonly report?: VerifyReport;
  /** One line naming the sessions concerned, when the session or its link does not hold. */
  readonly problem?: string;
}

/** A session and every child it links, recursively: `intact` when every chain holds and every child still matches what its parent recorded. */
export interface TreeReport {
  readonly intact: boolean;
  readonly sessions: readonly TreeSession[];
}

/** A session whose own chain does not hold, in one line: `who` (the session, and the link that named it), its status and why. */
function brokenLine(who: string, report: VerifyReport): string {
  return `${who} is ${report.status}: ${report.problem ?? "its chain does not hold"}`;
}

/** What is wrong with `link` of `parent` (the child missing, not naming that call as its parent, or changed since), or `undefined`. */
async function linkProblem(store: SessionStore, parent: string, link: ChildLink): Promise<string | undefined> {
  const { sessionId, events, head } = link.child;
  const where = `session ${parent}'s result at seq ${link.seq} links session ${sessionId}`;
  let named: SessionParent | undefined;
  try {
    named = await subagentParentOf(store, sessionId);
  } catch (error) {
    if (error instanceof LogError && error.code === "LOG_NOT_FOUND") return `${where}, which is not in the store`;
    throw error;
  }
  if (named === undefined || named.sessionId !== parent || named.callId !== link.callId) {
    return `${where}, whose first event does not name that call (${link.callId}) of session ${parent} as its parent`;
  }
  if ((await chainHeadAt(await store.readLines(sessionId, { to: events }), events)) !== head) {
    return `${where}, which no longer matches it: the chain head of its first ${events} events differs from the one recorded (its log was changed)`;
  }
  return undefined;
}

/** The links of a stored session that do not hold (a child missing, not naming its call as its parent, or changed since), each named with both sessions; the children's own chains are not checked. */
export async function linkProblems(store: SessionStore, sessionId: string): Promise<TreeSession[]> {
  const problems: TreeSession[] = [];
  for (const link of await storedLinks(store, sessionId)) {
    const problem = await linkProblem(store, sessionId, link);
    if (problem !== undefined) problems.push({ sessionId: link.child.sessionId, parent: { sessionId, seq: link.seq }, problem });
  }
  return problems;
}

/**
 * Verifies the child sessions a session links, and theirs, recursively: each child present, naming
 * its call as its parent, the chain head of its first events as its parent recorded it when the call
 * returned, and its own chain (against `witness` when given). The session itself is not checked:
 * {@link verifySessionTree} does both.
 */
export async function verifyChildren(store: SessionStore, sessionId: string, witness?: WitnessCheck): Promise<TreeSession[]> {
  const sessions: TreeSession[] = [];
  const parents = [sessionId];
  for (let parent = parents.shift(); parent !== undefined; parent = parents.shift()) {
    for (const link of await storedLinks(store, parent)) {
      const at = { sessionId: link.child.sessionId, parent: { sessionId: parent, seq: link.seq } };
      const problem = await linkProblem(store, parent, link);
      if (problem !== undefined) {
        sessions.push({ ...at, problem });
        continue;
      }
      const report = await verifyLines(await store.readLines(link.child.sessionId), witness);
      if (report.status !== "intact") {
        sessions.push({ ...at, report, problem: brokenLine(`session ${link.child.sessionId} (linked by session ${parent} at seq ${link.seq})`, report) });
        continue;
      }
      sessions.push({ ...at, report });
      parents.push(link.child.sessionId);
    }
  }
  return sessions;
}

/**
 * Verifies a session and, through the child sessions its tool results link, its whole tree in
 * `store`: each session's hash chain (against `witness` when given), and each child against what its
 * parent recorded when the call returned (present, naming that call as its parent, and the chain head
 * of its first events unchanged). A child edited after it returned fails its parent's tree.
 */
export async function verifySessionTree(store: SessionStore, sessionId: string, witness?: WitnessCheck): Promise<TreeReport> {
  const report = await verifyLines(await store.readLines(sessionId), witness);
  if (report.status !== "intact") return { intact: false, sessions: [{ sessionId, report, problem: brokenLine(`session ${sessionId}`, report) }] };
  const sessions = [{ sessionId, report }, ...(await verifyChildren(store, sessionId, witness))];
  return { intact: sessions.every((session: TreeSession) => session.problem === undefined), sessions };
}

/** One session of a store as {@link verifyStoreSessions} checks it: its own chain's report, and its links that do not hold (checked when its chain is intact). */
export interface StoreSessionCheck {
  readonly report: VerifyReport;
  readonly linkProblems: readonly TreeSession[];
}

/**
 * Every session of `store`, oldest first, verified once: its own hash chain (against `witness` when
 * given) and, when that holds, each subagent link it records (the child present, naming the call,
 * and unchanged since). Each child's own chain is checked as its own session.
 */
export async function* verifyStoreSessions(store: SessionStore, witness?: WitnessCheck): AsyncGenerator<StoreSessionCheck> {
  for (const { sessionId } of await store.list()) {
    const report = await verifyLines(await store.readLines(sessionId), witness);
    yield { report, linkProblems: report.status === "intact" ? await linkProblems(store, sessionId) : [] };
  }
}

/** A child of a verified tree in one line: what is wrong with it, or its chain's report after the call that linked it. */
export function describeTreeSession(session: TreeSession): string {
  if (session.problem !== undefined || session.report === undefined) return session.problem ?? `session ${session.sessionId}: not checked`;
  const by = session.parent === undefined ? "" : `subagent of ${session.parent.sessionId} (its result at seq ${session.parent.seq}): `;
  return `${by}${describeVerifyReport(session.report)}`;
}
