import { ExplicitCache, OPENAI_GRANULARITY, PrefixCache, minCacheableTokens, serveGeminiTokens, serveResponsesCache } from "dsh-simulator";
import type { TokenizedRequest } from "./tokenized.js";
import { wireApiOf } from "dsh-wire";

/** What the modelled provider cache did for one request, in tokens. */
export interface ModelledCache {
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
}

/** A rebuilt request with its exact body and prompt tokens, as `tokenizedRequests` yields it. */
export type WireRequest = TokenizedRequest & { readonly wire: string };

/**
 * The providers' caches as the simulator implements their rules, for one session's requests in
 * dispatch order: Anthropic's explicit cache (breakpoints, the model's minimum, 20-block lookback,
 * TTLs on the dispatch times), OpenAI's Responses cache (implicit prefixes and GPT-5.6's breakpoints),
 * Gemini's implicit cache (from the model's minimum), and the automatic prefix caches of Chat Completions (DeepSeek's 64-token units, OpenAI's 1,024 then
 * 128). Responses writes on GPT-5.6 and later are billed at the standard write rate (`cacheWrite5m`
 * of the price table, their only lifetime being 30 minutes); other automatic caches write nothing billable.
 */
export class CacheModel {
  readonly #explicit = new ExplicitCache();
  readonly #prefix = new PrefixCache();

  /** Serves `request`, dispatched at `time` (epoch ms), and says what it read and wrote. */
  serve(request: WireRequest, time: number): ModelledCache {
    const promptTokens = request.tokens.length;
    const model = request.request.request.config.model;
    if (request.messages !== undefined) {
      const outcome = this.#explicit.serve(request.messages.blocks, minCacheableTokens(model), time);
      return { promptTokens, cacheReadTokens: outcome.read, cacheWrite5mTokens: outcome.written5m, cacheWrite1hTokens: outcome.written1h };
    }
    const wire = wireApiOf(request.request);
    if (wire.api === "responses") {
      const body = JSON.parse(request.wire) as Parameters<typeof serveResponsesCache>[1] & { prompt_cache_options?: { mode?: string } };
      const outcome = serveResponsesCache(this.#prefix, body, body.prompt_cache_options?.mode !== "explicit");
      return { promptTokens, cacheReadTokens: outcome.cachedTokens, cacheWrite5mTokens: outcome.cacheWriteTokens ?? 0, cacheWrite1hTokens: 0 };
    }
    // A Gemini request's tokens are its body's as the simulator counts them.
    if (wire.api === "gemini") return { promptTokens, cacheReadTokens: serveGeminiTokens(this.#prefix, request.tokens, model), cacheWrite5mTokens: 0, cacheWrite1hTokens: 0 };
    const grain = wire.api === "chat-completions" && wire.dialect === "openai" ? OPENAI_GRANULARITY : undefined;
    const read = this.#prefix.serve(model, request.tokens, grain);
    return { promptTokens, cacheReadTokens: read, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0 };
  }
}
