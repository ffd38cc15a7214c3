import type { LlmCallConfig, ModelDefaults, ToolSchema } from "dsh-llm";
import type { AdapterDefaults, EpochHeader } from "./header.js";

const DEFAULTABLE = ["maxTokens", "reasoningEffort"] as const;

/**
 * Builds the header for a caller's selection: values the caller left out and the adapter
 * defaults are filled in and recorded in `adapterDefaults`. Empty `tools` and empty
 * `adapterDefaults` are omitted, as writers must.
 */
export function buildEpochHeader(
  selection: LlmCallConfig,
  modelDefaults: ModelDefaults,
  tools: readonly ToolSchema[] = [],
): EpochHeader {
  const config: { -readonly [K in keyof LlmCallConfig]: LlmCallConfig[K] } = { ...selection };
  const adapterDefaults: { -readonly [K in keyof AdapterDefaults]: AdapterDefaults[K] } = {};
  if (selection.maxTokens === undefined && modelDefaults.maxTokens !== undefined) {
    config.maxTokens = adapterDefaults.maxTokens = modelDefaults.maxTokens;
  }
  if (selection.reasoningEffort === undefined && modelDefaults.reasoningEffort !== undefined) {
    config.reasoningEffort = adapterDefaults.reasoningEffort = modelDefaults.reasoningEffort;
  }
  return {
    config,
    ...(tools.length > 0 ? { tools } : {}),
    ...(Object.keys(adapterDefaults).length > 0 ? { adapterDefaults } : {}),
  };
}

/**
 * The caller's selection restored from a logged header: adapter-defaulted values are left out, so
 * building the header again does not reclassify them as explicit choices (a spurious `change`).
 */
export function selectionFromHeader(header: EpochHeader): LlmCallConfig {
  const selection: { -readonly [K in keyof LlmCallConfig]: LlmCallConfig[K] } = { ...header.config };
  for (const key of DEFAULTABLE) {
    if (header.adapterDefaults?.[key] !== undefined) delete selection[key];
  }
  return selection;
}
