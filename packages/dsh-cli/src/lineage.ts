import { LogError, lineageProblem, type SessionInfo, type SessionStore } from "dsh-log";
import type { CliIo } from "./io.js";

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
