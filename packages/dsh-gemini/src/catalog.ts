import { LlmError, catalogEntry, deepFreeze, isDeepFrozen, type ModelDefaults, type ModelPrice, type ReasoningEffort, type RetiredModel } from "dsh-llm";

/** Gemini's thinking levels, as `generationConfig.thinkingConfig.thinkingLevel` takes them. */
export type ThinkingLevel = "minimal" | "low" | "medium" | "high";

const LEVELS: readonly ThinkingLevel[] = ["minimal", "low", "medium", "high"];

/** What Google documents about one Gemini model. */
export interface GeminiModelInfo {
  /** Prompt tokens the model takes. */
  readonly contextWindow: number;
  /** The most output tokens one call may ask for. */
  readonly maxOutputTokens: number;
  /** The thinking levels the model takes; a request asking another is refused before sending. */
  readonly thinkingLevels: readonly ThinkingLevel[];
  /** The level sent when a request names none, logged as an adapter default so resume is not a change. */
  readonly defaultThinkingLevel: ThinkingLevel;
  /** The fewest prompt tokens implicit caching serves from its cache, when Google documents it. */
  readonly minCacheTokens?: number;
  /** What the model costs per million tokens, when known (prompts up to 200k tokens). */
  readonly price?: ModelPrice;
}

/** The models this adapter knows, and the names it refuses. */
export interface GeminiCatalog {
  readonly models: Readonly<Record<string, GeminiModelInfo>>;
  readonly retired: Readonly<Record<string, RetiredModel>>;
}

const CHECKED = "2026-12-04";
const SOURCE = "Google's Gemini API pricing page (Standard, prompts up to 200k tokens)";

/** A price with cache reads at a tenth of input, implicit caching's discount. */
const price = (input: number, output: number, note = ""): ModelPrice => ({ input, cacheRead: input / 10, output, checked: CHECKED, source: `${SOURCE}${note}` });

const gemini3 = (levels: readonly ThinkingLevel[], extra: Partial<GeminiModelInfo> = {}): GeminiModelInfo => ({
  contextWindow: 1_048_576,
  maxOutputTokens: 65_536,
  thinkingLevels: levels,
  defaultThinkingLevel: "high",
  minCacheTokens: 4096,
  ...extra,
});

/**
 * Google's current Gemini models on the Gemini API (December 2026), with the names it shut down. Every
 * Gemini 3 model thinks; its level is sent explicitly, `high` unless the request names another.
 */
export const GEMINI_MODELS: GeminiCatalog = deepFreeze({
  models: {
    "gemini-3.8-flash": gemini3(["low", "medium", "high"], { price: price(0.75, 3.75, "; the launch rate through 2026-12-31, then $1.50 / $7.50") }),
    "gemini-3.7-flash": gemini3(["low", "medium", "high"]),
    "gemini-3.6-flash": gemini3(LEVELS),
    // Deprecated: Google forwards its requests to gemini-3.6-flash.
    "gemini-3.5-flash": gemini3(LEVELS, { price: price(1.5, 9) }),
    "gemini-3.5-flash-lite": gemini3(LEVELS, { price: price(0.3, 2.5) }),
    "gemini-3.1-pro-preview": gemini3(["low", "medium", "high"], { price: price(2, 12, "; $4 / $18 above 200k prompt tokens") }),
    "gemini-3.1-flash-lite": gemini3(LEVELS),
    "gemini-3-flash-preview": gemini3(LEVELS),
  },
  retired: {
    "gemini-3-pro-preview": { replacement: "gemini-3.1-pro-preview", retiredAt: "2026-03-09T00:00:00Z" },
    "gemini-3.1-flash-lite-preview": { replacement: "gemini-3.1-flash-lite", retiredAt: "2026-05-25T00:00:00Z" },
    "gemini-2.0-flash": { replacement: "gemini-3.1-flash-lite", retiredAt: "2026-06-01T00:00:00Z" },
    "gemini-2.0-flash-001": { replacement: "gemini-3.1-flash-lite", retiredAt: "2026-06-01T00:00:00Z" },
    "gemini-2.0-flash-lite": { replacement: "gemini-3.1-flash-lite", retiredAt: "2026-06-01T00:00:00Z" },
    "gemini-2.0-flash-lite-001": { replacement: "gemini-3.1-flash-lite", retiredAt: "2026-06-01T00:00:00Z" },
    "gemini-2.5-pro": { replacement: "gemini-3.8-flash", retiredAt: "2026-12-01T00:00:00Z" },
    "gemini-2.5-flash": { replacement: "gemini-3.5-flash-lite", retiredAt: "2026-12-01T00:00:00Z" },
  },
});

/** The model the CLI and the examples use unless told otherwise. */
export const DEFAULT_GEMINI_MODEL = "gemini-3.8-flash";

/**
 * What `catalog` says of `model`: its info, or `undefined` for a name it does not know (sent as is,
 * without defaults). A retired name throws `LLM_MODEL_RETIRED` naming its replacement.
 */
export function lookupGeminiModel(catalog: GeminiCatalog, model: string): GeminiModelInfo | undefined {
  return catalogEntry("google", catalog, model);
}

/** The defaults the adapter supplies for `model`: its thinking level, as a reasoning effort. */
export function geminiDefaults(catalog: GeminiCatalog, model: string): ModelDefaults {
  const info = lookupGeminiModel(catalog, model);
  return info === undefined ? {} : { reasoningEffort: info.defaultThinkingLevel };
}

/** What `model` costs per million tokens, from the catalog; `undefined` for a model without a known price. */
export function geminiPrice(catalog: GeminiCatalog, model: string): ModelPrice | undefined {
  return lookupGeminiModel(catalog, model)?.price;
}

/**
 * The thinking level a reasoning effort stands for (on `model`, when a catalog is given); an effort
 * Gemini has no level for (`none`, `xhigh`, `max`), or one the catalog says the model does not take,
 * is `LLM_INVALID_REQUEST`.
 */
export function thinkingLevelOf(effort: ReasoningEffort, model: string, catalog?: GeminiCatalog): ThinkingLevel {
  const allowed = (catalog === undefined ? undefined : lookupGeminiModel(catalog, model)?.thinkingLevels) ?? LEVELS;
  const level = allowed.find((known) => known === effort);
  if (level === undefined) {
    throw new LlmError("LLM_INVALID_REQUEST", `${model} takes the thinking levels ${allowed.join(", ")}: reasoningEffort ${effort} has no counterpart`, { retryable: false });
  }
  return level;
}

/** A catalog as the adapter holds it: frozen, so nothing running in the process can change what a later request is serialized from. */
export function frozenGeminiCatalog(catalog: GeminiCatalog): GeminiCatalog {
  return isDeepFrozen(catalog) ? catalog : deepFreeze(structuredClone(catalog));
}
