import { LlmError, deepFreeze, type JsonValue, type ReasoningEffort } from "dsh-llm";
import type { ClaudeModelInfo } from "./catalog.js";

/** `output_config.effort` per reasoning effort, for adaptive thinking. */
const ADAPTIVE_EFFORT: Readonly<Record<Exclude<ReasoningEffort, "none">, string>> = deepFreeze({
  minimal: "low",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "xhigh",
  max: "max",
});

/** `thinking.budget_tokens` per reasoning effort, for models that take a budget (at least 1024, below `max_tokens`). */
const BUDGET: Readonly<Record<Exclude<ReasoningEffort, "none">, number>> = deepFreeze({
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16_384,
  xhigh: 24_576,
  max: 32_768,
});

/**
 * The body fields that carry a reasoning effort, in key order: none for `none` (Claude does not think
 * unless asked); `thinking: {type: "adaptive"}` and `output_config: {effort}` on adaptive models
 * (`xhigh` becomes `high` where the model lacks it); `thinking: {type: "enabled", budget_tokens}` on
 * the others and on models the catalog does not know, with the budget kept below `max_tokens`.
 */
export function thinkingFields(effort: ReasoningEffort, maxTokens: number, info: ClaudeModelInfo | undefined): Record<string, JsonValue> {
  if (effort === "none") return {};
  if (info?.thinking === "adaptive") {
    const level = effort === "xhigh" && !info.xhighEffort ? "high" : ADAPTIVE_EFFORT[effort];
    return { thinking: { type: "adaptive" }, output_config: { effort: level } };
  }
  if (maxTokens <= 1024) {
    throw new LlmError("LLM_INVALID_REQUEST", `thinking needs maxTokens above 1024 (a budget of at least 1024 below it); maxTokens is ${maxTokens}`);
  }
  return { thinking: { type: "enabled", budget_tokens: Math.min(BUDGET[effort], maxTokens - 1) } };
}
