import { stepEndEvent, type PriceOf } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import { uncachedInputTokens, usageCost } from "dsh-llm";
import type { EventLog, LogEvent } from "dsh-log";
import { cacheRows } from "./cache-report.js";
import { measured, tokenizedRequests } from "./tokenized.js";
import { wireSha256 } from "dsh-wire";
import { CacheModel, type WireRequest } from "./cache-model.js";
import { divergence, type Divergence } from "./divergence.js";

/** One request of a session as the cache model priced it. */
export interface ModelledRequest {
  readonly turn: number;
  readonly step: number;
  readonly model: string;
  readonly promptTokens: number;
  /** Leading prompt tokens that repeat the previous request (0 for the first, and after a model change). */
  readonly repeatedTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  /** Prompt tokens neither read from nor written to the cache. */
  readonly inputTokens: number;
  /** The recorded answer's output tokens (the what-if reuses the recorded answers). */
  readonly outputTokens: number;
  /** `null` when the model has no known price. */
  readonly costUsd: number | null;
  /** Whether this request fails to extend the previous one, and the logged events that explain it. */
  readonly isBreak: boolean;
  readonly causes: readonly string[];
  /** For a break, where this body stops repeating the previous one. */
  readonly divergence?: Divergence;
}

/** A session's modelled requests, the digests of their exact bodies, and the totals. */
export interface ModelledSession {
  readonly requests: readonly ModelledRequest[];
  /** The SHA-256 of each request's exact body, in order: enough to tell two sessions' bodies apart without holding them. */
  readonly bodyDigests: readonly string[];
  readonly totals: {
    readonly promptTokens: number;
    readonly cacheReadTokens: number;
    readonly cacheWriteTokens: number;
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly costUsd: number;
    /** Requests whose model has no known price (their cost is not in `costUsd`). */
    readonly unpriced: number;
  };
}


/** The output tokens each step's answer reported, by `turn.step`. */
function outputTokens(events: readonly LogEvent[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const event of events) if (stepEndEvent.is(event) && event.data.usage !== undefined) out.set(`${event.data.turn}.${event.data.step}`, event.data.usage.outputTokens);
  return out;
}

/**
 * Every request of `log` rebuilt byte for byte, served in order to a fresh {@link CacheModel} at its
 * logged dispatch time, and priced at `priceOf`: what it would read, write and cost by the providers'
 * rules as the simulator implements them, with each break and the logged events that cause it.
 * Requests are rebuilt, served and dropped one at a time: each holds the whole history before it.
 */
export async function modelSession(log: EventLog, attachments: AttachmentStore, priceOf: PriceOf): Promise<ModelledSession> {
  // The request each row is about: `cacheRows` yields a row for each request as it reads it.
  const pending: WireRequest[] = [];
  async function* rebuilt(): AsyncGenerator<WireRequest> {
    for await (const request of tokenizedRequests(log, attachments, { extend: true })) {
      pending.push(request);
      yield request;
    }
  }
  const bodyDigests: string[] = [];
  const events = log.slice();
  const outputs = outputTokens(events);
  const cache = new CacheModel();
  const modelled: ModelledRequest[] = [];
  let previousWire: string | undefined;
  for await (const row of cacheRows(events, measured(rebuilt()))) {
    const request = pending.shift()!;
    const diverged = row.isBreak && previousWire !== undefined ? divergence(previousWire, request.wire) : undefined;
    previousWire = request.wire;
    bodyDigests.push(wireSha256(request.wire));
    const { turn, step, dispatchSeq } = request.request;
    const { provider, model } = request.request.request.config;
    const time = events[dispatchSeq]!.time;
    const served = cache.serve(request, time);
    const cacheWriteTokens = served.cacheWrite5mTokens + served.cacheWrite1hTokens;
    const output = outputs.get(`${turn}.${step}`) ?? 0;
    const usage = { inputTokens: served.promptTokens, outputTokens: output, cacheReadTokens: served.cacheReadTokens, cacheWriteTokens, cacheWrite1hTokens: served.cacheWrite1hTokens };
    const price = priceOf(provider, model);
    modelled.push({
      turn,
      step,
      model,
      promptTokens: served.promptTokens,
      repeatedTokens: row.stableTokens,
      cacheReadTokens: served.cacheReadTokens,
      cacheWriteTokens,
      inputTokens: uncachedInputTokens(usage),
      outputTokens: output,
      costUsd: price === undefined ? null : usageCost(usage, price, time).totalUsd,
      isBreak: row.isBreak,
      causes: row.explanations,
      ...(diverged === undefined ? {} : { divergence: diverged }),
    });
  }
  const sum = (pick: (request: ModelledRequest) => number) => modelled.reduce((total, request) => total + pick(request), 0);
  return {
    requests: modelled,
    bodyDigests,
    totals: {
      promptTokens: sum((request) => request.promptTokens),
      cacheReadTokens: sum((request) => request.cacheReadTokens),
      cacheWriteTokens: sum((request) => request.cacheWriteTokens),
      inputTokens: sum((request) => request.inputTokens),
      outputTokens: sum((request) => request.outputTokens),
      costUsd: sum((request) => request.costUsd ?? 0),
      unpriced: modelled.filter((request) => request.costUsd === null).length,
    },
  };
}
