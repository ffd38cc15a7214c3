import type { JsonObject, LlmCallConfig, ModelDefaults, ToolSchema } from "dsh-llm";
import type { AdapterDefaults, EpochHeader } from "./header.js";

const DEFAULTABLE = ["maxTokens", "reasoningEffort", "cachePolicy", "cacheTtl"] as const;

/**
 * Builds the header for a caller's selection: values the caller left out and the adapter
 * defaults are filled in and recorded in `adapterDefaults`; the adapter's `wire` profile is kept as
 * given. Empty `tools`, `adapterDefaults` and `wire` are omitted, as writers must.
 */
export function buildEpochHeader(
  selection: LlmCallConfig,
  modelDefaults: ModelDefaults,
  tools: readonly ToolSchema[] = [],
  wire?: JsonObject,
): EpochHeader {
  const config: { -readonly [K in keyof LlmCallConfig]: LlmCallConfig[K] } = { ...selection };
  const adapterDefaults: { -readonly [K in keyof AdapterDefaults]: AdapterDefaults[K] } = {};
  for (const key of DEFAULTABLE) fillDefault(config, adapterDefaults, key, selection[key], modelDefaults[key]);
  return {
    config,
    ...(tools.length > 0 ? { tools } : {}),
    ...(Object.keys(adapterDefaults).length > 0 ? { adapterDefaults } : {}),
    ...(wire !== undefined && Object.keys(wire).length > 0 ? { wire } : {}),
  };
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** Fills one config value the caller left out from the model defaults, recording that it came from there. */
function fillDefault<K extends (typeof DEFAULTABLE)[number]>(
  config: Writable<LlmCallConfig>,
  adapterDefaults: Writable<AdapterDefaults>,
  key: K,
  chosen: LlmCallConfig[K],
  fallback: ModelDefaults[K],
): void {
  if (chosen !== undefined || fallback === undefined) return;
  config[key] = fallback as LlmCallConfig[K];
  adapterDefaults[key] = fallback as AdapterDefaults[K];
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
