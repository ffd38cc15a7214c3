import type { LogEvent, SessionStore, SessionSummary } from "dsh-log";
import { sessionParentEvent, type SessionParent } from "./session-parent.js";

/** The call that made a stored session, read from its first line when that is a `session/parent` event; `undefined` for a session no subagent call made. */
export async function subagentParentOf(store: SessionStore, sessionId: string): Promise<SessionParent | undefined> {
  for await (const { line } of (await store.readLines(sessionId, { to: 1 })).lines) {
    const first = JSON.parse(line) as LogEvent;
    const parent = sessionParentEvent.is(first) ? sessionParentEvent.schema.safeParse(first.data) : undefined;
    return parent?.success === true ? parent.data : undefined;
  }
  return undefined;
}

/** A session as {@link listSessionTree} lists it: its summary, its depth in its tree, and the call that made it when a subagent's call did. */
export interface ListedSession extends SessionSummary {
  readonly depth: number;
  readonly subagentOf?: SessionParent;
}

/** How many sessions' first lines are read at once. */
const AT_ONCE = 16;

/**
 * A store's sessions (or `sessions` of it) as trees: each subagent session right after its parent,
 * one level deeper, in list order (oldest first) among its siblings. Each session's first line is
 * read to find the call that made it; a subagent session whose parent is not listed is a root.
 */
export async function listSessionTree(store: SessionStore, sessions?: readonly SessionSummary[]): Promise<ListedSession[]> {
  const all = sessions ?? (await store.list());
  const parents: (SessionParent | undefined)[] = [];
  for (let at = 0; at < all.length; at += AT_ONCE) parents.push(...(await Promise.all(all.slice(at, at + AT_ONCE).map((session) => subagentParentOf(store, session.sessionId)))));
  const listed = new Set(all.map((session) => session.sessionId));
  const children = new Map<string, number[]>();
  parents.forEach((parent, index) => {
    if (parent !== undefined && listed.has(parent.sessionId)) children.set(parent.sessionId, [...(children.get(parent.sessionId) ?? []), index]);
  });
  const out: ListedSession[] = [];
  const placed = new Set<number>();
  const place = (index: number, depth: number): void => {
    if (placed.has(index)) return;
    placed.add(index);
    const parent = parents[index];
    out.push({ ...all[index]!, depth, ...(parent === undefined ? {} : { subagentOf: parent }) });
    for (const child of children.get(all[index]!.sessionId) ?? []) place(child, depth + 1);
  };
  all.forEach((_, index) => {
    const parent = parents[index];
    if (parent === undefined || !listed.has(parent.sessionId)) place(index, 0);
  });
  // Sessions that name each other as parents (a log written by hand) have no root: listed last, as roots.
  all.forEach((_, index) => place(index, 0));
  return out;
}
