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
 * `entries` as trees, in depth-first order: each entry whose parent (`parentOf`) is listed right
 * after that parent, one level deeper, siblings in list order; an entry whose parent is not listed is
 * a root. Entries that name each other in a loop (a log written by hand) are listed last, as roots.
 */
export function sessionTreeOrder<T>(entries: readonly T[], idOf: (entry: T) => string, parentOf: (entry: T) => string | undefined): { readonly entry: T; readonly depth: number }[] {
  const listed = new Set(entries.map(idOf));
  const children = new Map<string, number[]>();
  entries.forEach((entry, index) => {
    const parent = parentOf(entry);
    if (parent !== undefined && listed.has(parent)) children.set(parent, [...(children.get(parent) ?? []), index]);
  });
  const out: { entry: T; depth: number }[] = [];
  const placed = new Set<number>();
  const place = (index: number, depth: number): void => {
    if (placed.has(index)) return;
    placed.add(index);
    out.push({ entry: entries[index]!, depth });
    for (const child of children.get(idOf(entries[index]!)) ?? []) place(child, depth + 1);
  };
  entries.forEach((entry, index) => {
    const parent = parentOf(entry);
    if (parent === undefined || !listed.has(parent)) place(index, 0);
  });
  entries.forEach((_, index) => place(index, 0));
  return out;
}

/**
 * A store's sessions (or `sessions` of it) as trees: each subagent session right after its parent,
 * one level deeper, in list order (oldest first) among its siblings. Each session's first line is
 * read to find the call that made it; a subagent session whose parent is not listed is a root.
 */
export async function listSessionTree(store: SessionStore, sessions?: readonly SessionSummary[]): Promise<ListedSession[]> {
  const all = sessions ?? (await store.list());
  const parents: (SessionParent | undefined)[] = [];
  for (let at = 0; at < all.length; at += AT_ONCE) parents.push(...(await Promise.all(all.slice(at, at + AT_ONCE).map((session) => subagentParentOf(store, session.sessionId)))));
  const entries = all.map((summary, index) => ({ summary, parent: parents[index] }));
  return sessionTreeOrder(entries, (entry) => entry.summary.sessionId, (entry) => entry.parent?.sessionId).map(({ entry, depth }) => ({ ...entry.summary, depth, ...(entry.parent === undefined ? {} : { subagentOf: entry.parent }) }));
}
