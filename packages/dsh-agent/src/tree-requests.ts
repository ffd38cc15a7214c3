import type { SessionStore } from "dsh-log";
import { reconstructRequests, type ReconstructOptions, type ReconstructedRequest } from "./reconstruct.js";
import { createAgentRegistry } from "./register.js";
import { childLinks } from "./session-tree.js";

/** One session of a tree and every request it dispatched, rebuilt from its log. */
export interface SessionRequests {
  readonly sessionId: string;
  /** The parent that linked it, and the seq of the result that did. */
  readonly parent?: { readonly sessionId: string; readonly seq: number };
  readonly requests: readonly ReconstructedRequest[];
}

/**
 * Every request of a session and of every subagent session its tool results link, recursively in
 * `store`, each rebuilt from its own log (parent first, then each child in link order, breadth first).
 */
export async function reconstructTree(store: SessionStore, sessionId: string, options: Omit<ReconstructOptions, "registry"> = {}): Promise<SessionRequests[]> {
  const sessions: SessionRequests[] = [];
  const queue: Omit<SessionRequests, "requests">[] = [{ sessionId }];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { log } = await store.read(next.sessionId, createAgentRegistry());
    sessions.push({ ...next, requests: await reconstructRequests(log, options) });
    for (const link of childLinks(log.slice())) queue.push({ sessionId: link.child.sessionId, parent: { sessionId: next.sessionId, seq: link.seq } });
    await log.close();
  }
  return sessions;
}
