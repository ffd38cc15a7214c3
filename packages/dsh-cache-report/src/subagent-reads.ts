import { reconstructRequestStream, type ReconstructOptions, type ReconstructedRequest } from "dsh-agent";
import type { EventLog } from "dsh-log";
import { expectedCacheReads, type ExpectedReadOptions } from "./expected-reads.js";

/** What a subagent's first request could read of its parent's cache. */
export interface SubagentCacheReads {
  /** The share of the subagent's first prompt the provider's cache rules read after the parent's requests sent before it. */
  readonly readShare: number;
  /** The seq of the subagent's first dispatch, in its own log. */
  readonly dispatchSeq: number;
}

/** The requests of a log that were sent (only those `only` accepts), each with its dispatch time, one at a time. */
async function* sent(log: EventLog, options: ExpectedReadOptions, only?: ReconstructOptions["only"]): AsyncGenerator<ReconstructedRequest & { readonly time: number }> {
  const rebuild = { ...(options.attachments === undefined ? {} : { attachments: options.attachments }), ...(only === undefined ? {} : { only }) };
  for await (const request of reconstructRequestStream(log, rebuild)) if (request.sent) yield { ...request, time: log.get(request.dispatchSeq)!.time };
}

/**
 * Whether a subagent's first request can read its parent's prompt cache: the parent's requests sent
 * before it are served to the provider's cache as the simulator models it, then the subagent's first
 * request. A subagent that repeats its parent's system prompt (and, where the provider caches them
 * first, its tools) reads that prefix; one with a prompt of its own reads nothing. `undefined` when
 * the subagent sent no request. Only those requests are rebuilt.
 */
export async function subagentCacheReads(parent: EventLog, child: EventLog, options: ExpectedReadOptions = {}): Promise<SubagentCacheReads | undefined> {
  let first: (ReconstructedRequest & { readonly time: number }) | undefined;
  for await (const request of sent(child, options)) {
    first = request;
    break;
  }
  if (first === undefined) return undefined;
  const read = expectedCacheReads(options);
  const before = first.time;
  for await (const request of sent(parent, options, ({ dispatchSeq }) => parent.get(dispatchSeq)!.time <= before)) await read(request);
  return { readShare: await read(first), dispatchSeq: first.dispatchSeq };
}
