import { buildLoopRequest, emptyRequestFold, foldRequestEvent, stepEndEvent, type RequestFold } from "dsh-agent";
import { RequestFreezer } from "dsh-llm";
import type { EventLog, LogEvent } from "dsh-log";
import { expectedCacheReads, type ExpectedReadOptions } from "./expected-reads.js";

/** A request whose provider read less of the prompt from its cache than the log says it could have. */
export interface CacheShortfall {
  readonly turn: number;
  readonly step: number;
  readonly dispatchSeq: number;
  /** The share of the prompt the provider's cache rules, served the logged requests at their dispatch times, read. */
  readonly expectedShare: number;
  /** The share the provider reported reading (its cache reads over its prompt tokens). */
  readonly reportedShare: number;
  /** The provider's prompt tokens, the reads the expected share gives of them, and the reads it reported. */
  readonly promptTokens: number;
  readonly expectedReadTokens: number;
  readonly reportedReadTokens: number;
}

/** What the comparison reads besides the log, and how much less a provider may read before it is named. */
export interface CacheReadOptions extends ExpectedReadOptions {
  /** How far (as a share of the prompt) the reported reads may fall under the expected ones (default 0.1). */
  readonly tolerance?: number;
}

/**
 * The comparison, fed one event at a time: each request is rebuilt at its dispatch and served to the
 * provider's cache as the simulator models it; at its step's end, what the provider reported is set
 * beside what the model read. A log cannot explain a shortfall: it points at a gateway that lost the
 * prefix's affinity, or at the provider.
 */
class ReadCheck {
  #fold: RequestFold = emptyRequestFold;
  readonly #freezer = new RequestFreezer();
  readonly #expectedShare: ReturnType<typeof expectedCacheReads>;
  readonly #expected = new Map<string, { readonly share: number; readonly dispatchSeq: number }>();
  readonly #tolerance: number;

  constructor(options: CacheReadOptions) {
    this.#expectedShare = expectedCacheReads(options);
    this.#tolerance = options.tolerance ?? 0.1;
  }

  /** Folds `event`; at a step's end with usage, the shortfall when the provider read less than expected. */
  async next(event: LogEvent): Promise<CacheShortfall | undefined> {
    this.#fold = foldRequestEvent(this.#fold, event);
    const { dispatch } = this.#fold;
    if (dispatch !== undefined) {
      const { turn, step, dispatchSeq, snapshot, previousResponseId } = dispatch;
      const request = buildLoopRequest(dispatch.messages, snapshot.header, { previousResponseId, freezer: this.#freezer });
      const share = await this.#expectedShare({ turn, step, dispatchSeq, snapshot, request, time: event.time });
      this.#expected.set(`${turn}.${step}`, { share, dispatchSeq });
      return undefined;
    }
    if (!stepEndEvent.is(event) || event.data.usage === undefined) return undefined;
    const key = `${event.data.turn}.${event.data.step}`;
    const expected = this.#expected.get(key);
    this.#expected.delete(key);
    const { inputTokens, cacheReadTokens } = event.data.usage;
    if (expected === undefined || inputTokens === 0) return undefined;
    const reportedShare = cacheReadTokens / inputTokens;
    if (reportedShare >= expected.share - this.#tolerance) return undefined;
    return {
      turn: event.data.turn,
      step: event.data.step,
      dispatchSeq: expected.dispatchSeq,
      expectedShare: expected.share,
      reportedShare,
      promptTokens: inputTokens,
      expectedReadTokens: Math.round(expected.share * inputTokens),
      reportedReadTokens: cacheReadTokens,
    };
  }
}

/** Every request of a recorded session whose provider read less from its cache than the log says it could have. */
export async function cacheShortfalls(events: Iterable<LogEvent>, options: CacheReadOptions = {}): Promise<CacheShortfall[]> {
  const check = new ReadCheck(options);
  const out: CacheShortfall[] = [];
  for (const event of events) {
    const shortfall = await check.next(event);
    if (shortfall !== undefined) out.push(shortfall);
  }
  return out;
}

/** A running comparison: `idle()` resolves once every event appended so far is compared; `stop()` ends it. */
export interface CacheReadWatch {
  idle(): Promise<void>;
  stop(): void;
}

/**
 * Compares, while a session runs, each request's reported cache reads with those its log says it
 * should get, and calls `onShortfall` for each request that read less (events already in the log are
 * compared first). A failure to compare (an image object missing from `attachments`) goes to
 * `onError`, and the watch stops.
 */
export function watchCacheReads(log: EventLog, onShortfall: (shortfall: CacheShortfall) => void, options: CacheReadOptions & { readonly onError?: (error: unknown) => void } = {}): CacheReadWatch {
  const check = new ReadCheck(options);
  let stopped = false;
  let queue = Promise.resolve();
  // A batch appended while the watch starts may come both in the log's events and to the listener.
  let next = 0;
  const feed = (events: readonly LogEvent[]) => {
    queue = queue.then(async () => {
      for (const event of events) {
        if (stopped) return;
        if (event.seq < next) continue;
        next = event.seq + 1;
        const shortfall = await check.next(event);
        if (shortfall !== undefined) onShortfall(shortfall);
      }
    }).catch((error: unknown) => {
      stopped = true;
      options.onError?.(error);
    });
  };
  feed(log.slice());
  const unsubscribe = log.subscribe((batch) => feed(batch));
  return {
    idle: () => queue,
    stop: () => {
      stopped = true;
      unsubscribe();
    },
  };
}
