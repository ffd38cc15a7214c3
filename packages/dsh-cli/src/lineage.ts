import { LogError, type SessionInfo, type SessionStore, type SessionSummary } from "dsh-log";
import type { CliIo } from "./io.js";

type Parent = NonNullable<SessionInfo["parent"]>;

/** Why a fork's lineage points nowhere, given how many events its parent holds (`undefined`: the parent is not in the store). */
function lineageProblem(parent: Parent, parentEvents: number | undefined): string | undefined {
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

/**
 * Says on stderr, in one line, when the session `info` of `store` is a fork whose lineage points
 * nowhere. The fork holds its seed itself, so it still loads and rebuilds; only its history before
 * the fork can no longer be followed.
 */
export async function noteBrokenLineage(store: Pick<SessionStore, "summary">, info: SessionInfo, io: CliIo): Promise<void> {
  const { parent } = info;
  if (parent === undefined) return;
  let events: number | undefined;
  try {
    events = (await store.summary(parent.sessionId)).events;
  } catch (error) {
    if (!(error instanceof LogError) || error.code !== "LOG_NOT_FOUND") throw error;
  }
  const problem = lineageProblem(parent, events);
  if (problem !== undefined) io.stderr.write(`dsh: note: session ${info.sessionId} is a fork whose lineage is broken: ${problem}\n`);
}
