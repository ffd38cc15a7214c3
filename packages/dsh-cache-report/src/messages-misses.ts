import { CACHE_TTL_MS, ExplicitCache, LOOKBACK_BLOCKS, minCacheableTokens, type RenderedBlock } from "dsh-simulator";

/** One Messages API request as the cache report sees it: its blocks, model and dispatch time. */
export interface MessagesPrompt {
  readonly blocks: readonly RenderedBlock[];
  readonly model: string;
  /** When it was dispatched (the log's `request/dispatch` time), in epoch ms. */
  readonly time: number;
}


function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}

/** The blocks at which the request wrote an entry: marked, and at least the model's minimum long. */
function writePoints(prompt: MessagesPrompt): number[] {
  return prompt.blocks.flatMap((block, i) => (block.ttl !== undefined && block.cumulativeTokens >= minCacheableTokens(prompt.model) ? [i] : []));
}

/** Why the part of `current` that repeats `previous` was not read, by Anthropic's documented rules. */
function reasons(previous: MessagesPrompt, current: MessagesPrompt, stableTokens: number): string[] {
  const marks = current.blocks.flatMap((block, i) => (block.ttl === undefined ? [] : [i]));
  if (marks.length === 0) return ["no breakpoint in this request (cache policy none?)"];
  const points = writePoints(previous);
  if (points.length === 0) {
    const longest = Math.max(0, ...previous.blocks.filter((block) => block.ttl !== undefined).map((block) => block.cumulativeTokens));
    return [`prefix under the minimum: the previous request's longest marked prefix is ${longest} tokens, below ${minCacheableTokens(previous.model)} for ${previous.model}`];
  }
  const out: string[] = [];
  const ttl = previous.blocks[points.at(-1)!]!.ttl!;
  const gap = current.time - previous.time;
  if (gap >= CACHE_TTL_MS[ttl]) out.push(`TTL gap: ${duration(gap)} between requests, past the ${ttl} lifetime`);
  const kept = points.filter((point) => current.blocks[point]?.prefixKey === previous.blocks[point]!.prefixKey);
  const point = kept.at(-1);
  if (point === undefined) {
    out.push("the prefix changed before the previous request's first cache entry");
  } else if (!marks.some((mark) => mark >= point && mark - point <= LOOKBACK_BLOCKS)) {
    const nearest = marks.find((mark) => mark > point);
    out.push(`20-block lookback: the previous entry ends at block ${point}, ${nearest === undefined ? "after every breakpoint" : `${nearest - point} blocks before the next breakpoint`}`);
  } else if (previous.blocks[point]!.cumulativeTokens < stableTokens) {
    out.push(`unmarked: the previous request wrote nothing past block ${point} (${previous.blocks[point]!.cumulativeTokens} of ${stableTokens} repeated tokens)`);
  }
  return out.length > 0 ? out : ["not read for a reason the rules do not show"];
}

/**
 * Replays a session's Messages API requests against Anthropic's explicit-cache rules (breakpoints
 * only, the model's minimum, 20-block lookback, TTLs on the logged dispatch times) and, for each
 * request, says why any of the prefix it shares with the previous request would not be read.
 */
export class MessagesMissExplainer {
  readonly #cache = new ExplicitCache();
  #previous: MessagesPrompt | undefined;

  /** The reasons for `current` (none when everything repeated was read, or for the first request). */
  next(current: MessagesPrompt, stableTokens: number): string[] {
    const outcome = this.#cache.serve(current.blocks, minCacheableTokens(current.model), current.time);
    const previous = this.#previous;
    this.#previous = current;
    if (previous === undefined || outcome.read >= stableTokens || previous.model !== current.model) return [];
    return reasons(previous, current, stableTokens);
  }
}
