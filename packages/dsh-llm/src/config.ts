import { z } from "zod";
import type { DeepReadonly } from "./freeze.js";
import { jsonEquals, jsonObjectSchema } from "./json.js";

/** How hard a reasoning model should think; adapters map it to the provider's vocabulary. */
export const reasoningEffortSchema = z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]);
export type ReasoningEffort = DeepReadonly<z.output<typeof reasoningEffortSchema>>;

/** How long a provider keeps an explicitly written cache entry (Anthropic's `cache_control.ttl`). */
export const cacheTtlSchema = z.enum(["5m", "1h"]);
export type CacheTtl = DeepReadonly<z.output<typeof cacheTtlSchema>>;

/**
 * A JSON-schema response format: the answer's text must be JSON that the schema accepts. Each adapter
 * sends it in its provider's own form (`response_format`, `output_config.format`, `text.format`).
 */
export const responseFormatSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "response format names are 1-64 characters of [A-Za-z0-9_-]"),
  schema: jsonObjectSchema,
  /** OpenAI's strict mode: the schema is enforced exactly (every property required, no others). */
  strict: z.boolean().exactOptional(),
});
export type ResponseFormat = DeepReadonly<z.output<typeof responseFormatSchema>>;

/**
 * The per-call scalars of a request. `cachePolicy` names the adapter's rule for placing explicit
 * cache breakpoints and `cacheTtl` their lifetime, so a policy change is logged drift like any other. Absent fields are absent, never `undefined`;
 * `stop: []` and nested `extensions` are kept exactly as given.
 */
export const llmCallConfigSchema = z.strictObject({
  provider: z.string().min(1),
  model: z.string().min(1),
  reasoningEffort: reasoningEffortSchema.exactOptional(),
  temperature: z.number().min(0).max(2).exactOptional(),
  maxTokens: z.number().int().positive().exactOptional(),
  stop: z.array(z.string()).exactOptional(),
  cachePolicy: z.string().regex(/^[a-z0-9][a-z0-9.-]{0,63}$/, "cache policy names are 1-64 characters of [a-z0-9.-]").exactOptional(),
  cacheTtl: cacheTtlSchema.exactOptional(),
  /**
   * Asks the provider to compare each request with the previous answer and say why its cache missed
   * (Anthropic's `diagnostics`, OpenAI's `prompt_cache_options.comparison_response_id`). It changes
   * the bytes sent, so it is a logged choice like any other.
   */
  cacheDiagnostics: z.boolean().exactOptional(),
  /** The JSON schema the answer must follow (structured output), logged with every other choice. */
  responseFormat: responseFormatSchema.exactOptional(),
  extensions: jsonObjectSchema.exactOptional(),
});

export type LlmCallConfig = DeepReadonly<z.output<typeof llmCallConfigSchema>>;

/** Whether two call configs would produce the same request; key order inside `extensions` is irrelevant. */
export function callConfigEquals(a: LlmCallConfig, b: LlmCallConfig): boolean {
  return (
    a.provider === b.provider &&
    a.model === b.model &&
    a.reasoningEffort === b.reasoningEffort &&
    a.temperature === b.temperature &&
    a.maxTokens === b.maxTokens &&
    jsonEquals(a.stop, b.stop) &&
    a.cachePolicy === b.cachePolicy &&
    a.cacheTtl === b.cacheTtl &&
    a.cacheDiagnostics === b.cacheDiagnostics &&
    jsonEquals(a.responseFormat, b.responseFormat) &&
    jsonEquals(a.extensions, b.extensions)
  );
}
