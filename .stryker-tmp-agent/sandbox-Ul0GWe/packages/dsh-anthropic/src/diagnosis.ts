import type { CacheDiagnosis } from "dsh-llm";

/** The beta header Anthropic's cache diagnostics were introduced under (harmless once they are generally available). */
export const CACHE_DIAGNOSIS_BETA = "cache-diagnosis-2026-04-07";

/** Anthropic's `diagnostics` object, as a response carries it. */
export type AnthropicDiagnostics = { readonly cache_miss_reason?: { readonly type?: unknown; readonly cache_missed_input_tokens?: unknown } | null } | null;

/**
 * Anthropic's cache diagnosis in dsh's words. `null` means no divergence was found (`hit`) when the
 * request named a previous answer, and nothing to say otherwise; a `cache_miss_reason` of `null` is a
 * diagnosis still pending; `previous_message_not_found` and `unavailable` say there is no verdict.
 */
export function anthropicDiagnosis(diagnostics: AnthropicDiagnostics, comparing: boolean): CacheDiagnosis | undefined {
  if (diagnostics === null) return comparing ? { verdict: "hit" } : undefined;
  const reason = diagnostics.cache_miss_reason;
  if (reason === undefined) return undefined;
  if (reason === null) return { verdict: "pending" };
  const type = typeof reason.type === "string" && reason.type !== "" ? reason.type : "unknown";
  if (type === "previous_message_not_found") return { verdict: "not-found", reason: type };
  if (type === "unavailable") return { verdict: "unavailable", reason: type };
  const missed = reason.cache_missed_input_tokens;
  return { verdict: "miss", reason: type, ...(typeof missed === "number" && Number.isInteger(missed) && missed >= 0 ? { missedTokens: missed } : {}) };
}
