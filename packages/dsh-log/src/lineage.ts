import type { SessionInfo, SessionSummary } from "./store.js";

type Parent = NonNullable<SessionInfo["parent"]>;

/** Why a fork's lineage points nowhere, given how many events its parent holds (`undefined`: the parent is not in the store); `undefined` when it holds. */
export function lineageProblem(parent: Parent, parentEvents: number | undefined): string | undefined {
  if (parentEvents === undefined) return `its parent ${parent.sessionId} is not in this store`;
  if (parentEvents < parent.seedLength) return `its seed of ${parent.seedLength} events is past its parent's end (${parentEvents} events)`;
  return undefined;
}

/**
 * Why each fork in `sessions` has a lineage that points nowhere, by session id: its parent is not in
 * the store, or the parent holds fewer events than the fork's seed copied from it.
 */
export function brokenLineage(sessions: readonly SessionSummary[]): Map<string, string> {
  const events = new Map(sessions.map((session) => [session.sessionId, session.events]));
  const broken = new Map<string, string>();
  for (const { sessionId, parent } of sessions) {
    const problem = parent === undefined ? undefined : lineageProblem(parent, events.get(parent.sessionId));
    if (problem !== undefined) broken.set(sessionId, problem);
  }
  return broken;
}
