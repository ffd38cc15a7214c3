import type { ReconstructedRequest } from "dsh-agent";
import { MemoryAttachmentStore, type AttachmentStore } from "dsh-attachments";
import { wireBody } from "dsh-wire";
import { CacheModel } from "./cache-model.js";
import { wireTokens } from "./tokenized.js";

/** A request as its agent dispatched it (rebuilt from the log), and when: what an expected cache read is computed from. */
export interface DispatchedRequest extends Pick<ReconstructedRequest, "turn" | "step" | "dispatchSeq" | "snapshot" | "request"> {
  /** When it was dispatched (epoch ms): the caches' lifetimes run on it. */
  readonly time: number;
}

/** Where the session's image objects are, so its requests rebuild to their exact bytes. */
export interface ExpectedReadOptions {
  readonly attachments?: AttachmentStore;
}

/**
 * The share of each request's prompt the provider's cache rules read, for one session's requests
 * handed over in dispatch order: each is rebuilt to its exact body and served to the provider's cache
 * as the simulator models it. The returned function keeps the cache between calls; give it every
 * sent request of the session once, in order.
 */
export function expectedCacheReads(options: ExpectedReadOptions = {}): (request: DispatchedRequest) => Promise<number> {
  const attachments = options.attachments ?? new MemoryAttachmentStore();
  const model = new CacheModel();
  return async (dispatched) => {
    const rebuilt: ReconstructedRequest = { turn: dispatched.turn, step: dispatched.step, dispatchSeq: dispatched.dispatchSeq, snapshot: dispatched.snapshot, request: dispatched.request, sent: true };
    const wire = await wireBody(rebuilt, attachments);
    const served = model.serve({ request: rebuilt, wire, ...wireTokens(rebuilt, wire, dispatched.time) }, dispatched.time);
    return served.promptTokens === 0 ? 0 : served.cacheReadTokens / served.promptTokens;
  };
}
