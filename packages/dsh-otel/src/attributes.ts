import type { EpochHeader } from "dsh-header";
import type { FinishReason, TokenUsage } from "dsh-llm";
import type { SpanAttributeValue } from "./span.js";

/** The conventions' `gen_ai.provider.name` for a dsh provider id: the well-known names where one applies, else the id. */
export function providerName(provider: string): string {
  if (provider === "openai" || provider.startsWith("openai-")) return "openai";
  if (provider === "anthropic" || provider.startsWith("anthropic-")) return "anthropic";
  if (provider === "deepseek") return "deepseek";
  // Google's Gemini API (AI Studio keys), as the conventions name it apart from Vertex AI.
  if (provider === "gemini") return "gcp.gemini";
  return provider;
}

/** A finish reason in the conventions' spelling (`tool_calls`, `content_filter`). */
export function finishReasonName(reason: FinishReason): string {
  return reason.replaceAll("-", "_");
}

/**
 * The usage attributes of the conventions, from a logged usage. Cache writes go under both names in
 * use while the conventions settle: `cache_creation` (the registry's) and `cache_write`.
 */
export function usageAttributes(usage: TokenUsage): Record<string, SpanAttributeValue> {
  return {
    "gen_ai.usage.input_tokens": usage.inputTokens,
    "gen_ai.usage.output_tokens": usage.outputTokens,
    "gen_ai.usage.cache_read.input_tokens": usage.cacheReadTokens,
    "gen_ai.usage.cache_creation.input_tokens": usage.cacheWriteTokens,
    "gen_ai.usage.cache_write.input_tokens": usage.cacheWriteTokens,
    ...(usage.reasoningTokens === undefined ? {} : { "gen_ai.usage.reasoning.output_tokens": usage.reasoningTokens }),
  };
}

/** The sum of two usages, for a turn's total. */
export function addUsage(total: TokenUsage | undefined, usage: TokenUsage): TokenUsage {
  if (total === undefined) return usage;
  const reasoning = (total.reasoningTokens ?? 0) + (usage.reasoningTokens ?? 0);
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    cacheReadTokens: total.cacheReadTokens + usage.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + usage.cacheWriteTokens,
    ...(total.reasoningTokens === undefined && usage.reasoningTokens === undefined ? {} : { reasoningTokens: reasoning }),
  };
}

/** The request settings of a header as the conventions name them: the model and what the request set (or the adapter defaulted). */
export function requestAttributes(header: EpochHeader): Record<string, SpanAttributeValue> {
  const { config, adapterDefaults } = header;
  const maxTokens = config.maxTokens ?? adapterDefaults?.maxTokens;
  const effort = config.reasoningEffort ?? adapterDefaults?.reasoningEffort;
  return {
    "gen_ai.provider.name": providerName(config.provider),
    "gen_ai.request.model": config.model,
    ...(maxTokens === undefined ? {} : { "gen_ai.request.max_tokens": maxTokens }),
    ...(config.temperature === undefined ? {} : { "gen_ai.request.temperature": config.temperature }),
    ...(config.stop === undefined ? {} : { "gen_ai.request.stop_sequences": [...config.stop] }),
    ...(effort === undefined ? {} : { "dsh.request.reasoning_effort": effort }),
    "gen_ai.request.stream": true,
  };
}

/**
 * A chat span's expected and reported cache reads: the share of the prompt the provider's cache rules
 * read for the logged request (`dsh.cache.expected_read_share`), beside the share the provider
 * reported (`dsh.cache.read_share`) and the expected share in the provider's tokens, where the span
 * carries usage.
 */
export function cacheReadAttributes(expectedShare: number, attributes: Readonly<Record<string, SpanAttributeValue>>): Record<string, SpanAttributeValue> {
  const input = attributes["gen_ai.usage.input_tokens"];
  const read = attributes["gen_ai.usage.cache_read.input_tokens"];
  if (typeof input !== "number" || typeof read !== "number" || input === 0) return { "dsh.cache.expected_read_share": expectedShare };
  return { "dsh.cache.expected_read_share": expectedShare, "dsh.cache.expected_read.input_tokens": Math.round(expectedShare * input), "dsh.cache.read_share": read / input };
}
