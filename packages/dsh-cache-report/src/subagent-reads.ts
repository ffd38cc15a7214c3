import { reconstructRequests, type ReconstructedRequest } from "dsh-agent";
import type { EventLog } from "dsh-log";
import { expectedCacheReads, type ExpectedReadOptions } from "./expected-reads.js";

/** What a subagent's first request could read of its parent's cache. */
export interface SubagentCacheReads {
  /** The share of the subagent's first prompt the provider's cache rules read after the parent's requests sent before it. */
  readonly readShare: number;
  /** The seq of the subagent's first dispatch, in its own log. */
  readonly dispatchSeq: number;
}

/** The requests of a log that were sent, each with its dispatch time. */
async function sent(log: EventLog, options: ExpectedReadOptions): Promise<(ReconstructedRequest & { readonly time: number })[]> {
  const requests = await reconstructRequests(log, options.attachments === undefined ? {} : { attachments: options.attachments });
  return requests.filter((request) => request.sent).map((request) => ({ ...request, time: log.get(request.dispatchSeq)!.time }));
}

/**
 * Whether a subagent's first request can read its parent's prompt cache: the parent's requests sent
 * before it are served to the provider's cache as the simulator models it, then the subagent's first
 * request. A subagent that repeats its parent's system prompt (and, where the provider caches them
 * first, its tools) reads that prefix; one with a prompt of its own reads nothing. `undefined` when
 * the subagent sent no request.
 */
export async function subagentCacheReads(parent: EventLog, child: EventLog, options: ExpectedReadOptions = {}): Promise<SubagentCacheReads | undefined> {
  const [first] = await sent(child, options);
  if (first === undefined) return undefined;
  const read = expectedCacheReads(options);
  for (const request of await sent(parent, options)) if (request.time <= first.time) await read(request);
  return { readShare: await read(first), dispatchSeq: first.dispatchSeq };
}
