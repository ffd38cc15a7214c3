import { LlmError, catalogEntry, deepFreeze, isDeepFrozen, type ModelDefaults, type ModelPrice, type RetiredModel } from "dsh-llm";

/** How a Claude model is told to think. */
export type ThinkingStyle =
  /** `thinking: {type: "adaptive"}` with `output_config.effort` (Claude 4.6 and later; the only form from Opus 4.7 on). */
  | "adaptive"
  /** `thinking: {type: "enabled", budget_tokens}` (Claude 4.5 and earlier, and other Anthropic-format endpoints). */
  | "budget";

/** What Anthropic documents about one Claude model, as far as this adapter needs it. */
export interface ClaudeModelInfo {
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  /** Below this many prompt tokens a breakpoint writes nothing (and the API says nothing). */
  readonly minCacheableTokens: number;
  readonly thinking: ThinkingStyle;
  /** Whether `output_config.effort` accepts `xhigh` (Opus 4.7 and later). */
  readonly xhighEffort: boolean;
  /** Whether the model takes `temperature` (Opus 4.7 and later refuse sampling parameters). */
  readonly temperature: boolean;
  /** What the model costs per million tokens, when known. */
  readonly price?: ModelPrice;
}

/** A model name the provider no longer serves, and the one to use instead. */
export type RetiredClaudeModel = RetiredModel;

/** The models an Anthropic-format endpoint serves, and the names it retired. */
export interface ClaudeCatalog {
  readonly models: Readonly<Record<string, ClaudeModelInfo>>;
  readonly retired: Readonly<Record<string, RetiredClaudeModel>>;
}

/** Anthropic's standard rates: 5-minute writes at 1.25x input, 1-hour writes at 2x, reads at 0.1x (long-context and batch rates not modelled). */
const claudePrice = (input: number, output: number): ModelPrice => ({
  input,
  cacheWrite5m: input * 1.25,
  cacheWrite1h: input * 2,
  cacheRead: input / 10,
  output,
  checked: "2026-12-04",
  source: "Anthropic's pricing page (platform docs, Model pricing)",
});
const opusPrice = claudePrice(5, 25);
const sonnetPrice = claudePrice(3, 15);
const haikuPrice = claudePrice(1, 5);

const opus48: ClaudeModelInfo = { contextWindow: 1_000_000, maxOutputTokens: 128_000, minCacheableTokens: 1024, thinking: "adaptive", xhighEffort: true, temperature: false, price: opusPrice };
const opus47: ClaudeModelInfo = { ...opus48, minCacheableTokens: 2048 };
const opus46: ClaudeModelInfo = { ...opus48, minCacheableTokens: 4096, xhighEffort: false, temperature: true };
const sonnet46: ClaudeModelInfo = { contextWindow: 1_000_000, maxOutputTokens: 64_000, minCacheableTokens: 1024, thinking: "adaptive", xhighEffort: false, temperature: true, price: sonnetPrice };
const haiku45: ClaudeModelInfo = { contextWindow: 200_000, maxOutputTokens: 64_000, minCacheableTokens: 4096, thinking: "budget", xhighEffort: false, temperature: true, price: haikuPrice };
const sonnet45: ClaudeModelInfo = { ...haiku45, minCacheableTokens: 1024, price: sonnetPrice };
const opus45: ClaudeModelInfo = { ...haiku45, price: opusPrice };

/** Claude's current models on the Claude API (checked 2026-12; the Models API is the live source). */
export const CLAUDE_MODELS: ClaudeCatalog = deepFreeze({
  models: {
    "claude-opus-4-8": opus48,
    "claude-opus-4-7": opus47,
    "claude-opus-4-6": opus46,
    "claude-sonnet-4-6": sonnet46,
    "claude-haiku-4-5": haiku45,
    "claude-haiku-4-5-20251001": haiku45,
    "claude-sonnet-4-5": sonnet45,
    "claude-sonnet-4-5-20250929": sonnet45,
    "claude-opus-4-5": opus45,
    "claude-opus-4-5-20251101": opus45,
  },
  retired: {
    "claude-3-5-sonnet-20240620": { replacement: "claude-sonnet-4-6", retiredAt: "2025-10-22" },
    "claude-3-5-sonnet-20241022": { replacement: "claude-sonnet-4-6", retiredAt: "2025-10-22" },
    "claude-3-opus-20240229": { replacement: "claude-opus-4-8", retiredAt: "2026-01-05" },
  },
});

/** The model the CLI and the examples use when none is named. */
export const DEFAULT_CLAUDE_MODEL = "claude-sonnet-4-6";

/** The default output limit the adapter sends (and logs as an adapter default) when the caller sets none. */
export const DEFAULT_MAX_TOKENS = 16_384;

/** A model's info (`undefined` when the catalog does not know it); a retired name throws `LLM_MODEL_RETIRED`. */
export function lookupClaudeModel(catalog: ClaudeCatalog, model: string): ClaudeModelInfo | undefined {
  return catalogEntry("anthropic", catalog, model);
}

/**
 * The defaults the adapter supplies for `model` (a retired name throws `LLM_MODEL_RETIRED`): the
 * output limit (below every current model's maximum), the breakpoint policy and the cache lifetime.
 */
export function claudeDefaults(catalog: ClaudeCatalog, model: string): ModelDefaults {
  lookupClaudeModel(catalog, model);
  return { maxTokens: DEFAULT_MAX_TOKENS, cachePolicy: "rolling-v1", cacheTtl: "5m" };
}

/** What `model` costs per million tokens, from the catalog; `undefined` for a model without a known price. */
export function claudePriceOf(catalog: ClaudeCatalog, model: string): ModelPrice | undefined {
  return Object.hasOwn(catalog.models, model) ? catalog.models[model]!.price : undefined;
}

/** A catalog as adapters hold it: frozen, so nothing running in the process can change what a later request is serialized from. */
export function frozenCatalog<Catalog extends object>(catalog: Catalog): Catalog {
  return isDeepFrozen(catalog) ? catalog : (deepFreeze(structuredClone(catalog)) as Catalog);
}
