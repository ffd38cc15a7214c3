import { LlmError, catalogEntry, deepFreeze, isDeepFrozen, type ModelDefaults, type ModelPrice, type ReasoningEffort, type RetiredModel } from "dsh-llm";
export type { RetiredModel } from "dsh-llm";

/** What a provider documents about one of its models. */
export interface ModelInfo {
  /** Prompt plus output, in tokens. */
  readonly contextWindow: number;
  /** The most output tokens one call may ask for. */
  readonly maxOutputTokens: number;
  /** The reasoning effort the provider applies when a request names none (sent explicitly and logged as an adapter default). */
  readonly defaultReasoningEffort?: ReasoningEffort;
  /** Whether the model thinks before answering when the request does not say. */
  readonly thinkingByDefault: boolean;
  /** Whether user messages may hold images. */
  readonly imageInput: boolean;
  /** What the model costs per million tokens, when known. */
  readonly price?: ModelPrice;
}


/** The models one provider serves through this adapter, and the names it retired. */
export interface ModelCatalog {
  readonly provider: string;
  readonly models: Readonly<Record<string, ModelInfo>>;
  readonly retired: Readonly<Record<string, RetiredModel>>;
}

const deepseekV4: ModelInfo = { contextWindow: 1_048_576, maxOutputTokens: 393_216, defaultReasoningEffort: "high", thinkingByDefault: true, imageInput: false };

/** DeepSeek's off-peak rates; weekdays 01:00-04:00 and 06:00-10:00 UTC cost twice as much. A cache write costs what a miss does. */
const deepseekPrice = (cacheRead: number, input: number, output: number): ModelPrice => ({
  input,
  cacheRead,
  output,
  checked: "2026-12-04",
  source: "DeepSeek's Models & Pricing page (USD)",
  peak: { factor: 2, hoursUtc: [{ from: 1, to: 4 }, { from: 6, to: 10 }], weekdaysOnly: true },
});

/** OpenAI's standard rates: cache writes cost nothing extra on these models. */
const openaiPrice = (input: number, cacheRead: number, output: number): ModelPrice => ({ input, cacheRead, output, checked: "2026-12-04", source: "OpenAI's API pricing page (Standard)" });

/** DeepSeek's models (V4: thinking on by default at effort `high`; `deepseek-chat` and `deepseek-reasoner` retired). */
export const DEEPSEEK_MODELS: ModelCatalog = deepFreeze({
  provider: "deepseek",
  models: {
    "deepseek-v4-flash": { ...deepseekV4, price: deepseekPrice(0.003, 0.15, 0.6) },
    "deepseek-v4-pro": { ...deepseekV4, price: deepseekPrice(0.022, 0.66, 1.98) },
  },
  retired: {
    "deepseek-chat": { replacement: "deepseek-v4-flash", retiredAt: "2026-07-24T15:59:00Z" },
    "deepseek-reasoner": { replacement: "deepseek-v4-flash", retiredAt: "2026-07-24T15:59:00Z" },
  },
});

/** OpenAI's current Chat Completions models (reasoning models: `max_completion_tokens`, `reasoning_effort`). */
export const OPENAI_MODELS: ModelCatalog = deepFreeze({
  provider: "openai",
  models: {
    "gpt-5.5": { contextWindow: 1_050_000, maxOutputTokens: 128_000, thinkingByDefault: true, imageInput: true, price: openaiPrice(5, 0.5, 30) },
    "gpt-5.2": { contextWindow: 400_000, maxOutputTokens: 128_000, thinkingByDefault: true, imageInput: true, price: openaiPrice(1.75, 0.175, 14) },
    "gpt-5-mini": { contextWindow: 400_000, maxOutputTokens: 128_000, thinkingByDefault: true, imageInput: true, price: openaiPrice(0.25, 0.025, 2) },
  },
  retired: {},
});

/**
 * What `catalog` says of `model`: its info, or `undefined` for a name it does not know (which is
 * sent as is, without defaults). A retired name throws `LLM_MODEL_RETIRED` naming its replacement.
 */
export function lookupModel(catalog: ModelCatalog, model: string): ModelInfo | undefined {
  return catalogEntry(catalog.provider, catalog, model);
}

/** What `model` costs per million tokens, from the catalog; `undefined` for a model without a known price (a retired name throws `LLM_MODEL_RETIRED`). */
export function catalogPrice(catalog: ModelCatalog, model: string): ModelPrice | undefined {
  return lookupModel(catalog, model)?.price;
}

/** The defaults the adapter supplies for `model` (they land in the header's `adapterDefaults`); none for an unknown model. */
export function catalogDefaults(catalog: ModelCatalog, model: string): ModelDefaults {
  const info = lookupModel(catalog, model);
  return info?.defaultReasoningEffort === undefined ? {} : { reasoningEffort: info.defaultReasoningEffort };
}

/** A catalog as the adapter holds it: frozen, so nothing running in the process can change what a later request is serialized from. */
export function frozenCatalog(catalog: ModelCatalog): ModelCatalog {
  return isDeepFrozen(catalog) ? catalog : deepFreeze(structuredClone(catalog));
}
