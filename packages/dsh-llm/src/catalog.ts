import { LlmError } from "./errors.js";

/** A model name a provider no longer serves, and the one to use instead. */
export interface RetiredModel {
  readonly replacement: string;
  /** When the provider stopped serving it, as an ISO 8601 date or instant. */
  readonly retiredAt: string;
}

/** The shape every adapter's model catalog shares: what it knows of each model, and the retired names. */
export interface CatalogTables<Info> {
  readonly models: Readonly<Record<string, Info>>;
  readonly retired: Readonly<Record<string, RetiredModel>>;
}

/**
 * What `catalog` says of `model`: its info, or `undefined` for a name it does not know. A retired
 * name throws `LLM_MODEL_RETIRED` (not retryable), one line naming `provider`, the date and the replacement.
 */
export function catalogEntry<Info>(provider: string, catalog: CatalogTables<Info>, model: string): Info | undefined {
  const retired = Object.hasOwn(catalog.retired, model) ? catalog.retired[model] : undefined;
  if (retired !== undefined) {
    throw new LlmError("LLM_MODEL_RETIRED", `${provider} retired ${model} on ${retired.retiredAt.slice(0, 10)}: use ${retired.replacement}`);
  }
  return Object.hasOwn(catalog.models, model) ? catalog.models[model] : undefined;
}
