import type { Granularity, PrefixCache } from "./prefix-cache.js";
import { renderGeminiPrompt, type GeminiBody } from "./gemini-prompt.js";
import { signsCalls } from "./gemini-rules.js";
import { segmentsTokens } from "./prompt.js";

/** The model a Gemini streaming path names (`/v1beta/models/{model}:streamGenerateContent`), or `undefined` for another path. */
export function geminiRoute(path: string): string | undefined {
  const match = /^\/v1beta\/models\/([^/:]+):streamGenerateContent$/.exec(path);
  return match === null ? undefined : decodeURIComponent(match[1]!);
}

/** The fewest prompt tokens Google's implicit cache serves from, per its documentation: 4096 on Gemini 3, 2048 on 2.5, else 1024. */
export function geminiCacheMinimum(model: string): number {
  // Gemini 3 and later, the models that also sign their calls.
  if (signsCalls(model)) return 4096;
  return model.startsWith("gemini-2.5") ? 2048 : 1024;
}

/** What the implicit cache did for one Gemini request. */
export interface GeminiCacheOutcome {
  readonly promptTokens: number;
  readonly cachedTokens: number;
  /** The prompt as the model reads it: what response ids are derived from. */
  readonly prompt: string;
}

/** Serves a Gemini prompt from the implicit prefix cache: prefixes from the model's minimum on, in 128-token units. */
export function serveGeminiCache(cache: PrefixCache, body: GeminiBody, model: string): GeminiCacheOutcome {
  const segments = renderGeminiPrompt(body);
  const { tokens } = segmentsTokens(segments);
  return { promptTokens: tokens.length, cachedTokens: serveGeminiTokens(cache, tokens, model), prompt: segments.join("") };
}

/** {@link serveGeminiCache} for a prompt already counted ({@link geminiPromptTokens}): how many of its leading tokens were cached. */
export function serveGeminiTokens(cache: PrefixCache, tokens: ArrayLike<number>, model: string): number {
  const grain: Granularity = { first: geminiCacheMinimum(model), unit: 128 };
  return cache.serve(`gemini:${model}`, tokens, grain);
}

/** The prompt tokens of a Gemini body, as the simulator counts them (for `dsh cache`). */
export function geminiPromptTokens(body: GeminiBody): Uint32Array {
  return segmentsTokens(renderGeminiPrompt(body)).tokens;
}
