import type { SessionSummary } from "dsh-log";

/**
 * Why each fork in `sessions` has a lineage that points nowhere, by session id: its parent is not in
 * the store, or the parent holds fewer events than the fork's seed copied from it.
 */
export function brokenLineage(sessions: readonly SessionSummary[]): Map<string, string> {
  const events = new Map(sessions.map((session) => [session.sessionId, session.events]));
  const broken = new Map<string, string>();
  for (const { sessionId, parent } of sessions) {
    if (parent === undefined) continue;
    const held = events.get(parent.sessionId);
    if (held === undefined) broken.set(sessionId, `its parent ${parent.sessionId} is not in this store`);
    else if (held < parent.seedLength) broken.set(sessionId, `its seed of ${parent.seedLength} events is past its parent's end (${held} events)`);
  }
  return broken;
}
