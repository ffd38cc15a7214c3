import { LlmError, catalogEntry, deepFreeze, isDeepFrozen, type ModelDefaults, type ModelPrice, type RetiredModel, type ReasoningEffort } from "dsh-llm";

/** What OpenAI documents about one model on the Responses API. */
export interface ResponsesModelInfo {
  /** Prompt plus output, in tokens. */
  readonly contextWindow: number;
  /** The most output tokens one call may ask for. */
  readonly maxOutputTokens: number;
  /** The effort sent when a request names none, logged as an adapter default so resume is not a change. */
  readonly defaultReasoningEffort: ReasoningEffort;
  /**
   * How the model's prompt cache is steered: `breakpoints` (GPT-5.6 and later: `prompt_cache_options`
   * and explicit `prompt_cache_breakpoint`s on content) or `retention` (`prompt_cache_retention` only).
   */
  readonly cacheControls: "breakpoints" | "retention";
  /** Whether user messages may hold images. */
  readonly imageInput: boolean;
  /** What the model costs per million tokens, when known. */
  readonly price?: ModelPrice;
}

/** A model name the provider no longer serves, and the one to use instead. */
export type RetiredResponsesModel = RetiredModel;

/** The models this adapter knows, and the names it refuses. */
export interface ResponsesCatalog {
  readonly models: Readonly<Record<string, ResponsesModelInfo>>;
  readonly retired: Readonly<Record<string, RetiredResponsesModel>>;
}

const CHECKED = "2026-12-04";

/** GPT-5.6's list rates as OpenAI announced them: reads at 0.1x input, breakpoint writes at 1.25x (`gpt-5.6` is Sol). */
const sixSixPrice = (input: number, output: number): ModelPrice => ({ input, cacheRead: input / 10, cacheWrite5m: input * 1.25, output, checked: CHECKED, source: "OpenAI's GPT-5.6 announcement (list rates)" });
/** OpenAI's standard rates for the automatic cache, which bills no writes. */
const olderPrice = (input: number, cacheRead: number, output: number): ModelPrice => ({ input, cacheRead, output, checked: CHECKED, source: "OpenAI's API pricing page (Standard)" });

const sixSix = (contextWindow: number, price: ModelPrice): ResponsesModelInfo => ({ contextWindow, maxOutputTokens: 128_000, defaultReasoningEffort: "medium", cacheControls: "breakpoints", imageInput: true, price });
const older = (contextWindow: number, price: ModelPrice): ResponsesModelInfo => ({ contextWindow, maxOutputTokens: 128_000, defaultReasoningEffort: "medium", cacheControls: "retention", imageInput: true, price });

/**
 * OpenAI's current reasoning models on the Responses API (December 2026): the GPT-5.6 family takes
 * explicit cache breakpoints, GPT-5.5 and GPT-5.4 only a retention. Efforts are sent explicitly.
 */
export const RESPONSES_MODELS: ResponsesCatalog = deepFreeze({
  models: {
    "gpt-5.6": sixSix(1_050_000, sixSixPrice(5, 30)),
    "gpt-5.6-sol": sixSix(1_050_000, sixSixPrice(5, 30)),
    "gpt-5.6-terra": sixSix(1_050_000, sixSixPrice(2.5, 15)),
    "gpt-5.6-luna": sixSix(400_000, sixSixPrice(1, 6)),
    "gpt-5.5": older(1_050_000, olderPrice(5, 0.5, 30)),
    "gpt-5.4": older(1_050_000, olderPrice(2.5, 0.25, 15)),
    "gpt-5.4-mini": older(400_000, olderPrice(0.75, 0.075, 4.5)),
  },
  retired: {
    "gpt-4.5-preview": { replacement: "gpt-5.5", retiredAt: "2025-07-14T00:00:00Z" },
  },
});

/** The model the CLI and the examples use unless told otherwise. */
export const DEFAULT_RESPONSES_MODEL = "gpt-5.6";

/**
 * What `catalog` says of `model`: its info, or `undefined` for a name it does not know (sent as is,
 * without defaults). A retired name throws `LLM_MODEL_RETIRED` naming its replacement.
 */
export function lookupResponsesModel(catalog: ResponsesCatalog, model: string): ResponsesModelInfo | undefined {
  return catalogEntry("openai", catalog, model);
}

/** What `model` costs per million tokens, from the catalog; `undefined` for a model without a known price (a retired name throws `LLM_MODEL_RETIRED`). */
export function responsesPrice(catalog: ResponsesCatalog, model: string): ModelPrice | undefined {
  return lookupResponsesModel(catalog, model)?.price;
}

/** The defaults the adapter supplies for `model`: its effort, and on models with breakpoints the `rolling-v1` policy. */
export function responsesDefaults(catalog: ResponsesCatalog, model: string): ModelDefaults {
  const info = lookupResponsesModel(catalog, model);
  if (info === undefined) return {};
  return { reasoningEffort: info.defaultReasoningEffort, ...(info.cacheControls === "breakpoints" ? { cachePolicy: "rolling-v1" } : {}) };
}

/** A catalog as the adapter holds it: frozen, so nothing running in the process can change what a later request is serialized from. */
export function frozenResponsesCatalog(catalog: ResponsesCatalog): ResponsesCatalog {
  return isDeepFrozen(catalog) ? catalog : deepFreeze(structuredClone(catalog));
}
