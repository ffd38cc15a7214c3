import type { EventLog, SessionStore } from "dsh-log";
import { reconstructRequests, type ReconstructOptions, type ReconstructedRequest } from "./reconstruct.js";
import { createAgentRegistry } from "./register.js";
import { childLinks, type TreePlace } from "./session-tree.js";

/**
 * A session and every subagent session its tool results link, recursively in `store`, each read
 * (admitted) in turn: the parent first, then each child in link order, breadth first. Each log is
 * closed when the walk moves on.
 */
export async function* walkSessionTree(store: SessionStore, sessionId: string): AsyncGenerator<TreePlace & { readonly log: EventLog }> {
  const queue: TreePlace[] = [{ sessionId }];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { log } = await store.read(next.sessionId, createAgentRegistry());
    try {
      yield { ...next, log };
      for (const link of childLinks(log.slice())) queue.push({ sessionId: link.child.sessionId, parent: { sessionId: next.sessionId, seq: link.seq } });
    } finally {
      await log.close();
    }
  }
}

/** One session of a tree and every request it dispatched, rebuilt from its log. */
export interface SessionRequests extends TreePlace {
  readonly requests: readonly ReconstructedRequest[];
}

/**
 * Every request of a session and of every subagent session its tool results link, recursively in
 * `store`, each rebuilt from its own log (parent first, then each child in link order, breadth first).
 */
export async function reconstructTree(store: SessionStore, sessionId: string, options: Omit<ReconstructOptions, "registry"> = {}): Promise<SessionRequests[]> {
  const sessions: SessionRequests[] = [];
  for await (const { log, ...place } of walkSessionTree(store, sessionId)) sessions.push({ ...place, requests: await reconstructRequests(log, options) });
  return sessions;
}
